/* figure_meta.c — the provenance list of an exported figure (build, JSON sidecar), see
 * figure_meta.h. The strict reader is figure_meta_parse.c; putting a parsed state back
 * into a session is figure_state_apply.c. */
#include "figure_meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_fill.h"
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

    rc |= meta_addf(m, "inferscope:temperature", 1, "%.9g", (double)s->settings.temperature);
    rc |= meta_addf(m, "inferscope:top_k", 1, "%d", s->settings.top_k);
    rc |= meta_addf(m, "inferscope:top_p", 1, "%.9g", (double)s->settings.top_p);
    rc |= meta_addf(m, "inferscope:greedy", 1, "%d", s->settings.greedy ? 1 : 0);
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
