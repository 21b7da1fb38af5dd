/* panel_attribution.c — draw_attribution_panel: direct logit attribution of the pending
 * pick at the newest position (engine/logit_attribution.c, VizFrame.attr) as signed bars:
 * the 10 parts that add the most and the 10 that take away the most (embed, LxHy,
 * Lx.mlp, bias), on Tol's diverging BuRd scaled to the largest |value| shown (red adds,
 * blue takes away, with its scale), every number printed at its bar, then the rest of
 * the parts as one row and the sum, which is the logit. With a contrast token
 * (view.attr_vs1: "why ' time' and not ' day'") the bars split logit(pick) - logit(it).
 * A bar longer than the scale (the sum, usually) ends in a break mark, hatched, and a
 * legend line says so: its length is not its value, its number is. Clicking a head's bar
 * selects that head in the attention panel (VIZ_HIT_ATTR_BAR). No math beyond choosing
 * rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "token_label.h"

#define ATTR_SIDE 10 /* bars per sign */

/* The break mark of a bar cut at the scale's end, as on a broken axis: a gap of the
 * panel's colour across the bar near its end, edged by two strokes that stand out past
 * the bar (so they never read as more hatching). */
static int draw_bar_break(Viz *viz, Rect bar, int right, SDL_Color gap, SDL_Color ink) {
    int gw = viz_px(viz, 7), lean = bar.h / 4 + 1, out = viz_px(viz, 4);
    int x = right ? bar.x + bar.w - viz_px(viz, 26) : bar.x + viz_px(viz, 26) - gw;
    int rc = draw_fill_rect(viz, (Rect){x - lean, bar.y, gw + 2 * lean, bar.h}, gap);
    for (int k = 0; k < 2; k++, x += gw)
        rc |= draw_line(viz, x - lean, bar.y + bar.h + out, x + lean, bar.y - out, ink, viz_px(viz, 2));
    return rc;
}

/* label -> âlabelâ in place (cap: the buffer's size, room for 6 more bytes). */
static void quote_label(char *label, size_t cap) {
    size_t n = strlen(label);
    if (cap < 8) return;
    if (n + 7 > cap) n = cap - 7; /* never: a label is under TOKEN_LABEL_CAP bytes */
    memmove(label + 3, label, n);
    memcpy(label, "\xE2\x80\x9C", 3);
    memcpy(label + 3 + n, "\xE2\x80\x9D", 4); /* with its NUL */
}

/* What the parts of the panel share: the frame, the attribution, the two tokens' labels in
 * quotes, the rows chosen and the geometry of the bars. */
typedef struct AttrCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const Attribution *a;
    VizHits *hits;
    Rect in;
    TextStyle ms;                   /* small muted text */
    int title_h, small_h;
    char tl[TOKEN_LABEL_CAP + 8];   /* the pick, in quotes */
    char vl[TOKEN_LABEL_CAP + 8];   /* the contrast token, in quotes ("" without one) */
    int rows[2 * ATTR_SIDE], n_rows; /* the parts drawn as bars, top to bottom */
    double shown, maxabs;           /* their sum, the largest |value| of them (the scale) */
    Rect names;                     /* the column of the parts' names */
    int x0, row_h, top;             /* the bars' zero, the rows' height and first y */
    double half;                    /* the length of a bar at the scale's end */
    VizTextSize ts;                 /* the rows' type size */
} AttrCtx;

/* The title (the long one when it fits, else the two tokens alone: the line below says more)
 * and the line below it, cut off the top of *area. */
static int draw_attr_heading(AttrCtx *c, Rect *area) {
    Viz *viz = c->viz;
    const VizFrame *f = c->f;
    const Attribution *a = c->a;
    const char *tl = c->tl, *vl = c->vl;
    char title[TOKEN_LABEL_CAP * 3 + 80], same[TOKEN_LABEL_CAP + 80] = "";
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = c->th->text, .valign = VIZ_ALIGN_TOP};
    int rc = 0;
    if (a->vs >= 0) {
        snprintf(title, sizeof title, "%s vs %s: what each part adds to the difference", tl, vl);
        if (viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title) > area->w)
            snprintf(title, sizeof title, "%s vs %s", tl, vl);
    } else {
        snprintf(title, sizeof title, "what each part adds to the logit of %s", tl);
    }
    rc |= draw_text_in_rect(viz, rect_cut_top(area, c->title_h), title, &tts);
    if (a->vs < 0 && viz_view_attr_vs(&f->view) >= 0) { /* the contrast became the pick (a reroll, a step) */
        char sl[TOKEN_LABEL_CAP + 8];
        token_label_ex(f->tok, viz_view_attr_vs(&f->view), TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, sl, sizeof sl);
        quote_label(sl, sizeof sl);
        snprintf(same, sizeof same, "the token to compare with, %s, is the pick itself: its logit alone. ", sl);
    }
    char sub[TOKEN_LABEL_CAP * 5 + 400];
    if (a->vs >= 0)
        snprintf(sub, sizeof sub, "why %s and not %s: direct logit attribution of logit(%s) \xE2\x88\x92 logit(%s) at "
                 "the newest position, ln_final's scale frozen (1/s = %.3g)%s", tl, vl, tl, vl, a->inv_scale,
                 f->view.print ? "" : "; V: back to the logit alone");
    else
        snprintf(sub, sizeof sub, "%sdirect logit attribution at the newest position, ln_final's scale frozen "
                 "(1/s = %.3g)%s", same, a->inv_scale,
                 f->view.print ? "" : "; click a head to show it; V or Shift+click a bar of the probabilities: why "
                                      "the pick and not that token");
    int sub_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, sub, area->w, 2);
    rc |= draw_wrapped_text(viz, rect_cut_top(area, c->small_h * sub_lines), sub, &c->ms, c->small_h, 2);
    rect_cut_top(area, viz_px(viz, 6));
    return rc;
}

/* The rows for a plot area `area_h` tall: as many bars per sign as fit (up to 10) at one small
 * line each, the rest and the sum below; the largest positive parts (descending), then the
 * largest negative ones. Sets c->rows, c->n_rows, c->shown and c->maxabs. */
static void pick_attr_rows(AttrCtx *c, int area_h) {
    Viz *viz = c->viz;
    const Attribution *a = c->a;
    ColorbarSpec cb0 = {.map = COLORMAP_BURD, .vmin = -1, .vmax = 1, .label = "x", .target_ticks = 5};
    int avail = area_h - draw_colorbar_size(viz, &cb0, viz_px(viz, 10)) - viz_px(viz, 4) - c->small_h;
    int fit = avail / (viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL) + viz_px(viz, 2));
    int side = (fit - 2) / 2;
    /* shown alone (a slide, a figure): fewer rows in body type rather than all in small,
     * while at least 4 per sign still fit */
    int side_body = (avail / (viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY) + viz_px(viz, 2)) - 2) / 2;
    if (c->f->view.fill && side_body >= 4 && side_body < side) side = side_body;
    if (side > ATTR_SIDE) side = ATTR_SIDE;
    if (side < 1) side = 1;
    int pos_i[ATTR_SIDE], neg_i[ATTR_SIDE], np = 0, nn = 0;
    for (int k = 0; k < a->n; k++) {
        int i = a->order[k];
        double v = a->comp[i].value;
        if (v > 0 && np < side) pos_i[np++] = i;
        else if (v < 0 && nn < side) neg_i[nn++] = i;
    }
    c->n_rows = 0;
    for (int k = 0; k < np; k++) c->rows[c->n_rows++] = pos_i[k];
    for (int k = nn - 1; k >= 0; k--) c->rows[c->n_rows++] = neg_i[k]; /* the most negative last */
    c->shown = 0, c->maxabs = 0;
    for (int k = 0; k < c->n_rows; k++) {
        c->shown += a->comp[c->rows[k]].value;
        if (fabs(a->comp[c->rows[k]].value) > c->maxabs) c->maxabs = fabs(a->comp[c->rows[k]].value);
    }
    if (c->maxabs <= 0) c->maxabs = 1;
}

/* Row k of the bars: a part (k < n_rows), the rest (k == n_rows) or the sum; its name, its
 * bar from the zero line and its number beyond the bar's end. */
static int draw_attr_row(const AttrCtx *c, int k) {
    Viz *viz = c->viz;
    const Theme *th = c->th;
    const Attribution *a = c->a;
    const Rect in = c->in;
    const int n_rows = c->n_rows, row_h = c->row_h, x0 = c->x0;
    int y = c->top + k * row_h, cy = y + row_h / 2, rc = 0;
    char name[48], num[48];
    double v;
    int is_part = k < n_rows;
    const AttrComponent *p = is_part ? &a->comp[c->rows[k]] : NULL;
    if (is_part) {
        v = p->value;
        snprintf(name, sizeof name, "%s", p->name);
    } else if (k == n_rows) {
        v = a->sum - c->shown;
        snprintf(name, sizeof name, "%d more", a->n - n_rows);
    } else {
        v = a->sum;
        snprintf(name, sizeof name, "sum");
    }
    snprintf(num, sizeof num, "%+.3f", v);
    TextStyle ns = {.font = is_part ? VIZ_FONT_MONO : VIZ_FONT_BOLD, .size = c->ts,
                    .color = is_part ? th->text : th->text_muted, .valign = VIZ_ALIGN_MIDDLE, .halign = VIZ_ALIGN_LEFT};
    if (k == n_rows + 1) ns.color = th->text;
    rc |= draw_text(viz, c->names.x, cy, name, &ns, NULL);
    int past = fabs(v) > c->maxabs; /* cut at the scale's end: broken and hatched below */
    int w = (int)lround(fmin(fabs(v) / c->maxabs, 1.0) * c->half);
    Rect bar = {v >= 0 ? x0 : x0 - w, y + viz_px(viz, 2), w, row_h - viz_px(viz, 4)};
    if (is_part) {
        rc |= draw_fill_rect(viz, bar, colormap_sample_signed(COLORMAP_BURD, (float)v, (float)c->maxabs));
        rc |= draw_rect_outline(viz, bar, th->panel_border, 1);
        if (p->kind == ATTR_HEAD || p->kind == ATTR_MLP)
            viz_hits_add(c->hits, (Rect){c->names.x, y, in.x + in.w - c->names.x, row_h}, VIZ_HIT_ATTR_BAR, p->layer,
                         p->kind == ATTR_HEAD ? p->head : -1);
        /* the head the attention panel beside shows (not on a figure: no panel beside) */
        if (!c->f->view.print && p->kind == ATTR_HEAD && p->layer == c->f->view.layer && p->head == c->f->view.head)
            rc |= draw_rect_outline(viz, (Rect){c->names.x, y, in.x + in.w - c->names.x, row_h}, th->highlight,
                                    viz_px(viz, 2));
    } else {
        /* the rest and the sum: outlined, not filled (they are not one part), hatched past the axis */
        if (w > 0) rc |= draw_rect_outline(viz, bar, th->text_muted, viz_px(viz, 1));
        if (past) {
            rc |= draw_hatch(viz, bar, in, bar.x, bar.y, viz_px(viz, 6), th->text_muted);
            rc |= draw_bar_break(viz, bar, v >= 0, th->panel, th->text);
        }
    }
    ns.font = VIZ_FONT_MONO;
    ns.color = th->text;
    ns.halign = v >= 0 ? VIZ_ALIGN_LEFT : VIZ_ALIGN_RIGHT;
    int tx = v >= 0 ? x0 + w + viz_px(viz, 4) : x0 - w - viz_px(viz, 4);
    rc |= draw_text(viz, tx, cy, num, &ns, NULL);
    return rc;
}

/* The bars in `area`, `total_rows` rows (the parts, the rest, the sum): names left, zero in
 * the middle, room for the number beyond either end. */
static int draw_attr_bars(AttrCtx *c, Rect area, int total_rows) {
    Viz *viz = c->viz;
    int name_w = viz_text_width(viz, VIZ_FONT_MONO, c->ts, "L11H11 ") + viz_px(viz, 4);
    int num_w = viz_text_width(viz, VIZ_FONT_MONO, c->ts, "-00.000 ") + viz_px(viz, 4);
    c->names = rect_cut_left(&area, name_w);
    Rect plot = rect_inset4(area, num_w, 0, num_w, 0);
    c->x0 = plot.x + plot.w / 2;
    c->half = plot.w / 2.0;
    c->top = area.y;
    int rc = draw_line(viz, c->x0, area.y, c->x0, area.y + c->row_h * total_rows, c->th->grid, viz_px(viz, 1));
    for (int k = 0; k < total_rows; k++) rc |= draw_attr_row(c, k);
    return rc;
}

int draw_attribution_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    AttrCtx c = {.viz = viz, .th = th, .f = f, .a = f ? f->attr : NULL, .hits = hits,
                 .ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP},
                 .title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE),
                 .small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL)};
    int rc = draw_panel_begin(viz, r, &c.in);
    const Attribution *a = c.a;
    Rect in = c.in, area = in;
    if (!a || !f->tok) {
        TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
        rc |= draw_text_in_rect(viz, rect_cut_top(&area, c.title_h), "what each part adds to the logit", &tts);
        const char *why = f && f->inside_missing && f->inside_missing[0]
                              ? f->inside_missing
                              : "the attribution is computed when this panel is shown alone (I, or F over it)";
        rc |= draw_wrapped_text(viz, area, why, &c.ms, c.small_h, 6);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    token_label_ex(f->tok, a->target, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, c.tl, sizeof c.tl);
    if (a->vs >= 0) token_label_ex(f->tok, a->vs, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, c.vl, sizeof c.vl);
    /* in quotes: a token like "," or "." must not read as the sentence's punctuation */
    quote_label(c.tl, sizeof c.tl);
    if (a->vs >= 0) quote_label(c.vl, sizeof c.vl);
    rc |= draw_attr_heading(&c, &area);
    pick_attr_rows(&c, area.h);

    char cb_label[TOKEN_LABEL_CAP * 3 + 64], tot[TOKEN_LABEL_CAP * 3 + 64];
    if (a->vs >= 0) {
        snprintf(cb_label, sizeof cb_label, "logits added: red favours %s, blue %s", c.tl, c.vl);
        snprintf(tot, sizeof tot, "logit(%s) \xE2\x88\x92 logit(%s) = %.3f", c.tl, c.vl, a->total);
    } else {
        snprintf(cb_label, sizeof cb_label, "logits added: red adds to the pick, blue takes away");
        snprintf(tot, sizeof tot, "logit = %.3f", a->total);
    }
    ColorbarSpec cb = {.map = COLORMAP_BURD, .vmin = -c.maxabs, .vmax = c.maxabs, .label = cb_label, .target_ticks = 5};
    Rect legend = rect_cut_bottom(&area, draw_colorbar_size(viz, &cb, viz_px(viz, 10)));
    if (legend.w > viz_px(viz, 420)) legend.w = viz_px(viz, 420);
    /* the total keeps its room at the right of the scale */
    int tot_w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, tot) + viz_px(viz, 12);
    if (legend.w > in.w - tot_w) legend.w = in.w - tot_w;
    rect_cut_bottom(&area, viz_px(viz, 4));
    /* the rest and the sum may be longer than the scale: a line under the bars says what
     * their broken, hatched bars mean (only when one is) */
    int over = fabs(a->sum) > c.maxabs || fabs(a->sum - c.shown) > c.maxabs;
    Rect over_note = over ? rect_cut_bottom(&area, c.small_h) : (Rect){0, 0, 0, 0};
    int total_rows = c.n_rows + 2; /* + the rest, + the sum */
    c.row_h = area.h / (total_rows > 0 ? total_rows : 1);
    int lab_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY);
    c.ts = c.row_h >= lab_h + viz_px(viz, 2) ? VIZ_TEXT_BODY : VIZ_TEXT_SMALL;
    if (c.row_h < viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL)) {
        rc |= draw_text_in_rect(viz, area, "too small for the bars: enlarge the panel (F)", &c.ms);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    rc |= draw_attr_bars(&c, area, total_rows);
    if (over)
        rc |= draw_text_in_rect(viz, over_note,
                                "a hatched bar with a break is longer than the scale: its number is its length", &c.ms);
    TextStyle tot_s = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text, .halign = VIZ_ALIGN_RIGHT,
                       .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text(viz, in.x + in.w, legend.y + legend.h / 2, tot, &tot_s, NULL);
    rc |= draw_colorbar(viz, legend, &cb, NULL);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
