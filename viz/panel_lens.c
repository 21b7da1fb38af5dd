/* panel_lens.c — draw_lens_panel: the logit lens (nostalgebraist 2020) as a layers x
 * positions grid. Each cell is the lens's most likely next token at that depth and
 * position, filled by its probability on viridis (sequential, CVD-safe; 0..1 linear,
 * with its scale), with the rank of the token finally chosen there printed beneath (so
 * colour never carries the meaning alone). Beside the grid, for the newest position, a
 * strip of the pending pick's rank depth by depth on a log axis (Ecco's "rankings").
 * Rows run in forward order top to bottom: the embeddings, then after each block; the
 * last row is the model's own output. Every number comes from VizFrame.lens /
 * lens_strip (engine/logit_lens.c); nothing is computed here but pixels. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "prob_format.h"
#include "token_label.h"

/* Logical sizes: a cell shows a short token; the strip's bars need room for "#50257". */
#define LENS_CELL_MIN_W 58
#define LENS_STRIP_W 190
#define LENS_ROWLAB_PAD 8

static void token_text(const VizFrame *f, Viz *viz, int id, char *buf, size_t cap) {
    token_label_ex(f->tok, id, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, buf, cap);
}

/* The row label of depth k: "embed", "after block 0", ... (the last: "= output"). */
static void row_label(int k, int n_rows, char *buf, size_t cap) {
    if (k == 0) snprintf(buf, cap, "embed");
    else if (k == n_rows - 1) snprintf(buf, cap, "block %d = out", k - 1);
    else snprintf(buf, cap, "block %d", k - 1);
}

static int draw_message(Viz *viz, Rect in, const char *title, const char *msg) {
    const Theme *th = viz->theme;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    int th_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int rc = draw_text_in_rect(viz, (Rect){in.x, in.y, in.w, th_h}, title, &tts);
    rc |= draw_wrapped_text(viz, rect_inset4(in, 0, th_h + viz_px(viz, 6), 0, 0), msg, &ms,
                            viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY), 6);
    return rc;
}

/* The strip: one bar per depth, its length log10(rank) on an axis from rank V (none) to
 * rank 1 (full), "#rank  p %" printed at its end. */
static int draw_strip(Viz *viz, Rect area, int row_y0, int row_h, const VizFrame *f) {
    const Theme *th = viz->theme;
    int rc = 0;
    const int V = f->cfg->vocab_size;
    double lv = log10((double)(V > 1 ? V : 2));
    TextStyle ss = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    for (int k = 0; k < f->n_lens_strip; k++) {
        const LensRow *row = &f->lens_strip[k];
        Rect lane = {area.x, row_y0 + k * row_h + viz_px(viz, 2), area.w, row_h - viz_px(viz, 4)};
        rc |= draw_fill_rect(viz, lane, color_mix(th->panel, th->grid, 0.5f));
        double frac = 1.0 - log10((double)row->target.rank) / lv; /* rank 1 = the whole lane */
        if (frac < 0) frac = 0;
        int w = (int)lround(frac * lane.w);
        SDL_Color c = colormap_sample(COLORMAP_VIRIDIS, (float)row->target.p);
        if (w > 0) rc |= draw_fill_rect(viz, (Rect){lane.x, lane.y, w, lane.h}, c);
        if (row->target.rank == 1) rc |= draw_rect_outline(viz, lane, th->text, viz_px(viz, 2));
        char num[48];
        char pct[24]; /* rank 54 at p 3e-5 is "0.003%", not "0.0%" (prob_format.h) */
        prob_format_pct(row->target.p, pct, sizeof pct);
        snprintf(num, sizeof num, "#%d  %s", row->target.rank, pct);
        int tw = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, num);
        int tx = lane.x + viz_px(viz, 4);
        /* on the bar when it fits there (in black or white), else on the lane after it */
        if (tw + viz_px(viz, 8) <= w) {
            ss.color = color_text_on(c);
        } else {
            ss.color = th->text;
            if (w + tw + viz_px(viz, 8) <= lane.w) tx = lane.x + w + viz_px(viz, 4);
        }
        rc |= draw_text(viz, tx, lane.y + lane.h / 2, num, &ss, NULL);
    }
    return rc;
}

/* What the parts of the grid share: the frame, the lens, the rects cut for the row labels,
 * the header, the footer and the strip, and the grid's geometry. */
typedef struct LensCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const LensGrid *g;
    TextStyle ms;           /* small muted text */
    int mono_h, n_rows;
    Rect area;              /* the grid */
    Rect labs, head, foot;  /* the row labels, the input tokens above, the next tokens below */
    Rect strip;             /* the rank strip (w 0: none) */
    int row_h, grid_y, two_lines;
    int n_cols, p0, cell_w; /* the columns shown: positions p0 .. n_pos-1 */
} LensCtx;

/* The title and the line below it, cut off the top of *area. */
static int draw_lens_heading(const LensCtx *c, Rect *area, const char *title) {
    Viz *viz = c->viz;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = c->th->text, .valign = VIZ_ALIGN_TOP};
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int rc = draw_text_in_rect(viz, rect_cut_top(area, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE)), title, &tts);
    /* two lines where one does not fit (a projector's UI scale), never cut */
    static const char sub[] = "cell: the lens's most likely next token (colour = its probability); "
                              "#n = rank of the token that came next (newest column: the pending pick), "
                              "outlined when it is #1";
    int sub_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, sub, area->w, 2);
    rc |= draw_wrapped_text(viz, rect_cut_top(area, small_h * sub_lines), sub, &c->ms, small_h, 2);
    rect_cut_top(area, viz_px(viz, 4));
    return rc;
}

/* The row labels on the left, the strip on the right, the header and the footer, cut from
 * `area`; what is left is the grid. Returns 0 when the rows do not fit. */
static int layout_lens(LensCtx *c, Rect area) {
    Viz *viz = c->viz;
    const LensGrid *g = c->g;
    const int mono_h = c->mono_h, n_rows = c->n_rows;
    char lab[64];
    row_label(n_rows - 1, n_rows, lab, sizeof lab);
    int rowlab_w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, lab) + viz_px(viz, LENS_ROWLAB_PAD);
    int strip_w = c->f->lens_strip && area.w > viz_px(viz, 2 * LENS_STRIP_W) ? viz_px(viz, LENS_STRIP_W) : 0;
    if (strip_w > area.w / 3) strip_w = area.w / 3; /* the grid keeps most of the room */
    c->labs = rect_cut_left(&area, rowlab_w);
    c->strip = strip_w ? rect_cut_right(&area, strip_w) : (Rect){0, 0, 0, 0};
    if (strip_w) rect_cut_right(&area, viz_px(viz, 10));
    /* the header (the input token of each column) and the footer (the token that came next) */
    c->head = rect_cut_top(&area, mono_h + viz_px(viz, 4));
    c->foot = rect_cut_bottom(&area, mono_h + viz_px(viz, 4));
    c->row_h = n_rows > 0 ? area.h / n_rows : 0;
    if (c->row_h < mono_h + viz_px(viz, 2)) return 0;
    c->two_lines = c->row_h >= mono_h * 2 + viz_px(viz, 2);
    int n_cols = area.w / viz_px(viz, LENS_CELL_MIN_W);
    if (n_cols < 1) n_cols = 1;
    if (n_cols > g->n_pos) n_cols = g->n_pos;
    if (n_cols > g->n_pos - g->from_done) n_cols = g->n_pos - g->from_done; /* computed ones only */
    if (n_cols < 1) n_cols = 1;
    c->n_cols = n_cols;
    c->p0 = g->n_pos - n_cols; /* the newest positions that fit */
    c->cell_w = area.w / n_cols;
    c->grid_y = area.y;
    c->area = area;
    return 1;
}

/* The labels of the rows: "embed", "block 0", ... */
static int draw_row_labels(const LensCtx *c) {
    TextStyle ls = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = c->th->text, .valign = VIZ_ALIGN_MIDDLE};
    char lab[64];
    int rc = 0;
    for (int k = 0; k < c->n_rows; k++) {
        row_label(k, c->n_rows, lab, sizeof lab);
        rc |= draw_text(c->viz, c->labs.x, c->grid_y + k * c->row_h + c->row_h / 2, lab, &ls, NULL);
    }
    return rc;
}

/* Column pos at x: its input token above the grid (the newest in the accent colour) and the
 * token its ranks count below. */
static int draw_column_tokens(const LensCtx *c, int pos, int x) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const LensGrid *g = c->g;
    char tl[TOKEN_LABEL_CAP];
    TextStyle hs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = c->th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE, .max_width = c->cell_w - viz_px(viz, 4)};
    token_text(f, viz, g->ids[pos], tl, sizeof tl);
    hs.color = pos == g->n_pos - 1 ? c->th->accent : c->th->text_muted;
    int rc = draw_text(viz, x + c->cell_w / 2, c->head.y + c->head.h / 2, tl, &hs, NULL);
    /* what the rank below counts: the next token of the text (the newest: the pick) */
    int fin = pos == g->n_pos - 1 && f->lens_target >= 0 ? f->lens_target : g->final_id[pos];
    token_text(f, viz, fin, tl, sizeof tl);
    char fl[TOKEN_LABEL_CAP + 8];
    snprintf(fl, sizeof fl, "\xE2\x86\x92%s", tl);
    hs.color = c->th->text;
    rc |= draw_text(viz, x + c->cell_w / 2, c->foot.y + c->foot.h / 2, fl, &hs, NULL);
    return rc;
}

/* The cell of position pos at depth k: filled by the top token's probability, the token and
 * the rank of the token that came next printed in it. */
static int draw_lens_cell(const LensCtx *c, int pos, int k, int x) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const LensGrid *g = c->g;
    const int mono_h = c->mono_h;
    char tl[TOKEN_LABEL_CAP];
    size_t at = (size_t)pos * (size_t)c->n_rows + (size_t)k;
    Rect cell = {x + viz_px(viz, 1), c->grid_y + k * c->row_h + viz_px(viz, 1), c->cell_w - viz_px(viz, 2),
                 c->row_h - viz_px(viz, 2)};
    SDL_Color fill = colormap_sample(COLORMAP_VIRIDIS, g->top_p[at]);
    int rc = draw_fill_rect(viz, cell, fill);
    token_text(f, viz, g->top_id[at], tl, sizeof tl);
    TextStyle cs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = color_text_on(fill),
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE, .max_width = cell.w - viz_px(viz, 2)};
    int rank = g->final_rank[at];
    /* the newest column's rank is of the pending pick: the strip's numbers */
    if (pos == g->n_pos - 1 && f->lens_strip && k < f->n_lens_strip) rank = f->lens_strip[k].target.rank;
    char rk[24];
    snprintf(rk, sizeof rk, "#%d", rank);
    if (c->two_lines) {
        int mid = cell.y + cell.h / 2;
        rc |= draw_text(viz, cell.x + cell.w / 2, mid - mono_h / 2, tl, &cs, NULL);
        rc |= draw_text(viz, cell.x + cell.w / 2, mid + mono_h / 2, rk, &cs, NULL);
    } else {
        /* one line: the rank whole at the right (thousands short: "#27k"), the token
         * cut to what is left */
        if (rank >= 10000) snprintf(rk, sizeof rk, "#%dk", (rank + 500) / 1000);
        else if (rank >= 1000) snprintf(rk, sizeof rk, "#%.1fk", rank / 1000.0);
        int rw = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, rk);
        TextStyle rs = cs;
        rs.halign = VIZ_ALIGN_RIGHT;
        rs.max_width = 0;
        rc |= draw_text(viz, cell.x + cell.w - viz_px(viz, 2), cell.y + cell.h / 2, rk, &rs, NULL);
        cs.halign = VIZ_ALIGN_LEFT;
        cs.max_width = cell.w - rw - viz_px(viz, 6);
        if (cs.max_width > 0) rc |= draw_text(viz, cell.x + viz_px(viz, 2), cell.y + cell.h / 2, tl, &cs, NULL);
    }
    /* the chosen token on top at this depth: outlined, not only coloured */
    if (rank == 1) rc |= draw_rect_outline(viz, cell, c->th->highlight, viz_px(viz, 2));
    return rc;
}

/* The strip beside the grid: its heading over the header, the bars, its axis under them. */
static int draw_rank_strip(const LensCtx *c) {
    Viz *viz = c->viz;
    const Rect strip = c->strip;
    char tl[TOKEN_LABEL_CAP], st[TOKEN_LABEL_CAP + 64];
    token_text(c->f, viz, c->f->lens_target, tl, sizeof tl);
    snprintf(st, sizeof st, "rank of %s by depth", tl);
    TextStyle sts = c->ms;
    sts.valign = VIZ_ALIGN_MIDDLE;
    sts.color = c->th->text;
    int rc = draw_text_in_rect(viz, (Rect){strip.x, c->head.y, strip.w, c->head.h}, st, &sts);
    rc |= draw_strip(viz, strip, c->grid_y, c->row_h, c->f);
    sts.color = c->th->text_muted;
    rc |= draw_text_in_rect(viz, (Rect){strip.x, c->foot.y, strip.w, c->foot.h}, "bar: rank 1 full, log scale", &sts);
    return rc;
}

int draw_lens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    (void)hits;
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    const char *title = "logit lens: the top next token at every depth";
    const LensGrid *g = f ? f->lens : NULL;
    if (!g || g->n_pos < 1 || !f->tok || !f->cfg) {
        const char *why = f && f->inside_missing && f->inside_missing[0]
                              ? f->inside_missing
                              : "the logit lens is computed when this panel is shown alone (I, or F over it)";
        rc |= draw_message(viz, in, title, why);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    LensCtx c = {.viz = viz, .th = th, .f = f, .g = g, .n_rows = g->n_rows,
                 .ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP},
                 .mono_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL)};
    Rect area = in;
    rc |= draw_lens_heading(&c, &area, title);

    /* the legend along the bottom */
    ColorbarSpec cb = {.map = COLORMAP_VIRIDIS, .vmin = 0, .vmax = 1,
                       .label = "probability of the cell's top token (0 to 1, linear)", .target_ticks = 5};
    int cb_h = draw_colorbar_size(viz, &cb, viz_px(viz, 10));
    Rect legend = rect_cut_bottom(&area, cb_h);
    if (legend.w > viz_px(viz, 420)) legend.w = viz_px(viz, 420);
    rect_cut_bottom(&area, viz_px(viz, 4));

    if (!layout_lens(&c, area)) {
        rc |= draw_message(viz, in, title, "too small for the grid: enlarge the panel (F)");
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    rc |= draw_row_labels(&c);
    for (int col = 0; col < c.n_cols; col++) {
        int pos = c.p0 + col, x = c.area.x + col * c.cell_w;
        rc |= draw_column_tokens(&c, pos, x);
        for (int k = 0; k < c.n_rows; k++) rc |= draw_lens_cell(&c, pos, k, x);
    }
    if (c.p0 > 0) {
        char more[64];
        snprintf(more, sizeof more, "\xE2\x86\x90 %d earlier", c.p0);
        TextStyle es = c.ms;
        es.valign = VIZ_ALIGN_MIDDLE;
        rc |= draw_text(viz, c.labs.x, c.head.y + c.head.h / 2, more, &es, NULL);
    }
    if (c.strip.w) rc |= draw_rank_strip(&c);
    rc |= draw_colorbar(viz, legend, &cb, NULL);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
