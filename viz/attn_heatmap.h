/* attn_heatmap.h — the pieces of an attention picture, shared by the attention panel
 * (panel_attention.c) and the contact sheet (panel_sheet.c): one head's pattern
 * (blocks.{L}.attn.hook_pattern, read from the trace by its TransformerLens name), the
 * heatmap of its cells on a 0..1 sequential colour scale with the masked (future)
 * triangle grey and hatched, a thumbnail, the legend. Internal to viz/: no layout of a
 * panel, no axis labels. No model math: only max-pooling for display. */
#ifndef VIZ_ATTN_HEATMAP_H
#define VIZ_ATTN_HEATMAP_H

#include "frame.h"
#include "viz.h"

/* Above this many positions per side the big heatmap is max-pooled into buckets of
 * b × b positions (see attn_heatmap.c for why max, not mean). */
#define ATTN_MAX_CELLS 256

/* What a heatmap needs to read one head: the packed lower-triangle pattern. */
typedef struct HeadPattern {
    const float *data; /* row q starts at data + gpt2_tri_row(q) and holds q+1 floats */
    int n;             /* T: positions (rows = columns) */
} HeadPattern;

/* pattern[q][k] for k <= q (callers never ask above the diagonal). */
static inline float attn_pat_at(const HeadPattern *hp, int q, int k) {
    return hp->data[gpt2_tri_row((size_t)q) + (size_t)k];
}

/* The pattern of (layer, head) from the trace; n = the trace's positions (callers set
 * n to the positions shown). Returns 0 or -1 (recorded in viz). */
int attn_head_pattern(Viz *viz, const Gpt2Trace *tr, int layer, int head, HeadPattern *out);

/* The colour scale's top: 1, or with hide_sink the max over key columns >= 1 (the
 * "attention sink" on token 0 would squash every other cell into the dark end). */
float attn_scale_max(const HeadPattern *hp, int hide_sink, int row_step);

/* Positions [lo, hi) covered by bucket i of a bucketing with b positions per bucket. */
void attn_bucket_range(int i, int b, int n, int *lo, int *hi);

SDL_Color attn_masked_fill(const Viz *viz);
SDL_Color attn_masked_hatch(const Viz *viz);

/* The square of cells and its bucketing. */
typedef struct HeatGeom {
    Rect plot;   /* the square of cells */
    int n;       /* T positions */
    int g;       /* buckets per side (g == n: one cell per position) */
    int b;       /* positions per bucket */
} HeatGeom;

/* The geometry of a heatmap of T positions in an S-pixel square at (x, y): pooled to
 * at most ATTN_MAX_CELLS a side; with one position per cell, S rounded down to whole
 * cells so every cell has the same size. */
HeatGeom attn_heat_geom(int x, int y, int S, int T);

/* Bucket index (0..n-1) whose grid cell holds pixel p along one side of plot, or -1;
 * agrees with what was drawn (rect_grid_cell's edges). */
int attn_grid_index(Rect plot, int n, int p, int vertical);

/* The cells, the masked triangle (clip restored to `panel`), the outline; numbers in
 * the cells when `numbers` and one cell per position with room for ">0.99". Hits per
 * cell (or per row when they would not fit). Returns 0 or -1. */
int attn_draw_heatmap(Viz *viz, const HeatGeom *hg, const HeadPattern *hp, float vmax, Rect panel, int numbers,
                      VizHits *hits);

/* A thumbnail of the whole pattern in r (few buckets, rows sampled on long contexts). */
int attn_draw_thumb(Viz *viz, Rect r, const HeadPattern *hp, int hide_sink);
/* The same thumbnail from a lean trace's 8x8 block maxima (gpt2_trace_head_blocks) over
 * the first n_pos positions. */
int attn_draw_thumb_blocks(Viz *viz, Rect r, const Gpt2HeadBlocks *hb, int n_pos, int hide_sink);

/* The legend in area: colour bar with its label, the masked swatch, the sink and
 * pooling notes (each in the longest wording that fits). Returns the height used, or
 * -1 on a draw error. */
int attn_draw_legend(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b);
/* Height attn_draw_legend uses. */
int attn_legend_height(Viz *viz, int hide_sink, int pooled_b);

/* The narrow legend for a cramped panel (large UI scale): "weight", a vertical colour
 * bar with ticks, the masked swatch and "masked", the sink and pooling notes short.
 * Width it needs; draw it into area (0 or -1). */
int attn_legend_vertical_width(Viz *viz, float vmax);
int attn_draw_legend_vertical(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b);

/* A label rotated -90° (reading bottom to top), its end at (cx, y_top), cut to
 * max_len pixels with "…". */
int attn_draw_rotated(Viz *viz, int cx, int y_top, const char *text, VizFont font, SDL_Color color, int max_len);

/* The label of position pos: the token (characters no font has as bytes), prefixed
 * with the position when labels are thinned (with_pos), or the position alone. */
void attn_pos_label(Viz *viz, const VizFrame *f, int pos, int positions_only, int with_pos, char *buf, size_t cap);

/* Label stride: every k-th position is labelled, k from 1, 2, 5, 10, 20, 50… so labels
 * never overlap (each needs `need` pixels of the side_px spanned by n_pos positions)
 * and land on round positions. */
int attn_label_stride(int side_px, int n_pos, int need);

#endif
