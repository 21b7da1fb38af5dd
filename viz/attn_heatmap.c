/* attn_heatmap.c — the pieces of an attention picture (attn_heatmap.h), shared by the
 * attention panel and the contact sheet: reading one head's pattern from the trace,
 * the heatmap cells (max-pooled when large, runs of one colour filled at once), the
 * hatched masked triangle, a thumbnail, the legend. No layout of a panel, no labels. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_heatmap.h"
#include "draw.h"
#include "prob_format.h"
#include "token_label.h"

/* ATTN_MAX_CELLS (attn_heatmap.h): a frame costs at most ~256²/2 rectangle fills (the
 * software renderer does ~10 M small fills per second; 1024² cells would take ~50 ms).
 * Max (not mean) pooling keeps thin structures visible: a previous-token head is a
 * one-cell-wide diagonal line, which averaging would dissolve into the background. */
/* Thumbnails are tiny: at most this many buckets per side. */
#define ATTN_THUMB_MAX_CELLS 24
/* Floats a thumbnail may read per frame. Thumbnails sample query rows (every key of a
 * sampled row is scanned, so lines of constant offset k = q - c, the common head
 * shapes, still show). Without this, GPT-2 124M at 1024 positions would read 144 heads
 * × 524 k floats = 75 M floats a frame; with it, 144 × ~16 k. */
#define ATTN_THUMB_READ_BUDGET 16384
/* Hit regions: per cell only while they fit, leaving room for the other panels. */
#define ATTN_HITS_RESERVE 512

/* Looks the head up by kind and layer (blocks.{L}.attn.hook_pattern), so the panel reads
 * exactly what the dump command and the trace tests read, without formatting and parsing
 * the name for the heatmap and each thumbnail every frame. Returns 0 or -1 (recorded in viz). */
int attn_head_pattern(Viz *viz, const Gpt2Trace *tr, int layer, int head, HeadPattern *out) {
    Gpt2TraceView v;
    ErrorMsg err;
    if (gpt2_trace_get(tr, GPT2_T_PATTERN, layer, &v, &err) != 0) return viz_fail(viz, "attention panel: %s", err.text);
    if (!v.tri || v.ndim != 3 || (size_t)head >= v.shape[0])
        return viz_fail(viz, "attention panel: blocks.%d.attn.hook_pattern has no head %d", layer, head);
    out->data = v.data + (size_t)head * v.stride[0];
    out->n = (int)v.shape[1];
    return 0;
}

/* Positions [lo, hi) covered by bucket i of a bucketing with b positions per bucket. */
void attn_bucket_range(int i, int b, int n, int *lo, int *hi) {
    *lo = i * b;
    *hi = (i + 1) * b < n ? (i + 1) * b : n;
}

/* Max of the pattern over query rows [q0,q1) × key columns [k0,k1), only entries at or
 * below the diagonal. row_step > 1 samples every row_step-th row (thumbnails).
 * Returns -1 when the whole bucket lies above the diagonal (masked). */
static float bucket_max(const HeadPattern *hp, int q0, int q1, int k0, int k1, int row_step) {
    float m = -1.0f;
    for (int q = q0; q < q1; q += row_step) {
        int kend = k1 < q + 1 ? k1 : q + 1;
        const float *row = hp->data + gpt2_tri_row((size_t)q);
        for (int k = k0; k < kend; k++)
            if (row[k] > m) m = row[k];
    }
    return m;
}

/* The colour scale's top. 1 normally (weights are probabilities). With hide_sink, the
 * max over key columns >= 1: many heads park most of their attention on token 0 (the
 * "attention sink", Xiao et al. 2023, "Efficient Streaming Language Models with
 * Attention Sinks"), which would squash every other cell into the dark end. */
float attn_scale_max(const HeadPattern *hp, int hide_sink, int row_step) {
    if (!hide_sink) return 1.0f;
    float m = 0.0f;
    for (int q = 1; q < hp->n; q += row_step) {
        const float *row = hp->data + gpt2_tri_row((size_t)q);
        for (int k = 1; k <= q; k++)
            if (row[k] > m) m = row[k];
    }
    return m > 0.0f ? m : 1.0f;
}

static SDL_Color value_color(const Viz *viz, float v, float vmax) {
    return colormap_sample(viz->theme->sequential, v / vmax);
}

/* The masked (future) colour: a neutral grey between panel and `cut`, never a colour
 * of the sequential map (viridis(0) is dark purple, this is grey in both themes). */
SDL_Color attn_masked_fill(const Viz *viz) { return color_mix(viz->theme->panel, viz->theme->cut, 0.35f); }
SDL_Color attn_masked_hatch(const Viz *viz) { return color_mix(viz->theme->panel, viz->theme->cut, 0.8f); }

/* Draws a label texture rotated -90° (reading bottom to top), its right end (the
 * text's end) at (x_center, y_top): for key labels under the heatmap. */
int attn_draw_rotated(Viz *viz, int cx, int y_top, const char *text, VizFont font, SDL_Color color,
                        int max_len) {
    char fitted[128];
    if (draw_fit_text(viz, font, VIZ_TEXT_SMALL, text, max_len, fitted, sizeof fitted) <= 0) return 0;
    int w = viz_text_width_cached(viz, font, VIZ_TEXT_SMALL, fitted), h = viz_line_height(viz, font, VIZ_TEXT_SMALL);
    /* rotating around the centre turns the w×h box into h×w with the same centre */
    return draw_text_at(viz, cx - w / 2, y_top + w / 2 - h / 2, fitted, font, VIZ_TEXT_SMALL, color, -90.0);
}

/* Bucket index (0..n-1) whose grid cell holds pixel p along one side, or -1. Uses
 * rect_grid_cell's own edges so a hover always agrees with what was drawn. */
int attn_grid_index(Rect plot, int n, int p, int vertical) {
    int lo = vertical ? plot.y : plot.x, len = vertical ? plot.h : plot.w;
    if (p < lo || p >= lo + len || n <= 0) return -1;
    int i = (int)((long long)(p - lo) * n / len);
    for (int tries = 0; tries < 3; i = i < 0 ? 0 : i >= n ? n - 1 : i, tries++) {
        Rect c = vertical ? rect_grid_cell(plot, (size_t)n, 1, (size_t)i, 0)
                          : rect_grid_cell(plot, 1, (size_t)n, 0, (size_t)i);
        int c0 = vertical ? c.y : c.x, cl = vertical ? c.h : c.w;
        if (p < c0) i--;
        else if (p >= c0 + cl) i++;
        else return i;
    }
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Hatches the masked (upper) triangle of a g × g grid with 45° lines "/": one line per
 * stripe, not one per cell, so the cost does not grow with the number of positions.
 * Along a "/" line going up-right the column index never decreases and the row index
 * never increases, so once the line enters the masked region (col > row) it stays in
 * it: a binary search finds the entry point and one segment runs to the plot edge. */
static int hatch_masked(Viz *viz, Rect plot, int g, Rect panel) {
    if (g < 2) return 0;
    int spacing = viz_px(viz, 6), rc = 0;
    SDL_Color c = attn_masked_hatch(viz);
    if (draw_set_clip(viz, &plot) != 0) return -1;
    int x0 = plot.x, y0 = plot.y, x1 = plot.x + plot.w - 1, y1 = plot.y + plot.h - 1;
    for (int d = x0 + y0 + spacing / 2; d <= x1 + y1 && rc == 0; d += spacing) {
        /* the line x + y = d inside the plot: x from max(x0, d - y1) to min(x1, d - y0) */
        int xa = d - y1 > x0 ? d - y1 : x0, xb = d - y0 < x1 ? d - y0 : x1;
        if (xa > xb) continue;
        int lo = xa, hi = xb + 1; /* first x with col > row, or xb + 1 if none */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (attn_grid_index(plot, g, mid, 0) > attn_grid_index(plot, g, d - mid, 1)) hi = mid;
            else lo = mid + 1;
        }
        if (lo <= xb) rc = draw_line(viz, lo, d - lo, xb, d - xb, c, 1);
    }
    if (draw_set_clip(viz, &panel) != 0) return -1;
    return rc;
}

/* ---- the big heatmap -------------------------------------------------------- */

int attn_draw_heatmap(Viz *viz, const HeatGeom *hg, const HeadPattern *hp, float vmax, Rect panel, int numbers,
                      VizHits *hits) {
    const Theme *th = viz->theme;
    SDL_Color mfill = attn_masked_fill(viz);
    int cell_w = hg->plot.w / hg->g;
    /* numbers in cells only when one cell is one position and "0.00" fits with air */
    int num_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, ">0.99") + viz_px(viz, 4);
    int show_nums = numbers && hg->g == hg->n && cell_w >= num_w &&
                    cell_w >= viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL);
    for (int i = 0; i < hg->g; i++) {
        int q0, q1;
        attn_bucket_range(i, hg->b, hg->n, &q0, &q1);
        /* neighbouring cells of one colour are filled as one run: same pixels, fewer
         * renderer calls (a pooled 256-row map is ~33 k cells, mostly runs of a few
         * dark shades) */
        Rect run = {0, 0, 0, 0};
        SDL_Color run_col = {0, 0, 0, 0};
        for (int j = 0; j <= i; j++) {
            int k0, k1;
            attn_bucket_range(j, hg->b, hg->n, &k0, &k1);
            float v = hg->b == 1 ? attn_pat_at(hp, q0, k0) : bucket_max(hp, q0, q1, k0, k1, 1);
            Rect c = rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)i, (size_t)j);
            SDL_Color col = value_color(viz, v, vmax);
            if (show_nums) {
                char num[16];
                prob_format_fixed((double)v, 2, num, sizeof num); /* 0.996 is ">0.99", never "1.00" */
                if (draw_text_on_cell(viz, c, col, num, VIZ_FONT_MONO, VIZ_TEXT_SMALL) != 0) return -1;
                continue;
            }
            if (run.w > 0 && memcmp(&col, &run_col, sizeof col) == 0) {
                run.w = c.x + c.w - run.x;
                continue;
            }
            if (draw_fill_rect(viz, run, run_col) != 0) return -1;
            run = c;
            run_col = col;
        }
        if (draw_fill_rect(viz, run, run_col) != 0) return -1;
        /* the masked part of a row is contiguous (keys after the query): one fill */
        if (i + 1 < hg->g) {
            Rect first = rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)i, (size_t)i + 1);
            Rect span = {first.x, first.y, hg->plot.x + hg->plot.w - first.x, first.h};
            if (draw_fill_rect(viz, span, mfill) != 0) return -1;
        }
    }
    if (hatch_masked(viz, hg->plot, hg->g, panel) != 0) return -1;
    /* Hits: one per visible cell (a = query, b = key; with pooling the bucket's first
     * query and key) while they fit in VizHits; else one per displayed row with
     * b = -1: the row's rect spans the whole plot width and the key under x is
     * (x - r.x) * n_pos / r.w (cells are equal to within a pixel). */
    if (hits) {
        long long cells = (long long)hg->g * (hg->g + 1) / 2;
        if (cells <= VIZ_MAX_HITS - ATTN_HITS_RESERVE - hits->n) {
            for (int i = 0; i < hg->g; i++)
                for (int j = 0; j <= i; j++)
                    viz_hits_add(hits, rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)i, (size_t)j),
                                 VIZ_HIT_ATTN_CELL, i * hg->b, j * hg->b);
        } else {
            for (int i = 0; i < hg->g; i++) {
                Rect c = rect_grid_cell(hg->plot, (size_t)hg->g, 1, (size_t)i, 0);
                viz_hits_add(hits, c, VIZ_HIT_ATTN_CELL, i * hg->b, -1);
            }
        }
    }
    draw_rect_outline(viz, rect_inset(hg->plot, -1), th->panel_border, 1);
    return 0;
}

/* ---- thumbnails ------------------------------------------------------------- */

/* The g x g cells of a thumbnail, cell (i, j) coloured by cell_max (i, j <= i), the
 * masked upper triangle filled row by row. */
typedef float (*ThumbCellMax)(const void *src, int i, int j);
static int draw_thumb_cells(Viz *viz, Rect r, int g, ThumbCellMax cell_max, const void *src, float vmax) {
    SDL_Color mfill = attn_masked_fill(viz);
    for (int i = 0; i < g; i++) {
        for (int j = 0; j <= i; j++)
            if (draw_fill_rect(viz, rect_grid_cell(r, (size_t)g, (size_t)g, (size_t)i, (size_t)j),
                               value_color(viz, cell_max(src, i, j), vmax)) != 0)
                return -1;
        if (i + 1 < g) {
            Rect first = rect_grid_cell(r, (size_t)g, (size_t)g, (size_t)i, (size_t)i + 1);
            if (draw_fill_rect(viz, (Rect){first.x, first.y, r.x + r.w - first.x, first.h}, mfill) != 0)
                return -1;
        }
    }
    return 0;
}

/* Cells per side and positions (or blocks) per cell for n units in a w-pixel square. */
static int thumb_grid(int n, int w, int *per_cell) {
    int g = n < ATTN_THUMB_MAX_CELLS ? n : ATTN_THUMB_MAX_CELLS;
    if (g > w) g = w > 0 ? w : 1;
    int b = (n + g - 1) / g;
    *per_cell = b;
    return (n + b - 1) / b;
}

typedef struct ThumbPattern {
    const HeadPattern *hp;
    int b, row_step;
} ThumbPattern;

static float thumb_pattern_max(const void *src, int i, int j) {
    const ThumbPattern *t = src;
    int q0, q1, k0, k1;
    attn_bucket_range(i, t->b, t->hp->n, &q0, &q1);
    attn_bucket_range(j, t->b, t->hp->n, &k0, &k1);
    return bucket_max(t->hp, q0, q1, k0, k1, t->row_step);
}

int attn_draw_thumb(Viz *viz, Rect r, const HeadPattern *hp, int hide_sink) {
    int n = hp->n, b;
    int g = thumb_grid(n, r.w, &b);
    /* reads ≈ n² / (2 · row_step); at least one row of every bucket is read */
    long long need = (long long)n * n / 2 / ATTN_THUMB_READ_BUDGET;
    ThumbPattern t = {hp, b, need < 1 ? 1 : need > b ? b : (int)need};
    return draw_thumb_cells(viz, r, g, thumb_pattern_max, &t, attn_scale_max(hp, hide_sink, t.row_step));
}

typedef struct ThumbBlocks {
    const Gpt2HeadBlocks *hb;
    int nb, b;
} ThumbBlocks;

static float thumb_blocks_max(const void *src, int i, int j) {
    const ThumbBlocks *t = src;
    int I0, I1, J0, J1;
    attn_bucket_range(i, t->b, t->nb, &I0, &I1);
    attn_bucket_range(j, t->b, t->nb, &J0, &J1);
    float m = -1.0f;
    for (int I = I0; I < I1; I++)
        for (int J = J0; J < J1 && J <= I; J++)
            if (t->hb->max[gpt2_tri_row((size_t)I) + (size_t)J] > m) m = t->hb->max[gpt2_tri_row((size_t)I) + (size_t)J];
    return m;
}

/* A lean trace (gpt2_trace.h) keeps no full patterns: recomputing every layer's heads
 * for the side column each frame would cost a forward pass's attention per frame (GPT-2
 * XL at 1024 positions: ~80 GFLOP). Its thumbnails come from the block maxima the
 * forward pass already keeps, which is what a thumbnail of bucket maxima shows anyway. */
int attn_draw_thumb_blocks(Viz *viz, Rect r, const Gpt2HeadBlocks *hb, int n_pos, int hide_sink) {
    int nb = (n_pos + hb->block - 1) / hb->block, b;
    if (nb > hb->n_blocks) nb = hb->n_blocks;
    if (nb < 1) return 0;
    int g = thumb_grid(nb, r.w, &b);
    float vmax = 1.0f;
    if (hide_sink) { /* as attn_scale_max: the largest weight on keys >= 1 */
        vmax = 0.0f;
        for (int I = 0; I < nb; I++)
            for (int J = 0; J <= I; J++) {
                float v = J == 0 ? hb->sinkless[I] : hb->max[gpt2_tri_row((size_t)I) + (size_t)J];
                if (v > vmax) vmax = v;
            }
        if (vmax <= 0.0f) vmax = 1.0f;
    }
    ThumbBlocks t = {hb, nb, b};
    return draw_thumb_cells(viz, r, g, thumb_blocks_max, &t, vmax);
}

/* ---- legend ----------------------------------------------------------------- */

int attn_draw_legend(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b) {
    const Theme *th = viz->theme;
    int y0 = area.y;
    char label[96];
    if (hide_sink)
        snprintf(label, sizeof label, "attention weight (scale 0 \xE2\x80\x93 %.3g)", (double)vmax);
    else
        snprintf(label, sizeof label, "attention weight (each row sums to 1)");
    /* a narrow column gets the short wording rather than a cut one */
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, label) > area.w)
        snprintf(label, sizeof label, hide_sink ? "weight (0 \xE2\x80\x93 %.3g)" : "attention weight", (double)vmax);
    ColorbarSpec cb = {.map = th->sequential, .vmin = 0, .vmax = vmax, .label = label, .target_ticks = 5};
    Rect bar = rect_cut_top(&area, draw_colorbar_size(viz, &cb, viz_px(viz, 12)));
    if (draw_colorbar(viz, bar, &cb, NULL) != 0) return -1;
    rect_cut_top(&area, viz_px(viz, 6));
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    Rect row = rect_cut_top(&area, small_h + viz_px(viz, 4));
    Rect sw = rect_cut_left(&row, viz_px(viz, 22));
    sw = rect_inset4(sw, 0, viz_px(viz, 1), 0, viz_px(viz, 1));
    draw_fill_rect(viz, sw, attn_masked_fill(viz));
    draw_hatch(viz, sw, panel, sw.x, sw.y, viz_px(viz, 6), attn_masked_hatch(viz));
    draw_rect_outline(viz, sw, th->panel_border, 1);
    rect_cut_left(&row, viz_px(viz, 6));
    /* the longest wording that fits the column: the reason a cell is grey */
    static const char *const masked_text[] = {"masked: a token cannot see later tokens",
                                              "masked: the future is hidden", "masked (future)"};
    const char *mt = viz_text_first_fitting(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, masked_text,
                                            sizeof masked_text / sizeof masked_text[0], row.w);
    draw_text_in_rect(viz, row, mt, &ts);
    if (hide_sink) {
        row = rect_cut_top(&area, small_h + viz_px(viz, 2));
        ts.color = th->accent;
        const char *sink = "scale ignores the first token (attention sink)";
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, sink) > row.w) sink = "scale ignores token 0 (sink)";
        draw_text_in_rect(viz, row, sink, &ts);
        ts.color = th->text;
    }
    if (pooled_b > 1) {
        char note[96];
        snprintf(note, sizeof note, "1 cell = max of %d\xC3\x97%d positions", pooled_b, pooled_b);
        row = rect_cut_top(&area, small_h + viz_px(viz, 2));
        draw_text_in_rect(viz, row, note, &ts);
    }
    return area.y - y0;
}


int attn_legend_height(Viz *viz, int hide_sink, int pooled_b) {
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    ColorbarSpec cb = {.map = viz->theme->sequential, .vmin = 0, .vmax = 1, .label = "x"};
    return draw_colorbar_size(viz, &cb, viz_px(viz, 12)) + viz_px(viz, 6) + small_h + viz_px(viz, 4) +
           (hide_sink ? small_h + viz_px(viz, 2) : 0) + (pooled_b > 1 ? small_h + viz_px(viz, 2) : 0);
}

HeatGeom attn_heat_geom(int x, int y, int S, int T) {
    HeatGeom hg = {.n = T};
    if (T < 1) T = 1;
    int limit = S < ATTN_MAX_CELLS ? S : ATTN_MAX_CELLS;
    if (limit < 1) limit = 1;
    hg.b = (T + limit - 1) / limit;
    hg.g = (T + hg.b - 1) / hg.b;
    if (hg.b == 1 && S >= T) S = S / T * T; /* whole pixels per cell */
    hg.plot = (Rect){x, y, S, S};
    return hg;
}

/* ---- the narrow legend (a vertical colour bar) --------------------------------- */

static const char *const V_LABEL = "weight";
static const char *const V_MASKED = "masked";

int attn_legend_vertical_width(Viz *viz, float vmax) {
    ColorbarSpec cb = {.map = viz->theme->sequential, .vmin = 0, .vmax = vmax, .vertical = 1, .target_ticks = 5};
    int w = draw_colorbar_size(viz, &cb, viz_px(viz, 12));
    int lw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, V_LABEL);
    int mw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, V_MASKED);
    if (lw > w) w = lw;
    if (mw > w) w = mw;
    return w + viz_px(viz, 4);
}

int attn_draw_legend_vertical(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b) {
    const Theme *th = viz->theme;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_TOP};
    int rc = draw_text_in_rect(viz, rect_cut_top(&area, small_h + viz_px(viz, 4)), V_LABEL, &ts);
    /* under the bar: the masked swatch and its word, the notes */
    int notes = (hide_sink ? small_h : 0) + (pooled_b > 1 ? small_h : 0);
    int below = viz_px(viz, 8) + viz_px(viz, 18) + viz_px(viz, 2) + small_h + notes;
    int bar_h = area.h - below;
    if (bar_h > viz_px(viz, 260)) bar_h = viz_px(viz, 260);
    if (bar_h > small_h * 3) {
        ColorbarSpec cb = {.map = th->sequential, .vmin = 0, .vmax = vmax, .vertical = 1, .target_ticks = 5};
        Rect bar = rect_cut_top(&area, bar_h);
        bar.w = draw_colorbar_size(viz, &cb, viz_px(viz, 12));
        rc |= draw_colorbar(viz, bar, &cb, NULL);
    }
    rect_cut_top(&area, viz_px(viz, 8));
    Rect sw = rect_cut_top(&area, viz_px(viz, 18));
    sw.w = viz_px(viz, 26);
    rc |= draw_fill_rect(viz, sw, attn_masked_fill(viz));
    rc |= draw_hatch(viz, sw, panel, sw.x, sw.y, viz_px(viz, 6), attn_masked_hatch(viz));
    rc |= draw_rect_outline(viz, sw, th->panel_border, 1);
    rect_cut_top(&area, viz_px(viz, 2));
    rc |= draw_text_in_rect(viz, rect_cut_top(&area, small_h), V_MASKED, &ts);
    ts.color = th->accent;
    if (hide_sink) rc |= draw_text_in_rect(viz, rect_cut_top(&area, small_h), "key 0 excl.", &ts);
    ts.color = th->text;
    if (pooled_b > 1) {
        char note[32];
        snprintf(note, sizeof note, "max %d\xC3\x97%d", pooled_b, pooled_b);
        rc |= draw_text_in_rect(viz, rect_cut_top(&area, small_h), note, &ts);
    }
    return rc ? -1 : 0;
}

/* ---- labels -------------------------------------------------------------------- */

void attn_pos_label(Viz *viz, const VizFrame *f, int pos, int positions_only, int with_pos, char *buf, size_t cap) {
    if (positions_only) {
        snprintf(buf, cap, "%d", pos);
        return;
    }
    char lab[TOKEN_LABEL_CAP];
    token_label_ex(f->tok, f->ids[pos], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    if (with_pos) snprintf(buf, cap, "%d %s", pos, lab); /* thinned: say which position */
    else snprintf(buf, cap, "%s", lab);
}

int attn_label_stride(int side_px, int n_pos, int need) {
    static const int steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if ((long long)steps[i] * side_px >= (long long)need * n_pos) return steps[i];
    return 1000;
}
