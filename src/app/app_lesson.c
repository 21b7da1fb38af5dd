/* app_lesson.c — presenter mode: a lesson (lesson.h) played beat by beat in the
 * window. Every beat is rebuilt exactly as a replay from the lesson's start would
 * leave it (lesson_goto_beat, from the snapshot taken when lesson_check ran it), so
 * PageUp shows exactly what was there before, at once whatever the lesson's length. A
 * beat is a job (app_jobs.c), like every piece of model work. The presenter keys are rows
 * of the key table (keys.c). Not the lesson format (lesson.c) and not the replay rules
 * (lesson_run.c). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_jobs.h"

void app_lesson_show(AppState *app, int k) {
    if (k < 0) k = 0;
    if (k >= app->beat.n_beats) k = app->beat.n_beats - 1;
    /* the view the beat starts from is the one on screen (lesson_goto_beat replaces what
     * the beat sets); the job gives it back with the beat's changes */
    AppJob j = {.kind = JOB_BEAT, .beat = k, .view = app->view};
    app_submit(app, &j);
    app->dirty = 1;
}

int app_lesson_start(AppState *app, Lesson *lesson, const char *note, ErrorMsg *err) {
    app->lesson = *lesson;
    memset(lesson, 0, sizeof *lesson); /* ownership moved */
    memset(&app->beat, 0, sizeof app->beat);
    snprintf(app->beat.note, sizeof app->beat.note, "%s", note ? note : "");
    if (lesson_facts_check(&app->lesson, err) ||
        lesson_check(&app->lesson, &app->session, &app->view, &app->beat, err)) {
        lesson_free(&app->lesson);
        return -1;
    }
    app->in_lesson = 1;
    /* the presenter rows of the key table go first in the help overlay */
    app->n_help = keys_help_mode(app->help, APP_HELP_MAX, 1);
    app_lesson_show(app, 0);
    return 0;
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
