/* panel_attention.c — draw_attention_panel (panels.h): one head's attention pattern as
 * a query × key heatmap (attn_heatmap.c draws the cells) with position/token labels on
 * both axes, and a side column with the layers × heads thumbnails, the legend and the
 * readout of the cell under the mouse.
 * Room goes to the heatmap first: it keeps at least the side it has at UI scale 100 %.
 * When larger text would take that away the labels give way instead — key labels
 * become position numbers, query labels are shortened (the readout shows a hovered
 * pair in full), then the thumbnails go (the panel then offers F) — and labels are
 * thinned to every n-th position, never overdrawn. Not the app's click handling. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_heatmap.h"
#include "draw.h"
#include "panels.h"
#include "prob_format.h"
#include "token_label.h"

/* How the axes are labelled, richest first. */
typedef enum LabelMode {
    LAB_TOKENS = 0,  /* query labels = tokens, key labels = tokens rotated */
    LAB_SHORT,       /* query labels = tokens shortened, key labels = positions */
    LAB_SHORT_NARROW,/* the same, and the side column keeps only a narrow legend */
    LAB_POS_NARROW,  /* positions on both axes, the narrow legend */
    LAB_MODES
} LabelMode;

#define NARROW(m) ((m) >= LAB_SHORT_NARROW)
#define POS_ONLY(m) ((m) == LAB_POS_NARROW)

typedef struct AttnGeom {
    LabelMode mode;
    Rect title;      /* title row */
    Rect qtitle;     /* column of the rotated query axis title */
    Rect qlabels;    /* column of the query labels */
    Rect plot;       /* the heatmap square */
    Rect klabels;    /* band of key labels under the plot */
    Rect ktitle;     /* key axis title under them */
    Rect side;       /* thumbnails, legend, readout */
    int S;
    int thumbs;      /* 1: the side column shows the thumbnails */
} AttnGeom;

static void pos_label(Viz *viz, const VizFrame *f, int pos, LabelMode mode, int with_pos, char *buf, size_t cap) {
    attn_pos_label(viz, f, pos, POS_ONLY(mode), with_pos, buf, cap);
}

/* Width of the widest label drawn at this stride (uncapped). */
static int widest_label(Viz *viz, const VizFrame *f, LabelMode mode, int stride) {
    char lab[TOKEN_LABEL_CAP + 16];
    int w = 0;
    for (int p = 0; p < f->n_pos; p += stride) {
        pos_label(viz, f, p, mode, stride > 1, lab, sizeof lab);
        int lw = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, lab);
        if (lw > w) w = lw;
    }
    return w;
}

/* The side column's width: the legend's words at the current size, and the
 * thumbnails at about their size at 100 % when they are shown. */
static int side_width(Viz *viz, const VizFrame *f, int in_w, int thumbs, float div, float vmax) {
    if (!thumbs) return attn_legend_vertical_width(viz, vmax);
    int legend = (int)((float)viz_px(viz, 170) / div);
    char buf[16];
    snprintf(buf, sizeof buf, "L%d", f->cfg->n_layer - 1);
    int row_lab = (int)((float)(viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, buf) + viz_px(viz, 9)) / div);
    int grid = row_lab + f->cfg->n_head * (viz_gx(viz, 48) + (int)((float)viz_px(viz, 3) / div));
    int w = grid > legend ? grid : legend;
    return w > in_w * 35 / 100 ? in_w * 35 / 100 : w;
}

/* The layout for one label mode; div > 1 estimates it at UI scale 100 % (text sizes
 * divided by the UI scale) to know what the heatmap must keep. */
static AttnGeom attn_geom(Viz *viz, Rect in, const VizFrame *f, LabelMode mode, float div, float vmax) {
    AttnGeom g;
    memset(&g, 0, sizeof g);
    g.mode = mode;
    int T = f->n_pos;
#define TXT(x) ((int)((float)(x) / div))
    int small_h = TXT(viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL));
    int title_h = TXT(viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE));
    int gap4 = TXT(viz_px(viz, 4)), gap6 = TXT(viz_px(viz, 6)), gap14 = TXT(viz_px(viz, 14));
    Rect body = in;
    g.title = rect_cut_top(&body, title_h);
    rect_cut_top(&body, gap6);
    g.thumbs = !NARROW(mode);
    int side_w = side_width(viz, f, in.w, g.thumbs, div, vmax);
    int qtitle_w = small_h + gap4;
    /* label room reserved before the stride is known: the cap (tokens), or the width
     * at 100 % (shortened labels), or "99…9" */
    int cap = TXT(viz_px(viz, 96));
    int lab_w = mode == LAB_TOKENS ? cap : viz_gx(viz, 96);
    if (POS_ONLY(mode)) {
        char wid[16];
        snprintf(wid, sizeof wid, "%d", T > 1 ? T - 1 : 0);
        lab_w = TXT(viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, wid));
    }
    /* key labels and, under them, the key title — beside the numbers, under the narrow
     * legend, when the side column holds only that */
    int key_h = (mode == LAB_TOKENS ? lab_w : small_h) + gap4 + (NARROW(mode) ? 0 : small_h + gap4);
    int S_w = body.w - qtitle_w - lab_w - gap4 - gap14 - side_w;
    int S_h = body.h - key_h;
    int S = S_w < S_h ? S_w : S_h;
    if (div > 1.0f) { /* only the size matters for the reference */
        g.S = S;
        return g;
    }
    if (!POS_ONLY(mode)) { /* the labels drawn may need less */
        int stride = attn_label_stride(S > 0 ? S : 1, T > 0 ? T : 1, small_h + viz_px(viz, 2));
        int need = widest_label(viz, f, mode, stride);
        if (need < lab_w) {
            int spare = lab_w - need;
            lab_w = need;
            if (mode == LAB_TOKENS) S_h += spare; /* rotated key labels are as long */
            S_w += spare;
            S = S_w < S_h ? S_w : S_h;
        }
    }
    g.S = S;
    g.qtitle = (Rect){body.x, body.y, qtitle_w, S > 0 ? S : 0};
    g.qlabels = (Rect){body.x + qtitle_w, body.y, lab_w, S > 0 ? S : 0};
    g.plot = (Rect){g.qlabels.x + lab_w + gap4, body.y, S > 0 ? S : 0, S > 0 ? S : 0};
    int kl_h = mode == LAB_TOKENS ? lab_w : small_h;
    g.klabels = (Rect){g.plot.x, g.plot.y + g.plot.h + gap4, g.plot.w, kl_h};
    g.ktitle = (Rect){g.plot.x, g.klabels.y + kl_h + gap4 / 2, g.plot.w, small_h};
    /* the side column follows the heatmap and keeps the panel's right edge */
    int side_x = g.plot.x + g.plot.w + gap14;
    if (side_x > in.x + in.w - side_w) side_x = in.x + in.w - side_w;
    g.side = (Rect){side_x, body.y, in.x + in.w - side_x, body.h};
    if (NARROW(mode)) { /* "key →" beside the key numbers, under the narrow legend */
        g.ktitle = (Rect){side_x, g.klabels.y, g.side.w, small_h};
        g.side.h = g.klabels.y - g.side.y - gap4;
    }
#undef TXT
    return g;
}

/* The richest labelling that keeps the heatmap at its size at 100 % (estimated in
 * this rect) and within 10 % of the largest any labelling gives; at 100 % the richest. */
static AttnGeom choose_geom(Viz *viz, Rect in, const VizFrame *f, float vmax) {
    AttnGeom g[LAB_MODES];
    int best = 0;
    for (int m = 0; m < LAB_MODES; m++) {
        g[m] = attn_geom(viz, in, f, (LabelMode)m, 1.0f, vmax);
        if (g[m].S > g[best].S) best = m;
    }
    if (viz->ui_scale <= 1.0f) return g[LAB_TOKENS];
    int S_100 = attn_geom(viz, in, f, LAB_TOKENS, viz->ui_scale, vmax).S;
    int want = S_100 > g[best].S * 9 / 10 ? S_100 : g[best].S * 9 / 10;
    if (want > g[best].S) want = g[best].S;
    for (int m = 0; m < LAB_MODES; m++)
        if (g[m].S >= want) return g[m];
    return g[best];
}

/* ---- thumbnails ------------------------------------------------------------- */

/* Layers × heads grid inside area: column titles "H0…", row titles "L0…", the selected
 * head outlined in the accent colour. Returns the bottom used (area.y when nothing fits). */
static int draw_thumbs(Viz *viz, Rect area, const VizFrame *f, VizHits *hits) {
    const Theme *th = viz->theme;
    int L = f->cfg->n_layer, NH = f->cfg->n_head;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    char buf[32];
    snprintf(buf, sizeof buf, "L%d", L - 1);
    /* + room for the selected thumbnail's outline, which sits 5 px outside it */
    int row_lab_w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, buf) + viz_px(viz, 9);
    int gap = viz_px(viz, 3);
    int grid_h = area.h - (small_h + viz_px(viz, 2)) - small_h - viz_px(viz, 4);
    int side_w = (area.w - row_lab_w - gap * (NH - 1)) / NH, side_h = (grid_h - gap * (L - 1)) / L;
    int side = side_w < side_h ? side_w : side_h;
    if (side > viz_px(viz, 64)) side = viz_px(viz, 64);
    if (side < viz_gx(viz, 8)) return area.y; /* no room: the thumbnails are a convenience */
    TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text};
    Rect head = rect_cut_top(&area, small_h + viz_px(viz, 2));
    /* the click hint belongs to the window; a printed figure just names the grid */
    const char *ht = f->view.print ? "all heads (layer \xC3\x97 head)" : "all heads (click to show)";
    if (viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, ht) > head.w) ht = "all heads";
    draw_text_in_rect(viz, head, ht, &hs);
    Rect col_titles = rect_cut_top(&area, small_h);
    rect_cut_top(&area, viz_px(viz, 4)); /* the selected outline sits 3 px above its thumbnail */
    Rect row_titles = rect_cut_left(&area, row_lab_w);
    /* column titles only when they fit ("H11" needs ~20 px) */
    int lab_every = 1;
    while (lab_every < NH && lab_every * (side + gap) < viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, "H00") + gap)
        lab_every++;
    for (int h = 0; h < NH; h += lab_every) {
        snprintf(buf, sizeof buf, "H%d", h);
        TextStyle ts = {.font = h == f->view.head ? VIZ_FONT_BOLD : VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL,
                        .color = h == f->view.head ? th->accent : th->text_muted,
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        draw_text(viz, area.x + h * (side + gap) + side / 2, col_titles.y + col_titles.h / 2, buf, &ts, NULL);
    }
    int lab_every_row = 1;
    while (lab_every_row < L && lab_every_row * (side + gap) < small_h) lab_every_row++;
    for (int l = 0; l < L; l++) {
        if (l % lab_every_row == 0) {
            snprintf(buf, sizeof buf, "L%d", l);
            TextStyle rs = {.font = l == f->view.layer ? VIZ_FONT_BOLD : VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL,
                            .color = l == f->view.layer ? th->accent : th->text_muted,
                            .halign = VIZ_ALIGN_LEFT, .valign = VIZ_ALIGN_MIDDLE};
            draw_text(viz, row_titles.x, area.y + l * (side + gap) + side / 2, buf, &rs, NULL);
        }
        for (int h = 0; h < NH; h++) {
            Rect t = {area.x + h * (side + gap), area.y + l * (side + gap), side, side};
            Gpt2HeadBlocks hb;
            if (gpt2_trace_head_blocks(f->trace, l, h, &hb) == 0) { /* a lean trace */
                if (attn_draw_thumb_blocks(viz, t, &hb, f->n_pos, f->view.hide_sink) != 0) return area.y;
            } else {
                HeadPattern hp;
                if (attn_head_pattern(viz, f->trace, l, h, &hp) != 0) return area.y;
                hp.n = f->n_pos;
                if (attn_draw_thumb(viz, t, &hp, f->view.hide_sink) != 0) return area.y;
            }
            viz_hits_add(hits, t, VIZ_HIT_HEAD_THUMB, l, h);
            if (gpt2_ablation_is_off(&f->trace->ablation, GPT2_ABL_HEAD, l, h) ||
                gpt2_ablation_is_off(&f->trace->ablation, GPT2_ABL_ATTN, l, 0)) {
                /* switched off: crossed out (a shape, not a colour), the pattern still shown */
                int w = viz_px(viz, 2);
                draw_line(viz, t.x, t.y, t.x + t.w - 1, t.y + t.h - 1, th->error, w);
                draw_line(viz, t.x + t.w - 1, t.y, t.x, t.y + t.h - 1, th->error, w);
                draw_rect_outline(viz, t, th->error, w);
            }
            if (l == f->view.layer && h == f->view.head)
                draw_rect_outline(viz, rect_inset(t, -viz_px(viz, 3)), th->accent, viz_px(viz, 2));
        }
    }
    return area.y + L * (side + gap);
}

/* ---- labels ----------------------------------------------------------------- */

/* The hovered (query, key) pair, exact even when cells are pooled; -1 if none. */
static void hovered_pair(const HeatGeom *hg, int mx, int my, int *hq, int *hk, Rect *cell) {
    *hq = *hk = -1;
    if (!rect_contains(hg->plot, mx, my)) return;
    int i = attn_grid_index(hg->plot, hg->g, my, 1), j = attn_grid_index(hg->plot, hg->g, mx, 0);
    if (i < 0 || j < 0) return;
    *cell = rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)i, (size_t)j);
    int q0, q1, k0, k1;
    attn_bucket_range(i, hg->b, hg->n, &q0, &q1);
    attn_bucket_range(j, hg->b, hg->n, &k0, &k1);
    *hq = q0 + (int)((long long)(my - cell->y) * (q1 - q0) / (cell->h > 0 ? cell->h : 1));
    *hk = k0 + (int)((long long)(mx - cell->x) * (k1 - k0) / (cell->w > 0 ? cell->w : 1));
    if (*hq >= q1) *hq = q1 - 1;
    if (*hk >= k1) *hk = k1 - 1;
}

/* Query labels left of the plot (right-aligned), key labels under it (rotated tokens or
 * horizontal positions), every stride-th; the hovered pair bold in the accent colour.
 * Each label is clipped to its own band, so nothing runs into the axis titles. */
static void draw_labels(Viz *viz, const AttnGeom *g, const HeatGeom *hg, const VizFrame *f, int stride, int hq,
                        int hk, Rect panel) {
    const Theme *th = viz->theme;
    int T = f->n_pos, with_pos = stride > 1;
    char lab[TOKEN_LABEL_CAP + 16];
    TextStyle ls = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE, .max_width = g->qlabels.w};
    TextStyle ks = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_TOP};
    for (int pass = 0; pass < 2; pass++) { /* the hovered labels last, on top */
        for (int p = 0; p < T; p++) {
            int on_stride = p % stride == 0;
            for (int axis = 0; axis < 2; axis++) {
                int hot = axis == 0 ? p == hq : p == hk;
                if (pass != hot || (!on_stride && !hot)) continue;
                Rect c = rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)(p / hg->b), (size_t)(p / hg->b));
                TextStyle s = axis == 0 ? ls : ks;
                if (hot) {
                    s.font = VIZ_FONT_BOLD;
                    s.color = th->accent;
                }
                if (axis == 0) {
                    pos_label(viz, f, p, g->mode, with_pos, lab, sizeof lab);
                    int lh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL);
                    /* half a line above and below: the first and last labels are centred on
                     * rows that may be thinner than the text */
                    Rect band = rect_intersect(rect_inset4(g->qlabels, 0, -lh / 2, 0, -lh / 2), panel);
                    draw_set_clip(viz, &band);
                    if (hot) draw_fill_rect(viz, (Rect){band.x, c.y + c.h / 2 - lh / 2, band.w, lh}, th->panel);
                    draw_text(viz, g->qlabels.x + g->qlabels.w, c.y + c.h / 2, lab, &s, NULL);
                } else if (g->mode == LAB_TOKENS) {
                    pos_label(viz, f, p, g->mode, with_pos, lab, sizeof lab);
                    Rect band = rect_intersect(g->klabels, panel);
                    draw_set_clip(viz, &band);
                    int lh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL);
                    if (hot) draw_fill_rect(viz, (Rect){c.x + c.w / 2 - lh / 2, band.y, lh, band.h}, th->panel);
                    attn_draw_rotated(viz, c.x + c.w / 2, g->klabels.y, lab, s.font, s.color, g->klabels.h);
                } else {
                    snprintf(lab, sizeof lab, "%d", p);
                    Rect band = rect_intersect(rect_inset4(g->klabels, -viz_px(viz, 12), 0, -viz_px(viz, 12), 0), panel);
                    draw_set_clip(viz, &band);
                    int w = viz_text_width(viz, s.font, VIZ_TEXT_SMALL, lab);
                    if (hot) draw_fill_rect(viz, (Rect){c.x + c.w / 2 - w / 2 - 2, band.y, w + 4, band.h}, th->panel);
                    draw_text(viz, c.x + c.w / 2, g->klabels.y, lab, &s, NULL);
                }
            }
        }
    }
    draw_set_clip(viz, &panel);
    /* axis titles, each in its own band: the longest wording that fits, never cut */
    TextStyle as = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_TOP};
    const char *kt = g->mode == LAB_TOKENS ? "key (attended-to token) \xE2\x86\x92" : "key position \xE2\x86\x92";
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, kt) > g->ktitle.w) kt = "key \xE2\x86\x92";
    if (NARROW(g->mode)) as.halign = VIZ_ALIGN_LEFT;
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, kt) <= g->ktitle.w) draw_text_in_rect(viz, g->ktitle, kt, &as);
    /* rotated -90° the text reads bottom to top and its leading "←" points down:
     * queries go down the rows. Centred along the plot's height. */
    const char *qt = "\xE2\x86\x90 query (attending token)";
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, qt) > g->S) qt = "\xE2\x86\x90 query";
    int qw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, qt);
    if (qw > g->S) return; /* not even the short title fits: the labels speak for themselves */
    Rect band = rect_intersect(g->qtitle, panel);
    draw_set_clip(viz, &band);
    attn_draw_rotated(viz, g->qtitle.x + g->qtitle.w / 2, g->plot.y + (g->S - qw) / 2, qt, VIZ_FONT_SANS,
                      th->text_muted, g->S);
    draw_set_clip(viz, &panel);
}

/* ---- the panel -------------------------------------------------------------- */

static int draw_message(Viz *viz, Rect r, const char *msg) {
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = viz->theme->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    return draw_text_in_rect(viz, r, msg, &ts);
}

/* Title on the left, the hook name on the right when it fits beside it. */
static void draw_title(Viz *viz, Rect trow, const VizFrame *f, int ok) {
    const Theme *th = viz->theme;
    char title[96];
    if (ok) snprintf(title, sizeof title, "Attention \xC2\xB7 layer %d \xC2\xB7 head %d", f->view.layer, f->view.head);
    else snprintf(title, sizeof title, "Attention");
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    if (ok && viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title) > trow.w)
        snprintf(title, sizeof title, "L%d H%d", f->view.layer, f->view.head);
    draw_text_in_rect(viz, trow, title, &tts);
    if (!ok) return;
    char hook[64];
    snprintf(hook, sizeof hook, "blocks.%d.attn.hook_pattern", f->view.layer);
    TextStyle hs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE};
    int tw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title) + viz_px(viz, 16);
    if (viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, hook) <= trow.w - tw) /* whole, or not at all */
        draw_text_in_rect(viz, rect_inset4(trow, tw, 0, 0, 0), hook, &hs);
}

/* The readout under the legend: the hovered pair in full, else what a row means. */
static void draw_readout(Viz *viz, Rect area, const VizFrame *f, const HeadPattern *hp, int hq, int hk) {
    const Theme *th = viz->theme;
    char line[2 * TOKEN_LABEL_CAP + 128];
    TextStyle rs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    if (hq >= 0) {
        char lq[TOKEN_LABEL_CAP], lk[TOKEN_LABEL_CAP], v[24];
        token_label_ex(f->tok, f->ids[hq], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lq, sizeof lq);
        token_label_ex(f->tok, f->ids[hk], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lk, sizeof lk);
        if (hk <= hq) {
            prob_format_fixed((double)attn_pat_at(hp, hq, hk), 4, v, sizeof v);
            snprintf(line, sizeof line, "query '%s' (pos %d) \xE2\x86\x92 key '%s' (pos %d): %s", lq, hq, lk, hk, v);
        } else {
            snprintf(line, sizeof line, "query '%s' (pos %d) \xE2\x86\x92 key '%s' (pos %d): masked (the future)", lq,
                     hq, lk, hk);
        }
        rs.font = VIZ_FONT_BOLD;
    } else {
        rs.color = th->text_muted;
        snprintf(line, sizeof line, "Each row: how much one token reads from each earlier token (sums to 1).%s",
                 f->view.print ? "" : " Hover a cell for its value.");
    }
    int lh = viz_line_height(viz, rs.font, VIZ_TEXT_BODY);
    int lines = lh > 0 ? area.h / lh : 0;
    if (lines > 4) lines = 4;
    if (lines >= 1) draw_wrapped_text(viz, area, line, &rs, lh, lines);
}

int draw_attention_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    int T = f ? f->n_pos : 0;
    int ok = f && f->cfg && f->trace && f->tok && f->ids && T >= 1 && T <= f->trace->n_pos &&
             f->view.layer >= 0 && f->view.layer < f->cfg->n_layer && f->view.head >= 0 &&
             f->view.head < f->cfg->n_head;
    if (!ok) {
        Rect trow = rect_cut_top(&in, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE));
        draw_title(viz, trow, f, 0);
        rc = draw_message(viz, in, "no tokens yet: type a prompt");
        draw_set_clip(viz, NULL);
        return rc;
    }
    HeadPattern hp;
    if (attn_head_pattern(viz, f->trace, f->view.layer, f->view.head, &hp) != 0) {
        draw_set_clip(viz, NULL);
        return -1;
    }
    hp.n = T; /* the trace may hold more positions than the frame shows */
    float vmax = attn_scale_max(&hp, f->view.hide_sink, 1);
    AttnGeom g = choose_geom(viz, in, f, vmax);
    draw_title(viz, g.title, f, 1);
    if (g.S < viz_gx(viz, 8)) {
        const char *msg = f->view.print ? "panel too small for the heatmap" : "too small for the heatmap: F enlarges it";
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, msg) > in.w) msg = f->view.print ? "too small" : "F: enlarge";
        rc = draw_message(viz, rect_inset4(in, 0, g.title.h, 0, 0), msg);
        draw_set_clip(viz, NULL);
        return rc;
    }
    HeatGeom hg = attn_heat_geom(g.plot.x, g.plot.y, g.S, T);
    g.plot = hg.plot;
    g.S = hg.plot.w;
    if (attn_draw_heatmap(viz, &hg, &hp, vmax, r, 1, hits) != 0) rc = -1;

    int hq = -1, hk = -1;
    Rect hover_cell = {0, 0, 0, 0};
    hovered_pair(&hg, f->view.mouse_x, f->view.mouse_y, &hq, &hk, &hover_cell);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int need = small_h + viz_px(viz, 2);
    if (g.mode != LAB_TOKENS) { /* horizontal position numbers under the columns */
        char wid[16];
        snprintf(wid, sizeof wid, "%d", T - 1);
        int nw = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, wid) + viz_px(viz, 8);
        if (nw > need) need = nw;
    }
    int stride = attn_label_stride(g.S, T, need);
    draw_labels(viz, &g, &hg, f, stride, hq, hk, r);
    if (hq >= 0) {
        int t = viz_px(viz, 2);
        draw_rect_outline(viz, rect_inset(hover_cell, -t), th->highlight, t);
        draw_rect_outline(viz, rect_inset(hover_cell, -t - 1), th->text, 1);
    }

    /* side column: thumbnails, the legend under them, the readout under the legend.
     * The legend must be there (a colour scale is always drawn next to the map); the
     * thumbnails come next, the readout gets what is left (at least a line when it can) */
    Rect side = g.side;
    if (NARROW(g.mode)) { /* a cramped panel: the narrow legend alone, and F offered */
        if (attn_draw_legend_vertical(viz, side, r, vmax, f->view.hide_sink, hg.b) != 0) rc = -1;
        draw_enlarge_hint(viz, VIZ_PANEL_ATTENTION, f);
        draw_set_clip(viz, NULL);
        return rc;
    }
    int legend_h = attn_legend_height(viz, f->view.hide_sink, hg.b);
    int body_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY);
    int thumbs_bottom = side.y;
    int dropped = 0;
    {
        Rect thumbs = side;
        thumbs.h = side.h - legend_h - viz_px(viz, 24) - (side.h - legend_h > 6 * body_h ? 2 * body_h : 0);
        if (thumbs.h > 0) thumbs_bottom = draw_thumbs(viz, thumbs, f, hits);
        dropped = thumbs_bottom == side.y;
        draw_set_clip(viz, &r);
    }
    /* a colour bar reads best at about the thumbnails' width, not the panel's */
    int legend_w = side.w < viz_px(viz, 320) ? side.w : viz_px(viz, 320);
    int ly = thumbs_bottom + (thumbs_bottom > side.y ? viz_px(viz, 14) : 0);
    Rect legend = {side.x, ly, legend_w, legend_h};
    if (attn_draw_legend(viz, legend, r, vmax, f->view.hide_sink, hg.b) < 0) rc = -1;
    draw_set_clip(viz, &r);
    Rect readout = {side.x, legend.y + legend.h + viz_px(viz, 10), side.w, 0};
    readout.h = side.y + side.h - readout.y;
    draw_readout(viz, readout, f, &hp, hq, hk);
    if (dropped) draw_enlarge_hint(viz, VIZ_PANEL_ATTENTION, f);
    draw_set_clip(viz, NULL);
    return rc;
}
