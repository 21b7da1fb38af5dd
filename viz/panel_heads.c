/* panel_heads.c — draw_heads_panel: what each head does (f->heads, engine/head_scores.h on
 * the fixed probe): one layers x heads grid per pattern (previous-token, first-token sink,
 * induction, duplicate-token, local window), each cell coloured by its score on the
 * theme's sequential map scaled 0 .. the grid's largest score (its scale beneath) with the
 * number printed on it whenever a cell is wide enough, the best head outlined, the head
 * shown in the heatmap outlined in the accent colour; under each grid the chance level,
 * the best head (or "no head clearly does this" under twice the chance level) and one line
 * on what to look for in the heatmap. Clicking a cell selects that head
 * (VIZ_HIT_HEAD_THUMB). No math: the scores, chance levels and best heads are the engine's;
 * the panel only chooses a colour scale and where things go. */
#include <stdio.h>

#include "draw.h"
#include "head_scores.h"
#include "panels.h"

/* A grid's colour scale: 0 .. its largest score rounded up to 0.05, 0.1, 0.25, 0.5 or 1
 * (scores are means of weights in [0, 1]; per grid, since a sink score of 0.03 and a local
 * score of 0.6 on one scale would leave the first grid black; nice ends so both ends of the
 * scale get a tick label). */
static double grid_top(const HeadScores *s, HeadPattern k) {
    double m = 0.0;
    for (int l = 0; l < s->n_layer; l++)
        for (int h = 0; h < s->n_head; h++)
            if (*head_score_at(s, k, l, h) > m) m = *head_score_at(s, k, l, h);
    static const double TOPS[] = {0.05, 0.1, 0.25, 0.5, 1.0};
    for (size_t i = 0; i < sizeof TOPS / sizeof TOPS[0]; i++)
        if (m <= TOPS[i]) return TOPS[i];
    return 1.0;
}

/* One pattern: title, grid, scale, chance/best line, what to look for; inside area. */
static int draw_pattern(Viz *viz, Rect area, const VizFrame *f, const HeadsInfo *hi, HeadPattern k, int compact,
                        VizHits *hits) {
    const Theme *th = viz->theme;
    const HeadScores *s = hi->scores;
    const HeadPatternInfo *info = &HEAD_PATTERNS[k];
    const int L = s->n_layer, NH = s->n_head;
    const int body_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY);
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    TextStyle ls = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE,
                    .halign = VIZ_ALIGN_RIGHT};
    int rc = 0;
    Rect a = area;
    rc |= draw_text_in_rect(viz, rect_cut_top(&a, body_h), info->title, &ts);
    rect_cut_top(&a, viz_px(viz, 2));
    /* the text under the grid: scale, chance/best, look-for (up to 3 lines) */
    double top = grid_top(s, k);
    ColorbarSpec cb = {.map = th->sequential, .vmin = 0.0, .vmax = top, .label = NULL, .target_ticks = 2};
    int cb_h = draw_colorbar_size(viz, &cb, viz_px(viz, 8));
    char line[200];
    double bv = *head_score_at(s, k, hi->best_layer[k], hi->best_head[k]);
    if (compact && hi->clear[k]) /* the short form: the best head and its score, or none */
        snprintf(line, sizeof line, "best L%dH%d %.3f", hi->best_layer[k], hi->best_head[k], bv);
    else if (compact)
        snprintf(line, sizeof line, "none clear (%.3f)", bv);
    else if (hi->clear[k])
        snprintf(line, sizeof line, "best L%dH%d %.3f \xC2\xB7 chance %.3f", hi->best_layer[k], hi->best_head[k], bv,
                 hi->chance[k]);
    else
        snprintf(line, sizeof line, "no head clearly does this: best %.3f < 2 \xC3\x97 chance %.3f", bv, hi->chance[k]);
    int best_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, line, a.w, 3);
    int look_lines = compact ? 0 : draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, info->look_for, a.w, 5);
    int below = cb_h + viz_px(viz, 4) + small_h * (best_lines + look_lines) + viz_px(viz, 6);
    /* the grid: square cells, the layer labels left, the head labels on top */
    int lab_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, L > 10 ? "L00" : "L0") + viz_px(viz, 4);
    int lab_h = small_h;
    int gw = a.w - lab_w, gh = a.h - below - lab_h;
    int cell = NH > 0 && L > 0 ? (gw / NH < gh / L ? gw / NH : gh / L) : 0;
    if (cell > viz_px(viz, 120)) cell = viz_px(viz, 120);
    if (cell < 2) return rc; /* no room: the title alone */
    Rect grid = {a.x + lab_w, a.y + lab_h, cell * NH, cell * L};
    for (int h = 0; h < NH; h++) {
        if (cell < viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, "H00") && h % 4) continue;
        char b[16];
        snprintf(b, sizeof b, "H%d", h);
        TextStyle hs = ls;
        hs.halign = VIZ_ALIGN_CENTER;
        rc |= draw_text(viz, grid.x + h * cell + cell / 2, a.y + lab_h / 2, b, &hs, NULL);
    }
    /* three decimals where they fit (a sink score of 0.016 is not ".02"), else two */
    int w3 = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, ".000") + viz_px(viz, 4);
    int w2 = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, ".00") + viz_px(viz, 4);
    int show_num = cell >= w2 && cell >= small_h;
    const char *fmt = cell >= w3 ? "%.3f" : "%.2f";
    for (int l = 0; l < L; l++) {
        if (cell >= small_h || l % 4 == 0) {
            char b[16];
            snprintf(b, sizeof b, "L%d", l);
            rc |= draw_text(viz, grid.x - viz_px(viz, 4), grid.y + l * cell + cell / 2, b, &ls, NULL);
        }
        for (int h = 0; h < NH; h++) {
            double v = *head_score_at(s, k, l, h);
            Rect c = {grid.x + h * cell, grid.y + l * cell, cell, cell};
            SDL_Color col = colormap_sample(th->sequential, (float)(top > 0 ? v / top : 0));
            if (show_num) {
                char b[16];
                snprintf(b, sizeof b, fmt, v);
                rc |= draw_text_on_cell(viz, c, col, b + (b[0] == '0' ? 1 : 0), VIZ_FONT_MONO, VIZ_TEXT_SMALL);
            } else {
                rc |= draw_fill_rect(viz, c, col);
            }
            viz_hits_add(hits, c, VIZ_HIT_HEAD_THUMB, l, h);
        }
    }
    rc |= draw_rect_outline(viz, grid, th->panel_border, 1);
    /* the best head: a thick outline in the text colour; the head shown: the accent */
    int t2 = viz_px(viz, 3) > 2 ? viz_px(viz, 3) : 2;
    Rect best = {grid.x + hi->best_head[k] * cell, grid.y + hi->best_layer[k] * cell, cell, cell};
    if (hi->clear[k]) rc |= draw_rect_outline(viz, best, th->text, t2);
    if (f->view.layer < L && f->view.head < NH) {
        Rect sel = {grid.x + f->view.head * cell, grid.y + f->view.layer * cell, cell, cell};
        rc |= draw_rect_outline(viz, rect_inset4(sel, t2, t2, t2, t2), th->accent, t2 > 2 ? t2 - 1 : 2);
    }
    int y = grid.y + grid.h + viz_px(viz, 4);
    Rect cbr = {a.x, y, grid.x + grid.w - a.x > a.w / 2 ? grid.x + grid.w - a.x : a.w / 2, cb_h};
    rc |= draw_colorbar(viz, cbr, &cb, NULL);
    y += cb_h + viz_px(viz, 4);
    TextStyle bs = ms;
    bs.color = th->text;
    rc |= draw_wrapped_text(viz, (Rect){a.x, y, a.w, small_h * best_lines}, line, &bs, small_h, best_lines);
    y += small_h * best_lines;
    if (look_lines)
        rc |= draw_wrapped_text(viz, (Rect){a.x, y, a.w, small_h * look_lines}, info->look_for, &ms, small_h,
                                look_lines);
    return rc;
}

int draw_heads_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    const HeadsInfo *hi = f ? f->heads : NULL;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    const int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    Rect area = in;
    rc |= draw_text_in_rect(viz, rect_cut_top(&area, title_h), "What each head does", &tts);
    if (!hi || !hi->scores) {
        const char *why = f && f->attn_missing && f->attn_missing[0]
                              ? f->attn_missing
                              : "the scores are measured when this panel is shown alone (I, or F over it)";
        rc |= draw_wrapped_text(viz, area, why, &ms, small_h, 6);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    const HeadScores *hs = hi->scores;
    char sub[320];
    snprintf(sub, sizeof sub,
             "Each score is a mean attention weight in [0, 1] on a fixed probe: a %d-token story (previous-token, "
             "sink, local) and %d one-token words shown twice, PCG32 seed %llu (induction, duplicate). "
             "The same numbers as `inferscope heads`.%s",
             hi->n_text, hi->R, hi->seed, f->view.print ? "" : " Click a cell to show that head.");
    int sub_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, sub, area.w, 3);
    /* five blocks in one row or 3 + 2, whichever gives the larger cells (each block keeps
     * ~10 em for its text). Full: the text under a grid takes about 9 small lines; when
     * that leaves cells too small for their numbers (a large UI scale on a small screen)
     * the panel goes compact: no line under the title, one short line under each grid,
     * the what-to-look-for texts left to `inferscope heads` and a smaller UI scale. */
    int em = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, "M");
    int gap = viz_px(viz, 16);
    int w2 = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, ".00") + viz_px(viz, 4);
    int cb_h = draw_colorbar_size(viz, &(ColorbarSpec){.map = th->sequential, .vmax = 1, .target_ticks = 2},
                                  viz_px(viz, 8));
    int cols = 5, compact = 0;
    for (compact = 0; compact <= 1; compact++) {
        int avail_h = area.h - (compact ? 0 : small_h * sub_lines + viz_px(viz, 8));
        int text_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + cb_h + small_h * (compact ? 2 : 9);
        int best_cell = -1;
        for (int c = 5; c >= 3; c -= 2) {
            int w = (area.w - (c - 1) * gap) / c, h = (avail_h - (c == 5 ? 0 : gap)) / (c == 5 ? 1 : 2) - text_h;
            int cw = w / (hs->n_head + 1), ch = h / hs->n_layer;
            int cell = cw < ch ? cw : ch;
            if (w < (compact ? 6 : 10) * em) cell = 0;
            if (cell > best_cell) best_cell = cell, cols = c;
        }
        if (best_cell >= w2 || compact) break;
    }
    if (!compact) {
        rc |= draw_wrapped_text(viz, rect_cut_top(&area, small_h * sub_lines), sub, &ms, small_h, sub_lines);
        rect_cut_top(&area, viz_px(viz, 8));
    }
    int rows = cols == 5 ? 1 : 2;
    int bw = (area.w - (cols - 1) * gap) / cols, bh = (area.h - (rows - 1) * gap) / rows;
    for (int k = 0; k < HEAD_PATTERN_COUNT; k++) {
        int col = k % cols, row = k / cols;
        Rect b = {area.x + col * (bw + gap), area.y + row * (bh + gap), bw, bh};
        rc |= draw_pattern(viz, b, f, hi, (HeadPattern)k, compact, hits);
    }
    if (compact) { /* say where the numbers are when the cells are too small for them */
        TextStyle ns = ms;
        ns.valign = VIZ_ALIGN_BOTTOM;
        rc |= draw_text(viz, in.x, in.y + in.h, "too small here for every number: a smaller UI scale, or "
                        "`inferscope heads`", &ns, NULL);
    }
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
