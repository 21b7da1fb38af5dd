/* panel_overlays.c — the key help (`?`) drawn over the frame: a card with keys and
 * actions in columns taken from f->keys. The lesson bands are in panel_lesson.c.
 * No state, no input handling: the app decides when it shows. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"

/* Layout of the help card for one text size: rows per column, column pairs, widths. */
typedef struct HelpLayout {
    VizTextSize size;
    int pad, col_gap, pair_gap, row_h, title_h;
    int key_w, act_w, pair_w, rows, pairs;
    int card_w, card_h;
    int fits;      /* every action is shown in full */
    int act_full;  /* width of the widest action */
    int shown;     /* rows drawn (the first ones of f->keys) */
    int more;      /* rows left out for lack of room: the last slot says so, 0 if none */
} HelpLayout;

static HelpLayout help_layout(Viz *viz, const VizFrame *f, Rect avail, VizTextSize size) {
    HelpLayout L = {.size = size};
    /* margins grow slower than the text: a large UI scale spends its room on words */
    L.pad = viz_gx(viz, 18), L.col_gap = viz_gx(viz, 18), L.pair_gap = viz_gx(viz, 36);
    L.row_h = viz_line_height(viz, VIZ_FONT_SANS, size) + viz_gx(viz, size == VIZ_TEXT_SMALL ? 6 : 8);
    L.title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + viz_gx(viz, 12);
    for (int i = 0; i < f->n_keys; i++) {
        int kw = viz_text_width(viz, VIZ_FONT_BOLD, size, f->keys[i].keys);
        int aw = viz_text_width(viz, VIZ_FONT_SANS, size, f->keys[i].action);
        if (kw > L.key_w) L.key_w = kw;
        if (aw > L.act_w) L.act_w = aw;
    }
    /* as many key/action column pairs as the height requires */
    int rows_fit = (avail.h - 2 * L.pad - L.title_h) / L.row_h;
    if (rows_fit < 1) rows_fit = 1;
    int n_rows = f->n_keys > 0 ? f->n_keys : 1;
    L.pairs = (n_rows + rows_fit - 1) / rows_fit;
    L.rows = (n_rows + L.pairs - 1) / L.pairs;
    L.pair_w = L.key_w + L.col_gap + L.act_w;
    L.card_w = 2 * L.pad + L.pairs * L.pair_w + (L.pairs - 1) * L.pair_gap;
    int min_w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, "Keys") + 2 * L.pad;
    if (L.card_w < min_w) L.card_w = min_w;
    L.fits = L.card_w <= avail.w;
    L.act_full = L.act_w;
    L.shown = f->n_keys;
    if (!L.fits) {
        /* too wide (a window below its minimum size, which a window manager may allow): as
         * many column pairs as fit with whole actions, the rows that do not fit left out
         * and counted; only when not even one pair fits are the actions cut with "…" */
        int pairs_fit = (avail.w - 2 * L.pad + L.pair_gap) / (L.pair_w + L.pair_gap);
        L.pairs = pairs_fit < 1 ? 1 : pairs_fit < L.pairs ? pairs_fit : L.pairs;
        L.rows = rows_fit < n_rows ? rows_fit : n_rows;
        if (pairs_fit < 1) {
            L.card_w = avail.w;
            L.act_w = L.card_w - 2 * L.pad - L.key_w - L.col_gap;
            if (L.act_w < 0) L.act_w = 0;
            L.pair_w = L.key_w + L.col_gap + L.act_w;
        } else {
            L.card_w = 2 * L.pad + L.pairs * L.pair_w + (L.pairs - 1) * L.pair_gap;
        }
        int slots = L.pairs * L.rows;
        if (slots < f->n_keys) {
            L.shown = slots - 1;
            L.more = f->n_keys - L.shown;
        }
    }
    L.card_h = 2 * L.pad + L.title_h + L.rows * L.row_h;
    return L;
}

/* body text when every action fits; on a small window (or a big UI scale) the small
 * size, which keeps the actions whole, before cutting them with "…" */
static HelpLayout help_choose(Viz *viz, const VizFrame *f, Rect avail) {
    HelpLayout L = help_layout(viz, f, avail, VIZ_TEXT_BODY);
    return L.fits ? L : help_layout(viz, f, avail, VIZ_TEXT_SMALL);
}

int help_overlay_text_size(Viz *viz, Rect r, const VizFrame *f, int *shown_pct, int *left_out) {
    HelpLayout L = help_choose(viz, f, rect_inset(r, viz_px(viz, 24)));
    if (left_out) *left_out = L.more;
    if (shown_pct) *shown_pct = L.act_w >= L.act_full || L.act_full <= 0 ? 100 : 100 * L.act_w / L.act_full;
    return (int)L.size;
}

int draw_help_overlay(Viz *viz, Rect r, const VizFrame *f) {
    if (r.w <= 0 || r.h <= 0 || !f) return 0;
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, &r); /* a card larger than r is cut, never spills */
    SDL_Color dim = th->background;
    dim.a = 190; /* the frame stays faintly visible behind the card */
    rc |= draw_fill_rect(viz, r, dim);

    Rect avail = rect_inset(r, viz_px(viz, 24));
    HelpLayout L = help_choose(viz, f, avail);
    Rect card = rect_center(avail, L.card_w, L.card_h);
    rc |= draw_fill_rect(viz, card, th->panel);
    rc |= draw_rect_outline(viz, card, th->panel_border, viz_px(viz, 1));
    Rect in = rect_inset(card, L.pad);
    Rect tr = rect_cut_top(&in, L.title_h);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    rc |= draw_text_in_rect(viz, tr, "Keys", &ts);
    if (f->n_keys <= 0) {
        TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        rc |= draw_text_in_rect(viz, in, "(no keys)", &es);
        draw_set_clip(viz, NULL);
        return rc || viz->has_error ? -1 : 0;
    }
    TextStyle ks = {.font = VIZ_FONT_BOLD, .size = L.size, .color = th->accent, .valign = VIZ_ALIGN_MIDDLE};
    TextStyle as = {.font = VIZ_FONT_SANS, .size = L.size, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    for (int i = 0; i < L.shown + (L.more > 0); i++) {
        int pc = i / L.rows, row = i % L.rows;
        int x = in.x + pc * (L.pair_w + L.pair_gap), y = in.y + row * L.row_h;
        if (row % 2 == 1) /* zebra rows guide the eye from key to action */
            rc |= draw_fill_rect(viz, (Rect){x - viz_px(viz, 6), y, L.pair_w + viz_px(viz, 12), L.row_h}, th->background);
        if (i == L.shown) { /* the last slot: what was left out, and how to see it */
            char more[96];
            snprintf(more, sizeof more, "\xE2\x80\xA6 %d more: enlarge the window", L.more);
            TextStyle ms = as;
            ms.color = th->text_muted;
            rc |= draw_text_in_rect(viz, (Rect){x, y, L.pair_w, L.row_h}, more, &ms);
            break;
        }
        rc |= draw_text_in_rect(viz, (Rect){x, y, L.key_w, L.row_h}, f->keys[i].keys ? f->keys[i].keys : "", &ks);
        rc |= draw_text_in_rect(viz, (Rect){x + L.key_w + L.col_gap, y, L.act_w, L.row_h},
                                f->keys[i].action ? f->keys[i].action : "", &as);
    }
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
