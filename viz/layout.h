/* layout.h — integer rectangles and the helpers that carve a window into panels, so
 * every frame's layout is computed from the window size (immediate mode: no stored
 * geometry). Two styles that combine:
 *   - cut a fixed strip off a side: rect_cut_top(&r, 24) returns the strip and
 *     shrinks r (the "RectCut" idiom), for title bars, axes, legends;
 *   - split what is left by weights: rect_split_rows(r, weights, n, gap, out).
 * Pure integer math, no SDL, no allocation. Pixels: x right, y down, (x, y) the
 * top-left corner, w/h never negative in anything these functions return. */
#ifndef VIZ_LAYOUT_H
#define VIZ_LAYOUT_H

#include <stddef.h>

typedef struct Rect {
    int x, y; /* top-left corner, pixels */
    int w, h; /* size, pixels, >= 0 */
} Rect;

static inline Rect rect_make(int x, int y, int w, int h) {
    Rect r = {x, y, w < 0 ? 0 : w, h < 0 ? 0 : h};
    return r;
}

/* 1 if (px, py) is inside r (left/top edges inclusive, right/bottom exclusive). */
int rect_contains(Rect r, int px, int py);

/* r shrunk by d on every side (d < 0 grows it). Never returns negative sizes: an
 * over-inset rect collapses to w/h = 0 at its centre. */
Rect rect_inset(Rect r, int d);

/* Per-side inset (left, top, right, bottom), same collapse rule. */
Rect rect_inset4(Rect r, int left, int top, int right, int bottom);

/* Cut a strip of `size` pixels off one side of *r and return it; *r keeps the rest.
 * size is clamped to [0, available], so cutting more than there is returns all of
 * *r and leaves an empty rect. */
Rect rect_cut_top(Rect *r, int size);
Rect rect_cut_bottom(Rect *r, int size);
Rect rect_cut_left(Rect *r, int size);
Rect rect_cut_right(Rect *r, int size);

/* Split r into n rows (top to bottom) / columns (left to right) separated by `gap`
 * pixels, sized in proportion to weights[i] (>= 0; e.g. {1, 2, 1} or {0.25, 0.75}).
 * weights == NULL means equal sizes. Rounding is distributed so the parts plus gaps
 * cover r exactly (the last part ends on r's edge). Writes out[0..n-1].
 * Returns 0, or -1 (out untouched) if n == 0, a weight is negative/NaN or all are 0. */
int rect_split_rows(Rect r, const float *weights, size_t n, int gap, Rect *out);
int rect_split_cols(Rect r, const float *weights, size_t n, int gap, Rect *out);

/* A w×h rect centred in outer (w, h clamped to outer's size). */
Rect rect_center(Rect outer, int w, int h);

/* Intersection of a and b; empty (w = h = 0) if they do not overlap. */
Rect rect_intersect(Rect a, Rect b);

/* Cell (row, col) of an n_rows × n_cols grid filling r with no gaps, edges placed at
 * floor(r.x + col * r.w / n_cols) so adjacent cells share edges exactly (no seams
 * or overlaps in a heatmap). Empty rect for an out-of-range cell. */
Rect rect_grid_cell(Rect r, size_t n_rows, size_t n_cols, size_t row, size_t col);

#endif
