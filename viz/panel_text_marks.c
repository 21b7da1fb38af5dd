/* panel_text_marks.c — the Text panel's marks, legend, summary and hover card (see
 * panel_text_marks.h). Surprisal uses viridis on a fixed 0..10-bit scale; the "seen"
 * mark is a boxed outline plus a bluish-green tint (Okabe–Ito), so it reads without
 * colour too. */
#include "panel_text_marks.h"

#include <stdio.h>
#include <string.h>

#include "colormap.h"
#include "prob_format.h"
#include "token_label.h"

#define MIDDOT "\xC2\xB7"

static const SDL_Color OKABE_BLUISH_GREEN = {0x00, 0x9E, 0x73, 255};

SDL_Color text_seen_tint(const Theme *th) { return color_mix(th->panel, OKABE_BLUISH_GREEN, 0.32f); }
SDL_Color text_seen_edge(const Theme *th) { return color_mix(OKABE_BLUISH_GREEN, th->text, 0.35f); }

void text_marks_style(const VizFrame *f, int i, int j, int *fill, SDL_Color *bg, int *seen, const Theme *th) {
    *fill = 0;
    *seen = 0;
    if (f->view.text_mode == VIZ_TEXT_SURPRISAL && f->tok_stats) {
        /* a character split over tokens takes the most surprising of them */
        double bits = -1;
        for (int k = i; k < j; k++)
            if (f->tok_stats[k].rank > 0 && f->tok_stats[k].surprisal_bits > bits) bits = f->tok_stats[k].surprisal_bits;
        if (bits < 0) return; /* the first token: nothing predicted it */
        *fill = 1;
        *bg = colormap_sample(COLORMAP_VIRIDIS, (float)(bits / TEXT_SURPRISAL_MAX_BITS));
    } else if (f->view.text_mode == VIZ_TEXT_SEEN && f->seen) {
        for (int k = i; k < j; k++) *seen |= f->seen[k];
        if (*seen) {
            *fill = 1;
            *bg = text_seen_tint(th);
        }
    }
}

static int body_h(Viz *viz) { return viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY); }

static ColorbarSpec surprisal_bar(void) {
    return (ColorbarSpec){.map = COLORMAP_VIRIDIS, .vmin = 0, .vmax = TEXT_SURPRISAL_MAX_BITS,
                          .label = "surprisal \xE2\x88\x92log\xE2\x82\x82 p of each token (bits; 10 or more: yellow)",
                          .target_ticks = 5};
}

int text_marks_legend_h(Viz *viz, const VizFrame *f) {
    if (!f) return 0;
    if (f->view.text_mode == VIZ_TEXT_SURPRISAL) {
        ColorbarSpec cb = surprisal_bar();
        return viz_px(viz, 6) + draw_colorbar_size(viz, &cb, viz_px(viz, 12));
    }
    if (f->view.text_mode == VIZ_TEXT_SEEN) return viz_px(viz, 6) + body_h(viz) + viz_px(viz, 8);
    return 0;
}

int draw_text_marks_legend(Viz *viz, Rect r, const VizFrame *f) {
    const Theme *th = viz->theme;
    int rc = 0;
    rect_cut_top(&r, viz_px(viz, 6));
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    if (f->view.text_mode == VIZ_TEXT_SURPRISAL) {
        ColorbarSpec cb = surprisal_bar();
        int w = r.w < viz_px(viz, 560) ? r.w : viz_px(viz, 560);
        int lw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, cb.label) + viz_px(viz, 16);
        if (lw > w) w = lw < r.w ? lw : r.w;
        rc |= draw_colorbar(viz, (Rect){r.x, r.y, w, r.h}, &cb, NULL);
        const char *note = f->tok_stats ? (f->view.print ? "" : "point at a token for p, entropy and rank")
                                        : "no per-token numbers (the logits are not usable)";
        Rect rest = {r.x + w + viz_px(viz, 20), r.y, r.w - w - viz_px(viz, 20), r.h};
        if (*note && viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, note) <= rest.w)
            rc |= draw_text_in_rect(viz, rest, note, &ms);
        return rc;
    }
    if (f->view.text_mode != VIZ_TEXT_SEEN) return 0;
    if (!f->seen) return draw_text_in_rect(viz, r, f->seen_missing ? f->seen_missing : "no training-text index", &ms);
    char lab[96];
    snprintf(lab, sizeof lab, "seen in training (%d-token run)", f->seen_n);
    int lh = body_h(viz), sw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "seen") + viz_px(viz, 8);
    Rect box = {r.x, r.y + (r.h - lh) / 2, sw, lh};
    rc |= draw_fill_rect(viz, box, text_seen_tint(th));
    rc |= draw_rect_outline(viz, box, text_seen_edge(th), viz_px(viz, 2));
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text(viz, box.x + viz_px(viz, 4), box.y + lh / 2, "seen", &ts, NULL);
    char line[200];
    snprintf(line, sizeof line, "%s: the token ends %d tokens found verbatim in the training text", lab, f->seen_n);
    Rect rest = {box.x + sw + viz_px(viz, 10), r.y, r.w - sw - viz_px(viz, 10), r.h};
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, line) > rest.w) snprintf(line, sizeof line, "%s", lab);
    return rc | draw_text_in_rect(viz, rest, line, &ms);
}

void text_marks_summary(const VizFrame *f, char *buf, size_t cap) {
    buf[0] = 0;
    if (f->view.text_mode != VIZ_TEXT_SEEN || !f->seen || f->seen_total <= 0) return;
    char pct[24];
    prob_format_pct((double)f->seen_count / (double)f->seen_total, pct, sizeof pct);
    snprintf(buf, cap, "seen %s of %d %s " MIDDOT " longest run %d", pct, f->seen_total,
             f->n_pos > f->n_prompt ? "generated" : "tokens", f->seen_longest);
}

int draw_text_marks_card(Viz *viz, Rect panel, Rect box, const VizFrame *f, int pos) {
    if (!f->tok_stats || pos < 0 || pos >= f->n_pos) return 0;
    const TokenStat *st = &f->tok_stats[pos];
    char lab[TOKEN_LABEL_CAP], line[3][TOKEN_LABEL_CAP + 120];
    token_label_ex(f->tok, f->ids[pos], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    snprintf(line[0], sizeof line[0], "'%s' " MIDDOT " id %d " MIDDOT " position %d", lab, f->ids[pos], pos);
    int nl = 2;
    if (st->rank <= 0) {
        snprintf(line[1], sizeof line[1], "the first token: nothing before it predicted it");
    } else {
        char p[24];
        prob_format_pct(st->p, p, sizeof p);
        snprintf(line[1], sizeof line[1], "p %s " MIDDOT " surprisal %.3g bits " MIDDOT " entropy %.3g bits " MIDDOT " rank %d",
                 p, st->surprisal_bits, st->entropy_bits, st->rank);
    }
    if (f->view.text_mode == VIZ_TEXT_SEEN && f->seen) {
        snprintf(line[2], sizeof line[2], f->seen[pos] ? "seen: ends %d tokens found in the training text"
                                                       : "not seen: these %d tokens are not in the training text",
                 f->seen_n);
        if (!f->seen[pos] && pos + 1 < f->seen_n)
            snprintf(line[2], sizeof line[2], "fewer than %d tokens before it: not checked", f->seen_n);
        nl = 3;
    }
    const Theme *th = viz->theme;
    int pad = viz_px(viz, 6), lh = body_h(viz), w = 0;
    for (int i = 0; i < nl; i++) {
        int lw = viz_text_width(viz, i ? VIZ_FONT_SANS : VIZ_FONT_BOLD, VIZ_TEXT_BODY, line[i]);
        if (lw > w) w = lw;
    }
    w += 2 * pad;
    int h = nl * lh + pad;
    if (w > panel.w - 2 * pad) w = panel.w - 2 * pad;
    int x = box.x, y = box.y + box.h + viz_px(viz, 4);
    if (x + w > panel.x + panel.w - pad) x = panel.x + panel.w - pad - w;
    if (y + h > panel.y + panel.h - pad) y = box.y - h - viz_px(viz, 4);
    if (y < panel.y + pad) y = panel.y + pad;
    Rect card = {x, y, w, h};
    int rc = draw_fill_rect(viz, card, th->panel);
    rc |= draw_rect_outline(viz, card, th->text, 1);
    Rect in = rect_inset4(card, pad, pad / 2, pad, pad / 2);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    for (int i = 0; i < nl; i++) {
        rc |= draw_text_in_rect(viz, rect_cut_top(&in, lh), line[i], &ts);
        ts.font = VIZ_FONT_SANS;
    }
    return rc;
}
