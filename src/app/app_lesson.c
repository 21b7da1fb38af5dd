/* app_lesson.c — presenter mode: a lesson (lesson.h) played beat by beat in the
 * window. Every beat is rebuilt exactly as a replay from the lesson's start would
 * leave it (lesson_goto_beat, from the snapshot taken when the opening check ran it), so
 * PageUp shows exactly what was there before, at once whatever the lesson's length. A
 * beat is a job (app_jobs.c), like every piece of model work, and so is each beat of
 * the check before the first is shown (JOB_CHECK: the window draws between them). The presenter keys are rows
 * of the key table (keys.c). Not the lesson format (lesson.c) and not the replay rules
 * (lesson_run.c). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_jobs.h"
#include "platform.h"

void app_lesson_show(AppState *app, int k) {
    if (k < 0) k = 0;
    if (k >= app->beat.n_beats) k = app->beat.n_beats - 1;
    /* the view the beat starts from is the one on screen (lesson_goto_beat replaces what
     * the beat sets); the job gives it back with the beat's changes */
    AppJob j = {.kind = JOB_BEAT, .beat = k, .view = app->view};
    app_submit(app, &j);
    app->dirty = 1;
}

int app_lesson_open(AppState *app, Lesson *lesson, const char *note, ErrorMsg *err) {
    app->lesson = *lesson;
    memset(lesson, 0, sizeof *lesson); /* ownership moved */
    memset(&app->beat, 0, sizeof app->beat);
    snprintf(app->beat.note, sizeof app->beat.note, "%s", note ? note : "");
    if (lesson_facts_check(&app->lesson, err)) {
        lesson_free(&app->lesson);
        return -1;
    }
    /* every beat is run once before the first is shown (a lesson with an error is never
     * opened half-way), but a beat at a time: a long lesson is seconds of model work, in
     * which the window draws how far it got instead of not opening */
    lesson_check_begin(&app->lesson);
    app->lesson_checking = 1;
    app->lesson_first_beat = 0;
    app->lesson_failed = 0;
    app->status[0] = 0; /* a hint like "? shows the keys" would be refused until the check is done */
    app->dirty = 1;
    return 0;
}

void app_lesson_check_next(AppState *app) {
    if (!app->lesson_checking || app->busy || app->quit) return;
    AppJob j = {.kind = JOB_CHECK, .view = app->view};
    app_submit(app, &j);
}

void app_lesson_checked(AppState *app, int rc, const ErrorMsg *err) {
    app->dirty = 1; /* the progress, or the first beat */
    if (rc > 0) return; /* the next beat after a frame that shows this one done */
    app->lesson_checking = 0;
    if (rc < 0) {
        /* the window stays what it was before the lesson: no presenter mode */
        lesson_free(&app->lesson);
        memset(&app->beat, 0, sizeof app->beat);
        app->lesson_failed = 1;
        app->lesson_error = *err;
        app_set_status(app, 1, "%s", err->text);
        /* natively the app ends with the error, as it did when the check ran before the
         * window opened (exit 2, one line); the page stays with it on its status line */
        if (app->async && platform_can_quit()) app->quit = 1;
        return;
    }
    app->in_lesson = 1;
    /* the presenter rows of the key table go first in the help overlay */
    app->n_help = keys_help_mode(app->help, APP_HELP_MAX, 1);
    app_lesson_show(app, app->lesson_first_beat);
}

int app_lesson_refuses(AppState *app, AppIntent intent) {
    if (!app->lesson_checking || intent == INTENT_QUIT || intent == INTENT_FULLSCREEN || intent == INTENT_THEME)
        return 0;
    char p[sizeof app->progress_line];
    app_lesson_progress(app, p, sizeof p);
    app_set_status(app, 0, "%s: keys work once every beat has held", p);
    app->dirty = 1;
    return 1;
}

int app_lesson_start(AppState *app, Lesson *lesson, const char *note, ErrorMsg *err) {
    if (app_lesson_open(app, lesson, note, err)) return -1;
    while (app->lesson_checking) {
        app_lesson_check_next(app);
        app_jobs_wait(app);
    }
    if (app->lesson_failed) return error_set(err, "%s", app->lesson_error.text);
    return 0;
}

int app_lesson_progress(const AppState *app, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    if (!app->lesson_checking) return 0;
    size_t k = lesson_check_done(&app->lesson) + 1, n = app->lesson.n_beats;
    snprintf(buf, cap, "checking the lesson on the model: beat %zu of %zu", k < n ? k : n, n);
    return 1;
}

void app_lesson_frame(const AppState *app, VizFrame *f, const char **caps, int cap_max) {
    const LessonBeatView *bv = &app->beat;
    int nc = 0;
    for (int i = 0; i < app->beat_caps.n && nc < cap_max; i++) caps[nc++] = app->beat_caps.line[i];
    f->title = bv->beat == 0 ? app->lesson.title : NULL;
    f->captions = caps;
    f->n_captions = nc;
    f->question = bv->question;
    f->beat_label = bv->beat_label;
}
