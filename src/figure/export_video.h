/* export_video.h — a figure that moves: the same figure export_png draws (the raster
 * path, so a held frame IS the PNG of that state), one picture per state, held for a
 * beat, encoded by video_encode.h into an MP4, WebM or GIF whose metadata is the
 * provenance of the last state (--open-figure reopens it). Used by `export --video`
 * (a step or a lesson beat per picture) and the window's recording key.
 * Not the encoder (video_encode.h) and not the renderer (export.h). */
#ifndef EXPORT_VIDEO_H
#define EXPORT_VIDEO_H

#include "export.h"

#define EXPORT_VIDEO_BEAT_MAX 600.0 /* seconds a picture may be held */
#define EXPORT_VIDEO_BEAT_DEFAULT 2.0

typedef struct ExportVideo ExportVideo;

/* Checks everything before any picture is drawn: path's extension (.mp4 .webm .gif), that
 * path may be created (its folder exists, the name is free: nothing is overwritten), the
 * size (opt's size x scale) and fps for that format (fps 0 = the format's default),
 * beat_seconds in (0, EXPORT_VIDEO_BEAT_MAX]. opt->format is ignored. */
int export_video_open(ExportVideo **out, const char *path, const ExportOptions *opt, int fps, double beat_seconds,
                      ErrorMsg *err);
/* Draws the session's state as export_png would (opt->overlay: a lesson slide) and holds
 * it for one beat. */
int export_video_add(ExportVideo *v, const Session *s, const VizView *view, const ExportOptions *opt, ErrorMsg *err);
/* Writes the file (export_figure_meta of this state as its metadata). */
int export_video_write(ExportVideo *v, const Session *s, const VizView *view, const ExportOptions *opt,
                       ErrorMsg *err);
/* Pictures added; frames and seconds so far; the file's path. */
int export_video_pictures(const ExportVideo *v);
long export_video_frames(const ExportVideo *v);
double export_video_seconds(const ExportVideo *v);
const char *export_video_path(const ExportVideo *v);
/* Safe on NULL; an unwritten video leaves nothing behind. */
void export_video_free(ExportVideo *v);

#endif
