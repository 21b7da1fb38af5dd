/* app_export.c — E / Shift+E (see app_export.h); the written figure goes to the user
 * through the platform (platform_offer_file: natively it stays in the folder). */
#include "app_export.h"

#include "app_class.h"

#include "export.h"
#include "lesson_slide.h"
#include "platform.h"

void app_export_options(AppState *app, int w, int h, AppExport what, ExportOptions *opt, ExportOverlay *ov) {
    *opt = export_options_default();
    opt->dir = app->export_dir;
    opt->panel = what == APP_EXPORT_PANEL ? (VizPanel)app->export_panel : VIZ_PANEL_FRAME;
    opt->width = w;
    opt->height = h;
    opt->ui_scale = app->ui_scale;
    opt->theme = app->theme;
    opt->assets_dir = app->assets_dir;
    opt->sha_cache = &app->sha_cache; /* hash the weights once, not on every export */
    opt->klass = app->klass ? &app->klass->panel.view : NULL; /* the class panel as on screen */
    /* E in a lesson: the slide with its title, captions and counter, as the class sees it */
    if (app->in_lesson && what == APP_EXPORT_FRAME) {
        lesson_slide_overlay(&app->lesson, &app->beat, &app->beat_caps, ov); /* the lines on screen */
        opt->overlay = ov;
        opt->panel = app->view.focus;
        opt->stem = NULL;
    }
}

void app_export(AppState *app, int w, int h, int scale) {
    ExportOptions opt;
    ExportOverlay ov;
    app_export_options(app, w, h, app->export_request, &opt, &ov);
    opt.scale = scale; /* the window's pixel density (2 or 4 on a high-DPI screen), 1 elsewhere */
    char path[1024];
    ErrorMsg err;
    if (export_png(&app->session, &app->view, &opt, path, sizeof path, &err)) {
        app_set_status(app, 1, "export: %s", err.text);
        return;
    }
    /* the figure is complete: hand it to the user (in the browser, a download) */
    const char *shown = platform_offer_file(path, "image/png");
    if (shown) app_set_status(app, 0, "exported %s", shown);
    else app_set_status(app, 1, "export: %s was written but could not be offered as a download", path);
}
