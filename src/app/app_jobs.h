/* app_jobs.h — the work that runs the model (the Actions of action.h that do model work:
 * a step, a forced token, switching to a branch, a new prompt; a head's ablation
 * flipped; a lesson beat rebuilt; one beat of a lesson's opening check) as "jobs":
 * split into the model work (job_run, safe on a worker thread) and the follow-up on the
 * app (job_finish: the status line, closing the editor; main thread). In the window
 * (app->async) a job runs through the platform (platform.h: natively its own thread
 * while the loop keeps handling events, so a slow step on a big GPT-2 never freezes the
 * window; in the browser within a frame); without one (tests, headless) it runs inline.
 * No SDL drawing. */
#ifndef APP_JOBS_H
#define APP_JOBS_H

#include "app.h"

/* The one entry for an Action from the window: model work becomes a JOB_ACTION (rank:
 * where a forced token was shown, for its message), anything else is applied at once to
 * the session and app->view. Returns action_apply's result for the inline kinds (-1 with
 * the problem on the status line), 0 for a job. */
int app_act(AppState *app, const Action *a, int rank);

/* Starts the job: inline when app->async is 0, else as a platform job (app->busy
 * stays 1 until app_jobs_poll sees it finish). Ignored while another job runs. */
void app_submit(AppState *app, const AppJob *job);

/* When the compare panel is enlarged and its columns are not the current prompt's,
 * starts a JOB_COMPARE (nothing while another job runs). A compare job does not call
 * it again, so a failure (the context full) stays on the status line and in the panel. */
void app_compare_refresh(AppState *app);

/* Main thread: if the running job has finished, joins it, applies job_finish
 * and returns 1 (something changed); else 0. */
int app_jobs_poll(AppState *app);

/* Blocks until a running job has finished (at quit), then finishes it. */
void app_jobs_wait(AppState *app);

/* The inside panels' numbers (lens grid, attribution, journey: inside_fill.h) behind the
 * drawing: a window frame that found them missing (inside_wanted) gets a worker that
 * computes them while the loop keeps drawing "computing…" and handling input; the
 * session is only read meanwhile. Start (main thread, when no job runs; inline when
 * app->async is 0), poll (1 when it landed: redraw), stop (cancels between two lens
 * columns and joins: before anything changes the session; safe when none runs). */
void app_inside_start(AppState *app);
int app_inside_poll(AppState *app);
void app_inside_stop(AppState *app);

#endif
