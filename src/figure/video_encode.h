/* video_encode.h — a sequence of RGBA frames into an MP4 (H.264, yuv420p), a WebM (VP9)
 * or a GIF (palettegen + paletteuse) file, through FFmpeg's libraries, with provenance
 * in the container's metadata. The only file of inferscope that includes FFmpeg: the
 * frames come drawn (export_video.h draws them with the PNG's raster path); this file
 * neither draws nor knows what a figure is.
 *
 *     VideoEncoder *v;
 *     video_encoder_open(&v, &(VideoEncodeOptions){VIDEO_MP4, 1920, 1080, 30}, &err);
 *     video_encoder_add(v, rgba, 60, &err);         // this picture for 60 frames (2 s)
 *     video_encoder_write(v, "out/steps.mp4", meta, n, &wo, &err);
 *     video_encoder_free(v);
 *
 * Frames are encoded as they are added and the packets kept (a held frame costs a few
 * bytes); the container is written at the end, when the provenance (the state of the
 * last picture) is known: Matroska puts its tags before the frames. The file is written
 * like every output (file_write.h): an exclusive temporary in the target folder,
 * renamed when complete; the muxer writes onto its descriptor through a custom
 * AVIOContext. A GIF keeps every distinct picture (not each held frame) in memory
 * until the last: its palette is computed over all of them. */
#ifndef VIDEO_ENCODE_H
#define VIDEO_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "file_write.h"
#include "png_write.h"

/* The formats, named by their file extension. */
typedef enum VideoKind { VIDEO_MP4 = 0, VIDEO_WEBM, VIDEO_GIF, VIDEO_KIND_COUNT } VideoKind;

#define VIDEO_FPS_MAX 60
#define VIDEO_MAX_SIDE 4096 /* H.264 level 5.1 (what PowerPoint and browsers decode) */

/* "mp4", "webm", "gif" (NULL for a bad value). */
const char *video_kind_name(VideoKind k);
/* The kind of a file name by its extension (case-insensitive): 0, or -1 with err
 * ("x.avi: not a video name: give FILE.mp4, FILE.webm or FILE.gif"). */
int video_kind_of_path(const char *path, VideoKind *out, ErrorMsg *err);
/* The frame rate a kind is made at unless --fps says otherwise (30; GIF 10). */
int video_default_fps(VideoKind k);
/* 0 if the kind can be made at w x h and fps, else -1 with err naming the option
 * (fps 1..60, GIF delays are whole hundredths of a second, yuv420p needs even sides,
 * at most VIDEO_MAX_SIDE). */
int video_check(VideoKind k, int w, int h, int fps, ErrorMsg *err);

typedef struct VideoEncodeOptions {
    VideoKind kind;
    int width, height; /* pixels */
    int fps;           /* frames per second, video_check'ed */
} VideoEncodeOptions;

typedef struct VideoEncoder VideoEncoder;

/* Sets up the codec (and for a GIF the palette filter graph). Writes nothing yet. */
int video_encoder_open(VideoEncoder **out, const VideoEncodeOptions *o, ErrorMsg *err);
/* Adds a picture (tight RGBA, width*4 a row, borrowed for the call) shown for n_frames
 * frames (>= 1). */
int video_encoder_add(VideoEncoder *v, const uint8_t *rgba, int n_frames, ErrorMsg *err);
/* Frames added so far. */
long video_encoder_frames(const VideoEncoder *v);
/* Ends the stream and writes the file at path (never replacing anything: wo->overwrite
 * is ignored) with the provenance: MP4/WebM one metadata tag per entry of meta (MP4
 * writes arbitrary keys with use_metadata_tags; Matroska spells them in capitals,
 * video_meta_read folds them back), a GIF one comment extension of "key=value" lines
 * (GIF has no other place for text; the values are single-line ASCII). Errors name the
 * path (folder missing, disk full, encoder failure); nothing is left behind on error.
 * Call once. */
int video_encoder_write(VideoEncoder *v, const char *path, const PngText *meta, size_t n_meta,
                        const FileWriteOptions *wo, ErrorMsg *err);
/* Frees everything; safe on NULL. */
void video_encoder_free(VideoEncoder *v);

#endif
