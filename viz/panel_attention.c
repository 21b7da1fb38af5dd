/* panel_attention.c — draw_attention_panel (panels.h): one head's attention pattern
 * (blocks.{L}.attn.hook_pattern, read from the trace) as a query × key heatmap with
 * token labels, a 0..1 colour scale, hatched grey masked (future) cells, a layers ×
 * heads grid of thumbnails and a hover readout. No model math: only max-pooling for
 * display (1024 positions → ≤ 256² cells, filled in runs of equal colour). Not the
 * app's click handling (that reads the hits). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "token_label.h"

/* Above this many positions per side the big heatmap is max-pooled into buckets of
 * b × b positions, so a frame costs at most ~256²/2 rectangle fills (the software
 * renderer does ~10 M small fills per second; 1024² cells would take ~50 ms).
 * Max (not mean) pooling keeps thin structures visible: a previous-token head is a
 * one-cell-wide diagonal line, which averaging would dissolve into the background. */
#define ATTN_MAX_CELLS 256
/* Thumbnails are tiny: at most this many buckets per side. */
#define ATTN_THUMB_MAX_CELLS 24
/* Floats a thumbnail may read per frame. Thumbnails sample query rows (every key of a
 * sampled row is scanned, so lines of constant offset k = q - c, the common head
 * shapes, still show). Without this, GPT-2 124M at 1024 positions would read 144 heads
 * × 524 k floats = 75 M floats a frame; with it, 144 × ~16 k. */
#define ATTN_THUMB_READ_BUDGET 16384
/* Hit regions: per cell only while they fit, leaving room for the other panels. */
#define ATTN_HITS_RESERVE 512

/* What a heatmap needs to read one head: the packed lower-triangle pattern. */
typedef struct HeadPattern {
    const float *data; /* row q starts at data + gpt2_tri_row(q) and holds q+1 floats */
    int n;             /* T: positions (rows = columns) */
} HeadPattern;

/* pattern[q][k] for k <= q (callers never ask above the diagonal). */
static inline float pat_at(const HeadPattern *hp, int q, int k) {
    return hp->data[gpt2_tri_row((size_t)q) + (size_t)k];
}

/* Looks the head up by its TransformerLens name, so the panel reads exactly what the
 * dump command and the trace tests read. Returns 0 or -1 (recorded in viz). */
static int head_pattern(Viz *viz, const Gpt2Trace *tr, int layer, int head, HeadPattern *out) {
    char name[64];
    snprintf(name, sizeof name, "blocks.%d.attn.hook_pattern", layer);
    Gpt2TraceView v;
    ErrorMsg err;
    if (gpt2_trace_find(tr, name, &v, &err) != 0) return viz_fail(viz, "attention panel: %s", err.text);
    if (!v.tri || v.ndim != 3 || (size_t)head >= v.shape[0])
        return viz_fail(viz, "attention panel: %s has an unexpected layout", name);
    out->data = v.data + (size_t)head * v.stride[0];
    out->n = (int)v.shape[1];
    return 0;
}

/* Positions [lo, hi) covered by bucket i of a bucketing with b positions per bucket. */
static void bucket_range(int i, int b, int n, int *lo, int *hi) {
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
static float scale_max(const HeadPattern *hp, int hide_sink, int row_step) {
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
static SDL_Color masked_fill(const Viz *viz) { return color_mix(viz->theme->panel, viz->theme->cut, 0.35f); }
static SDL_Color masked_hatch(const Viz *viz) { return color_mix(viz->theme->panel, viz->theme->cut, 0.8f); }

/* 45° hatch lines ("/") over r, clipped to r ∩ panel (draw_set_clip is not a stack, so
 * the panel clip is put back afterwards). Phase is anchored at `origin` so hatching of
 * neighbouring rects lines up into one continuous pattern. */
static int hatch_rect(Viz *viz, Rect r, Rect panel, int ox, int oy, int spacing, SDL_Color c) {
    Rect clip = rect_intersect(r, panel);
    if (clip.w <= 0 || clip.h <= 0) return 0;
    if (draw_set_clip(viz, &clip) != 0) return -1;
    /* lines x + y = d for d ≡ ox + oy (mod spacing), crossing r */
    int dmin = r.x + r.y, dmax = r.x + r.w + r.y + r.h;
    int phase = ((dmin - ox - oy) % spacing + spacing) % spacing;
    int rc = 0;
    for (int d = dmin - phase; d <= dmax && rc == 0; d += spacing)
        rc = draw_line(viz, d - (r.y + r.h), r.y + r.h, d - r.y + 1, r.y - 1, c, 1);
    if (draw_set_clip(viz, &panel) != 0) return -1;
    return rc;
}

/* Draws a label texture rotated -90° (reading bottom to top), its right end (the
 * text's end) at (x_center, y_top): for key labels under the heatmap. */
static int draw_rotated(Viz *viz, int cx, int y_top, const char *text, VizFont font, SDL_Color color,
                        int max_len) {
    char fitted[128];
    if (draw_fit_text(viz, font, VIZ_TEXT_SMALL, text, max_len, fitted, sizeof fitted) <= 0) return 0;
    int w, h;
    SDL_Texture *tex = viz_text_texture(viz, font, VIZ_TEXT_SMALL, fitted, &w, &h);
    if (!tex) return viz->has_error ? -1 : 0;
    SDL_SetTextureColorMod(tex, color.r, color.g, color.b);
    SDL_SetTextureAlphaMod(tex, color.a);
    /* rotating around the centre turns the w×h box into h×w with the same centre */
    SDL_Rect dst = {cx - w / 2, y_top + w / 2 - h / 2, w, h};
    if (SDL_RenderCopyEx(viz->renderer, tex, NULL, &dst, -90.0, NULL, SDL_FLIP_NONE) != 0)
        return viz_fail(viz, "attention panel: rotated text: %s", SDL_GetError());
    return 0;
}

/* The token at position pos as a label, prefixed with its position when labels are
 * thinned out (so a reader can count). */
static void pos_label(const VizFrame *f, int pos, int with_pos, char *buf, size_t cap) {
    char lab[TOKEN_LABEL_CAP];
    token_label(f->tok, f->ids[pos], TOKEN_LABEL_DEFAULT, lab, sizeof lab);
    if (with_pos) snprintf(buf, cap, "%d %s", pos, lab);
    else snprintf(buf, cap, "%s", lab);
}

/* Label stride: every k-th position is labelled, k from 1, 2, 5, 10, 20, 50… so labels
 * never overlap (each needs `need` pixels of the side_px spanned by n_pos positions)
 * and land on round positions. */
static int label_stride(int side_px, int n_pos, int need) {
    static const int steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if ((long long)steps[i] * side_px >= (long long)need * n_pos) return steps[i];
    return 1000;
}

/* Bucket index (0..n-1) whose grid cell holds pixel p along one side, or -1. Uses
 * rect_grid_cell's own edges so a hover always agrees with what was drawn. */
static int grid_index(Rect plot, int n, int p, int vertical) {
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
    SDL_Color c = masked_hatch(viz);
    if (draw_set_clip(viz, &plot) != 0) return -1;
    int x0 = plot.x, y0 = plot.y, x1 = plot.x + plot.w - 1, y1 = plot.y + plot.h - 1;
    for (int d = x0 + y0 + spacing / 2; d <= x1 + y1 && rc == 0; d += spacing) {
        /* the line x + y = d inside the plot: x from max(x0, d - y1) to min(x1, d - y0) */
        int xa = d - y1 > x0 ? d - y1 : x0, xb = d - y0 < x1 ? d - y0 : x1;
        if (xa > xb) continue;
        int lo = xa, hi = xb + 1; /* first x with col > row, or xb + 1 if none */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (grid_index(plot, g, mid, 0) > grid_index(plot, g, d - mid, 1)) hi = mid;
            else lo = mid + 1;
        }
        if (lo <= xb) rc = draw_line(viz, lo, d - lo, xb, d - xb, c, 1);
    }
    if (draw_set_clip(viz, &panel) != 0) return -1;
    return rc;
}

/* ---- the big heatmap -------------------------------------------------------- */

typedef struct HeatGeom {
    Rect plot;   /* the square of cells */
    int n;       /* T positions */
    int g;       /* buckets per side (g == n: one cell per position) */
    int b;       /* positions per bucket */
} HeatGeom;

static int draw_heatmap(Viz *viz, const HeatGeom *hg, const HeadPattern *hp, float vmax, Rect panel,
                        VizHits *hits) {
    const Theme *th = viz->theme;
    SDL_Color mfill = masked_fill(viz);
    int cell_w = hg->plot.w / hg->g;
    /* numbers in cells only when one cell is one position and "0.00" fits with air */
    int num_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, "0.00") + viz_px(viz, 4);
    int show_nums = hg->g == hg->n && cell_w >= num_w &&
                    cell_w >= viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL);
    for (int i = 0; i < hg->g; i++) {
        int q0, q1;
        bucket_range(i, hg->b, hg->n, &q0, &q1);
        /* neighbouring cells of one colour are filled as one run: same pixels, fewer
         * renderer calls (a pooled 256-row map is ~33 k cells, mostly runs of a few
         * dark shades) */
        Rect run = {0, 0, 0, 0};
        SDL_Color run_col = {0, 0, 0, 0};
        for (int j = 0; j <= i; j++) {
            int k0, k1;
            bucket_range(j, hg->b, hg->n, &k0, &k1);
            float v = hg->b == 1 ? pat_at(hp, q0, k0) : bucket_max(hp, q0, q1, k0, k1, 1);
            Rect c = rect_grid_cell(hg->plot, (size_t)hg->g, (size_t)hg->g, (size_t)i, (size_t)j);
            SDL_Color col = value_color(viz, v, vmax);
            if (show_nums) {
                char num[16];
                snprintf(num, sizeof num, "%.2f", (double)v);
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

static int draw_thumb(Viz *viz, Rect r, const HeadPattern *hp, int hide_sink) {
    int n = hp->n;
    int g = n < ATTN_THUMB_MAX_CELLS ? n : ATTN_THUMB_MAX_CELLS;
    if (g > r.w) g = r.w > 0 ? r.w : 1;
    int b = (n + g - 1) / g;
    g = (n + b - 1) / b;
    /* reads ≈ n² / (2 · row_step); at least one row of every bucket is read */
    long long need = (long long)n * n / 2 / ATTN_THUMB_READ_BUDGET;
    int row_step = need < 1 ? 1 : need > b ? b : (int)need;
    float vmax = scale_max(hp, hide_sink, row_step);
    SDL_Color mfill = masked_fill(viz);
    for (int i = 0; i < g; i++) {
        int q0, q1;
        bucket_range(i, b, n, &q0, &q1);
        for (int j = 0; j <= i; j++) {
            int k0, k1;
            bucket_range(j, b, n, &k0, &k1);
            float v = bucket_max(hp, q0, q1, k0, k1, row_step);
            if (draw_fill_rect(viz, rect_grid_cell(r, (size_t)g, (size_t)g, (size_t)i, (size_t)j),
                               value_color(viz, v, vmax)) != 0)
                return -1;
        }
        if (i + 1 < g) {
            Rect first = rect_grid_cell(r, (size_t)g, (size_t)g, (size_t)i, (size_t)i + 1);
            if (draw_fill_rect(viz, (Rect){first.x, first.y, r.x + r.w - first.x, first.h}, mfill) != 0)
                return -1;
        }
    }
    return 0;
}

/* Layers × heads grid inside area: column titles "H0…", row titles "L0…", the selected
 * head outlined in the accent colour. */
static int draw_thumbs(Viz *viz, Rect area, const VizFrame *f, VizHits *hits, int *bottom) {
    const Theme *th = viz->theme;
    int L = f->cfg->n_layer, NH = f->cfg->n_head;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text};
    Rect head = rect_cut_top(&area, small_h + viz_px(viz, 2));
    *bottom = head.y + head.h;
    /* the click hint belongs to the window; a printed figure just names the grid */
    draw_text_in_rect(viz, head, f->view.print ? "all heads (layer \xC3\x97 head)" : "all heads (click to show)", &hs);
    char buf[32];
    snprintf(buf, sizeof buf, "L%d", L - 1);
    /* + room for the selected thumbnail's outline, which sits 5 px outside it */
    int row_lab_w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, buf) + viz_px(viz, 9);
    Rect col_titles = rect_cut_top(&area, small_h);
    rect_cut_top(&area, viz_px(viz, 4)); /* the selected outline sits 3 px above its thumbnail */
    Rect row_titles = rect_cut_left(&area, row_lab_w);
    col_titles.x = area.x;
    col_titles.w = area.w;
    int gap = viz_px(viz, 3);
    int side_w = (area.w - gap * (NH - 1)) / NH, side_h = (area.h - gap * (L - 1)) / L;
    int side = side_w < side_h ? side_w : side_h;
    if (side > viz_px(viz, 64)) side = viz_px(viz, 64);
    if (side < 2) return 0; /* no room: the thumbnails are a convenience */
    *bottom = area.y + L * (side + gap);
    /* column titles only when they fit ("H11" needs ~20 px) */
    int lab_every = 1;
    while (lab_every < NH && lab_every * (side + gap) < viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, "H00") + gap)
        lab_every++;
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    for (int h = 0; h < NH; h += lab_every) {
        snprintf(buf, sizeof buf, "H%d", h);
        Rect c = {area.x + h * (side + gap), col_titles.y, side, col_titles.h};
        ts.color = h == f->view.head ? th->accent : th->text_muted;
        ts.font = h == f->view.head ? VIZ_FONT_BOLD : VIZ_FONT_SANS;
        TextStyle one = ts;
        one.max_width = 0;
        draw_text(viz, c.x + c.w / 2, c.y + c.h / 2, buf, &one, NULL);
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
            HeadPattern hp;
            if (head_pattern(viz, f->trace, l, h, &hp) != 0) return -1;
            hp.n = f->n_pos;
            Rect t = {area.x + h * (side + gap), area.y + l * (side + gap), side, side};
            if (draw_thumb(viz, t, &hp, f->view.hide_sink) != 0) return -1;
            viz_hits_add(hits, t, VIZ_HIT_HEAD_THUMB, l, h);
            if (l == f->view.layer && h == f->view.head)
                draw_rect_outline(viz, rect_inset(t, -viz_px(viz, 3)), th->accent, viz_px(viz, 2));
        }
    }
    return 0;
}

/* ---- legend ----------------------------------------------------------------- */

/* Colour bar, the masked swatch and the notes; returns the height used. */
static int draw_legend(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b) {
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
    draw_fill_rect(viz, sw, masked_fill(viz));
    hatch_rect(viz, sw, panel, sw.x, sw.y, viz_px(viz, 6), masked_hatch(viz));
    draw_rect_outline(viz, sw, th->panel_border, 1);
    rect_cut_left(&row, viz_px(viz, 6));
    /* the longest wording that fits the column: the reason a cell is grey */
    static const char *const masked_text[] = {"masked: a token cannot see later tokens",
                                              "masked: the future is hidden", "masked (future)"};
    const char *mt = masked_text[2];
    for (size_t i = 0; i < sizeof masked_text / sizeof masked_text[0]; i++)
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, masked_text[i]) <= row.w) {
            mt = masked_text[i];
            break;
        }
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

/* ---- the panel -------------------------------------------------------------- */

static int draw_message(Viz *viz, Rect r, const char *msg) {
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = viz->theme->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    return draw_text_in_rect(viz, r, msg, &ts);
}

int draw_attention_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    int rc = 0;
    draw_set_clip(viz, &r);
    draw_fill_rect(viz, r, th->panel);
    draw_rect_outline(viz, r, th->panel_border, 1);
    Rect in = rect_inset(r, viz_px(viz, 10));

    int T = f ? f->n_pos : 0;
    int ok = f && f->cfg && f->trace && f->tok && f->ids && T >= 1 && T <= f->trace->n_pos &&
             f->view.layer >= 0 && f->view.layer < f->cfg->n_layer && f->view.head >= 0 &&
             f->view.head < f->cfg->n_head;
    /* title */
    char title[96];
    if (ok) snprintf(title, sizeof title, "Attention \xC2\xB7 layer %d \xC2\xB7 head %d", f->view.layer, f->view.head);
    else snprintf(title, sizeof title, "Attention");
    Rect trow = rect_cut_top(&in, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE));
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    draw_text_in_rect(viz, trow, title, &tts);
    if (!ok) {
        rc = draw_message(viz, in, "no tokens yet: type a prompt");
        draw_set_clip(viz, NULL);
        return rc;
    }
    {
        char hook[64];
        snprintf(hook, sizeof hook, "blocks.%d.attn.hook_pattern", f->view.layer);
        TextStyle hs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE};
        int tw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title) + viz_px(viz, 16);
        draw_text_in_rect(viz, rect_inset4(trow, tw, 0, 0, 0), hook, &hs);
    }
    rect_cut_top(&in, viz_px(viz, 6));

    HeadPattern hp;
    if (head_pattern(viz, f->trace, f->view.layer, f->view.head, &hp) != 0) {
        draw_set_clip(viz, NULL);
        return -1;
    }
    hp.n = T; /* the trace may hold more positions than the frame shows */
    float vmax = scale_max(&hp, f->view.hide_sink, 1);

    /* readout line at the bottom, side column (thumbnails + legend) on the right */
    int body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    Rect readout = rect_cut_bottom(&in, body_h + viz_px(viz, 4));
    rect_cut_bottom(&in, viz_px(viz, 4));
    int side_w = in.w * 3 / 10;
    if (side_w < viz_px(viz, 170)) side_w = viz_px(viz, 170);
    if (side_w > viz_px(viz, 300)) side_w = viz_px(viz, 300);
    if (side_w > in.w / 2) side_w = in.w / 2;
    if (f->view.compact && side_w > viz_px(viz, 190)) side_w = viz_px(viz, 190); /* legend only */
    Rect side = rect_cut_right(&in, side_w);
    rect_cut_right(&in, viz_px(viz, 14));

    /* geometry of the heatmap: axis titles and labels around a square plot */
    int lab_cap = viz_px(viz, 96);
    int title_px = small_h + viz_px(viz, 4);
    int avail = in.w - title_px - lab_cap - viz_px(viz, 4);
    int avail_h = in.h - title_px - lab_cap - viz_px(viz, 4);
    int S = avail < avail_h ? avail : avail_h;
    if (S < 8) {
        const char *msg = "panel too small for the heatmap";
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, msg) > in.w) msg = "too small";
        rc = draw_message(viz, in, msg);
        draw_set_clip(viz, NULL);
        return rc;
    }
    HeatGeom hg = {.n = T};
    int limit = S < ATTN_MAX_CELLS ? S : ATTN_MAX_CELLS;
    hg.b = (T + limit - 1) / limit;
    hg.g = (T + hg.b - 1) / hg.b;
    /* one position per cell: make cells whole pixels so every cell has the same size */
    if (hg.b == 1) S = S / T * T;
    /* labels: every stride-th position, spaced at least one line apart */
    int stride = label_stride(S, T, small_h + viz_px(viz, 2));
    int with_pos = stride > 1;
    /* label width: the widest label drawn, capped */
    int lab_w = 0;
    char lab[TOKEN_LABEL_CAP + 16];
    for (int p = 0; p < T; p += stride) {
        pos_label(f, p, with_pos, lab, sizeof lab);
        int w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, lab);
        if (w > lab_w) lab_w = w;
    }
    if (lab_w > lab_cap) lab_w = lab_cap;
    hg.plot = (Rect){in.x + title_px + lab_w + viz_px(viz, 4), in.y, S, S};
    if (draw_heatmap(viz, &hg, &hp, vmax, r, hits) != 0) rc = -1;

    /* hover: which position pair is under the mouse (exact even when pooled) */
    int hq = -1, hk = -1;
    Rect hover_cell = {0, 0, 0, 0};
    int mx = f->view.mouse_x, my = f->view.mouse_y;
    if (rect_contains(hg.plot, mx, my)) {
        int i = grid_index(hg.plot, hg.g, my, 1), j = grid_index(hg.plot, hg.g, mx, 0);
        if (i >= 0 && j >= 0) {
            hover_cell = rect_grid_cell(hg.plot, (size_t)hg.g, (size_t)hg.g, (size_t)i, (size_t)j);
            int q0, q1, k0, k1;
            bucket_range(i, hg.b, T, &q0, &q1);
            bucket_range(j, hg.b, T, &k0, &k1);
            hq = q0 + (int)((long long)(my - hover_cell.y) * (q1 - q0) / (hover_cell.h > 0 ? hover_cell.h : 1));
            hk = k0 + (int)((long long)(mx - hover_cell.x) * (k1 - k0) / (hover_cell.w > 0 ? hover_cell.w : 1));
            if (hq >= q1) hq = q1 - 1;
            if (hk >= k1) hk = k1 - 1;
        }
    }

    /* query labels (left, right-aligned against the plot) and key labels (below,
     * rotated); the hovered pair is drawn in bold accent on top */
    TextStyle ls = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE, .max_width = lab_w};
    int lab_x = hg.plot.x - viz_px(viz, 4), lab_y = hg.plot.y + S + viz_px(viz, 4);
    for (int p = 0; p < T; p += stride) {
        int i = p / hg.b;
        Rect c = rect_grid_cell(hg.plot, (size_t)hg.g, (size_t)hg.g, (size_t)i, (size_t)i);
        pos_label(f, p, with_pos, lab, sizeof lab);
        if (p != hq) draw_text(viz, lab_x, c.y + c.h / 2, lab, &ls, NULL);
        if (p != hk) draw_rotated(viz, c.x + c.w / 2, lab_y, lab, VIZ_FONT_MONO, th->text, lab_w);
    }
    if (hq >= 0) {
        TextStyle hs = ls;
        hs.font = VIZ_FONT_BOLD;
        hs.color = th->accent;
        Rect cq = rect_grid_cell(hg.plot, (size_t)hg.g, (size_t)hg.g, (size_t)(hq / hg.b), 0);
        Rect ck = rect_grid_cell(hg.plot, (size_t)hg.g, (size_t)hg.g, 0, (size_t)(hk / hg.b));
        /* the hovered labels sit on a panel-coloured plate so thinned-out neighbours
         * never run into them */
        int lh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL);
        pos_label(f, hq, with_pos, lab, sizeof lab);
        draw_fill_rect(viz, (Rect){lab_x - lab_w, cq.y + cq.h / 2 - lh / 2, lab_w, lh}, th->panel);
        draw_text(viz, lab_x, cq.y + cq.h / 2, lab, &hs, NULL);
        pos_label(f, hk, with_pos, lab, sizeof lab);
        draw_fill_rect(viz, (Rect){ck.x + ck.w / 2 - lh / 2, lab_y, lh, lab_w}, th->panel);
        draw_rotated(viz, ck.x + ck.w / 2, lab_y, lab, VIZ_FONT_BOLD, th->accent, lab_w);
        int t = viz_px(viz, 2);
        draw_rect_outline(viz, rect_inset(hover_cell, -t), th->highlight, t);
        draw_rect_outline(viz, rect_inset(hover_cell, -t - 1), th->text, 1);
    }
    /* axis titles */
    TextStyle as = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_TOP};
    const char *kt = "key (attended-to token) \xE2\x86\x92";
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, kt) > S) kt = "key \xE2\x86\x92"; /* short, not cut */
    draw_text_in_rect(viz, (Rect){hg.plot.x, lab_y + lab_w + viz_px(viz, 2), S, small_h}, kt, &as);
    /* rotated -90° the text reads bottom to top and its leading "←" points down:
     * queries go down the rows. Centred along the plot's height. */
    const char *qt = "\xE2\x86\x90 query (attending token)";
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, qt) > S) qt = "\xE2\x86\x90 query";
    int qw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, qt);
    draw_rotated(viz, in.x + small_h / 2, hg.plot.y + (S - (qw < S ? qw : S)) / 2, qt, VIZ_FONT_SANS,
                 th->text_muted, S);

    /* side column: thumbnails, then the legend under them */
    int legend_h = draw_colorbar_size(viz, &(ColorbarSpec){.map = th->sequential, .vmin = 0, .vmax = 1,
                                                           .label = "x"},
                                      viz_px(viz, 12)) +
                   viz_px(viz, 6) + 3 * (small_h + viz_px(viz, 4));
    /* keep the figure compact: the side column follows the heatmap */
    int side_x = hg.plot.x + S + viz_px(viz, 28);
    if (side_x < side.x) {
        /* the column starts earlier and keeps the panel's right edge: the legend gets
         * the width it needs to say its words in full */
        side.w += side.x - side_x;
        side.x = side_x;
    }
    Rect thumbs = side;
    rect_cut_bottom(&thumbs, legend_h + viz_px(viz, 12));
    int thumbs_bottom = thumbs.y;
    /* a contact sheet shows every head already: its cells skip the thumbnail grid */
    if (!f->view.compact && draw_thumbs(viz, thumbs, f, hits, &thumbs_bottom) != 0) rc = -1;
    draw_set_clip(viz, &r);
    /* a colour bar reads best at about the thumbnails' width, not the panel's */
    int legend_w = side.w < viz_px(viz, 320) ? side.w : viz_px(viz, 320);
    Rect legend = {side.x, thumbs_bottom + viz_px(viz, 14), legend_w, legend_h};
    if (draw_legend(viz, legend, r, vmax, f->view.hide_sink, hg.b) < 0) rc = -1;
    draw_set_clip(viz, &r);

    /* readout */
    TextStyle rs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    char line[2 * TOKEN_LABEL_CAP + 128];
    if (hq >= 0) {
        char lq[TOKEN_LABEL_CAP], lk[TOKEN_LABEL_CAP];
        token_label(f->tok, f->ids[hq], TOKEN_LABEL_DEFAULT, lq, sizeof lq);
        token_label(f->tok, f->ids[hk], TOKEN_LABEL_DEFAULT, lk, sizeof lk);
        if (hk <= hq)
            snprintf(line, sizeof line, "query '%s' (pos %d) \xE2\x86\x92 key '%s' (pos %d): %.4f", lq, hq, lk, hk,
                     (double)pat_at(&hp, hq, hk));
        else
            snprintf(line, sizeof line, "query '%s' (pos %d) \xE2\x86\x92 key '%s' (pos %d): masked (the future)", lq,
                     hq, lk, hk);
        rs.font = VIZ_FONT_BOLD;
    } else {
        rs.color = th->text_muted;
        /* the hover hint only in the window, and only when the sentence still fits */
        snprintf(line, sizeof line, "Each row: how much one token reads from each earlier token (sums to 1).");
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, line) > readout.w)
            snprintf(line, sizeof line, "Each row: one token reading earlier ones (sums to 1).");
        if (!f->view.print) {
            const char *with_hint = "Each row: how much one token reads from each earlier token (sums to 1). "
                                    "Hover a cell for its value.";
            if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, with_hint) <= readout.w)
                snprintf(line, sizeof line, "%s", with_hint);
        }
    }
    draw_text_in_rect(viz, readout, line, &rs);
    draw_set_clip(viz, NULL);
    return rc;
}
