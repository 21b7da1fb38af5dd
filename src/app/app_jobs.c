/* app_jobs.c — model work off the event loop (see app_jobs.h). One job at a time, run
 * through the platform (platform.h: natively one short-lived thread per job, in the
 * browser within the frame), its completion polled by the frame. While a job runs only
 * the worker touches the Session (and, for a lesson beat, the lesson and the beat
 * overlay, and for a lesson's opening check its snapshots): the frame does not draw and
 * keeps input other than quit and window events for after the job (app.c). */
#include <string.h>

#include "app_jobs.h"

#include "app_class.h"
#include "inside_fill.h"
#include "platform.h"
#include "token_label.h"

/* JOB_ABLATE: the mask on screen with head (layer, head) flipped, or emptied when
 * layer < 0; the tokens on screen run again under it (session_set_ablation). */
static int job_ablate(Session *s, AppJob *j) {
    Gpt2Ablation ab = {0};
    int rc = gpt2_ablation_copy(&ab, &s->trace.ablation, &j->err);
    if (rc == 0 && !ab.off) rc = gpt2_ablation_init(&ab, &s->model.config, &j->err);
    if (rc == 0 && j->layer < 0) gpt2_ablation_clear(&ab);
    else if (rc == 0) {
        int on = !gpt2_ablation_is_off(&ab, GPT2_ABL_HEAD, j->layer, j->head);
        rc = gpt2_ablation_set(&ab, GPT2_ABL_HEAD, j->layer, j->head, on, &j->err);
    }
    if (rc == 0) rc = session_set_ablation(s, &ab, &j->err);
    gpt2_ablation_free(&ab);
    return rc;
}

/* JOB_BEAT: the beat rebuilt from its snapshot (lesson_goto_beat) and its live numbers
 * ({step_ms} ...) measured now, once per beat shown. Writes the session, the job's view
 * copy and AppState.beat / beat_caps, none of which the loop reads while busy. */
static int job_beat(AppState *app, AppJob *j) {
    j->beat_msg[0] = 0;
    if (lesson_goto_beat(&app->lesson, j->beat, &app->session, &j->view, &app->beat, &j->err)) return -1;
    if (lesson_facts_captions(&app->beat, &app->session, NULL, &app->beat_caps, j->beat_msg, sizeof j->beat_msg))
        return 0; /* the beat is shown; the message says which placeholder failed */
    j->beat_msg[0] = 0;
    return 0;
}

/* The model work (runs on the worker thread): actions through action_apply, no view. */
static void job_run(AppState *app, AppJob *j) {
    Session *s = &app->session;
    j->had_branches = s->n_branches;
    switch (j->kind) {
    case JOB_ACTION: j->rc = action_apply(s, NULL, &j->act, &j->err); break;
    case JOB_ABLATE: j->rc = job_ablate(s, j); break;
    case JOB_BEAT: j->rc = job_beat(app, j); break;
    case JOB_COMPARE: j->rc = session_compare_update(s, &j->err); break;
    case JOB_CHECK: j->rc = lesson_check_step(&app->lesson, s, &j->view, &app->beat, &j->err); break;
    default: j->rc = 0; break;
    }
}

/* The follow-up on the app (main thread): what the status line says. */
static void job_finish(AppState *app, const AppJob *j) {
    Session *s = &app->session;
    app->dirty = 1;
    if (j->kind == JOB_CHECK) {
        /* rc 1 is "more beats", not a failure; may start the first beat's job (last) */
        app_lesson_checked(app, j->rc, &j->err);
        return;
    }
    /* the compare panel on screen follows the prompt: a step, a new prompt or a beat
     * that changed it starts the columns again (this job is over: app->busy is 0) */
    if (j->kind != JOB_COMPARE) app_compare_refresh(app);
    if (j->rc) {
        /* a failed new prompt keeps the editor open so the text can be fixed */
        app_set_status(app, 1, "%s", j->err.text);
        return;
    }
    char lb[TOKEN_LABEL_CAP];
    switch (j->kind) {
    case JOB_ACTION:
        switch (j->act.kind) {
        case ACT_STEP:
            app->status[0] = 0; /* stepping is the normal case: a clean status line */
            app->status_is_error = 0;
            break;
        case ACT_FORCE:
            token_label(&s->tok, j->act.id, TOKEN_LABEL_DEFAULT, lb, sizeof lb);
            app_set_status(app, 0, "took \"%s\" (rank %d)%s: branch %d of %d", lb, j->rank,
                           s->n_branches > j->had_branches ? ", a new branch" : "", s->cur + 1, s->n_branches);
            break;
        case ACT_SWITCH:
            app_set_status(app, 0, "branch %d of %d", s->cur + 1, s->n_branches);
            break;
        case ACT_PROMPT:
            app->editing = 0;
            app->view.selected_token = -1;
            app_set_status(app, 0, "new prompt: %d tokens", s->n_prompt);
            break;
        default:
            break;
        }
        break;
    case JOB_ABLATE:
        if (s->trace.ablation.n_off == 0)
            app_set_status(app, 0, "every part of the model is on again: the original numbers");
        else if (j->layer >= 0)
            app_set_status(app, 0, "head L%dH%d %s (Shift+X: every part on again)", j->layer, j->head,
                           gpt2_ablation_is_off(&s->trace.ablation, GPT2_ABL_HEAD, j->layer, j->head)
                               ? "switched off: the model runs without it" : "on again");
        break;
    case JOB_COMPARE: {
        const SeqCompare *c = &s->cmp.result;
        app_set_status(app, 0, "%d settings side by side, %d tokens each, the same dice (seed %llu); C: back",
                       c->n_cols, c->n_new, (unsigned long long)c->seed);
        break;
    }
    case JOB_BEAT: {
        int top_n = app->view.top_n; /* the window's bar count survives the beat's view */
        app->view = j->view;
        if (top_n > 0) app->view.top_n = top_n;
        if (j->beat_msg[0]) app_set_status(app, 1, "%s", j->beat_msg);
        else
            app_set_status(app, 0, "lesson: beat %d of %d (PageDown/Space next, PageUp back, B blank)", j->beat + 1,
                           app->beat.n_beats);
        app_class_lesson_beat(app, j->beat); /* a round opened or revealed on this beat (room open) */
        break;
    }
    default:
        break;
    }
}

static void worker_main(void *arg) {
    AppState *app = arg;
    job_run(app, &app->job);
}

void app_submit(AppState *app, const AppJob *job) {
    if (app->busy) return;
    app_inside_stop(app); /* the job changes the session the inside worker reads */
    app->job = *job;
    if (app->async) {
        app->busy = 1;
        app->busy_since_ms = platform_now_ms();
        if (platform_job_start(&app->job_worker, "inferscope-step", worker_main, app) == 0) return;
        app->busy = 0; /* no thread: do it inline rather than not at all */
    }
    job_run(app, &app->job);
    job_finish(app, &app->job);
}

int app_act(AppState *app, const Action *a, int rank) {
    app->dirty = 1;
    if (action_is_model_work(a->kind)) {
        AppJob j = {.kind = JOB_ACTION, .act = *a, .rank = rank};
        app_submit(app, &j);
        return 0;
    }
    ErrorMsg err;
    if (action_apply(&app->session, &app->view, a, &err) == 0) return 0;
    app_set_status(app, 1, "%s", err.text);
    return -1;
}

void app_compare_refresh(AppState *app) {
    if (app->view.focus != VIZ_PANEL_COMPARE || app->busy || session_compare_current(&app->session)) return;
    AppJob j = {.kind = JOB_COMPARE};
    app_submit(app, &j);
}

int app_jobs_poll(AppState *app) {
    if (!app->busy || !platform_job_done(&app->job_worker)) return 0;
    app->busy = 0;
    job_finish(app, &app->job);
    return 1;
}

void app_jobs_wait(AppState *app) {
    app_inside_stop(app);
    if (!app->busy) return;
    platform_job_wait(&app->job_worker);
    app->busy = 0;
    job_finish(app, &app->job);
}

static void inside_worker_main(void *arg) {
    AppState *app = arg;
    inside_compute(app->session.inside, &app->session, app->inside_needs, app->inside_vs);
}

void app_inside_start(AppState *app) {
    InsideData *d = app->session.inside;
    unsigned needs = inside_wanted(d);
    if (app->busy || platform_job_running(&app->inside_worker) || !needs) return;
    d->want_needs = 0;
    app->inside_needs = needs;
    app->inside_vs = d->want_vs;
    atomic_store(&d->cancel, 0);
    if (app->async) {
        d->running = 1;
        if (platform_job_start(&app->inside_worker, "inferscope-inside", inside_worker_main, app) == 0) return;
        d->running = 0; /* no thread: do it inline rather than not at all */
    }
    inside_compute(d, &app->session, needs, app->inside_vs);
    app->dirty = 1;
}

int app_inside_poll(AppState *app) {
    if (!platform_job_done(&app->inside_worker)) return 0;
    app->session.inside->running = 0;
    app->dirty = 1;
    return 1;
}

void app_inside_stop(AppState *app) {
    if (!platform_job_running(&app->inside_worker)) return;
    InsideData *d = app->session.inside;
    atomic_store(&d->cancel, 1);
    platform_job_wait(&app->inside_worker);
    d->running = 0;
    atomic_store(&d->cancel, 0);
    app->dirty = 1;
}
