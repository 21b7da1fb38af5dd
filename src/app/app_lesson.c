/* app_lesson.c — presenter mode: a lesson (lesson.h) played beat by beat in the
 * window. Every beat is rebuilt exactly as a replay from the lesson's start would
 * leave it (lesson_goto_beat, from the snapshot taken when lesson_check ran it), so
 * PageUp shows exactly what was there before, at once whatever the lesson's length. Presenter
 * remotes send PageUp/PageDown; Space and the arrows work too. Not the lesson format
 * (lesson.c) and not the replay rules (lesson_run.c). */
#include <stdio.h>
#include <string.h>

#include "app.h"

static void show_beat(AppState *app, int k) {
    ErrorMsg err;
    int top_n = app->view.top_n;
    if (lesson_goto_beat(&app->lesson, k, &app->session, &app->view, &app->beat, &err)) {
        /* lesson_check ran every beat at start, so this only happens if memory ran out */
        app_set_status(app, 1, "%s", err.text);
    } else {
        app_set_status(app, 0, "lesson: beat %d of %d (PageDown/Space next, PageUp back, B blank)", k + 1,
                       app->beat.n_beats);
    }
    /* live numbers ({step_ms} ...) are measured now, once per beat shown */
    char m[200];
    if (lesson_facts_captions(&app->beat, &app->session, NULL, &app->beat_caps, m, sizeof m))
        app_set_status(app, 1, "%s", m);
    if (top_n > 0) app->view.top_n = top_n;
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
    /* the presenter keys go first in the help overlay */
    static const VizKeyHelp PRESENTER[] = {
        {"PageDown / Space / \xE2\x86\x92", "next beat of the lesson"},
        {"PageUp / \xE2\x86\x90", "previous beat (rebuilt exactly)"},
        {"Home", "first beat"},
    };
    size_t n = sizeof PRESENTER / sizeof PRESENTER[0];
    if ((size_t)app->n_help + n <= APP_HELP_MAX) {
        memmove(app->help + n, app->help, (size_t)app->n_help * sizeof app->help[0]);
        memcpy(app->help, PRESENTER, sizeof PRESENTER);
        app->n_help += (int)n;
    }
    show_beat(app, 0);
    return 0;
}

int app_lesson_key(AppState *app, const AppInput *in) {
    if (in->kind != APP_INPUT_KEY || (in->mod & (KMOD_CTRL | KMOD_ALT | KMOD_GUI))) return 0;
    int k = app->beat.beat, n = app->beat.n_beats;
    switch (in->key) {
    case SDLK_PAGEDOWN: case SDLK_SPACE: case SDLK_RIGHT:
        if (k + 1 < n) show_beat(app, k + 1);
        else app_set_status(app, 0, "lesson: that was the last beat (%d of %d)", n, n);
        return 1;
    case SDLK_PAGEUP: case SDLK_LEFT:
        if (k > 0) show_beat(app, k - 1);
        return 1;
    case SDLK_HOME:
        show_beat(app, 0);
        return 1;
    default:
        return 0;
    }
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
