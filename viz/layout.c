/* layout.c — rectangle arithmetic for layout.h. Integer pixels throughout so panels
 * tile without gaps or 1-px overlaps; weights are the only floating point, and the
 * running-sum rounding below makes the pieces add up exactly. */
#include "layout.h"

#include <math.h>

int rect_contains(Rect r, int px, int py) {
    return px >= r.x && py >= r.y && px < r.x + r.w && py < r.y + r.h;
}

Rect rect_inset4(Rect r, int left, int top, int right, int bottom) {
    Rect o;
    long w = (long)r.w - left - right, h = (long)r.h - top - bottom;
    if (w < 0) {
        o.x = r.x + r.w / 2;
        o.w = 0;
    } else {
        o.x = r.x + left;
        o.w = (int)w;
    }
    if (h < 0) {
        o.y = r.y + r.h / 2;
        o.h = 0;
    } else {
        o.y = r.y + top;
        o.h = (int)h;
    }
    return o;
}

Rect rect_inset(Rect r, int d) { return rect_inset4(r, d, d, d, d); }

static int clamp_size(int size, int avail) {
    return size < 0 ? 0 : (size > avail ? avail : size);
}

Rect rect_cut_top(Rect *r, int size) {
    size = clamp_size(size, r->h);
    Rect s = {r->x, r->y, r->w, size};
    r->y += size;
    r->h -= size;
    return s;
}

Rect rect_cut_bottom(Rect *r, int size) {
    size = clamp_size(size, r->h);
    r->h -= size;
    Rect s = {r->x, r->y + r->h, r->w, size};
    return s;
}

Rect rect_cut_left(Rect *r, int size) {
    size = clamp_size(size, r->w);
    Rect s = {r->x, r->y, size, r->h};
    r->x += size;
    r->w -= size;
    return s;
}

Rect rect_cut_right(Rect *r, int size) {
    size = clamp_size(size, r->w);
    r->w -= size;
    Rect s = {r->x + r->w, r->y, size, r->h};
    return s;
}

/* Shared by rows and columns: split a 1-D span [start, start+len) into n parts.
 * Each boundary is round(cumulative_weight / total * usable), so rounding errors
 * never accumulate and the last boundary is exactly the end. */
static int split_span(int start, int len, const float *weights, size_t n, int gap,
                      int *pos, int *size) {
    if (n == 0) return -1;
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        double w = weights ? (double)weights[i] : 1.0;
        if (!(w >= 0.0) || isinf(w)) return -1;
        total += w;
    }
    if (!(total > 0.0)) return -1;
    if (gap < 0) gap = 0;
    long usable = (long)len - (long)gap * (long)(n - 1);
    if (usable < 0) { /* gaps alone would not fit: drop them rather than overlap */
        gap = 0;
        usable = len < 0 ? 0 : len;
    }
    double cum = 0.0;
    long prev = 0;
    for (size_t i = 0; i < n; i++) {
        cum += weights ? (double)weights[i] : 1.0;
        long edge = (i + 1 == n) ? usable : lround(cum / total * (double)usable);
        pos[i] = start + (int)prev + (int)i * gap;
        size[i] = (int)(edge - prev);
        prev = edge;
    }
    return 0;
}

int rect_split_rows(Rect r, const float *weights, size_t n, int gap, Rect *out) {
    /* small fixed scratch keeps this allocation-free; 64 rows is far beyond any layout */
    int pos[64], size[64];
    if (n > 64 || split_span(r.y, r.h, weights, n, gap, pos, size) != 0) return -1;
    for (size_t i = 0; i < n; i++) out[i] = (Rect){r.x, pos[i], r.w, size[i]};
    return 0;
}

int rect_split_cols(Rect r, const float *weights, size_t n, int gap, Rect *out) {
    int pos[64], size[64];
    if (n > 64 || split_span(r.x, r.w, weights, n, gap, pos, size) != 0) return -1;
    for (size_t i = 0; i < n; i++) out[i] = (Rect){pos[i], r.y, size[i], r.h};
    return 0;
}

Rect rect_center(Rect outer, int w, int h) {
    w = clamp_size(w, outer.w);
    h = clamp_size(h, outer.h);
    return (Rect){outer.x + (outer.w - w) / 2, outer.y + (outer.h - h) / 2, w, h};
}

Rect rect_intersect(Rect a, Rect b) {
    int x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
    int x1 = a.x + a.w < b.x + b.w ? a.x + a.w : b.x + b.w;
    int y1 = a.y + a.h < b.y + b.h ? a.y + a.h : b.y + b.h;
    if (x1 <= x0 || y1 <= y0) return (Rect){x0, y0, 0, 0};
    return (Rect){x0, y0, x1 - x0, y1 - y0};
}

Rect rect_grid_cell(Rect r, size_t n_rows, size_t n_cols, size_t row, size_t col) {
    if (n_rows == 0 || n_cols == 0 || row >= n_rows || col >= n_cols)
        return (Rect){r.x, r.y, 0, 0};
    /* edges from the index, in 64-bit so 4K-wide × many-cell products cannot overflow */
    long long x0 = r.x + (long long)r.w * (long long)col / (long long)n_cols;
    long long x1 = r.x + (long long)r.w * (long long)(col + 1) / (long long)n_cols;
    long long y0 = r.y + (long long)r.h * (long long)row / (long long)n_rows;
    long long y1 = r.y + (long long)r.h * (long long)(row + 1) / (long long)n_rows;
    return (Rect){(int)x0, (int)y0, (int)(x1 - x0), (int)(y1 - y0)};
}
