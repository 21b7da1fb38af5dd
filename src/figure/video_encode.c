/* video_encode.c — RGBA pictures → MP4 / WebM / GIF through libavcodec, libswscale,
 * libavfilter and libavformat (see video_encode.h). Every encoder setting is here and
 * says why; nothing encodes by hand. */
#include "video_encode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

/* By VideoKind: libavformat's muxer and the encoder (the names: video_kind.c). */
static const struct {
    const char *muxer, *encoder;
} KINDS[VIDEO_KIND_COUNT] = {
    [VIDEO_MP4] = {"mp4", "libx264"},
    [VIDEO_WEBM] = {"webm", "libvpx-vp9"},
    [VIDEO_GIF] = {"gif", "gif"},
};

struct VideoEncoder {
    VideoEncodeOptions o;
    AVCodecContext *cc;
    struct SwsContext *sws;   /* mp4/webm: RGBA -> yuv420p */
    AVFrame *frame;           /* what the encoder gets (yuv420p; a GIF: pal8 from the graph) */
    AVFilterGraph *graph;     /* gif: buffer -> split -> palettegen / paletteuse -> sink */
    AVFilterContext *src, *sink;
    int64_t next_pts;         /* in frames (the codec's time base is 1/fps) */
    long gif_pictures;        /* distinct pictures pushed into the graph */
    int64_t *gif_frames;      /* (gif_pictures) frames each is shown for */
    AVPacket **pkts;          /* (n_pkts) encoded, in decode order, kept until written */
    size_t n_pkts, cap_pkts;
};

/* "what: Invalid argument" from an FFmpeg error code. */
static int av_fail(ErrorMsg *err, const char *what, int code) {
    char s[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, s, sizeof s);
    return error_set(err, "%s: %s", what, s);
}

long video_encoder_frames(const VideoEncoder *v) { return v ? (long)v->next_pts : 0; }

void video_encoder_free(VideoEncoder *v) {
    if (!v) return;
    avcodec_free_context(&v->cc);
    sws_freeContext(v->sws);
    av_frame_free(&v->frame);
    avfilter_graph_free(&v->graph);
    for (size_t i = 0; i < v->n_pkts; i++) av_packet_free(&v->pkts[i]);
    free(v->pkts);
    free(v->gif_frames);
    free(v);
}

/* The GIF palette graph: palettegen sees every picture (one palette of 256 colours for
 * the whole animation, so a colour does not flicker between frames), paletteuse maps
 * each onto it without dithering (a figure is flat colour and text: dither noise would
 * blur the text and cost LZW most of its runs). */
static int gif_graph_open(VideoEncoder *v, ErrorMsg *err) {
    v->graph = avfilter_graph_alloc();
    if (!v->graph) return error_set(err, "video: out of memory");
    char args[200];
    snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=1/%d:pixel_aspect=1/1", v->o.width,
             v->o.height, (int)AV_PIX_FMT_RGBA, v->o.fps);
    int rc = avfilter_graph_create_filter(&v->src, avfilter_get_by_name("buffer"), "in", args, NULL, v->graph);
    if (rc >= 0) rc = avfilter_graph_create_filter(&v->sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, v->graph);
    if (rc < 0) return av_fail(err, "video: the GIF palette filters", rc);
    AVFilterInOut *outputs = avfilter_inout_alloc(), *inputs = avfilter_inout_alloc();
    if (!outputs || !inputs) {
        avfilter_inout_free(&outputs);
        avfilter_inout_free(&inputs);
        return error_set(err, "video: out of memory");
    }
    outputs->name = av_strdup("in");
    outputs->filter_ctx = v->src;
    inputs->name = av_strdup("out");
    inputs->filter_ctx = v->sink;
    rc = avfilter_graph_parse_ptr(v->graph,
                                  "split[a][b];[a]palettegen=max_colors=256:stats_mode=full:reserve_transparent=0[p];"
                                  "[b][p]paletteuse=dither=none:new=0",
                                  &inputs, &outputs, NULL);
    avfilter_inout_free(&outputs);
    avfilter_inout_free(&inputs);
    if (rc >= 0) rc = avfilter_graph_config(v->graph, NULL);
    if (rc < 0) return av_fail(err, "video: the GIF palette filters", rc);
    return 0;
}

int video_encoder_open(VideoEncoder **out, const VideoEncodeOptions *o, ErrorMsg *err) {
    *out = NULL;
    if (!video_kind_name(o->kind)) return error_set(err, "video: unknown kind %d", (int)o->kind);
    if (video_check(o->kind, o->width, o->height, o->fps, err)) return -1;
    /* FFmpeg's own log lines would be a second, unasked-for error report: errors come
     * back as values here and are reported once, by the caller */
    av_log_set_level(AV_LOG_QUIET);
    const AVCodec *codec = avcodec_find_encoder_by_name(KINDS[o->kind].encoder);
    if (!codec) return error_set(err, "video: this FFmpeg has no %s encoder (Debian's libavcodec has it)", KINDS[o->kind].encoder);
    VideoEncoder *v = calloc(1, sizeof *v);
    if (!v) return error_set(err, "video: out of memory");
    v->o = *o;
    v->cc = avcodec_alloc_context3(codec);
    v->frame = av_frame_alloc();
    if (!v->cc || !v->frame) {
        video_encoder_free(v);
        return error_set(err, "video: out of memory");
    }
    AVCodecContext *cc = v->cc;
    cc->width = o->width;
    cc->height = o->height;
    cc->time_base = (AVRational){1, o->fps};
    cc->framerate = (AVRational){o->fps, 1};
    cc->sample_aspect_ratio = (AVRational){1, 1};
    cc->thread_count = 2;
    cc->flags |= AV_CODEC_FLAG_BITEXACT; /* the same state gives the same bytes */
    const AVOutputFormat *fmt = av_guess_format(KINDS[o->kind].muxer, NULL, NULL);
    if (fmt && (fmt->flags & AVFMT_GLOBALHEADER)) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (o->kind == VIDEO_GIF) {
        cc->pix_fmt = AV_PIX_FMT_PAL8;
    } else {
        cc->pix_fmt = AV_PIX_FMT_YUV420P; /* the one every player decodes */
        /* the figure's sRGB pixels as BT.709 limited range, and said so in the stream, so
         * players convert back with the same matrix */
        cc->colorspace = AVCOL_SPC_BT709;
        cc->color_primaries = AVCOL_PRI_BT709;
        cc->color_trc = AVCOL_TRC_BT709;
        cc->color_range = AVCOL_RANGE_MPEG;
        cc->gop_size = 10 * o->fps; /* a key frame every 10 s: seeking in a long lesson */
    }
    if (o->kind == VIDEO_MP4) {
        /* High profile, the level x264 computes from size and rate (4.0 for 1080p30):
         * what PowerPoint, Keynote, Google Slides and browsers play. CRF 16 with
         * tune=stillimage: a held slide of text and thin lines, kept sharp */
        av_opt_set(cc->priv_data, "profile", "high", 0);
        av_opt_set(cc->priv_data, "preset", "medium", 0);
        av_opt_set(cc->priv_data, "tune", "stillimage", 0);
        av_opt_set(cc->priv_data, "crf", "16", 0);
    } else if (o->kind == VIDEO_WEBM) {
        /* constant quality (crf with b=0). The realtime deadline at cpu-used 8: 180
         * frames of 1080p in 6 s instead of 55 s ("good", cpu-used 4) on 2 cores, for
         * a file 1.6x larger (0.8 MB for 3 held pictures); held frames cost ~50 bytes */
        cc->bit_rate = 0;
        av_opt_set(cc->priv_data, "crf", "20", 0);
        av_opt_set(cc->priv_data, "deadline", "realtime", 0);
        av_opt_set(cc->priv_data, "cpu-used", "8", 0);
        av_opt_set(cc->priv_data, "row-mt", "1", 0);
    }
    int rc = avcodec_open2(cc, codec, NULL);
    if (rc < 0) {
        video_encoder_free(v);
        return av_fail(err, "video: cannot start the encoder", rc);
    }
    if (o->kind == VIDEO_GIF) {
        if (gif_graph_open(v, err)) {
            video_encoder_free(v);
            return -1;
        }
    } else {
        v->sws = sws_getContext(o->width, o->height, AV_PIX_FMT_RGBA, o->width, o->height, AV_PIX_FMT_YUV420P,
                                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, NULL, NULL, NULL);
        v->frame->format = AV_PIX_FMT_YUV420P;
        v->frame->width = o->width;
        v->frame->height = o->height;
        if (!v->sws || av_frame_get_buffer(v->frame, 0) < 0) {
            video_encoder_free(v);
            return error_set(err, "video: cannot set up the colour conversion");
        }
        const int *bt709 = sws_getCoefficients(SWS_CS_ITU709);
        /* source: full-range RGB; destination: limited-range BT.709 */
        sws_setColorspaceDetails(v->sws, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
    }
    *out = v;
    return 0;
}

/* Takes every packet the encoder has ready into v->pkts. */
static int drain_packets(VideoEncoder *v, ErrorMsg *err) {
    for (;;) {
        AVPacket *p = av_packet_alloc();
        if (!p) return error_set(err, "video: out of memory");
        int rc = avcodec_receive_packet(v->cc, p);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) {
            av_packet_free(&p);
            return 0;
        }
        if (rc < 0) {
            av_packet_free(&p);
            return av_fail(err, "video: encoding failed", rc);
        }
        if (v->n_pkts == v->cap_pkts) {
            size_t cap = v->cap_pkts ? v->cap_pkts * 2 : 256;
            AVPacket **n = realloc(v->pkts, cap * sizeof *n);
            if (!n) {
                av_packet_free(&p);
                return error_set(err, "video: out of memory");
            }
            v->pkts = n;
            v->cap_pkts = cap;
        }
        v->pkts[v->n_pkts++] = p;
    }
}

static int encode(VideoEncoder *v, const AVFrame *f, ErrorMsg *err) {
    int rc = avcodec_send_frame(v->cc, f);
    if (rc < 0) return av_fail(err, "video: encoding failed", rc);
    return drain_packets(v, err);
}

/* Encodes every palette-mapped picture the graph has ready (eof: after the last). */
static int gif_drain_graph(VideoEncoder *v, ErrorMsg *err) {
    for (;;) {
        AVFrame *f = av_frame_alloc();
        if (!f) return error_set(err, "video: out of memory");
        int rc = av_buffersink_get_frame(v->sink, f);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) {
            av_frame_free(&f);
            return 0;
        }
        if (rc < 0) {
            av_frame_free(&f);
            return av_fail(err, "video: the GIF palette filters", rc);
        }
        f->pict_type = AV_PICTURE_TYPE_NONE;
        rc = encode(v, f, err);
        av_frame_free(&f);
        if (rc) return -1;
    }
}

int video_encoder_add(VideoEncoder *v, const uint8_t *rgba, int n_frames, ErrorMsg *err) {
    if (n_frames < 1) return error_set(err, "video: a picture is shown for at least one frame, not %d", n_frames);
    const uint8_t *planes[4] = {rgba, NULL, NULL, NULL};
    const int pitch[4] = {v->o.width * 4, 0, 0, 0};
    if (v->o.kind == VIDEO_GIF) {
        /* one picture with its duration: GIF frames carry their own delay */
        int64_t *d = realloc(v->gif_frames, (size_t)(v->gif_pictures + 1) * sizeof *d);
        if (!d) return error_set(err, "video: out of memory");
        v->gif_frames = d;
        AVFrame *f = av_frame_alloc();
        if (!f) return error_set(err, "video: out of memory");
        f->format = AV_PIX_FMT_RGBA;
        f->width = v->o.width;
        f->height = v->o.height;
        int rc = av_frame_get_buffer(f, 0);
        if (rc >= 0) {
            av_image_copy(f->data, f->linesize, planes, pitch, AV_PIX_FMT_RGBA, v->o.width, v->o.height);
            f->pts = v->next_pts;
            rc = av_buffersrc_add_frame(v->src, f); /* takes the frame's data */
        }
        av_frame_free(&f);
        if (rc < 0) return av_fail(err, "video: the GIF palette filters", rc);
        v->gif_frames[v->gif_pictures++] = n_frames;
        v->next_pts += n_frames;
        return gif_drain_graph(v, err);
    }
    if (av_frame_make_writable(v->frame) < 0) return error_set(err, "video: out of memory");
    sws_scale(v->sws, planes, pitch, 0, v->o.height, v->frame->data, v->frame->linesize);
    /* a held picture is n frames of the same pixels: the encoder codes the repeats as
     * "no change", a few bytes each, and a player needs no variable frame rate */
    for (int i = 0; i < n_frames; i++) {
        v->frame->pts = v->next_pts++;
        if (encode(v, v->frame, err)) return -1;
    }
    return 0;
}

/* ---- the container ------------------------------------------------------------------ */

/* The muxer's output: the temporary's descriptor, through the write seam. */
typedef struct Sink {
    int fd;
    FileWriteFn write_fn;
    void *write_ctx;
    int error; /* errno of the first failed write, 0 = none */
    int last;  /* the last byte written (a GIF's trailer 0x3B; the descriptor is write-only) */
} Sink;

static int sink_write(void *opaque, uint8_t *buf, int len) {
    Sink *k = opaque;
    size_t done = 0;
    while (!k->error && done < (size_t)len) {
        long n = k->write_fn ? k->write_fn(k->fd, buf + done, (size_t)len - done, k->write_ctx)
                             : (long)write(k->fd, buf + done, (size_t)len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) k->error = n < 0 ? errno : EIO;
        else done += (size_t)n;
    }
    if (len > 0) k->last = buf[len - 1];
    return k->error ? AVERROR(k->error) : len;
}

static int64_t sink_seek(void *opaque, int64_t offset, int whence) {
    Sink *k = opaque;
    if (whence == AVSEEK_SIZE) {
        off_t here = lseek(k->fd, 0, SEEK_CUR), end = lseek(k->fd, 0, SEEK_END);
        lseek(k->fd, here, SEEK_SET);
        return end;
    }
    off_t r = lseek(k->fd, (off_t)offset, whence & ~AVSEEK_FORCE);
    return r < 0 ? AVERROR(errno) : r;
}

/* A GIF's provenance: one comment extension (GIF89a 0x21 0xFE, sub-blocks of at most
 * 255 bytes) of "key=value" lines, put before the trailer byte the muxer ended with. */
static int gif_append_comment(Sink *k, const PngText *meta, size_t n, ErrorMsg *err) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += strlen(meta[i].keyword) + 1 + strlen(meta[i].value) + 1;
    char *text = malloc(len + 1);
    uint8_t *blk = malloc(len + len / 255 + 8);
    if (!text || !blk) {
        free(text);
        free(blk);
        return error_set(err, "video: out of memory");
    }
    size_t t = 0;
    for (size_t i = 0; i < n; i++) t += (size_t)sprintf(text + t, "%s=%s\n", meta[i].keyword, meta[i].value);
    size_t b = 0;
    blk[b++] = 0x21;
    blk[b++] = 0xFE;
    for (size_t i = 0; i < t; i += 255) {
        size_t c = t - i < 255 ? t - i : 255;
        blk[b++] = (uint8_t)c;
        memcpy(blk + b, text + i, c);
        b += c;
    }
    blk[b++] = 0x00;
    blk[b++] = 0x3B; /* the trailer again, after the comment */
    int rc = 0;
    if (k->last != 0x3B || lseek(k->fd, -1, SEEK_END) < 0)
        rc = error_set(err, "video: the GIF does not end with its trailer byte");
    else if (sink_write(k, blk, (int)b) < 0)
        rc = -1; /* k->error says why */
    free(text);
    free(blk);
    return rc;
}

/* Every metadata value must be one line of printable ASCII (figure_meta.h promises it;
 * the GIF comment's line format depends on it). */
static int meta_check(const PngText *meta, size_t n, ErrorMsg *err) {
    for (size_t i = 0; i < n; i++)
        for (const char *c = meta[i].value; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7E)
                return error_set(err, "video: provenance %s is not one line of printable ASCII", meta[i].keyword);
    return 0;
}

/* Writes the container onto k: header with the metadata, the packets, the trailer. */
static int mux(VideoEncoder *v, Sink *k, const char *tmp_path, const PngText *meta, size_t n_meta, ErrorMsg *err) {
    AVFormatContext *oc = NULL;
    int rc = avformat_alloc_output_context2(&oc, NULL, KINDS[v->o.kind].muxer, NULL);
    if (rc < 0 || !oc) return av_fail(err, "video: no muxer", rc < 0 ? rc : AVERROR(ENOMEM));
    const int bufsize = 1 << 16;
    uint8_t *buf = av_malloc(bufsize);
    AVStream *st = avformat_new_stream(oc, NULL);
    oc->pb = buf ? avio_alloc_context(buf, bufsize, 1, k, NULL, sink_write, sink_seek) : NULL;
    if (!buf || !st || !oc->pb) {
        if (oc->pb) av_freep(&oc->pb->buffer);
        else av_free(buf);
        avio_context_free(&oc->pb);
        avformat_free_context(oc);
        return error_set(err, "video: out of memory");
    }
    oc->flags |= AVFMT_FLAG_BITEXACT; /* no encoder version or date: the same state, the same bytes */
    /* faststart moves the index to the front in a second pass that reads the file
     * back by name: the temporary's */
    char url[FILE_WRITE_PATH_MAX + 40];
    snprintf(url, sizeof url, "file:%s", tmp_path);
    oc->url = av_strdup(url);
    avcodec_parameters_from_context(st->codecpar, v->cc);
    st->time_base = v->cc->time_base;
    st->avg_frame_rate = v->cc->framerate;
    AVDictionary *opts = NULL;
    if (v->o.kind == VIDEO_MP4) /* index first (plays while loading), arbitrary keys */
        av_dict_set(&opts, "movflags", "+faststart+use_metadata_tags", 0);
    if (v->o.kind == VIDEO_GIF) {
        av_dict_set(&opts, "loop", "0", 0); /* forever: a figure on a web page */
        char last[32];
        int64_t f = v->gif_pictures ? v->gif_frames[v->gif_pictures - 1] : 1;
        snprintf(last, sizeof last, "%lld", (long long)(f * 100 / v->o.fps));
        av_dict_set(&opts, "final_delay", last, 0);
    } else {
        for (size_t i = 0; i < n_meta; i++) av_dict_set(&oc->metadata, meta[i].keyword, meta[i].value, 0);
    }
    rc = avformat_write_header(oc, &opts);
    av_dict_free(&opts);
    for (size_t i = 0; rc >= 0 && i < v->n_pkts; i++) {
        AVPacket *p = v->pkts[i];
        p->stream_index = st->index;
        av_packet_rescale_ts(p, v->cc->time_base, st->time_base);
        rc = av_write_frame(oc, p);
    }
    if (rc >= 0) rc = av_write_trailer(oc);
    if (oc->pb) {
        avio_flush(oc->pb);
        av_freep(&oc->pb->buffer); /* ours, not the context's (it may have replaced buf) */
    }
    avio_context_free(&oc->pb);
    avformat_free_context(oc);
    if (k->error) return error_set(err, "%s", strerror(k->error));
    if (rc < 0) return av_fail(err, "video: writing the container failed", rc);
    if (v->o.kind == VIDEO_GIF && gif_append_comment(k, meta, n_meta, err)) return -1;
    return 0;
}

int video_encoder_write(VideoEncoder *v, const char *path, const PngText *meta, size_t n_meta,
                        const FileWriteOptions *wo, ErrorMsg *err) {
    if (v->next_pts == 0) return error_set(err, "%s: a video needs at least one picture", path);
    if (meta_check(meta, n_meta, err)) return -1;
    /* the end of the stream: the last pictures out of the palette graph, the encoder's
     * delayed frames */
    if (v->o.kind == VIDEO_GIF) {
        int rc = av_buffersrc_add_frame(v->src, NULL);
        if (rc < 0) return av_fail(err, "video: the GIF palette filters", rc);
        if (gif_drain_graph(v, err)) return -1;
    }
    if (encode(v, NULL, err)) return -1;
    if (v->o.kind == VIDEO_GIF) {
        /* each GIF picture lasts its own number of frames (the muxer reads the pts
         * gaps; the last one's final_delay) */
        if (v->n_pkts != (size_t)v->gif_pictures)
            return error_set(err, "video: %zu GIF frames for %ld pictures", v->n_pkts, v->gif_pictures);
        int64_t t = 0;
        for (size_t i = 0; i < v->n_pkts; i++) {
            v->pkts[i]->pts = v->pkts[i]->dts = t;
            v->pkts[i]->duration = v->gif_frames[i];
            t += v->gif_frames[i];
        }
    }
    AtomicFile a;
    if (atomic_file_open(&a, path, 0, err)) return -1;
    Sink k = {.fd = fileno(a.f), .write_fn = wo ? wo->write_fn : NULL, .write_ctx = wo ? wo->write_ctx : NULL};
    ErrorMsg e2;
    if (mux(v, &k, a.tmp, meta, n_meta, &e2)) {
        atomic_file_abort(&a);
        if (k.error == ENOSPC) return error_set(err, "%s: disk full (%s)", path, strerror(k.error));
        return error_set(err, "%s: %s", path, e2.text);
    }
    return atomic_file_commit(&a, err);
}
