/* app_jobs.h — the session calls that run the model (a step, a forced token, switching
 * to a branch, a new prompt) as "jobs": split into the model work (job_run: Session
 * only, safe on a worker thread) and the follow-up on the app (job_finish: the status
 * line, closing the editor; main thread). With a worker (the window) a job runs on its
 * own thread while the loop keeps handling events, so a slow step on a big GPT-2 never
 * freezes the window; without one (tests, headless) it runs inline. No SDL drawing. */
#ifndef APP_JOBS_H
#define APP_JOBS_H

#include "app.h"

/* Starts the job: inline when app->async is 0, else on a worker thread (app->busy
 * stays 1 until app_jobs_poll sees it finish). Ignored while another job runs. */
void app_submit(AppState *app, const AppJob *job);

/* Main thread: if the running job has finished, joins its thread, applies job_finish
 * and returns 1 (something changed); else 0. */
int app_jobs_poll(AppState *app);

/* Blocks until a running job has finished (at quit), then finishes it. */
void app_jobs_wait(AppState *app);

#endif
