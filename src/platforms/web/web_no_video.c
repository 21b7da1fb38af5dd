/* web_no_video.c — the video encoder and reader of the browser build: FFmpeg's libraries
 * are not built for WebAssembly here, so `export --video` and the window's W say so in one
 * line (the window shows it on the status line) instead of failing to link. The formats'
 * names and checks are video_kind.c's, shared with the native build. */
#include "video_encode.h"
#include "video_meta_read.h"

#define WEB_NO_VIDEO "a video is made by the native app only (the browser build writes PNG)"

int video_encoder_open(VideoEncoder **out, const VideoEncodeOptions *o, ErrorMsg *err) {
    (void)o;
    *out = NULL;
    return error_set(err, WEB_NO_VIDEO);
}
int video_encoder_add(VideoEncoder *v, const uint8_t *rgba, int n_frames, ErrorMsg *err) {
    (void)v, (void)rgba, (void)n_frames;
    return error_set(err, WEB_NO_VIDEO);
}
long video_encoder_frames(const VideoEncoder *v) { return (void)v, 0; }
int video_encoder_write(VideoEncoder *v, const char *path, const PngText *meta, size_t n_meta,
                        const FileWriteOptions *wo, ErrorMsg *err) {
    (void)v, (void)path, (void)meta, (void)n_meta, (void)wo;
    return error_set(err, WEB_NO_VIDEO);
}
void video_encoder_free(VideoEncoder *v) { (void)v; }

/* A figure dropped on the page is a PNG; a video's name is still recognised so the
 * message says what is missing rather than "not a PNG". */
int video_meta_is_video(const char *path) {
    VideoKind k;
    ErrorMsg ignored;
    return video_kind_of_path(path, &k, &ignored) == 0;
}
int video_meta_read(const char *path, PngTextChunks *out, ErrorMsg *err) {
    (void)out;
    return error_set(err, "%.200s: reading a video's state needs the native app (drop a PNG here)", path);
}
