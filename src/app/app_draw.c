/* app_draw.c — one frame of the window: the Session and view become a VizFrame
 * (frame_fill, the same path the exporter and lessons take), the app adds its status
 * line and key help, and draw_frame draws everything. Reads the app, writes only the
 * hit regions and the composed status text (both outputs of the frame). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_class.h"
#include "frame_fill.h"
#include "panels.h"

/* The status text: the prompt being edited (with a caret), else the last message. */
static const char *compose_status(AppState *app, int *is_error) {
    *is_error = 0;
    if (app->editing) {
        /* U+258F LEFT ONE EIGHTH BLOCK as the caret */
        snprintf(app->status_line, sizeof app->status_line, "prompt: %s\xE2\x96\x8F   (Enter applies, Esc cancels)%s%s",
                 app->edit, app->status_is_error ? "  \xE2\x80\x94 " : "", app->status_is_error ? app->status : "");
        *is_error = app->status_is_error;
        return app->status_line;
    }
    if (!app->status[0]) return NULL;
    snprintf(app->status_line, sizeof app->status_line, "%s", app->status);
    *is_error = app->status_is_error;
    return app->status_line;
}

int app_draw(AppState *app, Viz *viz, Rect r) {
    VizFrame f;
    frame_fill(&f, &app->session, &app->view);
    f.status = compose_status(app, &f.status_is_error);
    f.klass = app->klass ? &app->klass->panel.view : NULL;
    f.keys = app->help;
    f.n_keys = app->n_help;
    const char *caps[LESSON_MAX_CAPTIONS + 1];
    if (app_lesson_progress(app, app->progress_line, sizeof app->progress_line)) {
        /* the lesson is being checked: its title and how far, not the half-built beats */
        f.title = app->lesson.title;
        f.progress = app->progress_line;
        f.progress_done = (int)lesson_check_done(&app->lesson);
        f.progress_total = (int)app->lesson.n_beats;
    } else if (app->in_lesson) {
        /* a slide, drawn exactly as `export --lesson` draws it: no interaction hints, and
         * only an error (or the prompt being edited) in the status line */
        app_lesson_frame(app, &f, caps, LESSON_MAX_CAPTIONS + 1);
        f.view.slide = 1;
        f.view.print = 1;
        if (!f.status_is_error && !app->editing) f.status = NULL;
        f.last_step_ms = -1; /* a slide shows state, not timings */
    }
    app->hits.n = 0;
    return draw_frame(viz, r, &f, &app->hits);
}
