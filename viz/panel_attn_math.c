/* panel_attn_math.c — draw_attn_math_panel: how one query's attention is computed, on
 * the real numbers of f->attn_math (engine/attn_explain: every value equals the trace):
 * q_i as a diverging colour strip; one row per key j with k_j as a strip, the raw score
 * q.k_j as a signed bar, / sqrt(d_head), the causal mask (-inf for keys after the query,
 * shown, not hidden), the softmax weight p_j as a bar with its number and the weighted
 * value p_j v_j; then the sum of the row (1), z_i = sum_j p_j v_j, the heads' outputs side
 * by side and the projection to attn_out, each stage with its shape.
 * Numbers are printed wherever colour carries them (scores and weights in every row; the
 * strips' values on hover, their scale beside them). No math here: the panel picks which
 * rows fit and scales the colours to the largest |value| shown, nothing else. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "prob_format.h"
#include "token_label.h"

/* Which key rows fit: every key up to the query when they do; else key 0 (often the
 * sink), the query itself and the keys with the largest weights in between, in key order
 * (a jump in the index is marked by a line, MathRows.gap). Then up to two masked future keys
 * and a "⋮" row, or the note that the query is the newest token. A choice of rows, no math. */
typedef struct MathRows {
    int key[64];     /* the key of each drawn row, -1 = a "⋮" row, -2 = the "no later keys" note */
    int gap[64];     /* 1: keys were skipped before this row */
    int n;
} MathRows;

static int already(const MathRows *mr, int j) {
    for (int k = 0; k < mr->n; k++)
        if (mr->key[k] == j) return 1;
    return 0;
}

static void pick_rows(MathRows *mr, const AttnExplain *ex, int avail) {
    const int i = ex->query, T = ex->n_keys;
    memset(mr, 0, sizeof *mr);
    if (avail > 64) avail = 64;
    if (avail < 1) return;
    int future = T - 1 - i;              /* masked keys that exist in the trace */
    int show_future = future < 2 ? future : 2;
    int note = future == 0 ? 1 : 0;      /* the newest query: say there are no later keys */
    int more = future > show_future ? 1 : 0; /* the "⋮" row after the future keys */
    int room = avail - show_future - note - more;
    /* short of rooms: the "⋮" row goes first, then one future key, then the note; a masked
     * key stays as long as two rows fit, it is what the mask column is about */
    if (room < 2 && more) more = 0, room++;
    if (room < 2 && show_future > 1) show_future--, room++;
    if (room < 2 && note) note = 0, room++;
    if (room < 1) room = 1, show_future = avail > 1 ? 1 : 0;
    if (i + 1 <= room) {
        for (int j = 0; j <= i; j++) mr->key[mr->n++] = j;
    } else {
        if (room >= 2) mr->key[mr->n++] = 0;
        mr->key[mr->n++] = i;
        while (mr->n < room) { /* the heaviest key not shown yet */
            int best = -1;
            for (int j = 1; j < i; j++)
                if (!already(mr, j) && (best < 0 || ex->pattern[j] > ex->pattern[best])) best = j;
            if (best < 0) break;
            mr->key[mr->n++] = best;
        }
        for (int a = 1; a < mr->n; a++) /* key order (insertion sort: at most 64 rows) */
            for (int b = a; b > 0 && mr->key[b - 1] > mr->key[b]; b--) {
                int t = mr->key[b];
                mr->key[b] = mr->key[b - 1];
                mr->key[b - 1] = t;
            }
        for (int a = 1; a < mr->n; a++) mr->gap[a] = mr->key[a] != mr->key[a - 1] + 1;
    }
    for (int j = i + 1; j <= i + show_future; j++) mr->key[mr->n++] = j;
    if (more) mr->key[mr->n++] = -1;
    if (note) mr->key[mr->n++] = -2;
}

/* A strip of n values as diverging colour cells in r (scaled to +-m). */
static int draw_strip(Viz *viz, Rect r, const float *x, int n, float m) {
    int rc = 0;
    for (int d = 0; d < n; d++) {
        int x0 = r.x + (int)((long)r.w * d / n), x1 = r.x + (int)((long)r.w * (d + 1) / n);
        rc |= draw_fill_rect(viz, (Rect){x0, r.y, x1 - x0 > 0 ? x1 - x0 : 1, r.h},
                             colormap_sample_signed(viz->theme->diverging, x[d], m));
    }
    rc |= draw_rect_outline(viz, r, viz->theme->panel_border, 1);
    return rc;
}

/* The strip cell under (mx, my), or -1. */
static int strip_cell(Rect r, int n, int mx, int my) {
    if (!rect_contains(r, mx, my) || r.w <= 0) return -1;
    int d = (int)((long)(mx - r.x) * n / r.w);
    return d >= 0 && d < n ? d : -1;
}

static float max_abs(const float *x, size_t n, float m) {
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && fabsf(x[i]) > m) m = fabsf(x[i]);
    return m;
}

/* A signed bar from the middle of r (left = negative), its number at the far side. */
static int draw_signed_bar(Viz *viz, Rect r, float x, float m, SDL_Color c) {
    int mid = r.x + r.w / 2;
    int len = m > 0 && isfinite(x) ? (int)((float)(r.w / 2) * fabsf(x) / m) : 0;
    int bh = r.h * 2 / 3;
    Rect b = x >= 0 ? (Rect){mid, r.y + (r.h - bh) / 2, len, bh} : (Rect){mid - len, r.y + (r.h - bh) / 2, len, bh};
    int rc = draw_fill_rect(viz, (Rect){mid, r.y, 1, r.h}, viz->theme->grid);
    if (len > 0) rc |= draw_fill_rect(viz, b, c);
    return rc;
}

static int draw_num(Viz *viz, Rect cell, const char *s, SDL_Color c, VizAlignH al) {
    TextStyle ts = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_BODY, .color = c, .valign = VIZ_ALIGN_MIDDLE,
                    .halign = al, .max_width = cell.w};
    int x = al == VIZ_ALIGN_RIGHT ? cell.x + cell.w : al == VIZ_ALIGN_CENTER ? cell.x + cell.w / 2 : cell.x;
    return draw_text(viz, x, cell.y + cell.h / 2, s, &ts, NULL);
}

static int draw_label(Viz *viz, int x, int y, int w, const char *s, VizFont font, VizTextSize size, SDL_Color c) {
    TextStyle ts = {.font = font, .size = size, .color = c, .valign = VIZ_ALIGN_TOP, .max_width = w};
    return draw_text(viz, x, y, s, &ts, NULL);
}

/* Columns of the key table, left to right. */
typedef struct MathCols {
    Rect tok, k, dot, scaled, mask, p, pv; /* x and w only */
    int show_k, show_pv;
    int dot_bar, p_bar;  /* 1: the column has room for its bar beside the number */
} MathCols;

static MathCols math_cols(Viz *viz, Rect in, int HS) {
    MathCols c;
    memset(&c, 0, sizeof c);
    int gap = viz_px(viz, 8);
    int nw = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "-00.000") + viz_px(viz, 4);
    int tok_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "000 ") + viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "tokentok");
    /* narrow (a large UI scale on a small screen): the bars go first, then the token text
     * shrinks; the numbers stay, they are what the panel is for */
    c.dot_bar = c.p_bar = 1;
    int fixed = tok_w + (2 * nw) + nw + nw + (2 * nw) + 5 * gap;
    if (fixed > in.w) c.dot_bar = 0, fixed -= nw;
    if (fixed > in.w) c.p_bar = 0, fixed -= nw / 2;
    if (fixed > in.w) {
        int min_tok = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "000 ") + viz_px(viz, 24);
        int cut = fixed - in.w < tok_w - min_tok ? fixed - in.w : tok_w - min_tok;
        tok_w -= cut, fixed -= cut;
    }
    int rest = in.w - fixed;
    c.show_k = rest >= 2 * HS / 2 + gap; /* at least half a pixel per value would be mush */
    c.show_pv = rest >= 2 * HS + 2 * gap;
    int strip = c.show_pv ? (rest - 2 * gap) / 2 : c.show_k ? rest - gap : 0;
    if (strip > viz_px(viz, 8) * HS) strip = viz_px(viz, 8) * HS;
    int x = in.x;
#define COL(field, w)                                                                                           \
    do {                                                                                                        \
        c.field = (Rect){x, 0, (w), 0};                                                                         \
        x += (w) + gap;                                                                                         \
    } while (0)
    COL(tok, tok_w);
    if (c.show_k) COL(k, strip);
    COL(dot, c.dot_bar ? 2 * nw : nw);
    COL(scaled, nw);
    COL(mask, nw);
    COL(p, c.p_bar ? 2 * nw : nw + nw / 2);
    if (c.show_pv) COL(pv, strip);
#undef COL
    return c;
}

static Rect at_row(Rect col, int y, int h) { return (Rect){col.x, y, col.w, h}; }

/* The result shape of a stage's shape text: after "-> ", else up to its first ')'. */
static void result_shape(const char *shape, char *buf, size_t cap) {
    const char *a = strstr(shape, "-> ");
    if (a) {
        snprintf(buf, cap, "%s", a + 3);
        return;
    }
    const char *e = strchr(shape, ')');
    int n = e ? (int)(e - shape) + 1 : (int)strlen(shape);
    snprintf(buf, cap, "%.*s", n, shape);
}

/* What every part of the panel shares: the frame, the explained query, the columns, the
 * line heights, the colour scales, the mouse and the hover readout the parts fill. */
typedef struct MathCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const AttnExplain *ex;
    VizHits *hits;
    Rect in;
    MathCols c;
    int body_h, small_h, row_h;
    float mq, mv, mdot; /* |max| of q and k; of p_j v_j and z; of q.k */
    int mx, my;
    char hover[160];
} MathCtx;

/* The q strip with its shape and its colour scale. */
static int draw_q_row(MathCtx *m, int y) {
    Viz *viz = m->viz;
    const AttnExplain *ex = m->ex;
    const MathCols *c = &m->c;
    const int i = ex->query, HS = ex->HS;
    char buf[160];
    snprintf(buf, sizeof buf, "q_%d  %s", i, ex->stage[ATTN_STAGE_Q].shape);
    int rc = draw_label(viz, c->tok.x, y + (m->row_h - m->body_h) / 2, c->tok.w + (c->show_k ? 0 : c->dot.w), buf,
                        VIZ_FONT_BOLD, VIZ_TEXT_BODY, m->th->text);
    Rect qstrip = c->show_k ? (Rect){c->k.x, y, c->k.w, m->row_h}
                            : (Rect){c->dot.x, y, c->dot.w + c->scaled.w + c->mask.w, m->row_h};
    rc |= draw_strip(viz, qstrip, ex->q, HS, m->mq);
    int d = strip_cell(qstrip, HS, m->mx, m->my);
    if (d >= 0) snprintf(m->hover, sizeof m->hover, "q_%d[%d] = %.5f", i, d, (double)ex->q[d]);
    ColorbarSpec cb = {.map = m->th->diverging, .vmin = -m->mq, .vmax = m->mq, .label = "q, k value", .target_ticks = 5};
    int cx = qstrip.x + qstrip.w + viz_px(viz, 16);
    int cw = m->in.x + m->in.w - cx;
    if (cw > viz_px(viz, 220)) cw = viz_px(viz, 220);
    if (cw > viz_px(viz, 90)) rc |= draw_colorbar(viz, (Rect){cx, y - viz_px(viz, 4), cw, 2 * m->row_h}, &cb, NULL);
    return rc;
}

/* The table's header: what each column is, with its shape. Returns the y under it. */
static int draw_table_head(MathCtx *m, int y, int *rc) {
    Viz *viz = m->viz;
    const AttnExplain *ex = m->ex;
    const MathCols *c = &m->c;
    TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = m->th->text, .valign = VIZ_ALIGN_TOP};
    char sq[32];
    snprintf(sq, sizeof sq, "\xC3\xB7\xE2\x88\x9A%d = \xC3\xB7%.4g", ex->HS, (double)ex->sqrt_hs);
    const struct { Rect col; const char *text; int on; } head[] = {
        {c->tok, "key j", 1},          {c->k, "k_j", c->show_k},          {c->dot, "q\xC2\xB7k_j", 1},
        {c->scaled, sq, 1},            {c->mask, "mask", 1},              {c->p, "softmax p_j", 1},
        {c->pv, "p_j v_j", c->show_pv},
    };
    for (size_t h = 0; h < sizeof head / sizeof head[0]; h++) {
        if (!head[h].on) continue;
        hs.max_width = head[h].col.w + viz_px(viz, 6);
        *rc |= draw_text(viz, head[h].col.x, y, head[h].text, &hs, NULL);
    }
    y += m->small_h;
    TextStyle ss = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = m->th->text_muted, .valign = VIZ_ALIGN_TOP};
    const struct { Rect col; AttnStage s; int on; } shp[] = {
        {c->k, ATTN_STAGE_K, c->show_k}, {c->dot, ATTN_STAGE_DOT, 1}, {c->scaled, ATTN_STAGE_SCALE, 1},
        {c->mask, ATTN_STAGE_MASK, 1},  {c->p, ATTN_STAGE_SOFTMAX, 1}, {c->pv, ATTN_STAGE_WEIGHTED, c->show_pv},
    };
    for (size_t h = 0; h < sizeof shp / sizeof shp[0]; h++) {
        if (!shp[h].on) continue;
        ss.max_width = shp[h].col.w + viz_px(viz, 6);
        char rs[48];
        result_shape(ex->stage[shp[h].s].shape, rs, sizeof rs);
        *rc |= draw_text(viz, shp[h].col.x, y, rs, &ss, NULL);
    }
    return y + m->small_h + viz_px(viz, 4);
}

/* A "⋮" row (j = -1) or the note under the newest query (j = -2). */
static int draw_special_row(MathCtx *m, int y, int j) {
    if (j == -1)
        return draw_label(m->viz, m->c.tok.x, y, m->in.w, "\xE2\x8B\xAE", VIZ_FONT_SANS, VIZ_TEXT_BODY, m->th->text_muted);
    return draw_label(m->viz, m->c.tok.x, y + (m->row_h - m->small_h) / 2, m->in.w,
                      m->f->view.print ? "(no key after the query: it is the newest token; for an earlier query "
                                         "the later keys are masked to \xE2\x88\x92\xE2\x88\x9E)"
                                       : "(no key after the query: it is the newest token; click an earlier row "
                                         "of the heatmap to see later keys masked to \xE2\x88\x92\xE2\x88\x9E)",
                      VIZ_FONT_SANS, VIZ_TEXT_SMALL, m->th->text_muted);
}

/* The softmax cell of key j: a 0..1 bar (beside the number, or a thin one under it when
 * narrow) and the weight. */
static int draw_softmax_cell(MathCtx *m, int y, int j, int masked, SDL_Color tc) {
    Viz *viz = m->viz;
    const Theme *th = m->th;
    const AttnExplain *ex = m->ex;
    int pad = viz_px(viz, 2);
    char buf[32];
    Rect pc = at_row(m->c.p, y, m->row_h);
    int pnum_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "0.0000") + viz_px(viz, 4);
    Rect pb = m->c.p_bar ? (Rect){pc.x, pc.y + pad, pc.w - pnum_w - pad, pc.h - 2 * pad}
                         : (Rect){pc.x, pc.y + pc.h - viz_px(viz, 4), pc.w, viz_px(viz, 3)};
    int rc = draw_fill_rect(viz, (Rect){pb.x, pb.y, (int)((float)pb.w * ex->pattern[j] + 0.5f), pb.h},
                            colormap_sample(th->sequential, 0.35f + 0.65f * ex->pattern[j]));
    if (m->c.p_bar) rc |= draw_rect_outline(viz, pb, th->grid, 1);
    if (masked) snprintf(buf, sizeof buf, "0");
    else prob_format_fixed((double)ex->pattern[j], 4, buf, sizeof buf);
    rc |= draw_num(viz, m->c.p_bar ? (Rect){pb.x + pb.w, pc.y, pnum_w + pad, pc.h} : pc, buf, tc, VIZ_ALIGN_RIGHT);
    return rc;
}

/* One key row: the token, k_j, q.k_j (a signed bar under its number; future keys too,
 * greyed: computed, then masked), / sqrt(d), the mask, the softmax weight, p_j v_j. */
static int draw_key_row(MathCtx *m, int y, int j, int gap) {
    Viz *viz = m->viz;
    const Theme *th = m->th;
    const AttnExplain *ex = m->ex;
    const MathCols *c = &m->c;
    const int i = ex->query, HS = ex->HS, row_h = m->row_h;
    char buf[320], lab[TOKEN_LABEL_CAP];
    int rc = 0;
    if (gap) /* keys skipped above this row: a dashed line across the table */
        for (int x = m->in.x; x < m->in.x + m->in.w; x += viz_px(viz, 8))
            rc |= draw_fill_rect(viz, (Rect){x, y - 1, viz_px(viz, 4), 1}, th->text_muted);
    int masked = j > i;
    SDL_Color tc = masked ? th->cut : th->text;
    Rect rowr = {m->in.x, y, m->in.w, row_h};
    if (j == m->f->view.highlight_token) rc |= draw_fill_rect(viz, rowr, color_mix(th->panel, th->highlight, 0.30f));
    viz_hits_add(m->hits, rowr, VIZ_HIT_ATTN_CELL, i, j);
    token_label_ex(m->f->tok, m->f->ids[j], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    snprintf(buf, sizeof buf, "%3d %s", j, lab);
    rc |= draw_label(viz, c->tok.x, y + (row_h - m->body_h) / 2, c->tok.w, buf, j == i ? VIZ_FONT_BOLD : VIZ_FONT_SANS,
                     VIZ_TEXT_BODY, tc);
    int pad = viz_px(viz, 2);
    if (c->show_k) {
        Rect ks = rect_inset4(at_row(c->k, y, row_h), 0, pad, 0, pad);
        rc |= draw_strip(viz, ks, ex->k + (size_t)j * (size_t)HS, HS, m->mq);
        int dk = strip_cell(ks, HS, m->mx, m->my);
        if (dk >= 0)
            snprintf(m->hover, sizeof m->hover, "k_%d[%d] = %.5f", j, dk, (double)ex->k[(size_t)j * HS + dk]);
    }
    Rect dc = at_row(c->dot, y, row_h);
    int dnum_x = dc.x;
    if (c->dot_bar) {
        Rect dbar = {dc.x, dc.y + pad, dc.w / 2 - pad, dc.h - 2 * pad};
        rc |= draw_signed_bar(viz, dbar, ex->dot[j], m->mdot, masked ? th->cut : color_mix(th->panel, th->accent, 0.55f));
        dnum_x = dc.x + dc.w / 2;
    }
    snprintf(buf, sizeof buf, "%.3f", (double)ex->dot[j]);
    rc |= draw_num(viz, (Rect){dnum_x, dc.y, dc.x + dc.w - dnum_x, dc.h}, buf, tc, VIZ_ALIGN_RIGHT);
    snprintf(buf, sizeof buf, "%.3f", (double)ex->scaled[j]);
    rc |= draw_num(viz, at_row(c->scaled, y, row_h), buf, tc, VIZ_ALIGN_RIGHT);
    if (masked) snprintf(buf, sizeof buf, "\xE2\x88\x92\xE2\x88\x9E");
    else snprintf(buf, sizeof buf, "%.3f", (double)ex->masked[j]);
    rc |= draw_num(viz, at_row(c->mask, y, row_h), buf, masked ? th->error : th->text, VIZ_ALIGN_RIGHT);
    rc |= draw_softmax_cell(m, y, j, masked, tc);
    if (c->show_pv) {
        Rect vs = rect_inset4(at_row(c->pv, y, row_h), 0, pad, 0, pad);
        rc |= draw_strip(viz, vs, ex->weighted + (size_t)j * (size_t)HS, HS, m->mv);
        int dv = strip_cell(vs, HS, m->mx, m->my);
        if (dv >= 0)
            snprintf(m->hover, sizeof m->hover, "p_%d v_%d[%d] = %.5f  (v = %.5f)", j, j, dv,
                     (double)ex->weighted[(size_t)j * HS + dv], (double)ex->v[(size_t)j * HS + dv]);
    }
    return rc;
}

/* The sum of the row and the softmax formula; then (show_temp) how doubling or halving
 * the score gaps moves the heaviest key's weight. Returns the y under it. */
static int draw_sum_rows(MathCtx *m, int y, int show_temp, int temp_h, int *rc) {
    Viz *viz = m->viz;
    const AttnExplain *ex = m->ex;
    Rect in = m->in;
    char buf[256];
    snprintf(buf, sizeof buf, "\xCE\xA3 p_j = %.6f", ex->pattern_sum);
    *rc |= draw_label(viz, in.x, y, in.w, buf, VIZ_FONT_BOLD, VIZ_TEXT_BODY, m->th->text);
    int sw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, buf) + viz_px(viz, 14);
    snprintf(buf, sizeof buf, "p_j = exp(s_j \xE2\x88\x92 max) / \xCE\xA3 exp(s_k \xE2\x88\x92 max), max = %.3f",
             (double)ex->max_score);
    *rc |= draw_label(viz, in.x + sw, y + (m->body_h - m->small_h) / 2, in.w - sw, buf, VIZ_FONT_SANS, VIZ_TEXT_SMALL,
                      m->th->text_muted);
    y += m->row_h;
    if (!show_temp) return y;
    int jmax = 0; /* the key with the largest weight (a choice of row, not math) */
    for (int j = 1; j <= ex->query; j++)
        if (ex->pattern[j] > ex->pattern[jmax]) jmax = j;
    char p1[24], p2[24], p3[24];
    prob_format_fixed((double)ex->pattern[jmax], 3, p1, sizeof p1);
    prob_format_fixed((double)ex->sharper[jmax], 3, p2, sizeof p2);
    prob_format_fixed((double)ex->softer[jmax], 3, p3, sizeof p3);
    snprintf(buf, sizeof buf,
             "Bigger score gaps sharpen the softmax: key %d gets %s; with every gap doubled %s, halved %s.", jmax, p1,
             p2, p3);
    *rc |= draw_label(viz, in.x, y, in.w, buf, VIZ_FONT_SANS, VIZ_TEXT_SMALL, m->th->text_muted);
    return y + temp_h;
}

/* z_i = sum_j p_j v_j, its shape and its strip (under the label when there is no
 * p_j v_j column). Returns the y under it. */
static int draw_z_row(MathCtx *m, int y, int z_h, int *rc) {
    Viz *viz = m->viz;
    const AttnExplain *ex = m->ex;
    const MathCols *c = &m->c;
    const int i = ex->query, row_h = m->row_h;
    char buf[320];
    Rect zlab = {m->in.x, y, c->show_pv ? c->pv.x - m->in.x - viz_px(viz, 8) : m->in.w, row_h};
    snprintf(buf, sizeof buf, "z_%d = \xCE\xA3 p_j v_j", i);
    *rc |= draw_label(viz, zlab.x, y + (row_h - m->body_h) / 2, zlab.w, buf, VIZ_FONT_BOLD, VIZ_TEXT_BODY, m->th->text);
    int zw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, buf) + viz_px(viz, 10);
    *rc |= draw_label(viz, zlab.x + zw, y + (row_h - m->small_h) / 2, zlab.w - zw, ex->stage[ATTN_STAGE_Z].shape,
                      VIZ_FONT_MONO, VIZ_TEXT_SMALL, m->th->text_muted);
    Rect zs = c->show_pv ? (Rect){c->pv.x, y, c->pv.w, row_h} : (Rect){m->in.x, y + row_h, m->in.w, row_h};
    if (!c->show_pv) y += row_h;
    *rc |= draw_strip(viz, zs, ex->z, ex->HS, m->mv);
    int dz = strip_cell(zs, ex->HS, m->mx, m->my);
    if (dz >= 0) snprintf(m->hover, sizeof m->hover, "z_%d[%d] = %.5f", i, dz, (double)ex->z[dz]);
    return y + z_h - (c->show_pv ? 0 : row_h);
}

/* The heads' z side by side (NH blocks of HS, this head outlined, |z_h W_O,h| under each
 * block) and the projection to attn_out. Returns the y under it. */
static int draw_concat_rows(MathCtx *m, int y, int *rc) {
    Viz *viz = m->viz;
    const Theme *th = m->th;
    const AttnExplain *ex = m->ex;
    const int HS = ex->HS, NH = ex->NH, C = ex->C, row_h = m->row_h;
    Rect in = m->in;
    char buf[256];
    snprintf(buf, sizeof buf, "The heads' z side by side, %s, then \xC2\xB7 W_O + b: %s",
             ex->stage[ATTN_STAGE_CONCAT].shape, ex->stage[ATTN_STAGE_OUT].shape);
    *rc |= draw_label(viz, in.x, y + (row_h - m->small_h) / 2, in.w, buf, VIZ_FONT_SANS, VIZ_TEXT_SMALL, th->text);
    y += row_h;
    float mc = max_abs(ex->z_concat, (size_t)C, 0.0f);
    Rect cs = {in.x, y, in.w * 3 / 5, row_h};
    int hw = cs.w / NH;
    cs.w = hw * NH; /* whole blocks, so the outline sits on the head's values */
    *rc |= draw_strip(viz, cs, ex->z_concat, C, mc);
    Rect hb = {cs.x + ex->head * hw, cs.y - viz_px(viz, 2), hw, cs.h + viz_px(viz, 4)};
    *rc |= draw_rect_outline(viz, hb, th->text, viz_px(viz, 2));
    for (int h = 1; h < NH; h++) *rc |= draw_fill_rect(viz, (Rect){cs.x + h * hw, cs.y, 1, cs.h}, th->text_muted);
    int dc = strip_cell(cs, C, m->mx, m->my);
    if (dc >= 0) snprintf(m->hover, sizeof m->hover, "head %d z[%d] = %.5f", dc / HS, dc % HS, (double)ex->z_concat[dc]);
    float mo = max_abs(ex->attn_out, (size_t)C, 0.0f);
    Rect os = {cs.x + cs.w + viz_px(viz, 16), y, in.x + in.w - (cs.x + cs.w + viz_px(viz, 16)), row_h};
    if (os.w > viz_px(viz, 40)) {
        *rc |= draw_strip(viz, os, ex->attn_out, C, mo);
        int dout = strip_cell(os, C, m->mx, m->my);
        if (dout >= 0) snprintf(m->hover, sizeof m->hover, "attn_out[%d] = %.5f", dout, (double)ex->attn_out[dout]);
    }
    y += row_h;
    /* how loud each head is in attn_out: |z_h W_O rows of h| under its block */
    int nums_fit = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, "00.00") <= hw;
    for (int h = 0; h < NH && nums_fit; h++) {
        snprintf(buf, sizeof buf, "%.2f", (double)ex->head_out_norm[h]);
        TextStyle ns = {.font = h == ex->head ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL,
                        .color = h == ex->head ? th->text : th->text_muted, .halign = VIZ_ALIGN_CENTER,
                        .valign = VIZ_ALIGN_TOP, .max_width = hw};
        *rc |= draw_text(viz, cs.x + h * hw + hw / 2, y + viz_px(viz, 2), buf, &ns, NULL);
    }
    if (os.w > viz_px(viz, 40))
        *rc |= draw_label(viz, os.x, y + viz_px(viz, 2), os.w, "attn_out (to the residual stream)", VIZ_FONT_SANS,
                          VIZ_TEXT_SMALL, th->text_muted);
    return y + row_h;
}

/* The hover readout: on its own line (show_hover), else over the title's second line. */
static int draw_hover_line(MathCtx *m, int y, int show_hover, int title_h) {
    Viz *viz = m->viz;
    const Theme *th = m->th;
    Rect in = m->in;
    if (show_hover) {
        const char *idle = m->f->view.print ? "under each head: |z_h \xC2\xB7 W_O rows of h|, how much it adds to attn_out"
                                            : "under each head: |z_h \xC2\xB7 W_O rows of h|, how much it adds. "
                                              "Hover a strip for its values.";
        return draw_label(viz, in.x, y, in.w, m->hover[0] ? m->hover : idle, m->hover[0] ? VIZ_FONT_MONO : VIZ_FONT_SANS,
                          VIZ_TEXT_SMALL, m->hover[0] ? th->text : th->text_muted);
    }
    if (!m->hover[0]) return 0;
    int rc = draw_fill_rect(viz, (Rect){in.x, in.y + title_h + viz_px(viz, 2), in.w, m->small_h}, th->panel);
    rc |= draw_label(viz, in.x, in.y + title_h + viz_px(viz, 2), in.w, m->hover, VIZ_FONT_MONO, VIZ_TEXT_SMALL, th->text);
    return rc;
}

/* The placeholder when there is nothing to explain. */
static int draw_math_empty(Viz *viz, Rect in, const VizFrame *f, int title_h) {
    const Theme *th = viz->theme;
    int rc = draw_label(viz, in.x, in.y, in.w, "attention math", VIZ_FONT_BOLD, VIZ_TEXT_TITLE, th->text);
    const char *why = f && f->attn_missing ? f->attn_missing : "no tokens yet: type a prompt";
    rc |= draw_label(viz, in.x, in.y + title_h + viz_px(viz, 8), in.w, why, VIZ_FONT_SANS, VIZ_TEXT_BODY, th->text_muted);
    return rc;
}

int draw_attn_math_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    MathCtx m = {.viz = viz, .th = th, .f = f, .hits = hits};
    int rc = draw_panel_begin(viz, r, &m.in);
    Rect in = m.in;
    const AttnExplain *ex = f ? f->attn_math : NULL;
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    m.body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    m.small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    const int body_h = m.body_h, small_h = m.small_h;
    char buf[512], lab[TOKEN_LABEL_CAP];
    if (!ex || !f->tok || !f->ids || ex->query >= f->n_pos) {
        rc |= draw_math_empty(viz, in, f, title_h);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    m.ex = ex;
    const int i = ex->query, T = ex->n_keys, HS = ex->HS;
    token_label_ex(f->tok, f->ids[i], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    snprintf(buf, sizeof buf, "Attention math \xE2\x80\x94 layer %d head %d, query %d '%s'", ex->layer, ex->head, i, lab);
    if (viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, buf) > in.w) /* the token matters more than the words */
        snprintf(buf, sizeof buf, "L%d H%d, query %d '%s'", ex->layer, ex->head, i, lab);
    rc |= draw_label(viz, in.x, in.y, in.w, buf, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, th->text);
    int y = in.y + title_h + viz_px(viz, 2);

    /* What fits (decided before drawing). The footer gives way first when the panel is
     * short (a large UI scale): the heads' concatenation and the hover line, then the
     * temperature line, then the line under the title; the sum and z stay. At least 4 key
     * rows (or all of them) and the note under the newest query. */
    m.c = math_cols(viz, in, HS);
    const int row_h = m.row_h = body_h + viz_px(viz, 4);
    int want_rows = (T < 4 ? T : 4) + (i == T - 1 ? 1 : 0);
    int sub_h = small_h + viz_px(viz, 6);
    int head_h = row_h + viz_px(viz, 10) + row_h / 2 + small_h + small_h + viz_px(viz, 4);
    int sum_h = viz_px(viz, 12) + row_h, temp_h = small_h + viz_px(viz, 6), z_h = row_h + viz_px(viz, 4);
    int concat_h = 3 * row_h + viz_px(viz, 4), hover_h = small_h;
    if (!m.c.show_pv) z_h += row_h;
    int bottom = in.y + in.h;
    int show_concat = 1, show_temp = 1, show_hover = 1, show_sub = 1;
    int rest = bottom - y - head_h - sum_h - z_h;
    if ((rest - sub_h - temp_h - concat_h - hover_h) / row_h < want_rows) show_concat = 0, show_hover = 0;
    if ((rest - sub_h - temp_h) / row_h < want_rows) show_temp = 0;
    if ((rest - sub_h) / row_h < want_rows) show_sub = 0;
    int footer_h = sum_h + z_h + (show_temp ? temp_h : 0) + (show_concat ? concat_h : 0) + (show_hover ? hover_h : 0);

    int rows_fit = (bottom - footer_h - (y + (show_sub ? sub_h : 0) + head_h)) / row_h;
    snprintf(buf, sizeof buf, "%s%s%s",
             f->view.print ? "" : "Click a row of the heatmap to explain another query. ",
             ex->traced & ATTN_TRACED_Q ? "q read from blocks.L.attn.hook_q."
                                        : "q = ln_1(resid_pre) W_Q, recomputed from the traced resid_pre.",
             i + 1 + (i == T - 1) > rows_fit ? " Rows: key 0, the query and the keys with the most weight." : "");
    if (show_sub) {
        rc |= draw_label(viz, in.x, y, in.w, buf, VIZ_FONT_SANS, VIZ_TEXT_SMALL, th->text_muted);
        y += sub_h;
    }

    /* colour scales: q and the keys share one (their dot product is what matters), the
     * weighted values, z and attn_out another */
    m.mq = max_abs(ex->k, (size_t)T * (size_t)HS, max_abs(ex->q, (size_t)HS, 0.0f));
    m.mv = max_abs(ex->z, (size_t)HS, max_abs(ex->weighted, (size_t)T * (size_t)HS, 0.0f));
    m.mdot = max_abs(ex->dot, (size_t)T, 0.0f); /* future keys' bars are drawn too */
    m.mx = f->view.mouse_x, m.my = f->view.mouse_y;

    rc |= draw_q_row(&m, y);
    y += row_h + viz_px(viz, 10) + row_h / 2;
    y = draw_table_head(&m, y, &rc);

    /* the key rows: what fits above the footer (decided above) */
    MathRows mr;
    pick_rows(&mr, ex, (bottom - footer_h - y) / row_h);
    for (int k = 0; k < mr.n; k++, y += row_h)
        rc |= mr.key[k] < 0 ? draw_special_row(&m, y, mr.key[k]) : draw_key_row(&m, y, mr.key[k], mr.gap[k]);

    /* footer: the sum, the temperature intuition, z, the heads concatenated, attn_out */
    y += viz_px(viz, 6);
    rc |= draw_fill_rect(viz, (Rect){in.x, y, in.w, 1}, th->grid);
    y += viz_px(viz, 6);
    y = draw_sum_rows(&m, y, show_temp, temp_h, &rc);
    y = draw_z_row(&m, y, z_h, &rc);
    if (show_concat) y = draw_concat_rows(&m, y, &rc);
    rc |= draw_hover_line(&m, y, show_hover, title_h);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
