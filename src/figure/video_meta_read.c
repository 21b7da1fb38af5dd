/* video_meta_read.c — a video's provenance through libavformat (see video_meta_read.h).
 * The file may come from anywhere: the demuxer is chosen by the extension (a playlist
 * named x.mp4 is not followed), only the file protocol is allowed, and every key and
 * value is bounded and checked before the strict parser (figure_meta_parse) sees it. */
#include "video_meta_read.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <libavformat/avformat.h>

#include "file_write.h"

#define VIDEO_META_MAX_ENTRIES 256
#define VIDEO_META_MAX_BYTES (8u << 20) /* all values together: 65,536 ids fit */

/* By extension: libavformat's demuxer (mp4 is read by "mov", webm by "matroska"). */
static const struct {
    const char *ext, *demuxer;
} DEMUXERS[] = {{"mp4", "mov"}, {"webm", "matroska"}, {"gif", "gif"}};

static const char *demuxer_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    for (size_t i = 0; dot && i < sizeof DEMUXERS / sizeof DEMUXERS[0]; i++)
        if (strcasecmp(dot + 1, DEMUXERS[i].ext) == 0) return DEMUXERS[i].demuxer;
    return NULL;
}

int video_meta_is_video(const char *path) { return demuxer_of(path) != NULL; }

/* The key as figure_meta writes it: Matroska stores tag names in capitals ("INFERSCOPE:
 * MODEL", "TITLE"). NULL for keys that are not provenance (the container's own). */
static const char *canonical_key(const char *key, char *buf, size_t cap) {
    static const char *const PNG_KEYS[] = {"Title", "Software", "Source"};
    for (size_t i = 0; i < sizeof PNG_KEYS / sizeof PNG_KEYS[0]; i++)
        if (strcasecmp(key, PNG_KEYS[i]) == 0) return PNG_KEYS[i];
    size_t n = strlen(key);
    if (strncasecmp(key, "inferscope:", 11) != 0 || n >= cap) return NULL;
    for (size_t i = 0; i <= n; i++) buf[i] = (char)tolower((unsigned char)key[i]);
    return buf;
}

/* Adds key=value (value of len bytes) unless the same pair is there already (MP4 and
 * Matroska may hold a title twice); a key with two different values is refused. */
static int add_entry(PngTextChunks *t, const char *what, const char *key, const char *value, size_t len,
                     size_t *total, ErrorMsg *err) {
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->items[i].keyword, key) == 0) {
            if (strlen(t->items[i].value) == len && memcmp(t->items[i].value, value, len) == 0) return 0;
            return error_set(err, "%s: provenance key %s is written twice with different values", what, key);
        }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)value[i] < 0x20 || (unsigned char)value[i] > 0x7E)
            return error_set(err, "%s: provenance %s holds a byte 0x%02X (not printable ASCII)", what, key,
                             (unsigned char)value[i]);
    *total += len;
    if (t->count >= VIDEO_META_MAX_ENTRIES || *total > VIDEO_META_MAX_BYTES)
        return error_set(err, "%s: more provenance than a figure writes (%zu entries, %zu bytes)", what, t->count,
                         *total);
    PngTextEntry *items = realloc(t->items, (t->count + 1) * sizeof *items);
    if (!items) return error_set(err, "%s: out of memory", what);
    t->items = items;
    char *k = strdup(key), *v = malloc(len + 1);
    if (!k || !v) {
        free(k);
        free(v);
        return error_set(err, "%s: out of memory", what);
    }
    memcpy(v, value, len);
    v[len] = 0;
    t->items[t->count++] = (PngTextEntry){k, v};
    return 0;
}

/* A GIF's comment: "key=value" lines (video_encode.c). */
static int add_comment_lines(PngTextChunks *t, const char *what, const char *text, size_t *total, ErrorMsg *err) {
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        char key[128], kbuf[128];
        if (!eq || (size_t)(eq - p) >= sizeof key)
            return error_set(err, "%s: the GIF comment is not inferscope provenance (a line without key=value)", what);
        memcpy(key, p, (size_t)(eq - p));
        key[eq - p] = 0;
        const char *canon = canonical_key(key, kbuf, sizeof kbuf);
        if (canon && add_entry(t, what, canon, eq + 1, n - (size_t)(eq - p) - 1, total, err)) return -1;
        p += n + (nl ? 1 : 0);
    }
    return 0;
}

int video_meta_read(const char *path, PngTextChunks *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    const char *demuxer = demuxer_of(path);
    if (!demuxer) return error_set(err, "%s: not a video name (.mp4, .webm or .gif)", path);
    /* a regular file only: a FIFO or device named like a video must not block */
    struct stat st;
    if (stat(path, &st) != 0) return error_set(err, "%s: cannot open (no such file)", path);
    if (!S_ISREG(st.st_mode)) return error_set(err, "%s: not a regular file", path);
    av_log_set_level(AV_LOG_QUIET); /* errors come back as values, reported once */
    char url[FILE_WRITE_PATH_MAX + 8];
    snprintf(url, sizeof url, "file:%s", path);
    AVFormatContext *ic = NULL;
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "protocol_whitelist", "file", 0);
    int rc = avformat_open_input(&ic, url, av_find_input_format(demuxer), &opts);
    av_dict_free(&opts);
    if (rc < 0) return error_set(err, "%s: not a readable %s video", path, demuxer);
    int vs = av_find_best_stream(ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vs < 0 && avformat_find_stream_info(ic, NULL) >= 0) vs = av_find_best_stream(ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vs < 0) {
        avformat_close_input(&ic);
        return error_set(err, "%s: has no video stream", path);
    }
    out->width = (uint32_t)ic->streams[vs]->codecpar->width;
    out->height = (uint32_t)ic->streams[vs]->codecpar->height;
    /* a GIF's comment comes after its frames: the demuxer sees it on the way */
    if (strcmp(demuxer, "gif") == 0) {
        AVPacket *p = av_packet_alloc();
        while (p && av_read_frame(ic, p) >= 0) av_packet_unref(p);
        av_packet_free(&p);
    }
    size_t total = 0;
    rc = 0;
    const AVDictionaryEntry *e = NULL;
    while (rc == 0 && (e = av_dict_get(ic->metadata, "", e, AV_DICT_IGNORE_SUFFIX)) != NULL) {
        char kbuf[128];
        if (strcmp(demuxer, "gif") == 0 && strcmp(e->key, "comment") == 0) {
            rc = add_comment_lines(out, path, e->value, &total, err);
            continue;
        }
        const char *canon = canonical_key(e->key, kbuf, sizeof kbuf);
        if (canon) rc = add_entry(out, path, canon, e->value, strlen(e->value), &total, err);
    }
    avformat_close_input(&ic);
    if (rc == 0 && out->count == 0)
        rc = error_set(err, "%s: the video holds no inferscope provenance (not exported by inferscope)", path);
    if (rc) png_text_chunks_free(out);
    return rc;
}
