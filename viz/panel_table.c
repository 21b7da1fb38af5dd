/* panel_table.c — the rows of the panel table (panel_table.h) and its lookups. Adding a
 * panel: its draw function in its own file (declared in panels.h), a VizPanel value in
 * frame.h, one row here. */
#include "panel_table.h"

#include <stdio.h>
#include <string.h>

#include "panels.h"

/* ---- what a click means, per panel --------------------------------------------------- */

static VizClick click_tokens(const VizHit *h, unsigned mods) {
    (void)mods;
    if (h->kind == VIZ_HIT_TOKEN_CHIP) return (VizClick){VIZ_CLICK_SELECT_TOKEN, h->a, 0};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_attention(const VizHit *h, unsigned mods) {
    /* a thumbnail shows its head large; with Shift it switches the head off (or on again) */
    if (h->kind == VIZ_HIT_HEAD_THUMB)
        return (VizClick){(mods & VIZ_CLICK_SHIFT) ? VIZ_CLICK_TOGGLE_ABLATION : VIZ_CLICK_SELECT_HEAD, h->a, h->b};
    /* a cell outlines its key token (h->b = key position; -1 when hits are per row) and
     * makes its row the query attention-math explains */
    if (h->kind == VIZ_HIT_ATTN_CELL) return (VizClick){VIZ_CLICK_HIGHLIGHT_TOKEN, h->b, h->a};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_probs(const VizHit *h, unsigned mods) {
    /* a bar takes its token; with Shift the attribution compares the pick with it */
    if (h->kind == VIZ_HIT_PROB_BAR && (mods & VIZ_CLICK_SHIFT)) return (VizClick){VIZ_CLICK_ATTR_VS, h->a, 0};
    if (h->kind == VIZ_HIT_PROB_BAR) return (VizClick){VIZ_CLICK_FORCE_TOKEN, h->a, h->b + 1};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_attribution(const VizHit *h, unsigned mods) {
    /* a head's bar shows that head in the attention panel beside; an MLP's its block */
    if (h->kind == VIZ_HIT_ATTR_BAR && h->a >= 0) {
        if (h->b < 0) return (VizClick){VIZ_CLICK_SELECT_LAYER, h->a, 0};
        return (VizClick){(mods & VIZ_CLICK_SHIFT) ? VIZ_CLICK_TOGGLE_ABLATION : VIZ_CLICK_SELECT_HEAD, h->a, h->b};
    }
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_attn_math(const VizHit *h, unsigned mods) {
    (void)mods;
    /* a key row outlines its token everywhere (the query explained stays) */
    if (h->kind == VIZ_HIT_ATTN_CELL) return (VizClick){VIZ_CLICK_HIGHLIGHT_TOKEN, h->b, -1};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_attn_lines(const VizHit *h, unsigned mods) {
    (void)mods;
    /* a token (either column) isolates its lines as a query; the same token again: all lines */
    if (h->kind == VIZ_HIT_TOKEN_CHIP) return (VizClick){VIZ_CLICK_ISOLATE_QUERY, h->a, 0};
    /* a head of the legend: drawn or not */
    if (h->kind == VIZ_HIT_HEAD_THUMB) return (VizClick){VIZ_CLICK_TOGGLE_LINES_HEAD, h->a, h->b};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

static VizClick click_heads(const VizHit *h, unsigned mods) {
    (void)mods;
    if (h->kind == VIZ_HIT_HEAD_THUMB) return (VizClick){VIZ_CLICK_SELECT_HEAD, h->a, h->b};
    return (VizClick){VIZ_CLICK_NONE, 0, 0};
}

/* ---- the table ------------------------------------------------------------------------ */

static const VizPanelRow TABLE[VIZ_PANEL_COUNT] = {
    {.id = VIZ_PANEL_FRAME, .name = "frame", .what = "the whole window: every panel and the status line",
     .tensor = "blocks.{L}.attn.hook_pattern logits", .title = "frame", .stem = "frame"},
    {.id = VIZ_PANEL_TOKENS, .name = "tokens", .what = "prompt + token strip (+ BPE replay of the selected word)",
     .draw = draw_tokens_panel, .click = click_tokens, .tensor = "tokens", .title = "tokens", .stem = "tokens"},
    {.id = VIZ_PANEL_ATTENTION, .name = "attention",
     .what = "heatmap of the selected head + layers x heads thumbnails", .draw = draw_attention_panel,
     .click = click_attention, .tensor = "blocks.{L}.attn.hook_pattern",
     .title = "attention pattern, layer {L} head {H}", .stem = "attention-L{L}H{H}"},
    {.id = VIZ_PANEL_PROBS, .name = "probs", .what = "next-token bars through the sampler stages + the draw",
     .draw = draw_probs_panel, .click = click_probs, .tensor = "logits", .title = "probs", .stem = "probs"},
    {.id = VIZ_PANEL_TEXT, .name = "text", .what = "prompt + generated text, newest token highlighted",
     .draw = draw_text_panel, .click = click_tokens, .tensor = "tokens", .title = "text", .stem = "text"},
    {.id = VIZ_PANEL_LENS, .name = "lens",
     .what = "logit lens: the top next token after every block, layers x positions, and the pick's rank by depth",
     .draw = draw_lens_panel, .tensor = "blocks.*.hook_resid_pre blocks.*.hook_resid_post ln_final.hook_normalized logits",
     .title = "logit lens", .stem = "lens", .needs = VIZ_NEEDS_LENS, .companion = VIZ_PANEL_FRAME, .inside = 1,
     .min_w = 520, .min_h = 320},
    {.id = VIZ_PANEL_ATTRIBUTION, .name = "attribution",
     .what = "what each head and MLP adds to the logit of the pick (signed bars; click a head to show it)",
     .draw = draw_attribution_panel, .click = click_attribution,
     .tensor = "blocks.*.attn.hook_z blocks.*.hook_mlp_out ln_final.hook_scale", .title = "logit attribution",
     .stem = "attribution", .needs = VIZ_NEEDS_ATTRIBUTION, .companion = VIZ_PANEL_ATTENTION, .inside = 1,
     .min_w = 420, .min_h = 320},
    {.id = VIZ_PANEL_JOURNEY, .name = "journey",
     .what = "the newest token through embed, every block, ln_final and the logits: norms, shapes, lens top 3",
     .draw = draw_journey_panel,
     .tensor = "blocks.*.hook_resid_post blocks.*.hook_attn_out blocks.*.hook_mlp_out ln_final.hook_normalized logits",
     .title = "token journey", .stem = "journey", .needs = VIZ_NEEDS_JOURNEY | VIZ_NEEDS_LENS,
     .companion = VIZ_PANEL_FRAME, .inside = 1, .min_w = 560, .min_h = 360},
    {.id = VIZ_PANEL_ATTN_MATH, .name = "attention-math",
     .what = "one query's attention step by step: q.k, / sqrt(d_head), causal mask, softmax, weighted values, z",
     .draw = draw_attn_math_panel, .click = click_attn_math,
     .tensor = "blocks.{L}.hook_resid_pre blocks.{L}.attn.hook_k blocks.{L}.attn.hook_v blocks.{L}.attn.hook_pattern",
     .title = "attention math, layer {L} head {H}", .stem = "attention-math-L{L}H{H}",
     .needs = VIZ_NEEDS_ATTN_MATH, .companion = VIZ_PANEL_ATTENTION, .inside = 1, .min_w = 640, .min_h = 400},
    {.id = VIZ_PANEL_ATTN_LINES, .name = "attention-lines",
     .what = "queries left, keys right, a line per strong weight, one colour per head (BertViz head view)",
     .draw = draw_attn_lines_panel, .click = click_attn_lines, .tensor = "blocks.{L}.attn.hook_pattern",
     .title = "attention lines, layer {L}", .stem = "attention-lines-L{L}", .needs = VIZ_NEEDS_ATTN_LINES,
     .companion = VIZ_PANEL_FRAME, .inside = 1, .min_w = 480, .min_h = 360},
    {.id = VIZ_PANEL_HEADS, .name = "heads",
     .what = "what each head does: previous-token, first-token sink, induction, duplicate-token, local scores",
     .draw = draw_heads_panel, .click = click_heads, .tensor = "blocks.*.attn.hook_pattern (fixed probe)",
     .title = "what each head does", .stem = "heads", .needs = VIZ_NEEDS_HEADS,
     .companion = VIZ_PANEL_ATTENTION, .inside = 1, .min_w = 560, .min_h = 360},
    {.id = VIZ_PANEL_COMPARE, .name = "compare",
     .what = "the prompt continued under 2-4 settings side by side, the same dice, with their numbers",
     .draw = draw_compare_panel, .tensor = "logits", .title = "settings side by side", .stem = "compare"},
    {.id = VIZ_PANEL_CLASS, .name = "class",
     .what = "the class room: join address and code, the class's guesses beside the model's bars, the score",
     .draw = draw_class_panel, .tensor = "logits", .title = "the class against the model", .stem = "class",
     .min_w = 420, .min_h = 360},
};

const VizPanelRow *viz_panel_row(VizPanel p) {
    if ((int)p < 0 || p >= VIZ_PANEL_COUNT) return NULL;
    return &TABLE[p];
}

const char *viz_panel_name(VizPanel p) {
    const VizPanelRow *r = viz_panel_row(p);
    return r ? r->name : NULL;
}

int viz_panel_from_name_n(const char *s, size_t n) {
    if (!s) return -1;
    for (int i = 0; i < VIZ_PANEL_COUNT; i++)
        if (strlen(TABLE[i].name) == n && memcmp(TABLE[i].name, s, n) == 0) return i;
    return -1;
}

int viz_panel_from_name(const char *name) { return name ? viz_panel_from_name_n(name, strlen(name)) : -1; }

void viz_panel_names(const char *sep, char *buf, size_t cap) {
    size_t k = 0;
    if (cap) buf[0] = 0;
    for (int i = 0; i < VIZ_PANEL_COUNT && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? sep : "", TABLE[i].name);
}

void viz_panel_format(const char *pattern, const VizView *v, char *buf, size_t cap) {
    size_t k = 0;
    if (!cap) return;
    for (const char *p = pattern ? pattern : ""; *p && k + 1 < cap; p++) {
        if ((p[1] == 'L' || p[1] == 'H') && p[0] == '{' && p[2] == '}') {
            k += (size_t)snprintf(buf + k, cap - k, "%d", p[1] == 'L' ? v->layer : v->head);
            if (k >= cap) k = cap - 1;
            p += 2;
            continue;
        }
        buf[k++] = *p;
    }
    buf[k] = 0;
}

int viz_panel_shows(VizPanel focus, VizPanel p) {
    const VizPanelRow *r = viz_panel_row(focus);
    if (!r || focus == VIZ_PANEL_FRAME) return 1; /* the whole layout shows every panel */
    return p == focus || (r->companion != VIZ_PANEL_FRAME && p == r->companion);
}

VizPanel viz_panel_next_inside(VizPanel focus) {
    const VizPanelRow *r = viz_panel_row(focus);
    int from = r && r->inside ? (int)focus + 1 : 0;
    for (int i = from; i < VIZ_PANEL_COUNT; i++)
        if (TABLE[i].inside) return (VizPanel)i;
    return VIZ_PANEL_FRAME;
}

VizClick viz_panel_click(VizPanel p, const VizHit *hit, unsigned mods) {
    const VizPanelRow *r = viz_panel_row(p);
    if (!r || !r->click || !hit) return (VizClick){VIZ_CLICK_NONE, 0, 0};
    return r->click(hit, mods);
}
