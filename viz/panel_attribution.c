/* panel_attribution.c — draw_attribution_panel: direct logit attribution of the pending
 * pick at the newest position (engine/logit_attribution.c, VizFrame.attr) as signed bars:
 * the 10 parts that add the most and the 10 that take away the most (embed, LxHy,
 * Lx.mlp, bias), on Tol's diverging BuRd scaled to the largest |value| shown (red adds,
 * blue takes away, with its scale), every number printed at its bar, then the rest of
 * the parts as one row and the sum, which is the logit. Clicking a head's bar selects
 * that head in the attention panel (VIZ_HIT_ATTR_BAR). No math beyond choosing rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "token_label.h"

#define ATTR_SIDE 10 /* bars per sign */

int draw_attribution_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    const Attribution *a = f ? f->attr : NULL;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    const int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    Rect area = in;
    char tl[TOKEN_LABEL_CAP], title[TOKEN_LABEL_CAP + 64];
    if (!a || !f->tok) {
        rc |= draw_text_in_rect(viz, rect_cut_top(&area, title_h), "what each part adds to the logit", &tts);
        const char *why = f && f->inside_missing && f->inside_missing[0]
                              ? f->inside_missing
                              : "the attribution is computed when this panel is shown alone (I, or F over it)";
        rc |= draw_wrapped_text(viz, area, why, &ms, small_h, 6);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    token_label_ex(f->tok, a->target, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, tl, sizeof tl);
    snprintf(title, sizeof title, "what each part adds to the logit of %s", tl);
    rc |= draw_text_in_rect(viz, rect_cut_top(&area, title_h), title, &tts);
    char sub[200];
    snprintf(sub, sizeof sub, "direct logit attribution at the newest position, ln_final's scale frozen "
                              "(1/s = %.3g); click a head to show it", a->inv_scale);
    rc |= draw_text_in_rect(viz, rect_cut_top(&area, small_h), sub, &ms);
    rect_cut_top(&area, viz_px(viz, 6));

    ColorbarSpec cb0 = {.map = COLORMAP_BURD, .vmin = -1, .vmax = 1, .label = "x", .target_ticks = 5};
    /* as many bars per sign as fit (up to 10) at one small line each, the rest and the sum below */
    int fit = (area.h - draw_colorbar_size(viz, &cb0, viz_px(viz, 10)) - viz_px(viz, 4)) /
              (viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL) + viz_px(viz, 2));
    int side = (fit - 2) / 2;
    if (side > ATTR_SIDE) side = ATTR_SIDE;
    if (side < 1) side = 1;
    /* the rows: the largest positive parts (descending), then the largest negative ones */
    int pos_i[ATTR_SIDE], neg_i[ATTR_SIDE], np = 0, nn = 0;
    for (int k = 0; k < a->n; k++) {
        int i = a->order[k];
        double v = a->comp[i].value;
        if (v > 0 && np < side) pos_i[np++] = i;
        else if (v < 0 && nn < side) neg_i[nn++] = i;
    }
    int rows[2 * ATTR_SIDE], n_rows = 0;
    for (int k = 0; k < np; k++) rows[n_rows++] = pos_i[k];
    for (int k = nn - 1; k >= 0; k--) rows[n_rows++] = neg_i[k]; /* the most negative last */
    double shown = 0, maxabs = 0;
    for (int k = 0; k < n_rows; k++) {
        shown += a->comp[rows[k]].value;
        if (fabs(a->comp[rows[k]].value) > maxabs) maxabs = fabs(a->comp[rows[k]].value);
    }
    if (maxabs <= 0) maxabs = 1;

    ColorbarSpec cb = {.map = COLORMAP_BURD, .vmin = -maxabs, .vmax = maxabs,
                       .label = "logits added: red adds to the pick, blue takes away", .target_ticks = 5};
    Rect legend = rect_cut_bottom(&area, draw_colorbar_size(viz, &cb, viz_px(viz, 10)));
    if (legend.w > viz_px(viz, 420)) legend.w = viz_px(viz, 420);
    /* "logit = X" keeps its room at the right of the scale */
    int tot_w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, "logit = -000.000") + viz_px(viz, 12);
    if (legend.w > in.w - tot_w) legend.w = in.w - tot_w;
    rect_cut_bottom(&area, viz_px(viz, 4));
    int total_rows = n_rows + 2; /* + the rest, + the sum */
    int row_h = area.h / (total_rows > 0 ? total_rows : 1);
    int lab_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY);
    VizTextSize ts = row_h >= lab_h + viz_px(viz, 2) ? VIZ_TEXT_BODY : VIZ_TEXT_SMALL;
    if (row_h < viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL)) {
        rc |= draw_text_in_rect(viz, area, "too small for the bars: enlarge the panel (F)", &ms);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    int name_w = viz_text_width(viz, VIZ_FONT_MONO, ts, "L11H11 ") + viz_px(viz, 4);
    int num_w = viz_text_width(viz, VIZ_FONT_MONO, ts, "-00.000 ") + viz_px(viz, 4);
    Rect names = rect_cut_left(&area, name_w);
    /* the bars: zero in the middle, room for the number beyond either end */
    Rect plot = rect_inset4(area, num_w, 0, num_w, 0);
    int x0 = plot.x + plot.w / 2;
    double half = plot.w / 2.0;
    TextStyle ns = {.font = VIZ_FONT_MONO, .size = ts, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_line(viz, x0, area.y, x0, area.y + row_h * total_rows, th->grid, viz_px(viz, 1));
    for (int k = 0; k < total_rows; k++) {
        int y = area.y + k * row_h, cy = y + row_h / 2;
        char name[48], num[48];
        double v;
        int is_part = k < n_rows;
        const AttrComponent *c = is_part ? &a->comp[rows[k]] : NULL;
        if (is_part) {
            v = c->value;
            snprintf(name, sizeof name, "%s", c->name);
        } else if (k == n_rows) {
            v = a->sum - shown;
            snprintf(name, sizeof name, "%d more", a->n - n_rows);
        } else {
            v = a->sum;
            snprintf(name, sizeof name, "sum");
        }
        snprintf(num, sizeof num, "%+.3f", v);
        ns.font = is_part ? VIZ_FONT_MONO : VIZ_FONT_BOLD;
        ns.halign = VIZ_ALIGN_LEFT;
        ns.color = is_part ? th->text : th->text_muted;
        if (k == n_rows + 1) ns.color = th->text;
        rc |= draw_text(viz, names.x, cy, name, &ns, NULL);
        int w = (int)lround(fmin(fabs(v) / maxabs, 1.0) * half);
        Rect bar = {v >= 0 ? x0 : x0 - w, y + viz_px(viz, 2), w, row_h - viz_px(viz, 4)};
        if (is_part) {
            rc |= draw_fill_rect(viz, bar, colormap_sample_signed(COLORMAP_BURD, (float)v, (float)maxabs));
            rc |= draw_rect_outline(viz, bar, th->panel_border, 1);
            if (c->kind == ATTR_HEAD || c->kind == ATTR_MLP)
                viz_hits_add(hits, (Rect){names.x, y, in.x + in.w - names.x, row_h}, VIZ_HIT_ATTR_BAR, c->layer,
                             c->kind == ATTR_HEAD ? c->head : -1);
            if (c->kind == ATTR_HEAD && c->layer == f->view.layer && c->head == f->view.head)
                rc |= draw_rect_outline(viz, (Rect){names.x, y, in.x + in.w - names.x, row_h}, th->highlight,
                                        viz_px(viz, 2));
        } else {
            /* the rest and the sum: outlined, not filled (they are not one part), hatched past the axis */
            if (w > 0) rc |= draw_rect_outline(viz, bar, th->text_muted, viz_px(viz, 1));
            if (fabs(v) > maxabs) rc |= draw_hatch(viz, bar, in, bar.x, bar.y, viz_px(viz, 6), th->text_muted);
        }
        ns.font = VIZ_FONT_MONO;
        ns.color = th->text;
        ns.halign = v >= 0 ? VIZ_ALIGN_LEFT : VIZ_ALIGN_RIGHT;
        int tx = v >= 0 ? x0 + w + viz_px(viz, 4) : x0 - w - viz_px(viz, 4);
        rc |= draw_text(viz, tx, cy, num, &ns, NULL);
    }
    char tot[96];
    snprintf(tot, sizeof tot, "logit = %.3f", a->total);
    TextStyle tot_s = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text, .halign = VIZ_ALIGN_RIGHT,
                       .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text(viz, in.x + in.w, legend.y + legend.h / 2, tot, &tot_s, NULL);
    rc |= draw_colorbar(viz, legend, &cb, NULL);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
