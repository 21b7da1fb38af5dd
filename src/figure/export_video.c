/* export_video.c — pictures of states → video_encode (see export_video.h). */
#include "export_video.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "video_encode.h"

struct ExportVideo {
    VideoEncoder *enc;
    char path[FILE_WRITE_PATH_MAX];
    int fps;
    int frames_per_beat; /* round(beat_seconds * fps), at least 1 */
    int pictures;
    int w, h;            /* pixels: the logical size x scale */
};

int export_video_open(ExportVideo **out, const char *path, const ExportOptions *opt, int fps, double beat_seconds,
                      ErrorMsg *err) {
    *out = NULL;
    VideoKind kind;
    if (video_kind_of_path(path, &kind, err)) return -1;
    if (strlen(path) >= FILE_WRITE_PATH_MAX) return error_set(err, "%.200s...: the name is too long", path);
    if (!(beat_seconds > 0.0 && beat_seconds <= EXPORT_VIDEO_BEAT_MAX))
        return error_set(err, "--beat-seconds %g is outside (0, %g]", beat_seconds, EXPORT_VIDEO_BEAT_MAX);
    if (fps == 0) fps = video_default_fps(kind);
    int scale = opt->scale ? opt->scale : 1;
    int w = (opt->width ? opt->width : EXPORT_DEFAULT_W) * scale, h = (opt->height ? opt->height : EXPORT_DEFAULT_H) * scale;
    if (video_check(kind, w, h, fps, err)) return -1;
    if (file_write_check(path, 0, err)) return -1;
    ExportVideo *v = calloc(1, sizeof *v);
    if (!v) return error_set(err, "video: out of memory");
    snprintf(v->path, sizeof v->path, "%s", path);
    v->fps = fps;
    v->w = w;
    v->h = h;
    long f = lround(beat_seconds * fps);
    v->frames_per_beat = f < 1 ? 1 : (int)f;
    VideoEncodeOptions vo = {.kind = kind, .width = w, .height = h, .fps = fps};
    if (video_encoder_open(&v->enc, &vo, err)) {
        free(v);
        return -1;
    }
    *out = v;
    return 0;
}

int export_video_add(ExportVideo *v, const Session *s, const VizView *view, const ExportOptions *opt, ErrorMsg *err) {
    ExportImage img;
    if (export_render(s, view, opt, &img, err)) return -1;
    int rc = 0;
    if (img.w != v->w || img.h != v->h) /* a contact sheet grows: not a video's picture */
        rc = error_set(err, "video: a %dx%d picture in a %dx%d video", img.w, img.h, v->w, v->h);
    else
        rc = video_encoder_add(v->enc, img.rgba, v->frames_per_beat, err);
    export_image_free(&img);
    if (rc == 0) v->pictures++;
    return rc;
}

int export_video_write(ExportVideo *v, const Session *s, const VizView *view, const ExportOptions *opt,
                       ErrorMsg *err) {
    FigureMeta meta = {0};
    if (export_figure_meta(s, view, opt, &meta, err)) return -1;
    FileWriteOptions wo = {.write_fn = opt->write_fn, .write_ctx = opt->write_ctx};
    int rc = video_encoder_write(v->enc, v->path, meta.text, meta.n, &wo, err);
    figure_meta_free(&meta);
    return rc;
}

int export_video_pictures(const ExportVideo *v) { return v ? v->pictures : 0; }
long export_video_frames(const ExportVideo *v) { return v ? video_encoder_frames(v->enc) : 0; }
double export_video_seconds(const ExportVideo *v) { return v ? (double)export_video_frames(v) / v->fps : 0.0; }
const char *export_video_path(const ExportVideo *v) { return v ? v->path : ""; }

void export_video_free(ExportVideo *v) {
    if (!v) return;
    video_encoder_free(v->enc);
    free(v);
}
