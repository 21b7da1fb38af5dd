/* video_kind.c — the video formats by name and what each can be made at (video_encode.h);
 * no FFmpeg here, so the browser build (which has none) shares these checks. */
#include "video_encode.h"

#include <string.h>
#include <strings.h>

/* By VideoKind: the extension, which is the name. */
static const struct {
    const char *name;
} KINDS[VIDEO_KIND_COUNT] = {
    [VIDEO_MP4] = {"mp4"},
    [VIDEO_WEBM] = {"webm"},
    [VIDEO_GIF] = {"gif"},
};

const char *video_kind_name(VideoKind k) { return (int)k >= 0 && k < VIDEO_KIND_COUNT ? KINDS[k].name : NULL; }

int video_kind_of_path(const char *path, VideoKind *out, ErrorMsg *err) {
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    for (int k = 0; dot && k < VIDEO_KIND_COUNT; k++)
        if (strcasecmp(dot + 1, KINDS[k].name) == 0) {
            *out = (VideoKind)k;
            return 0;
        }
    return error_set(err, "%.200s: not a video name: give FILE.mp4, FILE.webm or FILE.gif", path);
}

int video_default_fps(VideoKind k) { return k == VIDEO_GIF ? 10 : 30; }

int video_check(VideoKind k, int w, int h, int fps, ErrorMsg *err) {
    if (fps < 1 || fps > VIDEO_FPS_MAX) return error_set(err, "--fps %d is outside 1..%d", fps, VIDEO_FPS_MAX);
    /* a GIF frame's delay is a whole number of hundredths of a second */
    if (k == VIDEO_GIF && 100 % fps != 0)
        return error_set(err, "--fps %d: a GIF's frame delays are whole hundredths of a second: use 1, 2, 4, 5, "
                              "10, 20, 25 or 50", fps);
    if (w > VIDEO_MAX_SIDE || h > VIDEO_MAX_SIDE)
        return error_set(err, "a %dx%d video is larger than players decode (at most %d a side)", w, h, VIDEO_MAX_SIDE);
    /* yuv420p stores colour for 2x2 pixels: an odd side has no whole last block */
    if (k != VIDEO_GIF && (w % 2 || h % 2))
        return error_set(err, "%s needs even sides, not %dx%d (try --size %dx%d)", KINDS[k].name, w, h, w + w % 2,
                         h + h % 2);
    return 0;
}
