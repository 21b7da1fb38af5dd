/* panel_overlays.c — the two things drawn over the frame: the key help (`?`), a card
 * with keys and actions in columns taken from f->keys, and the lesson overlay for a
 * presenter: the lesson title in a band on top, the beat counter "3 / 12" top-right,
 * an open question on an accent card, and the captions as subtitles (large bold text
 * on a dark translucent band, legible over any panel from the back of a room).
 * No state, no input handling: the app decides when they show. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"

/* Subtitle band: near-black at 80% — white text on it has > 10:1 contrast whatever
 * panel lies beneath, in both themes (the convention of film subtitles). */
static const SDL_Color CAPTION_BAND = {0x10, 0x10, 0x10, 205};
static const SDL_Color CAPTION_TEXT = {0xFF, 0xFF, 0xFF, 255};

/* Next line of a greedy word wrap of text into max_w pixels: copies the line into buf
 * and returns how many bytes of text it consumed (spaces at the break and one '\n'
 * included). A word wider than the line is cut between characters with "…". */
static size_t wrap_line(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, char *buf,
                        size_t cap) {
    size_t n = strcspn(text, "\n");
    size_t best = 0; /* bytes of the longest prefix ending at a word end that fits */
    for (size_t i = 1; i <= n && i < cap; i++) {
        if (i < n && text[i] != ' ') continue; /* candidate breaks: before a space, at the end */
        memcpy(buf, text, i);
        buf[i] = '\0';
        if (viz_text_width(viz, font, size, buf) > max_w) break;
        best = i;
    }
    size_t used;
    if (best == 0) { /* first word alone is too wide (or no room): cut it */
        size_t w = strcspn(text, " \n");
        if (w >= cap) w = cap - 1;
        char word[512];
        size_t wl = w < sizeof word ? w : sizeof word - 1;
        memcpy(word, text, wl);
        word[wl] = '\0';
        draw_fit_text(viz, font, size, word, max_w, buf, cap);
        used = w;
    } else {
        buf[best] = '\0';
        used = best;
    }
    while (text[used] == ' ') used++;
    if (text[used] == '\n') used++;
    return used > 0 ? used : (text[0] ? 1 : 0);
}

/* Lines the text needs at this width (at most max_lines). */
static int count_lines(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, int max_lines) {
    int lines = 0;
    char buf[512];
    while (*text && lines < max_lines) {
        text += wrap_line(viz, font, size, text, max_w, buf, sizeof buf);
        lines++;
    }
    return lines;
}

/* Draws the wrapped text, one line per line_h, centred or left-aligned; stops at max_lines. */
static int draw_wrapped(Viz *viz, Rect area, const char *text, const TextStyle *st, int line_h, int max_lines) {
    int rc = 0, line = 0;
    char buf[512];
    while (*text && line < max_lines) {
        text += wrap_line(viz, st->font, st->size, text, area.w, buf, sizeof buf);
        Rect lr = {area.x, area.y + line * line_h, area.w, line_h};
        rc |= draw_text_in_rect(viz, lr, buf, st);
        line++;
    }
    return rc;
}

/* Layout of the help card for one text size: rows per column, column pairs, widths. */
typedef struct HelpLayout {
    VizTextSize size;
    int pad, col_gap, pair_gap, row_h, title_h;
    int key_w, act_w, pair_w, rows, pairs;
    int card_w, card_h;
    int fits;      /* every action is shown in full */
    int act_full;  /* width of the widest action */
} HelpLayout;

static HelpLayout help_layout(Viz *viz, const VizFrame *f, Rect avail, VizTextSize size) {
    HelpLayout L = {.size = size};
    L.pad = viz_px(viz, 18), L.col_gap = viz_px(viz, 18), L.pair_gap = viz_px(viz, 36);
    L.row_h = viz_line_height(viz, VIZ_FONT_SANS, size) + viz_px(viz, size == VIZ_TEXT_SMALL ? 6 : 8);
    L.title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + viz_px(viz, 12);
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
    if (!L.fits) { /* too wide: shrink the action columns (they cut with "…") */
        L.card_w = avail.w;
        L.act_w = (L.card_w - 2 * L.pad - (L.pairs - 1) * L.pair_gap) / L.pairs - L.key_w - L.col_gap;
        if (L.act_w < 0) L.act_w = 0;
        L.pair_w = L.key_w + L.col_gap + L.act_w;
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

int help_overlay_text_size(Viz *viz, Rect r, const VizFrame *f, int *shown_pct) {
    HelpLayout L = help_choose(viz, f, rect_inset(r, viz_px(viz, 24)));
    if (shown_pct) *shown_pct = L.fits || L.act_full <= 0 ? 100 : 100 * L.act_w / L.act_full;
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
    for (int i = 0; i < f->n_keys; i++) {
        int pc = i / L.rows, row = i % L.rows;
        int x = in.x + pc * (L.pair_w + L.pair_gap), y = in.y + row * L.row_h;
        if (row % 2 == 1) /* zebra rows guide the eye from key to action */
            rc |= draw_fill_rect(viz, (Rect){x - viz_px(viz, 6), y, L.pair_w + viz_px(viz, 12), L.row_h}, th->background);
        rc |= draw_text_in_rect(viz, (Rect){x, y, L.key_w, L.row_h}, f->keys[i].keys ? f->keys[i].keys : "", &ks);
        rc |= draw_text_in_rect(viz, (Rect){x + L.key_w + L.col_gap, y, L.act_w, L.row_h},
                                f->keys[i].action ? f->keys[i].action : "", &as);
    }
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}

int lesson_overlay_top(const Viz *viz, const VizFrame *f) {
    if (!f || !f->title) return 0;
    return viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + 2 * viz_px(viz, 8);
}

int lesson_overlay_bottom(Viz *viz, const VizFrame *f, Rect r) {
    if (!f || !f->captions || f->n_captions <= 0) return 0;
    Rect area = r;
    rect_cut_top(&area, lesson_overlay_top(viz, f));
    int pad = viz_px(viz, 12);
    int cap_line = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION) + viz_px(viz, 4);
    int text_w = area.w - 4 * pad;
    if (text_w <= 0 || cap_line <= 0) return 0;
    /* the same rule as draw_lesson_overlay: at most 2/5 of the height */
    int max_lines = (area.h * 2 / 5) / cap_line;
    if (max_lines < 1) max_lines = 1;
    int lines = 0;
    for (int i = 0; i < f->n_captions && lines < max_lines; i++)
        if (f->captions[i]) lines += count_lines(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION, f->captions[i], text_w, max_lines - lines);
    return lines > 0 ? lines * cap_line + 2 * pad : 0;
}

int draw_lesson_overlay(Viz *viz, Rect r, const VizFrame *f) {
    if (r.w <= 0 || r.h <= 0 || !f) return 0;
    int has_caps = f->captions && f->n_captions > 0;
    if (!f->title && !has_caps && !f->question && !f->beat_label) return 0;
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, &r);
    int pad = viz_px(viz, 12);
    Rect area = r;

    /* top band with the title (first beat of a lesson); otherwise only the beat counter,
     * as a small opaque badge in the corner so it never veils a panel's own title */
    if (f->title) {
        int h = lesson_overlay_top(viz, f);
        Rect band = rect_cut_top(&area, h);
        rc |= draw_fill_rect(viz, band, th->panel);
        rc |= draw_fill_rect(viz, (Rect){band.x, band.y + band.h - viz_px(viz, 2), band.w, viz_px(viz, 2)}, th->accent);
        Rect in = rect_inset4(band, pad, 0, pad, 0);
        if (f->beat_label) {
            int bw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, f->beat_label);
            Rect br = rect_cut_right(&in, bw);
            TextStyle bs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->accent,
                            .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE};
            rc |= draw_text_in_rect(viz, br, f->beat_label, &bs);
            rect_cut_right(&in, viz_px(viz, 16));
        }
        TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, in, f->title, &ts);
    } else if (f->beat_label) {
        int small = viz_px(viz, 6);
        int bw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, f->beat_label) + 2 * small;
        int bh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + small;
        Rect badge = {r.x + r.w - bw, r.y, bw, bh};
        rc |= draw_fill_rect(viz, badge, th->accent);
        TextStyle bs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = color_text_on(th->accent),
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, badge, f->beat_label, &bs);
    }

    /* captions at the bottom, as subtitles; at most a third of the height */
    int cap_line = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION) + viz_px(viz, 4);
    int text_w = area.w - 4 * pad;
    if (has_caps && text_w > 0) {
        int max_lines = (area.h * 2 / 5) / cap_line; /* captions never hide the whole frame */
        if (max_lines < 1) max_lines = 1;
        int lines = 0;
        for (int i = 0; i < f->n_captions && lines < max_lines; i++)
            if (f->captions[i]) lines += count_lines(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION, f->captions[i], text_w, max_lines - lines);
        if (lines > 0) {
            Rect band = rect_cut_bottom(&area, lines * cap_line + 2 * pad);
            rc |= draw_fill_rect(viz, band, CAPTION_BAND);
            Rect in = rect_inset4(band, 2 * pad, pad, 2 * pad, pad);
            TextStyle cs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_CAPTION, .color = CAPTION_TEXT,
                            .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
            int used = 0;
            for (int i = 0; i < f->n_captions && used < lines; i++) {
                if (!f->captions[i]) continue;
                int k = count_lines(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION, f->captions[i], text_w, lines - used);
                Rect cr = {in.x, in.y + used * cap_line, in.w, k * cap_line};
                rc |= draw_wrapped(viz, cr, f->captions[i], &cs, cap_line, k);
                used += k;
            }
        }
    }

    /* the open question: an accent card just above the captions */
    if (f->question && *f->question && text_w > 0) {
        /* 70% of the width on a wide screen, nearly all of it on a narrow one */
        int qw = area.w > viz_px(viz, 700) ? area.w * 7 / 10 : area.w - 2 * pad;
        int inner_w = qw - 2 * pad;
        int label_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 4);
        int max_lines = (area.h - 3 * pad - label_h) / cap_line; /* all the room left */
        if (max_lines < 1) max_lines = 1;
        int lines = inner_w > 0 ? count_lines(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION, f->question, inner_w, max_lines) : 0;
        int qh = 2 * pad + label_h + lines * cap_line;
        if (lines > 0 && qh + pad <= area.h) {
            Rect q = {area.x + (area.w - qw) / 2, area.y + area.h - qh - pad, qw, qh};
            rc |= draw_fill_rect(viz, q, th->panel);
            rc |= draw_rect_outline(viz, q, th->accent, viz_px(viz, 3));
            Rect in = rect_inset(q, pad);
            TextStyle ls = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->accent, .valign = VIZ_ALIGN_TOP};
            rc |= draw_text_in_rect(viz, rect_cut_top(&in, label_h), "? Question", &ls);
            TextStyle qs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_CAPTION, .color = th->text,
                            .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
            rc |= draw_wrapped(viz, in, f->question, &qs, cap_line, lines);
        }
    }
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
