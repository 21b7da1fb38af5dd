/* app_record.c — W: the steps taken, recorded as a video of exported figures (see
 * app_record.h). */
#include "app_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_export.h"
#include "export_video.h"
#include "figure_meta.h"
#include "platform.h"

/* The provenance of what the figure of this state shows, as one string: two states
 * with the same string draw the same picture (a mouse move changes nothing). */
static char *state_key(AppState *app, const ExportOptions *opt) {
    FigureMeta m = {0};
    ErrorMsg err;
    char *json = NULL;
    size_t len = 0;
    if (export_figure_meta(&app->session, &app->view, opt, &m, &err) == 0) figure_meta_json(&m, &json, &len, &err);
    figure_meta_free(&m);
    return json;
}

/* Adds the state's picture unless it is the last one's. */
static int record_picture(AppState *app, ErrorMsg *err) {
    ExportOptions opt;
    ExportOverlay ov;
    app_export_options(app, app->record_w, app->record_h, APP_EXPORT_FRAME, &opt, &ov);
    char *key = state_key(app, &opt);
    if (key && app->record_last && strcmp(key, app->record_last) == 0) {
        free(key);
        return 0;
    }
    int rc = export_video_add(app->recording, &app->session, &app->view, &opt, err);
    free(app->record_last);
    app->record_last = key;
    return rc;
}

static void record_drop(AppState *app) {
    export_video_free(app->recording);
    app->recording = NULL;
    free(app->record_last);
    app->record_last = NULL;
}

void app_record_stop(AppState *app) {
    if (!app->recording) return;
    ExportOptions opt;
    ExportOverlay ov;
    app_export_options(app, app->record_w, app->record_h, APP_EXPORT_FRAME, &opt, &ov);
    ErrorMsg err;
    int n = export_video_pictures(app->recording);
    if (export_video_write(app->recording, &app->session, &app->view, &opt, &err))
        app_set_status(app, 1, "recording: %s", err.text);
    else {
        const char *shown = platform_offer_file(export_video_path(app->recording), "video/mp4");
        app_set_status(app, 0, "recorded %d step%s (%.0f s) into %s", n, n == 1 ? "" : "s",
                       export_video_seconds(app->recording), shown ? shown : export_video_path(app->recording));
    }
    record_drop(app);
}

void app_record_toggle(AppState *app, int w, int h) {
    if (app->recording) {
        app_record_stop(app);
        return;
    }
    ErrorMsg err;
    ExportOptions opt;
    ExportOverlay ov;
    app->record_w = w - w % 2; /* H.264's yuv420p stores colour per 2x2 pixels */
    app->record_h = h - h % 2;
    app_export_options(app, app->record_w, app->record_h, APP_EXPORT_FRAME, &opt, &ov);
    const char *dir = opt.dir && *opt.dir ? opt.dir : EXPORT_DEFAULT_DIR;
    char path[FILE_WRITE_PATH_MAX];
    if (export_make_dir(dir, &err)) {
        app_set_status(app, 1, "recording: %s", err.text);
        return;
    }
    /* numbered like E's figures, so it sorts among them */
    snprintf(path, sizeof path, "%s/%04d-recording.mp4", dir, export_next_number(dir));
    if (export_video_open(&app->recording, path, &opt, 0, EXPORT_VIDEO_BEAT_DEFAULT, &err) ||
        record_picture(app, &err)) {
        app_set_status(app, 1, "recording: %s", err.text);
        record_drop(app);
        return;
    }
    app_set_status(app, 0, "recording your steps into %s: W stops", path);
}

void app_record_poll(AppState *app) {
    if (!app->recording || app->busy) return;
    ErrorMsg err;
    if (record_picture(app, &err)) {
        app_set_status(app, 1, "recording stopped: %s", err.text);
        record_drop(app);
    }
}
