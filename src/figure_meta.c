/* figure_meta.c — provenance list (build, JSON sidecar) and its strict reader, and
 * figure_state_apply (see figure_meta.h). The reader treats every value as hostile:
 * fixed limits, full-string number parses, range checks, no recursion. */
#include "figure_meta.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "frame_fill.h"
#include "parse_num.h"
#include "settings.h"
#include "utf8.h"
#include "version.h"

/* ---- a growable string (owner: the caller frees .data) --------------------------- */

typedef struct Str {
    char *data;
    size_t len, cap;
    int oom;
} Str;

static void str_reserve(Str *s, size_t extra) {
    if (s->oom) return;
    if (s->len + extra + 1 <= s->cap) return;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->len + extra + 1) cap *= 2;
    char *d = realloc(s->data, cap);
    if (!d) {
        s->oom = 1;
        return;
    }
    s->data = d;
    s->cap = cap;
}

static void str_add(Str *s, const char *p, size_t n) {
    str_reserve(s, n);
    if (s->oom) return;
    memcpy(s->data + s->len, p, n);
    s->len += n;
    s->data[s->len] = '\0';
}

static void str_printf(Str *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void str_printf(Str *s, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof buf) {
        str_add(s, buf, (size_t)n);
        return;
    }
    str_reserve(s, (size_t)n);
    if (s->oom) return;
    va_start(ap, fmt);
    vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

/* Appends bytes as a JSON string literal that is pure printable ASCII: UTF-8 is
 * decoded and every code point outside 0x20..0x7E becomes \uXXXX (a surrogate pair
 * above U+FFFF, RFC 8259 §7). Invalid UTF-8 (the session never holds any) becomes
 * U+FFFD rather than being dropped silently. */
static void str_json_ascii(Str *s, const uint8_t *p, size_t n) {
    str_add(s, "\"", 1);
    for (size_t i = 0; i < n;) {
        uint32_t c = p[i], cp;
        size_t k = 1;
        if (c < 0x80) {
            cp = c;
        } else {
            if (c >= 0xC2 && c <= 0xDF) { k = 2; cp = c & 0x1F; }
            else if (c >= 0xE0 && c <= 0xEF) { k = 3; cp = c & 0x0F; }
            else if (c >= 0xF0 && c <= 0xF4) { k = 4; cp = c & 0x07; }
            else { k = 0; cp = 0xFFFD; }
            if (k > n - i) k = 0;
            for (size_t j = 1; k && j < k; j++) {
                if ((p[i + j] & 0xC0) != 0x80) k = 0;
                else cp = (cp << 6) | (p[i + j] & 0x3F);
            }
            if (k && ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
                      (cp >= 0xD800 && cp <= 0xDFFF)))
                k = 0;
            if (!k) { k = 1; cp = 0xFFFD; }
        }
        i += k;
        if (cp == '"') str_add(s, "\\\"", 2);
        else if (cp == '\\') str_add(s, "\\\\", 2);
        else if (cp == '\n') str_add(s, "\\n", 2);
        else if (cp == '\t') str_add(s, "\\t", 2);
        else if (cp == '\r') str_add(s, "\\r", 2);
        else if (cp >= 0x20 && cp < 0x7F) { char ch = (char)cp; str_add(s, &ch, 1); }
        else if (cp < 0x10000) str_printf(s, "\\u%04x", (unsigned)cp);
        else {
            uint32_t v = cp - 0x10000;
            str_printf(s, "\\u%04x\\u%04x", (unsigned)(0xD800 + (v >> 10)), (unsigned)(0xDC00 + (v & 0x3FF)));
        }
    }
    str_add(s, "\"", 1);
}

/* ---- building the list ---------------------------------------------------------- */

void figure_meta_free(FigureMeta *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) free(m->values[i]);
    memset(m, 0, sizeof *m);
}

/* Adds one entry; the value is copied. Plain (is_json 0) values keep every printable
 * character, UTF-8 included (a folder named "modèl" stays "modèl": png_encode writes
 * such a value as iTXt, ASCII as tEXt); control characters and bytes that are not
 * UTF-8 become '?', one per byte. */
static int meta_add(FigureMeta *m, const char *key, const char *value, int is_json) {
    if (m->n >= FIGURE_META_MAX) return -1;
    size_t n = strlen(value);
    char *v = malloc(n + 1);
    if (!v) return -1;
    const uint8_t *u = (const uint8_t *)value;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t k = u[i] >= 0x80 ? utf8_decode_one(u + i, n - i, &cp) : 1;
        int keep = k > 1 ? (cp >= 0xA0) : (k == 1 && u[i] >= 0x20 && u[i] < 0x7F); /* no C0, DEL, C1 */
        if (k == 0) k = 1;
        if (keep) memcpy(v + i, u + i, k);
        else memset(v + i, '?', k);
        i += k;
    }
    v[n] = '\0';
    m->values[m->n] = v;
    m->text[m->n] = (PngText){key, v};
    m->is_json[m->n] = (unsigned char)is_json;
    m->n++;
    return 0;
}

static int meta_addf(FigureMeta *m, const char *key, int is_json, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int meta_addf(FigureMeta *m, const char *key, int is_json, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return meta_add(m, key, buf, is_json);
}

/* The sampler settings, one entry per settings-table row in table order: the rows
 * figures always had, and any other row only when it is not at its default (so a
 * figure that does not use it is byte-identical to one made before the row existed). */
static int meta_add_settings(FigureMeta *m, const SamplerSettings *set) {
    size_t n;
    const SettingRow *rows = settings_table(&n);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        if (!(r->flags & SETTING_FIGURE_ALWAYS) && settings_is_default(r, set)) continue;
        char v[128];
        if (settings_figure_value(r, set, v, sizeof v) >= (int)sizeof v) return -1;
        rc |= meta_add(m, r->figure_key, v, r->kind != SETTING_ORDER); /* numbers are JSON literals */
    }
    return rc;
}

void figure_tensor_name(VizPanel panel, int layer, char *buf, size_t cap) {
    switch (panel) {
    case VIZ_PANEL_ATTENTION: snprintf(buf, cap, "blocks.%d.attn.hook_pattern", layer); break;
    case VIZ_PANEL_PROBS: snprintf(buf, cap, "logits"); break;
    case VIZ_PANEL_FRAME: snprintf(buf, cap, "blocks.%d.attn.hook_pattern logits", layer); break;
    default: snprintf(buf, cap, "tokens"); break; /* tokens/text: ids only, no tensor */
    }
}

int figure_meta_build(FigureMeta *m, const Session *s, const VizView *view,
                      const FigureMetaInput *in, ErrorMsg *err) {
    memset(m, 0, sizeof *m);
    /* the view as the panels see it: frame_fill clamps layer/head to the model */
    VizFrame f;
    frame_fill(&f, s, view);
    const VizView *v = &f.view;
    int n = session_len(s), np = s->n_prompt;
    const char *panel = viz_panel_name(in->panel) ? viz_panel_name(in->panel) : "frame";
    const Theme *th = theme_get(in->theme);
    int rc = 0;
    Str str = {0};

    char title[256];
    if (in->contact_sheet && in->sheet_layer < 0)
        snprintf(title, sizeof title, "attention patterns, every layer and head, step %d - %s", n - np,
                 s->model.name);
    else if (in->contact_sheet)
        snprintf(title, sizeof title, "attention patterns, layer %d, every head, step %d - %s", in->sheet_layer,
                 n - np, s->model.name);
    else if (in->panel == VIZ_PANEL_ATTENTION)
        snprintf(title, sizeof title, "attention pattern, layer %d head %d, step %d - %s", v->layer,
                 v->head, n - np, s->model.name);
    else
        snprintf(title, sizeof title, "%s, step %d - %s", panel, n - np, s->model.name);

    rc |= meta_add(m, "Software", "inferscope " INFERSCOPE_VERSION, 0);
    rc |= meta_add(m, "Title", title, 0);
    rc |= meta_add(m, "Source", s->model.name, 0);
    rc |= meta_addf(m, "inferscope:format", 1, "%d", FIGURE_META_FORMAT);
    rc |= meta_add(m, "inferscope:model", s->model.name, 0);
    rc |= meta_add(m, "inferscope:model_sha256", in->model_sha256 ? in->model_sha256 : "unknown", 0);
    /* what the numbers were computed with: weight precision and SIMD kernel table */
    rc |= meta_add(m, "inferscope:weights", gpt2_model_weights_name(&s->model), 0);
    rc |= meta_add(m, "inferscope:kernels", kern_isa_name(), 0);

    str_json_ascii(&str, s->prompt ? s->prompt : (const uint8_t *)"", s->prompt ? s->prompt_len : 0);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:prompt", str.data, 1);
    str.len = 0;
    str_add(&str, "[", 1);
    for (int i = 0; i < n; i++) str_printf(&str, i ? ",%d" : "%d", session_ids(s)[i]);
    str_add(&str, "]", 1);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:ids", str.data, 1);
    rc |= meta_addf(m, "inferscope:n_prompt", 1, "%d", np);
    rc |= meta_addf(m, "inferscope:step", 1, "%d", n - np);
    rc |= meta_addf(m, "inferscope:branch", 1, "%d", s->cur);
    rc |= meta_addf(m, "inferscope:n_branches", 1, "%d", s->n_branches);
    /* the dice: salt of each generated position (the branch holds them), so a reopened
     * figure shows the same draw u on the probability strip, not just the same tokens */
    str.len = 0;
    str_add(&str, "[", 1);
    const SessionBranch *b = s->n_branches ? &s->branch[s->cur] : NULL;
    for (int p = np; p < n; p++)
        str_printf(&str, p > np ? ",%u" : "%u", (b && p < b->len) ? (unsigned)b->salt[p] : 0u);
    str_add(&str, "]", 1);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:salts", str.data, 1);
    rc |= meta_addf(m, "inferscope:pending_salt", 1, "%u", (unsigned)s->pending_salt);

    rc |= meta_add(m, "inferscope:panel", panel, 0);
    rc |= meta_add(m, "inferscope:focus", viz_panel_name(v->focus) ? viz_panel_name(v->focus) : "frame", 0);
    rc |= meta_addf(m, "inferscope:layer", 1, "%d", v->layer);
    rc |= meta_addf(m, "inferscope:head", 1, "%d", v->head);
    if (!in->contact_sheet) rc |= meta_add(m, "inferscope:contact_sheet", "", 0);
    else if (in->sheet_layer < 0) rc |= meta_add(m, "inferscope:contact_sheet", "all layers", 0);
    else rc |= meta_addf(m, "inferscope:contact_sheet", 0, "layer %d", in->sheet_layer);
    char tensor[128];
    if (in->contact_sheet && in->sheet_layer < 0) snprintf(tensor, sizeof tensor, "blocks.*.attn.hook_pattern");
    else figure_tensor_name(in->panel, in->contact_sheet ? in->sheet_layer : v->layer, tensor, sizeof tensor);
    rc |= meta_add(m, "inferscope:tensor", tensor, 0);
    rc |= meta_add(m, "inferscope:colormap", colormap_name(th->sequential), 0);
    /* attention and probabilities are drawn on a linear 0..1 scale; hide_sink rescales
     * the attention map to the largest weight outside key column 0 */
    rc |= meta_add(m, "inferscope:color_range",
                   v->hide_sink ? "linear 0..max (key 0 excluded)" : "linear 0..1", 0);

    rc |= meta_add_settings(m, &s->settings);
    rc |= meta_addf(m, "inferscope:seed", 1, "%llu", (unsigned long long)s->seed);
    if (s->trace.ablation.n_off) {
        char abl[1024];
        if (gpt2_ablation_format(&s->trace.ablation, abl, sizeof abl) >= sizeof abl) rc = -1;
        else rc |= meta_add(m, "inferscope:ablate", abl, 0);
    }

    rc |= meta_add(m, "inferscope:theme", th->name, 0);
    rc |= meta_addf(m, "inferscope:scale", 1, "%d", in->scale);
    rc |= meta_addf(m, "inferscope:ui_scale", 1, "%.9g", (double)in->ui_scale);
    rc |= meta_addf(m, "inferscope:size", 0, "%dx%d", in->width, in->height);

    rc |= meta_addf(m, "inferscope:top_n", 1, "%d", v->top_n);
    rc |= meta_addf(m, "inferscope:hide_sink", 1, "%d", v->hide_sink ? 1 : 0);
    rc |= meta_addf(m, "inferscope:selected_token", 1, "%d", v->selected_token);
    rc |= meta_addf(m, "inferscope:bpe_step", 1, "%d", v->bpe_step);
    rc |= meta_addf(m, "inferscope:hide_probs", 1, "%d", v->hide_probs ? 1 : 0);
    rc |= meta_addf(m, "inferscope:highlight_panel", 1, "%d", v->highlight_panel);
    rc |= meta_addf(m, "inferscope:highlight_token", 1, "%d", v->highlight_token);
    rc |= meta_addf(m, "inferscope:highlight_bar", 1, "%d", v->highlight_bar);
    char axis[32];
    viz_axis_describe(v->prob_axis, v->prob_axis_max, axis, sizeof axis);
    rc |= meta_add(m, "inferscope:prob_axis", axis, 0);
    rc |= meta_add(m, "inferscope:text_mode", viz_text_mode_name(v->text_mode) ? viz_text_mode_name(v->text_mode) : "plain", 0);
    free(str.data);
    if (rc) {
        figure_meta_free(m);
        return error_set(err, "figure provenance: out of memory");
    }
    return 0;
}

int figure_meta_json(const FigureMeta *m, char **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    Str s = {0};
    str_add(&s, "{\n", 2);
    for (size_t i = 0; i < m->n; i++) {
        str_add(&s, "  ", 2);
        str_json_ascii(&s, (const uint8_t *)m->text[i].keyword, strlen(m->text[i].keyword));
        str_add(&s, ": ", 2);
        if (m->is_json[i]) str_add(&s, m->values[i], strlen(m->values[i]));
        else str_json_ascii(&s, (const uint8_t *)m->values[i], strlen(m->values[i]));
        str_add(&s, i + 1 < m->n ? ",\n" : "\n", i + 1 < m->n ? 2 : 1);
    }
    str_add(&s, "}\n", 2);
    if (s.oom) {
        free(s.data);
        return error_set(err, "figure sidecar: out of memory");
    }
    *out = s.data;
    *len = s.len;
    return 0;
}

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

/* The sampler settings: every settings-table row's key through the one settings parser
 * (the CLI's and the lessons' limits). A key the figure does not have is the row's
 * default, so rows added later do not refuse older figures; a value that does not
 * parse is refused, naming the key. */
static int read_settings(const PngTextChunks *t, const char *what, SamplerSettings *set, ErrorMsg *err) {
    *set = sampler_settings_default();
    size_t n;
    const SettingRow *rows = settings_table(&n);
    ErrorMsg e;
    for (size_t i = 0; i < n; i++) {
        const char *v = png_text_find(t, rows[i].figure_key);
        if (v && settings_parse(&rows[i], rows[i].figure_key, v, set, &e)) return error_set(err, "%s: %s", what, e.text);
    }
    if (sampler_settings_validate(set, &e)) return error_set(err, "%s: %s", what, e.text);
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

    if (read_settings(t, what, &fs->settings, err)) goto fail;
    if (need(t, what, "inferscope:seed", &v, err)) goto fail;
    {
        NumError ne = parse_num_u64(v, &fs->seed);
        if (ne != NUM_OK) {
            char q[ERROR_QUOTE_CAP];
            error_set(err, "%s: inferscope:seed: '%s' %s: not an unsigned 64-bit integer", what, ERROR_QUOTE(q, v),
                      parse_num_problem(ne));
            goto fail;
        }
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

/* ---- applying a state ------------------------------------------------------------- */

/* Sets the salt of the pending draw and recomputes the records. session_set_seed with
 * the unchanged seed is the public way to re-run the sampler for the current position. */
static void set_pending_salt(Session *s, uint32_t salt) {
    s->pending_salt = salt;
    session_set_seed(s, s->seed);
}

int figure_state_apply(const FigureState *fs, Session *s, VizView *view, ErrorMsg *err) {
    const Gpt2Config *cfg = &s->model.config;
    if (fs->n_ids == 0 || fs->n_prompt < 1 || (size_t)fs->n_prompt > fs->n_ids)
        return error_set(err, "figure: no tokens to replay");
    if (fs->n_ids > (size_t)s->trace.max_pos)
        return error_set(err, "figure: %zu tokens exceed this session's context of %d", fs->n_ids, s->trace.max_pos);
    if (fs->view.layer >= cfg->n_layer || fs->view.head >= cfg->n_head)
        return error_set(err, "figure: layer %d head %d, but model %s has %d layers of %d heads", fs->view.layer,
                         fs->view.head, s->model.name, cfg->n_layer, cfg->n_head);
    for (size_t i = 0; i < fs->n_ids; i++)
        if (fs->ids[i] < 0 || fs->ids[i] >= session_vocab(s))
            return error_set(err, "figure: token id %d at position %zu is outside the vocabulary [0, %d)",
                             fs->ids[i], i, session_vocab(s));
    if (session_set_settings(s, &fs->settings, err)) return -1;
    {
        Gpt2Ablation ab = {0}; /* empty unless the figure switched parts off */
        ErrorMsg e2 = {{0}};
        int rc = fs->ablate[0] ? gpt2_ablation_parse(&ab, cfg, fs->ablate, &e2) : 0;
        if (rc)
            error_set(err, "figure: inferscope:ablate: %s",
                      strncmp(e2.text, "--ablate: ", 10) == 0 ? e2.text + 10 : e2.text);
        else
            rc = session_set_ablation(s, &ab, err);
        gpt2_ablation_free(&ab);
        if (rc) return -1;
    }
    s->seed = fs->seed; /* refreshed by the prompt below */

    /* the prompt: the text when it gives the same ids (then the BPE replay works) */
    int done = 0;
    if (fs->prompt && fs->prompt_len > 0) {
        ErrorMsg e2;
        if (session_set_prompt(s, fs->prompt, fs->prompt_len, &e2) == 0 && s->n_prompt == fs->n_prompt &&
            memcmp(session_ids(s), fs->ids, (size_t)fs->n_prompt * sizeof *fs->ids) == 0)
            done = 1;
    }
    if (!done && session_set_prompt_ids(s, fs->ids, (size_t)fs->n_prompt, err)) return -1;

    /* replay: with the recorded dice the sampler usually picks the recorded token again
     * (then it is a normal step, as it was); a token the user forced is forced again */
    for (size_t p = (size_t)fs->n_prompt; p < fs->n_ids; p++) {
        set_pending_salt(s, fs->salts ? fs->salts[p - (size_t)fs->n_prompt] : 0);
        int id = fs->ids[p];
        int rc = (s->has_next && s->next.chosen.id == id) ? session_step(s, err) : session_force(s, id, err);
        if (rc) return -1;
    }
    set_pending_salt(s, fs->pending_salt);
    if (session_len(s) != (int)fs->n_ids || memcmp(session_ids(s), fs->ids, fs->n_ids * sizeof *fs->ids) != 0)
        return error_set(err, "figure: replay did not reproduce the recorded tokens");

    VizView v = fs->view;
    v.mouse_x = v.mouse_y = -1;
    v.blank = 0;
    v.show_help = 0;
    *view = v;
    return 0;
}
