/* figure_meta.c — the provenance list of an exported figure (build, JSON sidecar), see
 * figure_meta.h. The strict reader is figure_meta_parse.c; putting a parsed state back
 * into a session is figure_state_apply.c. */
#include "figure_meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_fill.h"
#include "json_escape.h"
#include "strbuf.h"
#include "parse_num.h"
#include "settings.h"
#include "utf8.h"
#include "version.h"

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
    const VizPanelRow *row = viz_panel_row(panel);
    VizView v = {.layer = layer};
    viz_panel_format(row ? row->tensor : "tokens", &v, buf, cap); /* the panel table's row */
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
    StrBuf str = {0};

    char title[256];
    if (in->contact_sheet && in->sheet_layer < 0)
        snprintf(title, sizeof title, "attention patterns, every layer and head, step %d - %s", n - np,
                 s->model.name);
    else if (in->contact_sheet)
        snprintf(title, sizeof title, "attention patterns, layer %d, every head, step %d - %s", in->sheet_layer,
                 n - np, s->model.name);
    else {
        char what[128]; /* the panel table's figure title ("attention pattern, layer 3 head 5") */
        viz_panel_format(viz_panel_row(in->panel) ? viz_panel_row(in->panel)->title : panel, v, what, sizeof what);
        snprintf(title, sizeof title, "%.100s, step %d - %.120s", what, n - np, s->model.name);
    }

    rc |= meta_add(m, "Software", "inferscope " INFERSCOPE_VERSION, 0);
    rc |= meta_add(m, "Title", title, 0);
    rc |= meta_add(m, "Source", s->model.name, 0);
    rc |= meta_addf(m, "inferscope:format", 1, "%d", FIGURE_META_FORMAT);
    rc |= meta_add(m, "inferscope:model", s->model.name, 0);
    rc |= meta_add(m, "inferscope:model_sha256", in->model_sha256 ? in->model_sha256 : "unknown", 0);
    /* what the numbers were computed with: weight precision and SIMD kernel table */
    rc |= meta_add(m, "inferscope:weights", gpt2_model_weights_name(&s->model), 0);
    rc |= meta_add(m, "inferscope:kernels", kern_isa_name(), 0);

    json_escape(&str, s->prompt ? s->prompt : (const uint8_t *)"", s->prompt ? s->prompt_len : 0, JSON_ESCAPE_ASCII);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:prompt", str.data, 1);
    strbuf_clear(&str);
    strbuf_add(&str, "[", 1);
    for (int i = 0; i < n; i++) strbuf_addf(&str, i ? ",%d" : "%d", session_ids(s)[i]);
    strbuf_add(&str, "]", 1);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:ids", str.data, 1);
    rc |= meta_addf(m, "inferscope:n_prompt", 1, "%d", np);
    rc |= meta_addf(m, "inferscope:step", 1, "%d", n - np);
    rc |= meta_addf(m, "inferscope:branch", 1, "%d", s->cur);
    rc |= meta_addf(m, "inferscope:n_branches", 1, "%d", s->n_branches);
    /* the dice: salt of each generated position (the branch holds them), so a reopened
     * figure shows the same draw u on the probability strip, not just the same tokens */
    strbuf_clear(&str);
    strbuf_add(&str, "[", 1);
    const SessionBranch *b = s->n_branches ? &s->branch[s->cur] : NULL;
    for (int p = np; p < n; p++)
        strbuf_addf(&str, p > np ? ",%u" : "%u", (b && p < b->len) ? (unsigned)b->salt[p] : 0u);
    strbuf_add(&str, "]", 1);
    rc |= str.oom ? -1 : meta_add(m, "inferscope:salts", str.data, 1);
    rc |= meta_addf(m, "inferscope:pending_salt", 1, "%u", (unsigned)s->pending_salt);
    if (s->has_next && s->has_draws) rc |= meta_addf(m, "inferscope:draws", 1, "%d", s->draws.n);

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

    /* settings side by side: which specs, how many tokens each, and (when computed for
     * this prompt) the columns' token ids as drawn; only on compare figures */
    if (in->panel == VIZ_PANEL_COMPARE || v->focus == VIZ_PANEL_COMPARE) {
        const char *specs[SEQ_COMPARE_MAX_COLS];
        int nc = 0, n_new = 0;
        session_compare_specs(s, specs, &nc, &n_new);
        strbuf_clear(&str);
        strbuf_add(&str, "[", 1);
        for (int k = 0; k < nc; k++) {
            if (k) strbuf_add(&str, ",", 1);
            json_escape(&str, (const uint8_t *)specs[k], strlen(specs[k]), JSON_ESCAPE_ASCII);
        }
        strbuf_add(&str, "]", 1);
        rc |= str.oom ? -1 : meta_add(m, "inferscope:compare", str.data, 1);
        rc |= meta_addf(m, "inferscope:compare_n", 1, "%d", n_new);
        if (session_compare_current(s)) {
            const SeqCompare *c = &s->cmp.result;
            strbuf_clear(&str);
            strbuf_add(&str, "[", 1);
            for (int k = 0; k < c->n_cols; k++) {
                strbuf_add(&str, k ? ",[" : "[", k ? 2 : 1);
                for (int i = 0; i < c->n_new; i++) strbuf_addf(&str, i ? ",%d" : "%d", c->col[k].ids[i]);
                strbuf_add(&str, "]", 1);
            }
            strbuf_add(&str, "]", 1);
            rc |= str.oom ? -1 : meta_add(m, "inferscope:compare_ids", str.data, 1);
        }
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
    rc |= meta_addf(m, "inferscope:query", 1, "%d", v->query);
    if (v->lines_heads) { /* the heads the lines view draws, "0,2,5" (absent: view.head alone) */
        char hl[200];
        size_t k = 0;
        hl[0] = 0;
        for (int h = 0; h < 64 && k < sizeof hl; h++)
            if ((v->lines_heads >> h) & 1u) k += (size_t)snprintf(hl + k, sizeof hl - k, "%s%d", k ? "," : "", h);
        rc |= meta_add(m, "inferscope:heads", hl, 0);
    }
    /* the attribution's contrast token: only when one is set (absent = the pick's logit
     * alone, as in figures from before it existed, which stay byte for byte the same) */
    if (viz_view_attr_vs(v) >= 0) rc |= meta_addf(m, "inferscope:attr_vs", 1, "%d", viz_view_attr_vs(v));
    char axis[32];
    viz_axis_describe(v->prob_axis, v->prob_axis_max, axis, sizeof axis);
    rc |= meta_add(m, "inferscope:prob_axis", axis, 0);
    rc |= meta_add(m, "inferscope:text_mode", viz_text_mode_name(v->text_mode) ? viz_text_mode_name(v->text_mode) : "plain", 0);
    strbuf_free(&str);
    if (rc) {
        figure_meta_free(m);
        return error_set(err, "figure provenance: out of memory");
    }
    return 0;
}

int figure_meta_json(const FigureMeta *m, char **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    StrBuf s = {0};
    strbuf_add(&s, "{\n", 2);
    for (size_t i = 0; i < m->n; i++) {
        strbuf_add(&s, "  ", 2);
        json_escape(&s, (const uint8_t *)m->text[i].keyword, strlen(m->text[i].keyword), JSON_ESCAPE_ASCII);
        strbuf_add(&s, ": ", 2);
        if (m->is_json[i]) strbuf_adds(&s, m->values[i]);
        else json_escape(&s, (const uint8_t *)m->values[i], strlen(m->values[i]), JSON_ESCAPE_ASCII);
        strbuf_adds(&s, i + 1 < m->n ? ",\n" : "\n");
    }
    strbuf_add(&s, "}\n", 2);
    if (s.oom) {
        strbuf_free(&s);
        return error_set(err, "figure sidecar: out of memory");
    }
    *out = s.data;
    *len = s.len;
    return 0;
}
