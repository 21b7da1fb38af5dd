/* figure_meta_parse.c — the strict reader of a figure's provenance (see figure_meta.h).
 * It treats every value as hostile: fixed limits, full-string number parses, range
 * checks, no recursion. Not the writer (figure_meta.c), not the applier
 * (figure_state_apply.c). */
#include "figure_meta.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "frame_fill.h"
#include "utf8.h"

/* ---- the reader -------------------------------------------------------------------- */

void figure_state_free(FigureState *fs) {
    if (!fs) return;
    free(fs->prompt);
    free(fs->ids);
    free(fs->salts);
    memset(fs, 0, sizeof *fs);
}

/* The value of key, or an error naming it. */
static int need(const PngTextChunks *t, const char *what, const char *key, const char **v, ErrorMsg *err) {
    *v = png_text_find(t, key);
    if (!*v) return error_set(err, "%s: provenance has no %s (not an inferscope figure, or from an incompatible version)", what, key);
    return 0;
}

/* A whole-string decimal integer in [lo, hi]. */
static int parse_long(const char *what, const char *key, const char *v, long lo, long hi, long *out,
                      ErrorMsg *err) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || v[0] == ' ' || v[0] == '+')
        return error_set(err, "%s: %s: '%.40s' is not an integer", what, key, v);
    if (x < lo || x > hi) return error_set(err, "%s: %s: %ld is outside [%ld, %ld]", what, key, x, lo, hi);
    *out = x;
    return 0;
}

static int get_int(const PngTextChunks *t, const char *what, const char *key, long lo, long hi, int *out,
                   ErrorMsg *err) {
    const char *v;
    long x;
    if (need(t, what, key, &v, err) || parse_long(what, key, v, lo, hi, &x, err)) return -1;
    *out = (int)x;
    return 0;
}

/* A whole-string finite float in [lo, hi]. */
static int get_float(const PngTextChunks *t, const char *what, const char *key, double lo, double hi,
                     float *out, ErrorMsg *err) {
    const char *v;
    if (need(t, what, key, &v, err)) return -1;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(x) || v[0] == ' ')
        return error_set(err, "%s: %s: '%.40s' is not a number", what, key, v);
    if (x < lo || x > hi) return error_set(err, "%s: %s: %g is outside [%g, %g]", what, key, x, lo, hi);
    *out = (float)x;
    return 0;
}

/* Copies a plain value (printable ASCII only) into buf. */
static int get_text(const PngTextChunks *t, const char *what, const char *key, char *buf, size_t cap,
                    ErrorMsg *err) {
    const char *v;
    if (need(t, what, key, &v, err)) return -1;
    size_t n = strlen(v);
    if (n >= cap) return error_set(err, "%s: %s: value of %zu bytes is too long (at most %zu)", what, key, n, cap - 1);
    /* printable characters, UTF-8 included (what meta_add writes) */
    const uint8_t *u = (const uint8_t *)v;
    for (size_t i = 0; i < n;) {
        uint32_t cp = u[i];
        size_t k = u[i] >= 0x80 ? utf8_decode_one(u + i, n - i, &cp) : 1;
        if (k == 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            return error_set(err, "%s: %s: byte 0x%02x at %zu is not a printable UTF-8 character", what, key, u[i], i);
        i += k;
    }
    memcpy(buf, v, n + 1);
    return 0;
}

/* A JSON array of non-negative integers "[1,2,3]" (spaces allowed), each <= hi, at
 * most max_n of them. *out is malloc'd (NULL for "[]"). */
static int parse_uint_array(const char *what, const char *key, const char *v, unsigned long hi, size_t max_n,
                            unsigned long **out, size_t *n_out, ErrorMsg *err) {
    *out = NULL;
    *n_out = 0;
    const char *p = v;
    while (*p == ' ') p++;
    if (*p != '[') return error_set(err, "%s: %s: expected a JSON array '[...]'", what, key);
    p++;
    size_t n = 0, cap = 0;
    unsigned long *a = NULL;
    while (*p == ' ') p++;
    if (*p == ']') {
        p++;
    } else {
        for (;;) {
            while (*p == ' ') p++;
            if (*p < '0' || *p > '9') {
                free(a);
                return error_set(err, "%s: %s: element %zu is not a non-negative integer", what, key, n);
            }
            char *end;
            errno = 0;
            unsigned long x = strtoul(p, &end, 10);
            if (errno || x > hi) {
                free(a);
                return error_set(err, "%s: %s: element %zu (%.20s) is outside [0, %lu]", what, key, n, p, hi);
            }
            if (n >= max_n) {
                free(a);
                return error_set(err, "%s: %s: more than %zu elements", what, key, max_n);
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                unsigned long *na = realloc(a, nc * sizeof *na);
                if (!na) {
                    free(a);
                    return error_set(err, "%s: %s: out of memory", what, key);
                }
                a = na;
                cap = nc;
            }
            a[n++] = x;
            p = end;
            while (*p == ' ') p++;
            if (*p == ',') { p++; continue; }
            if (*p == ']') { p++; break; }
            free(a);
            return error_set(err, "%s: %s: expected ',' or ']' after element %zu", what, key, n - 1);
        }
    }
    while (*p == ' ') p++;
    if (*p) {
        free(a);
        return error_set(err, "%s: %s: unexpected text after the array", what, key);
    }
    *out = a;
    *n_out = n;
    return 0;
}

static int hex4(const char *p, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

/* A JSON string literal (RFC 8259 §7) → UTF-8 bytes. Raw bytes must be printable
 * ASCII (we write everything else escaped); lone surrogates are refused. */
static int parse_json_string(const char *what, const char *key, const char *v, uint8_t **out, size_t *len,
                             ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    size_t n = strlen(v);
    if (n < 2 || v[0] != '"' || v[n - 1] != '"')
        return error_set(err, "%s: %s: expected a JSON string in double quotes", what, key);
    /* every escape shrinks or keeps the size, except \uXXXX which gives <= 4 bytes
     * from 6 (or 12 for a pair): n bytes of output always suffice */
    uint8_t *o = malloc(n);
    if (!o) return error_set(err, "%s: %s: out of memory", what, key);
    size_t k = 0;
    for (size_t i = 1; i < n - 1;) {
        unsigned char c = (unsigned char)v[i];
        if (c == '"' || c < 0x20 || c >= 0x7F) {
            free(o);
            return error_set(err, "%s: %s: byte 0x%02x at %zu must be escaped", what, key, c, i);
        }
        if (c != '\\') {
            o[k++] = c;
            i++;
            continue;
        }
        if (i + 1 >= n - 1) {
            free(o);
            return error_set(err, "%s: %s: string ends inside an escape", what, key);
        }
        char e = v[i + 1];
        i += 2;
        uint32_t cp;
        switch (e) {
        case '"': o[k++] = '"'; continue;
        case '\\': o[k++] = '\\'; continue;
        case '/': o[k++] = '/'; continue;
        case 'b': o[k++] = '\b'; continue;
        case 'f': o[k++] = '\f'; continue;
        case 'n': o[k++] = '\n'; continue;
        case 'r': o[k++] = '\r'; continue;
        case 't': o[k++] = '\t'; continue;
        case 'u':
            if (i + 4 > n - 1 || hex4(v + i, &cp)) {
                free(o);
                return error_set(err, "%s: %s: bad \\u escape at %zu", what, key, i - 2);
            }
            i += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                free(o);
                return error_set(err, "%s: %s: lone low surrogate at %zu", what, key, i - 6);
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (i + 6 > n - 1 || v[i] != '\\' || v[i + 1] != 'u' || hex4(v + i + 2, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF) {
                    free(o);
                    return error_set(err, "%s: %s: high surrogate without its low half at %zu", what, key, i - 6);
                }
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            /* UTF-8 encoding (RFC 3629 §3) */
            if (cp < 0x80) o[k++] = (uint8_t)cp;
            else if (cp < 0x800) { o[k++] = (uint8_t)(0xC0 | cp >> 6); o[k++] = (uint8_t)(0x80 | (cp & 0x3F)); }
            else if (cp < 0x10000) {
                o[k++] = (uint8_t)(0xE0 | cp >> 12);
                o[k++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
                o[k++] = (uint8_t)(0x80 | (cp & 0x3F));
            } else {
                o[k++] = (uint8_t)(0xF0 | cp >> 18);
                o[k++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
                o[k++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
                o[k++] = (uint8_t)(0x80 | (cp & 0x3F));
            }
            continue;
        default:
            free(o);
            return error_set(err, "%s: %s: unknown escape '\\%c'", what, key, e);
        }
    }
    o[k] = '\0'; /* k <= n - 2 < n */
    *out = o;
    *len = k;
    return 0;
}

int figure_meta_parse(const PngTextChunks *t, const char *what, FigureState *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    FigureState *fs = out;
    fs->settings = sampler_settings_default(); /* settings a figure does not record stay neutral */
    const char *v;
    long x;
    unsigned long *arr = NULL;
    size_t n_arr = 0;

    if (need(t, what, "inferscope:format", &v, err)) goto fail;
    if (parse_long(what, "inferscope:format", v, 0, INT_MAX, &x, err)) goto fail;
    if (x != FIGURE_META_FORMAT) {
        error_set(err, "%s: provenance format %ld, this inferscope reads format %d", what, x, FIGURE_META_FORMAT);
        goto fail;
    }
    if (get_text(t, what, "Software", fs->software, sizeof fs->software, err) ||
        get_text(t, what, "inferscope:model", fs->model, sizeof fs->model, err) ||
        get_text(t, what, "inferscope:model_sha256", fs->model_sha256, sizeof fs->model_sha256, err))
        goto fail;
    if (strcmp(fs->model_sha256, "unknown") == 0) {
        fs->model_sha256[0] = '\0';
    } else {
        size_t n = strlen(fs->model_sha256);
        int ok = n == 64;
        for (size_t i = 0; ok && i < n; i++)
            ok = (fs->model_sha256[i] >= '0' && fs->model_sha256[i] <= '9') ||
                 (fs->model_sha256[i] >= 'a' && fs->model_sha256[i] <= 'f');
        if (!ok) {
            error_set(err, "%s: inferscope:model_sha256: not 64 lowercase hex digits", what);
            goto fail;
        }
    }

    if (need(t, what, "inferscope:prompt", &v, err)) goto fail;
    if (strlen(v) > 6 * (size_t)FIGURE_MAX_PROMPT + 2) {
        error_set(err, "%s: inferscope:prompt: longer than %u bytes", what, FIGURE_MAX_PROMPT);
        goto fail;
    }
    if (parse_json_string(what, "inferscope:prompt", v, &fs->prompt, &fs->prompt_len, err)) goto fail;
    if (fs->prompt_len > FIGURE_MAX_PROMPT) {
        error_set(err, "%s: inferscope:prompt: longer than %u bytes", what, FIGURE_MAX_PROMPT);
        goto fail;
    }

    if (need(t, what, "inferscope:ids", &v, err) ||
        parse_uint_array(what, "inferscope:ids", v, INT_MAX, FIGURE_MAX_IDS, &arr, &n_arr, err))
        goto fail;
    if (n_arr == 0) {
        error_set(err, "%s: inferscope:ids: no tokens", what);
        goto fail;
    }
    fs->ids = malloc(n_arr * sizeof *fs->ids);
    if (!fs->ids) {
        error_set(err, "%s: out of memory", what);
        goto fail;
    }
    for (size_t i = 0; i < n_arr; i++) fs->ids[i] = (int)arr[i];
    fs->n_ids = n_arr;
    free(arr);
    arr = NULL;

    if (get_int(t, what, "inferscope:n_prompt", 1, (long)fs->n_ids, &fs->n_prompt, err) ||
        get_int(t, what, "inferscope:step", 0, FIGURE_MAX_IDS, &fs->step, err))
        goto fail;
    if ((size_t)fs->step != fs->n_ids - (size_t)fs->n_prompt) {
        error_set(err, "%s: inferscope:step is %d but ids hold %zu generated tokens", what, fs->step,
                  fs->n_ids - (size_t)fs->n_prompt);
        goto fail;
    }
    if (get_int(t, what, "inferscope:n_branches", 1, SESSION_MAX_BRANCHES, &fs->n_branches, err) ||
        get_int(t, what, "inferscope:branch", 0, fs->n_branches - 1, &fs->branch, err))
        goto fail;
    if (need(t, what, "inferscope:salts", &v, err) ||
        parse_uint_array(what, "inferscope:salts", v, UINT32_MAX, FIGURE_MAX_IDS, &arr, &n_arr, err))
        goto fail;
    if (n_arr != (size_t)fs->step) {
        error_set(err, "%s: inferscope:salts has %zu entries for %d generated tokens", what, n_arr, fs->step);
        goto fail;
    }
    if (n_arr) {
        fs->salts = malloc(n_arr * sizeof *fs->salts);
        if (!fs->salts) {
            error_set(err, "%s: out of memory", what);
            goto fail;
        }
        for (size_t i = 0; i < n_arr; i++) fs->salts[i] = (uint32_t)arr[i];
    }
    free(arr);
    arr = NULL;
    if (need(t, what, "inferscope:pending_salt", &v, err) ||
        parse_long(what, "inferscope:pending_salt", v, 0, (long)UINT32_MAX, &x, err))
        goto fail;
    fs->pending_salt = (uint32_t)x;

    char name[32];
    int p;
    if (get_text(t, what, "inferscope:panel", name, sizeof name, err)) goto fail;
    if ((p = viz_panel_from_name(name)) < 0) {
        error_set(err, "%s: inferscope:panel: unknown panel '%s'", what, name);
        goto fail;
    }
    fs->panel = (VizPanel)p;
    fs->view = frame_default_view();
    if (get_text(t, what, "inferscope:focus", name, sizeof name, err)) goto fail;
    if ((p = viz_panel_from_name(name)) < 0) {
        error_set(err, "%s: inferscope:focus: unknown panel '%s'", what, name);
        goto fail;
    }
    fs->view.focus = (VizPanel)p;
    /* 4096 layers/heads is far beyond any GPT-2; the session checks the real model */
    if (get_int(t, what, "inferscope:layer", 0, 4095, &fs->view.layer, err) ||
        get_int(t, what, "inferscope:head", 0, 4095, &fs->view.head, err))
        goto fail;
    if (get_text(t, what, "inferscope:contact_sheet", name, sizeof name, err)) goto fail;
    fs->sheet_layer = -1;
    if (name[0]) {
        fs->contact_sheet = 1;
        if (strncmp(name, "layer ", 6) == 0) {
            if (parse_long(what, "inferscope:contact_sheet", name + 6, 0, 4095, &x, err)) goto fail;
            fs->sheet_layer = (int)x;
        } else if (strcmp(name, "all layers") != 0) {
            error_set(err, "%s: inferscope:contact_sheet: '%s' is not 'layer N' or 'all layers'", what, name);
            goto fail;
        }
    }
    if (get_text(t, what, "inferscope:tensor", fs->tensor, sizeof fs->tensor, err) ||
        get_text(t, what, "inferscope:colormap", fs->colormap, sizeof fs->colormap, err) ||
        get_text(t, what, "inferscope:color_range", fs->color_range, sizeof fs->color_range, err))
        goto fail;

    if (get_float(t, what, "inferscope:temperature", 0.0, 1e6, &fs->settings.temperature, err) ||
        get_int(t, what, "inferscope:top_k", 0, INT_MAX, &fs->settings.top_k, err) ||
        get_float(t, what, "inferscope:top_p", 0.0, 1.0, &fs->settings.top_p, err) ||
        get_int(t, what, "inferscope:greedy", 0, 1, &fs->settings.greedy, err))
        goto fail;
    {
        ErrorMsg inner;
        if (sampler_settings_validate(&fs->settings, &inner)) {
            error_set(err, "%s: %s", what, inner.text);
            goto fail;
        }
    }
    if (need(t, what, "inferscope:seed", &v, err)) goto fail;
    {
        char *end;
        errno = 0;
        unsigned long long sd = strtoull(v, &end, 10);
        if (!*v || *end || errno || v[0] < '0' || v[0] > '9') {
            error_set(err, "%s: inferscope:seed: '%.40s' is not an unsigned 64-bit integer", what, v);
            goto fail;
        }
        fs->seed = (uint64_t)sd;
    }

    /* optional (only figures with parts switched off have it); its numbers are checked
     * against the model when applied, the characters here */
    if (png_text_find(t, "inferscope:ablate")) {
        if (get_text(t, what, "inferscope:ablate", fs->ablate, sizeof fs->ablate, err)) goto fail;
        if (!fs->ablate[0] || strspn(fs->ablate, "0123456789.,abeilmnpt") != strlen(fs->ablate)) {
            error_set(err, "%s: inferscope:ablate: '%.40s' is not a list like 0.3,1.attn,2.mlp", what, fs->ablate);
            goto fail;
        }
    }

    if (get_text(t, what, "inferscope:theme", name, sizeof name, err)) goto fail;
    if (theme_parse(name, &fs->theme)) {
        error_set(err, "%s: inferscope:theme: unknown theme '%s' (light or dark)", what, name);
        goto fail;
    }
    if (get_int(t, what, "inferscope:scale", 1, 4, &fs->scale, err)) goto fail;
    if (fs->scale == 3) {
        error_set(err, "%s: inferscope:scale: 3 is not 1, 2 or 4", what);
        goto fail;
    }
    if (get_float(t, what, "inferscope:ui_scale", 1.0, 2.5, &fs->ui_scale, err)) goto fail;
    if (get_text(t, what, "inferscope:size", name, sizeof name, err)) goto fail;
    {
        int w = 0, h = 0, used = 0;
        if (sscanf(name, "%5dx%5d%n", &w, &h, &used) != 2 || name[used] || name[0] < '0' || name[0] > '9' ||
            w < 1 || h < 1 || w * fs->scale > 16384 || h * fs->scale > 16384) {
            error_set(err, "%s: inferscope:size: '%s' is not WIDTHxHEIGHT within 1..%d at scale %d", what, name,
                      16384 / fs->scale, fs->scale);
            goto fail;
        }
        fs->width = w;
        fs->height = h;
    }

    int np = (int)fs->n_ids;
    if (get_int(t, what, "inferscope:top_n", 1, SESSION_TOP_N, &fs->view.top_n, err) ||
        get_int(t, what, "inferscope:hide_sink", 0, 1, &fs->view.hide_sink, err) ||
        get_int(t, what, "inferscope:selected_token", -1, np - 1, &fs->view.selected_token, err) ||
        get_int(t, what, "inferscope:bpe_step", -1, FIGURE_MAX_IDS, &fs->view.bpe_step, err) ||
        get_int(t, what, "inferscope:hide_probs", 0, 1, &fs->view.hide_probs, err) ||
        get_int(t, what, "inferscope:highlight_panel", -1, VIZ_PANEL_COUNT - 1, &fs->view.highlight_panel, err) ||
        get_int(t, what, "inferscope:highlight_token", -1, np - 1, &fs->view.highlight_token, err) ||
        get_int(t, what, "inferscope:highlight_bar", 0, SESSION_TOP_N, &fs->view.highlight_bar, err))
        goto fail;
    /* the probability axis (figures from before it was recorded: the automatic one) */
    const char *axis = png_text_find(t, "inferscope:prob_axis");
    if (axis && viz_axis_parse(axis, &fs->view.prob_axis, &fs->view.prob_axis_max) != 0) {
        error_set(err, "%s: inferscope:prob_axis: '%.40s' is not auto, log or linear N", what, axis);
        goto fail;
    }
    /* the Text panel's marks (figures from before they existed: plain) */
    const char *tmode = png_text_find(t, "inferscope:text_mode");
    int tm = tmode ? viz_text_mode_from_name(tmode) : VIZ_TEXT_PLAIN;
    if (tm < 0) {
        error_set(err, "%s: inferscope:text_mode: '%.40s' is not plain, surprisal or seen", what, tmode);
        goto fail;
    }
    fs->view.text_mode = (VizTextMode)tm;
    return 0;
fail:
    free(arr);
    figure_state_free(fs);
    return -1;
}

int figure_meta_read(const char *path, FigureState *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    PngTextChunks t = {0};
    /* checked before the PNG reader opens it: a FIFO named like a figure must not hang */
    if (file_check_regular(path, err) || png_read_text_chunks(path, &t, err)) return -1;
    int rc = figure_meta_parse(&t, path, out, err);
    if (rc == 0 && !out->contact_sheet &&
        (t.width != (uint32_t)(out->width * out->scale) || t.height != (uint32_t)(out->height * out->scale))) {
        /* a single figure is exactly size x scale pixels; a contact sheet grows */
        rc = error_set(err, "%s: image is %ux%u but its provenance says %dx%d at scale %d", path, t.width,
                       t.height, out->width, out->height, out->scale);
        figure_state_free(out);
    }
    png_text_chunks_free(&t);
    return rc;
}
