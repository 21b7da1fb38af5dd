/* panel_probs_strip.c — the draw under the bars (probs_draw_strip): the kept
 * distribution laid end to end on 0..1 with u marked, so a student sees which interval
 * the dice land in. Only reads the record (cum_lo / cum_hi and u come from the sampler). */
#include <math.h>
#include <stdio.h>

#include "draw.h"
#include "panel_probs_layout.h"
#include "token_label.h"

#define MIDDOT "\xC2\xB7" /* · */

/* The draw: the kept candidates' intervals [cum_lo, cum_hi) of the renormalised
 * distribution laid end to end on 0..1, u marked; the token whose interval holds u is
 * the one sampled (sampler.h). Kept tokens beyond the shown rows fill the rest of the
 * kept part in grey ("others"). */
void probs_draw_strip(Viz *viz, Rect area, const VizFrame *f, int shown) {
    const Theme *th = viz->theme;
    const SamplerRecord *rec = f->rec;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    Rect head = rect_cut_top(&area, small_h + viz_px(viz, 4));
    /* the longest wording that fits, never a cut one */
    static const char *const greedy_txt[] = {"The draw " MIDDOT " greedy: argmax " MIDDOT " no dice, the top token is taken",
                                             "The draw " MIDDOT " greedy: the top token is taken", "greedy: the top token"};
    static const char *const dice_txt[] = {"The draw " MIDDOT " the token whose interval holds u is chosen",
                                           "The draw " MIDDOT " u picks the token under it", "The draw (u)"};
    const char *const *txt = rec->greedy ? greedy_txt : dice_txt;
    const char *head_text = viz_text_first_fitting(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, txt, 3, head.w);
    draw_text_in_rect(viz, head, head_text, &ts);
    Rect strip = rect_cut_top(&area, viz_px(viz, 24));
    int x0 = strip.x, w = strip.w;
    /* background = kept tokens not shown as rows (their intervals are too thin to label) */
    draw_fill_rect(viz, strip, color_mix(th->panel, th->cut, 0.15f));
    SDL_Color tone[2] = {color_mix(th->panel, th->accent, 0.35f), color_mix(th->panel, th->accent, 0.6f)};
    Rect chosen_r = {0, 0, 0, 0};
    double shown_hi = 0.0;
    for (int pass = 0; pass < 2; pass++) { /* fills first, then labels on top */
        for (int i = 0; i < shown; i++) {
            const SamplerRow *row = &rec->rows[i];
            if (!row->kept || !(row->cum_hi > row->cum_lo)) continue;
            int a = x0 + (int)lround(row->cum_lo * w), b = x0 + (int)lround(row->cum_hi * w);
            if (b <= a) b = a + 1;
            Rect seg = {a, strip.y, b - a, strip.h};
            int is_chosen = row->id == rec->chosen.id;
            SDL_Color bg = is_chosen ? th->accent : tone[i & 1];
            if (pass == 0) {
                draw_fill_rect(viz, seg, bg);
                if (seg.w > 3) draw_fill_rect(viz, (Rect){b - 1, strip.y, 1, strip.h}, th->panel);
                if (is_chosen) chosen_r = seg;
                if (row->cum_hi > shown_hi) shown_hi = row->cum_hi;
                continue;
            }
            if (seg.w < viz_px(viz, 16)) continue;
            char lab[TOKEN_LABEL_CAP];
            token_label_ex(f->tok, row->id, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
            TextStyle ls = {.font = is_chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL,
                            .color = color_text_on(bg), .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
            draw_text_in_rect(viz, rect_inset4(seg, 2, 0, 3, 0), lab, &ls);
        }
    }
    /* name the grey rest when there is room: kept-but-not-shown tokens */
    if (!rec->greedy && shown_hi < 0.999) {
        int a = x0 + (int)lround(shown_hi * w);
        TextStyle os = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text,
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        if (x0 + w - a > viz_px(viz, 60))
            draw_text_in_rect(viz, (Rect){a, strip.y, x0 + w - a, strip.h}, "other kept tokens", &os);
    }
    draw_rect_outline(viz, strip, th->panel_border, 1);
    int t = viz_px(viz, 2);
    if (chosen_r.w > 0) draw_rect_outline(viz, rect_inset(chosen_r, -t), th->highlight, t);
    /* 0 and 1 at the ends, u under its marker */
    int below_y = strip.y + strip.h + viz_px(viz, 3);
    TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    draw_text(viz, strip.x, below_y, "0", &es, NULL);
    es.halign = VIZ_ALIGN_RIGHT;
    draw_text(viz, strip.x + strip.w, below_y, "1", &es, NULL);
    if (rec->greedy) return;
    int ux = x0 + (int)lround(rec->u * w);
    if (ux >= strip.x + strip.w) ux = strip.x + strip.w - 1;
    draw_fill_rect(viz, (Rect){ux - t / 2, strip.y - viz_px(viz, 5), t, strip.h + viz_px(viz, 5)}, th->text);
    int tri = viz_px(viz, 6); /* a triangle under the strip pointing up at u */
    for (int k = 0; k < tri; k++)
        draw_fill_rect(viz, (Rect){ux - k, below_y + k, 2 * k + 1, 1}, th->text);
    char ub[32];
    snprintf(ub, sizeof ub, "u = %.4f", rec->u);
    TextStyle us = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_TOP};
    int uw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, ub), pad = viz_px(viz, 12);
    int cx = ux;
    if (cx - uw / 2 < strip.x + pad) cx = strip.x + pad + uw / 2;
    if (cx + uw / 2 > strip.x + strip.w - pad) cx = strip.x + strip.w - pad - uw / 2;
    draw_text(viz, cx, below_y + tri, ub, &us, NULL);
}

