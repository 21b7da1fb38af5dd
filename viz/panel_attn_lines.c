/* panel_attn_lines.c — draw_attn_lines_panel: the BertViz "head view" of one layer. The
 * tokens twice, as queries on the left and as keys on the right; a line from each query to
 * the keys it attends to, its width and opacity the weight, one Okabe-Ito colour per head
 * with a legend naming the heads. The lines are f->attn_lines (engine/attn_lines.h via
 * src/session/attn_fill.c): the panel chooses which rows fit and where things go, nothing
 * else. A long text is shown as a window around the chosen query (or the newest token):
 * token 0 stays pinned on top (it is where a sink head points), the positions in between
 * are one "⋮" row that their lines end on, and the figure says what it left out.
 * Hits: VIZ_HIT_TOKEN_CHIP on every token (a = position): a click isolates its lines;
 * VIZ_HIT_HEAD_THUMB on the legend (a = layer, b = head): a click adds or removes that head. */
#include <stdio.h>
#include <string.h>

#include "colormap.h"
#include "draw.h"
#include "panels.h"
#include "token_label.h"

static int label(Viz *viz, int x, int y, int w, const char *s, VizFont font, VizTextSize size, SDL_Color c) {
    TextStyle ts = {.font = font, .size = size, .color = c, .valign = VIZ_ALIGN_TOP, .max_width = w};
    return draw_text(viz, x, y, s, &ts, NULL);
}

/* Which positions get a row: all of them when they fit; else token 0, a "⋮" row for the
 * positions skipped before the window, the window [w0, w1) and a "⋮" row for the later ones.
 * The window is centred on `focus`, or ends at it (focus_last). */
typedef struct LinesRows {
    int n_rows;   /* rows drawn in each column */
    int w0, w1;   /* the window of positions shown one per row */
    int pin;      /* 1: token 0 pinned on row 0 and row 1 is the "⋮" of positions 1 .. w0-1 */
    int later;    /* 1: the last row is the "⋮" of positions w1 .. n-1 */
} LinesRows;

static LinesRows pick_rows(int n, int avail, int focus, int focus_last) {
    LinesRows lr = {0, 0, n, 0, 0};
    if (avail < 4) avail = 4;
    if (n <= avail) {
        lr.n_rows = n;
        return lr;
    }
    int win = avail - 3; /* pin + "⋮" before, "⋮" after */
    /* one query alone looks only back (the causal mask): its row goes last, else in the middle */
    lr.w0 = focus_last ? focus - win + 1 : focus - win / 2;
    lr.w1 = lr.w0 + win;
    if (lr.w1 >= n) { /* the window reaches the end: no "⋮" after, one more row for it */
        lr.w1 = n;
        lr.w0 = n - (win + 1);
    }
    if (lr.w0 <= 2) { /* the window reaches the start: no pin, no "⋮" before */
        lr.w0 = 0;
        lr.w1 = avail - 1;
    }
    lr.pin = lr.w0 > 0;
    lr.later = lr.w1 < n;
    lr.n_rows = (lr.pin ? 2 : 0) + (lr.w1 - lr.w0) + (lr.later ? 1 : 0);
    return lr;
}

/* The row position p is drawn on; for a query, -1 when it is not shown (skipped). */
static int row_of(const LinesRows *lr, int p, int as_key) {
    if (p >= lr->w0 && p < lr->w1) return (lr->pin ? 2 : 0) + p - lr->w0;
    if (lr->pin && p == 0) return 0;
    if (!as_key) return -1;
    if (lr->pin && p < lr->w0) return 1;
    return lr->later && p >= lr->w1 ? lr->n_rows - 1 : -1;
}

static void heads_text(unsigned long long mask, int NH, int layer, char *buf, size_t cap) {
    int n = 0, first = -1;
    for (int h = 0; h < NH && h < 64; h++)
        if ((mask >> h) & 1u) n++, first = first < 0 ? h : first;
    if (n == 1) snprintf(buf, cap, "layer %d, head %d", layer, first);
    else if (n == NH) snprintf(buf, cap, "layer %d, all %d heads", layer, NH);
    else {
        size_t k = (size_t)snprintf(buf, cap, "layer %d, heads", layer);
        for (int h = 0; h < NH && h < 64 && k < cap; h++)
            if ((mask >> h) & 1u) k += (size_t)snprintf(buf + k, cap - k, " %d", h);
    }
}

/* One token row: its position (muted) and its label, right-aligned on the left column,
 * left-aligned on the right one; the chosen query boxed in the accent colour. */
static int draw_token_row(Viz *viz, Rect cell, const VizFrame *f, int p, int right, int boxed, VizHits *hits) {
    const Theme *th = viz->theme;
    char lab[TOKEN_LABEL_CAP], num[16];
    token_label_ex(f->tok, f->ids[p], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    snprintf(num, sizeof num, "%d", p);
    int gap = viz_px(viz, 6);
    int num_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, "000") + gap;
    TextStyle ns = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    TextStyle ts = {.font = p == f->n_pos - 1 ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_BODY, .color = th->text,
                    .valign = VIZ_ALIGN_MIDDLE, .max_width = cell.w - num_w};
    int cy = cell.y + cell.h / 2, rc = 0, tw = 0;
    if (right) {
        ns.halign = VIZ_ALIGN_RIGHT;
        rc |= draw_text(viz, cell.x + num_w - gap, cy, num, &ns, NULL);
        rc |= draw_text(viz, cell.x + num_w, cy, lab, &ts, &tw);
        if (boxed) rc |= draw_rect_outline(viz, (Rect){cell.x + num_w - gap / 2, cell.y, tw + gap, cell.h}, th->accent, viz_px(viz, 2));
    } else {
        ts.halign = VIZ_ALIGN_RIGHT;
        rc |= draw_text(viz, cell.x + cell.w - num_w, cy, lab, &ts, &tw);
        rc |= draw_text(viz, cell.x + cell.w - num_w + gap, cy, num, &ns, NULL);
        if (boxed) rc |= draw_rect_outline(viz, (Rect){cell.x + cell.w - num_w - tw - gap / 2, cell.y, tw + gap, cell.h}, th->accent, viz_px(viz, 2));
    }
    if (f->view.highlight_token == p) rc |= draw_rect_outline(viz, cell, th->highlight, viz_px(viz, 1));
    viz_hits_add(hits, cell, VIZ_HIT_TOKEN_CHIP, p, 0);
    return rc;
}

/* What the parts of the figure share: the frame, the panel's inner rect, line heights, the
 * rows chosen and where the two token columns and the lines between them go. */
typedef struct LinesCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const AttnLinesSelect *sel;
    VizHits *hits;
    Rect in;
    int body_h, small_h;
    int n, NH, one;  /* positions, heads of the layer, 1: one query alone */
    TextStyle sub;   /* the muted body text of the subtitle and the footer */
    LinesRows lr;
    int focus;       /* the position the window is around */
    int row_h, body_top;
    Rect lc, rcol;   /* the query column (left) and the key column (right) */
    int x0, x1;      /* where the lines start and end */
} LinesCtx;

/* The title naming the heads, then what the lines are and how much of the attention they
 * carry (a shorter wording when the long one needs more than two lines: a large UI scale on a
 * small window). Returns the y below them. */
static int draw_lines_heading(LinesCtx *c, int *rc) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const AttnLinesSelect *sel = c->sel;
    const int NH = c->NH, body_h = c->body_h;
    const Rect in = c->in;
    char buf[512], heads[160];
    heads_text(sel->head_mask, NH, sel->layer, heads, sizeof heads);
    snprintf(buf, sizeof buf, "Attention lines \xE2\x80\x94 %s", heads);
    *rc |= label(viz, in.x, in.y, in.w, buf, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, c->th->text);
    int y = in.y + viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + viz_px(viz, 2);

    char alt[256];
    if (c->one) {
        char lab[TOKEN_LABEL_CAP];
        token_label_ex(f->tok, f->ids[sel->only_query], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
        snprintf(buf, sizeof buf, "Query %d '%s' alone: every key with at least %.0f\xC2\xA0%% \xE2\x80\x94 %.0f\xC2\xA0%% of its attention.%s",
                 sel->only_query, lab, 100.0 * (double)sel->min_weight, 100.0 * f->lines_res.mass_shown,
                 f->view.print ? "" : " Click it again for every query.");
        snprintf(alt, sizeof alt, "Query %d alone, keys \xE2\x89\xA5\xC2\xA0%.0f\xC2\xA0%%: %.0f\xC2\xA0%% of its attention.",
                 sel->only_query, 100.0 * (double)sel->min_weight, 100.0 * f->lines_res.mass_shown);
    } else {
        snprintf(buf, sizeof buf,
                 "Queries left, the tokens they look at right; width = weight. The %d strongest keys per query%s, "
                 "at least %.0f\xC2\xA0%%: %.0f\xC2\xA0%% of the attention.%s",
                 sel->top_k, NH > 1 && (sel->head_mask & (sel->head_mask - 1)) ? " and head" : "",
                 100.0 * (double)sel->min_weight, 100.0 * f->lines_res.mass_shown,
                 f->view.print ? "" : " Click a token for its lines alone, a head in the legend to add or drop it.");
        snprintf(alt, sizeof alt, "Width = weight. Top %d keys, \xE2\x89\xA5\xC2\xA0%.0f\xC2\xA0%%: %.0f\xC2\xA0%% of the attention.",
                 sel->top_k, 100.0 * (double)sel->min_weight, 100.0 * f->lines_res.mass_shown);
    }
    if (draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf, in.w, 3) > 2) snprintf(buf, sizeof buf, "%s", alt);
    int sub_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf, in.w, 2);
    *rc |= draw_wrapped_text(viz, (Rect){in.x, y, in.w, sub_lines * body_h}, buf, &c->sub, body_h, 2);
    return y + sub_lines * body_h + viz_px(viz, 4);
}

/* The legend: one swatch and name per head drawn; in the window the other heads of the layer
 * too, hollow and muted, so a click can add them (VIZ_HIT_HEAD_THUMB: a = layer, b = head).
 * Returns the y below it. */
static int draw_head_legend(LinesCtx *c, int y, int *rc) {
    Viz *viz = c->viz;
    const Theme *th = c->th;
    const AttnLinesSelect *sel = c->sel;
    const Rect in = c->in;
    int x = in.x, sw = viz_px(viz, 28), gap = viz_px(viz, 14), lh = c->body_h;
    for (int h = 0; h < c->NH && h < 64; h++) {
        int on = (int)((sel->head_mask >> h) & 1u);
        if (!on && c->f->view.print) continue;
        char name[32];
        snprintf(name, sizeof name, on ? "L%dH%d" : "L%dH%d off", sel->layer, h);
        TextStyle ls = {.font = on ? VIZ_FONT_BOLD : VIZ_FONT_SANS, .size = VIZ_TEXT_BODY,
                        .color = on ? th->text : th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
        int w = sw + viz_px(viz, 6) + viz_text_width(viz, ls.font, VIZ_TEXT_BODY, name);
        if (x > in.x && x + w > in.x + in.w) x = in.x, y += lh;
        if (on) *rc |= draw_line(viz, x, y + lh / 2, x + sw, y + lh / 2, colormap_category(h), viz_px(viz, 5));
        else *rc |= draw_rect_outline(viz, (Rect){x, y + lh / 2 - viz_px(viz, 4), sw, viz_px(viz, 8)}, colormap_category(h), 1);
        *rc |= draw_text(viz, x + sw + viz_px(viz, 6), y + lh / 2, name, &ls, NULL);
        viz_hits_add(c->hits, (Rect){x, y, w, lh}, VIZ_HIT_HEAD_THUMB, sel->layer, h);
        x += w + gap;
    }
    return y + lh + viz_px(viz, 6);
}

/* The columns' names, then the rows that fit between them and the footer note: which rows
 * (c->lr), how tall, and where the columns and the lines go. */
static void layout_columns(LinesCtx *c, int y, int foot_h, int *rc) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const Rect in = c->in;
    TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = c->th->text_muted, .valign = VIZ_ALIGN_TOP};
    *rc |= draw_text(viz, in.x, y, "query (looks)", &hs, NULL);
    hs.halign = VIZ_ALIGN_RIGHT;
    *rc |= draw_text(viz, in.x + in.w, y, "key (looked at)", &hs, NULL);
    y += c->small_h + viz_px(viz, 2);

    int row_h = c->body_h + viz_px(viz, 2);
    int body_top = y, body_bot = in.y + in.h - foot_h;
    int avail = (body_bot - body_top) / row_h;
    c->focus = c->one ? c->sel->only_query : (f->view.query >= 0 ? f->view.query : c->n - 1);
    c->lr = pick_rows(c->n, avail, c->focus, c->one);
    if (c->lr.n_rows > 0 && c->lr.n_rows * row_h < body_bot - body_top) { /* few tokens: taller rows, up to 2x */
        int grow = (body_bot - body_top) / c->lr.n_rows;
        row_h = grow < 2 * row_h ? grow : 2 * row_h;
    }
    int col_w = in.w * 30 / 100;
    int max_lab = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "0000000000000000") +
                  viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, "000") + viz_px(viz, 12);
    if (col_w > max_lab) col_w = max_lab;
    c->row_h = row_h;
    c->body_top = body_top;
    c->lc = (Rect){in.x, body_top, col_w, c->lr.n_rows * row_h};
    c->rcol = (Rect){in.x + in.w - col_w, body_top, col_w, c->lr.n_rows * row_h};
    c->x0 = c->lc.x + c->lc.w + viz_px(viz, 8);
    c->x1 = c->rcol.x - viz_px(viz, 8);
}

/* The lines, weakest first so the strong ones lie on top; those of queries not shown are
 * counted (*hidden), and so are those that end on a "⋮" row (*into_gap). */
static int draw_lines(const LinesCtx *c, size_t *hidden, size_t *into_gap) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const AttnLinesSelect *sel = c->sel;
    const LinesRows *lr = &c->lr;
    const int row_h = c->row_h;
    int rc = 0, n_lanes = 0;
    for (int h = 0; h < c->NH && h < 64; h++) n_lanes += (int)((sel->head_mask >> h) & 1u);
    int lane_px = n_lanes > 1 ? (row_h * 2 / 3) / n_lanes : 0;
    int max_th = n_lanes > 1 ? (lane_px > 2 ? lane_px : 2) : row_h / 3;
    if (max_th < viz_px(viz, 3) && n_lanes <= 1) max_th = viz_px(viz, 3);
    for (size_t i = 0; i < f->n_attn_lines; i++) {
        const AttnLine *ln = &f->attn_lines[i];
        int rq = row_of(lr, ln->query, 0), rk = row_of(lr, ln->key, 1);
        if (rq < 0 || rk < 0) {
            (*hidden)++;
            continue;
        }
        if ((lr->pin && rk == 1 && ln->key != 0) || (lr->later && rk == lr->n_rows - 1)) (*into_gap)++;
        float w = ln->weight < 0.0f ? 0.0f : (ln->weight > 1.0f ? 1.0f : ln->weight);
        SDL_Color col = colormap_category(ln->head);
        col.a = (Uint8)(70.0f + 185.0f * w);
        int t = 1 + (int)((float)(max_th - 1) * w + 0.5f);
        /* several heads: each its own lane within the row, so lines between the same two tokens
         * lie side by side instead of on top of each other */
        int lane = 0;
        for (int h = 0; h < ln->head && h < 64; h++) lane += (int)((sel->head_mask >> h) & 1u);
        int dy = n_lanes > 1 ? (2 * lane - (n_lanes - 1)) * lane_px / 2 : 0;
        rc |= draw_line(viz, c->x0, c->body_top + rq * row_h + row_h / 2 + dy, c->x1,
                        c->body_top + rk * row_h + row_h / 2 + dy, col, t);
    }
    return rc;
}

/* One query alone: its weights printed at the keys' ends, per head in head order ("H0 62 %  H3 31 %";
 * a "⋮" row gets the sum of the keys it stands for, "Σ"), so the numbers never ride on colour and
 * width alone */
static int draw_key_weights(const LinesCtx *c) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const LinesRows *lr = &c->lr;
    char buf[512];
    int rc = 0;
    TextStyle ws = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = c->th->text, .valign = VIZ_ALIGN_BOTTOM,
                    .halign = VIZ_ALIGN_RIGHT, .max_width = (c->x1 - c->x0) / 2};
    for (int row = 0; row < lr->n_rows; row++) {
        int gap_row = (lr->pin && row == 1) || (lr->later && row == lr->n_rows - 1);
        double sum[64] = {0};
        int any = 0;
        for (size_t i = 0; i < f->n_attn_lines; i++) {
            const AttnLine *ln = &f->attn_lines[i];
            if (ln->head < 64 && row_of(lr, ln->key, 1) == row) sum[ln->head] += (double)ln->weight, any = 1;
        }
        if (!any) continue;
        size_t k = 0;
        buf[0] = 0;
        for (int h = 0; h < 64 && k < sizeof buf; h++)
            if (sum[h] > 0.0)
                k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%sH%d %.0f\xC2\xA0%%", k ? "  " : "",
                                      gap_row ? "\xCE\xA3 " : "", h, 100.0 * sum[h]);
        rc |= draw_text(viz, c->x1 - viz_px(viz, 4), c->body_top + row * c->row_h + c->row_h / 2 - viz_px(viz, 3), buf, &ws, NULL);
    }
    return rc;
}

/* The token rows over the lines' ends; a "⋮" row names the positions it stands for. */
static int draw_token_rows(const LinesCtx *c) {
    Viz *viz = c->viz;
    const LinesRows *lr = &c->lr;
    char buf[64];
    int rc = 0;
    for (int row = 0; row < lr->n_rows; row++) {
        Rect cl = {c->lc.x, c->body_top + row * c->row_h, c->lc.w, c->row_h}, cr = {c->rcol.x, cl.y, c->rcol.w, c->row_h};
        int p = -1;
        if (lr->pin && row == 0) p = 0;
        else if (lr->pin && row == 1) p = -1;
        else if (lr->later && row == lr->n_rows - 1) p = -2;
        else p = lr->w0 + row - (lr->pin ? 2 : 0);
        if (p >= 0) {
            rc |= draw_token_row(viz, cl, c->f, p, 0, c->one && p == c->sel->only_query, c->hits);
            rc |= draw_token_row(viz, cr, c->f, p, 1, 0, c->hits);
            continue;
        }
        if (p == -1) snprintf(buf, sizeof buf, "\xE2\x8B\xAE %d\xE2\x80\x93%d", 1, lr->w0 - 1);
        else snprintf(buf, sizeof buf, "\xE2\x8B\xAE %d\xE2\x80\x93%d", lr->w1, c->n - 1);
        TextStyle gs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = c->th->text_muted, .valign = VIZ_ALIGN_MIDDLE,
                        .halign = VIZ_ALIGN_RIGHT, .max_width = cl.w};
        rc |= draw_text(viz, cl.x + cl.w, cl.y + cl.h / 2, buf, &gs, NULL);
        gs.halign = VIZ_ALIGN_LEFT;
        rc |= draw_text(viz, cr.x, cr.y + cr.h / 2, buf, &gs, NULL);
    }
    return rc;
}

/* The footer: what is not on the figure. */
static int draw_lines_footer(const LinesCtx *c, int foot_h, size_t hidden, size_t into_gap) {
    Viz *viz = c->viz;
    const LinesRows *lr = &c->lr;
    const Rect in = c->in;
    const int n = c->n;
    char buf[512];
    int fy = in.y + in.h - foot_h + viz_px(viz, 4);
    if (lr->pin || lr->later) {
        size_t k = (size_t)snprintf(buf, sizeof buf, "%d of %d tokens shown one per row, around %s %d.",
                                    lr->w1 - lr->w0 + (lr->pin ? 1 : 0), n,
                                    c->one || c->f->view.query >= 0 ? "query" : "the newest token,", c->focus);
        if (hidden && k < sizeof buf)
            k += (size_t)snprintf(buf + k, sizeof buf - k, " The %zu lines of the queries not shown are left out.", hidden);
        if (into_gap && k < sizeof buf)
            snprintf(buf + k, sizeof buf - k, " %zu lines end on a \xE2\x8B\xAE row.", into_gap);
        if (draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf, in.w, 3) > 2)
            snprintf(buf, sizeof buf, "%d of %d tokens shown, \xE2\x8B\xAE = skipped; %zu lines not drawn, %zu end on \xE2\x8B\xAE.",
                     lr->w1 - lr->w0 + (lr->pin ? 1 : 0), n, hidden, into_gap);
    } else {
        snprintf(buf, sizeof buf, "%zu lines drawn; every token shown.", c->f->n_attn_lines);
    }
    return draw_wrapped_text(viz, (Rect){in.x, fy, in.w, 2 * c->body_h}, buf, &c->sub, c->body_h, 2);
}

int draw_attn_lines_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    if (!f || !f->attn_lines || !f->tok || !f->ids || !f->cfg || f->n_pos < 1) {
        int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
        rc |= label(viz, in.x, in.y, in.w, "attention lines", VIZ_FONT_BOLD, VIZ_TEXT_TITLE, th->text);
        const char *why = f && f->attn_missing && f->attn_missing[0] ? f->attn_missing : "no tokens yet: type a prompt";
        rc |= label(viz, in.x, in.y + title_h + viz_px(viz, 8), in.w, why, VIZ_FONT_SANS, VIZ_TEXT_BODY, th->text_muted);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    LinesCtx c = {.viz = viz, .th = th, .f = f, .sel = &f->lines_sel, .hits = hits, .in = in,
                  .body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY),
                  .small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL),
                  .n = f->n_pos, .NH = f->cfg->n_head, .one = f->lines_sel.only_query >= 0,
                  .sub = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted, .valign = VIZ_ALIGN_TOP}};
    int y = draw_lines_heading(&c, &rc);
    y = draw_head_legend(&c, y, &rc);
    int foot_h = 2 * c.body_h + viz_px(viz, 4);
    layout_columns(&c, y, foot_h, &rc);
    size_t hidden = 0, into_gap = 0;
    rc |= draw_lines(&c, &hidden, &into_gap);
    if (c.one) rc |= draw_key_weights(&c);
    rc |= draw_token_rows(&c);
    rc |= draw_lines_footer(&c, foot_h, hidden, into_gap);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
