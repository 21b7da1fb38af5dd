/* panel_sheet.c — draw_attention_sheet (panels.h): every head of a layer (or every
 * layer × head) as one figure of small multiples. The decoration is drawn once for the
 * sheet — the title, one colour legend, the token labels down the left of the first
 * column and along the bottom row, one axis title each — so every cell is a heatmap as
 * large as the cell allows, with only its "L3 H5" above it. One colour scale for all
 * cells (with hide_sink, the largest weight outside key 0 over every head shown), so
 * cells compare. The cells are the panel's own heatmap (attn_heatmap.c). */
#include <stdio.h>
#include <string.h>

#include "attn_heatmap.h"
#include "draw.h"
#include "panels.h"
#include "token_label.h"

/* The side S of every heatmap for a cols × rows grid of cells in a w × h area (each
 * cell: a label line over the square, `gap` between cells). */
static int sheet_side(int w, int h, int cols, int rows, int lab, int gap) {
    int sw = (w - (cols - 1) * gap) / cols, sh = (h - rows * lab - (rows - 1) * gap) / rows;
    return sw < sh ? sw : sh;
}

/* Token labels of one heatmap: down its left side (queries) or along its bottom (keys,
 * rotated), every stride-th, each cut to `room` pixels. */
static void sheet_labels(Viz *viz, const VizFrame *f, Rect plot, int vertical, int stride, int room) {
    HeatGeom hg = attn_heat_geom(plot.x, plot.y, plot.w, f->n_pos);
    char lab[TOKEN_LABEL_CAP + 16];
    TextStyle ls = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = viz->theme->text,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE, .max_width = room};
    for (int p = 0; p < f->n_pos; p += stride) {
        Rect c = rect_grid_cell(hg.plot, (size_t)hg.g, (size_t)hg.g, (size_t)(p / hg.b), (size_t)(p / hg.b));
        attn_pos_label(viz, f, p, 0, stride > 1, lab, sizeof lab);
        if (vertical) draw_text(viz, plot.x - viz_px(viz, 4), c.y + c.h / 2, lab, &ls, NULL);
        else attn_draw_rotated(viz, c.x + c.w / 2, plot.y + plot.h + viz_px(viz, 4), lab, VIZ_FONT_MONO,
                               viz->theme->text, room);
    }
}

/* The one legend of the sheet, in the header's right part: the colour bar, the
 * masked swatch, and what the scale means. */
static int sheet_legend(Viz *viz, Rect area, Rect panel, float vmax, int hide_sink, int pooled_b) {
    Rect leg = area;
    int w = viz_px(viz, 360);
    if (leg.w > w) leg = rect_cut_right(&leg, w);
    return attn_draw_legend(viz, leg, panel, vmax, hide_sink, pooled_b) < 0 ? -1 : 0;
}

int draw_attention_sheet(Viz *viz, Rect r, const VizFrame *f, int layer0, int n_layers, int cols, const char *title) {
    if (!viz || !f || r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    int T = f->n_pos;
    if (!f->cfg || !f->trace || !f->tok || !f->ids || T < 1 || layer0 < 0 || n_layers < 1 ||
        layer0 + n_layers > f->cfg->n_layer)
        return viz_fail(viz, "contact sheet: nothing to draw");
    int NH = f->cfg->n_head, n_cells = n_layers * NH, rows = 1;
    int rc = draw_set_clip(viz, &r);
    rc |= draw_fill_rect(viz, r, th->background);
    int pad = viz_px(viz, 12);
    Rect in = rect_inset(r, pad);

    /* one colour scale for the whole sheet */
    float vmax = 1.0f;
    if (f->view.hide_sink) {
        vmax = 0.0f;
        for (int k = 0; k < n_cells; k++) {
            HeadPattern hp;
            if (attn_head_pattern(viz, f->trace, layer0 + k / NH, k % NH, &hp) != 0) return -1;
            hp.n = T;
            float m = attn_scale_max(&hp, 1, 1);
            if (m > vmax) vmax = m;
        }
        if (!(vmax > 0.0f)) vmax = 1.0f;
    }

    /* header: title on the left, the legend on the right */
    int legend_h = attn_legend_height(viz, f->view.hide_sink, 1);
    Rect head = rect_cut_top(&in, legend_h);
    rect_cut_top(&in, viz_px(viz, 8));
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    Rect title_r = head;
    title_r.w = head.w - viz_px(viz, 380);
    rc |= draw_text_in_rect(viz, title_r, title ? title : "Attention patterns", &ts);
    TextStyle ss = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    rc |= draw_text_in_rect(viz, rect_inset4(title_r, 0, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + viz_px(viz, 4), 0, 0),
                            "each cell: one head; rows = queries, columns = keys (same tokens as labelled)", &ss);

    /* label bands: token labels left of the first column and under the last row */
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int lab_w = 0;
    char lab[TOKEN_LABEL_CAP + 16];
    for (int p = 0; p < T; p++) {
        attn_pos_label(viz, f, p, 0, 0, lab, sizeof lab);
        int w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, lab);
        if (w > lab_w) lab_w = w;
    }
    if (lab_w > viz_px(viz, 110)) lab_w = viz_px(viz, 110);
    Rect qtitle = rect_cut_left(&in, small_h + viz_px(viz, 4));
    rect_cut_left(&in, lab_w + viz_px(viz, 4));
    Rect ktitle = rect_cut_bottom(&in, small_h + viz_px(viz, 4));
    rect_cut_bottom(&in, lab_w + viz_px(viz, 4));
    /* the grid of one layer: as many columns as make the heatmaps largest */
    int lab_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 4), gap = viz_px(viz, 14);
    if (n_layers > 1) {
        cols = NH;
    } else if (cols <= 0) {
        int best = 0;
        for (int c = 1; c <= NH; c++) {
            int S = sheet_side(in.w, in.h, c, (NH + c - 1) / c, lab_h, gap);
            if (S > best) best = S, cols = c;
        }
    }
    rows = (n_cells + cols - 1) / cols;
    int S = sheet_side(in.w, in.h, cols, rows, lab_h, gap);
    if (S < 8) return viz_fail(viz, "contact sheet: %d x %d cells do not fit %dx%d pixels", rows, cols, in.w, in.h);
    S = attn_heat_geom(0, 0, S, T).plot.w;
    /* the block of cells centred, the label bands and axis titles held against it */
    int bw = cols * S + (cols - 1) * gap, bh = rows * (lab_h + S) + (rows - 1) * gap;
    int dx = (in.w - bw) / 2, dy = (in.h - bh) / 2;
    Rect grid = {in.x + dx, in.y + dy, bw, bh};
    qtitle.x += dx;
    ktitle.y -= dy;
    ktitle.x = grid.x;
    ktitle.w = grid.w;

    int pooled = 1;
    for (int k = 0; k < n_cells && rc == 0; k++) {
        int col = k % cols, row = k / cols;
        int layer = layer0 + k / NH, head_i = k % NH;
        Rect plot = {grid.x + col * (S + gap), grid.y + row * (lab_h + S + gap) + lab_h, S, S};
        char name[32];
        snprintf(name, sizeof name, "L%d H%d", layer, head_i);
        TextStyle ls = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY,
                        .color = layer == f->view.layer && head_i == f->view.head ? th->accent : th->text,
                        .halign = VIZ_ALIGN_LEFT, .valign = VIZ_ALIGN_BOTTOM};
        rc |= draw_text_in_rect(viz, (Rect){plot.x, plot.y - lab_h, plot.w, lab_h - viz_px(viz, 2)}, name, &ls);
        HeadPattern hp;
        if (attn_head_pattern(viz, f->trace, layer, head_i, &hp) != 0) return -1;
        hp.n = T;
        HeatGeom hg = attn_heat_geom(plot.x, plot.y, plot.w, T);
        pooled = hg.b;
        rc |= attn_draw_heatmap(viz, &hg, &hp, vmax, r, 1, NULL);
        draw_set_clip(viz, &r);
        int stride = attn_label_stride(plot.h, T, small_h + viz_px(viz, 2));
        if (col == 0) sheet_labels(viz, f, plot, 1, stride, lab_w);
        if (k + cols >= n_cells) sheet_labels(viz, f, plot, 0, stride, lab_w);
    }
    if (pooled > 1) { /* the note belongs to the legend, but the bucketing is known only now */
        char note[64];
        snprintf(note, sizeof note, "1 cell = max of %d\xC3\x97%d positions", pooled, pooled);
        TextStyle ns = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_BOTTOM};
        rc |= draw_text_in_rect(viz, ktitle, note, &ns);
    }
    rc |= sheet_legend(viz, head, r, vmax, f->view.hide_sink, 1);
    draw_set_clip(viz, &r);
    TextStyle as = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = pooled > 1 ? VIZ_ALIGN_LEFT : VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_BOTTOM};
    rc |= draw_text_in_rect(viz, (Rect){grid.x, ktitle.y, grid.w, ktitle.h}, "key (attended-to token) \xE2\x86\x92", &as);
    const char *qt = "\xE2\x86\x90 query (attending token)";
    int qw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, qt);
    if (qw <= grid.h) attn_draw_rotated(viz, qtitle.x + qtitle.w / 2, grid.y + (grid.h - qw) / 2, qt, VIZ_FONT_SANS,
                                        th->text_muted, grid.h);
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
