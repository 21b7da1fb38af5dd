/* panel_lesson.c — the lesson bands of a slide (panels.h): the title band on top (first
 * beat), the caption band at the bottom — opaque, under the figure, never over it —
 * with the narration in large bold type and the open question, and the beat counter
 * "3 / 12" at the right end of a band (a small badge only when there is no band).
 * The figure is laid out between the bands (draw_frame), so nothing here covers a
 * panel. No state, no input handling: the app decides what a beat shows. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"

/* Subtitle band: near-black and opaque — white text on it has > 15:1 contrast in both
 * themes (the convention of film subtitles), and no earlier frame shows through. */
static const SDL_Color CAPTION_BAND = {0x10, 0x10, 0x10, 255};
static const SDL_Color CAPTION_TEXT = {0xFF, 0xFF, 0xFF, 255};
/* The question in the band: amber on near-black (> 12:1), marked "?" as well. */
static const SDL_Color QUESTION_TEXT = {0xFF, 0xD5, 0x4F, 255};

#define BAND_ITEMS 16

typedef struct BandItem {
    const char *text;
    int question; /* 1: the open (or just revealed) question */
    int lines;
} BandItem;

typedef struct BandLayout {
    BandItem item[BAND_ITEMS];
    int n, lines;     /* items; lines drawn, the "more" line included */
    int more;         /* narration lines left out (drawn as "... N more lines"), 0 if none */
    VizTextSize size; /* the caption size: large, smaller only when the narration would not fit */
    int pad, line_h, text_w, counter_w;
    int h; /* band height, 0 = no band */
} BandLayout;

/* The probability panel shows an open question on its own card when it is on screen
 * with its bars hidden: the band then does not repeat it. */
static int question_in_band(const VizFrame *f) {
    if (!f->question || !*f->question) return 0;
    int probs_visible = viz_panel_shows(f->view.focus, VIZ_PANEL_PROBS);
    return !(f->view.hide_probs && probs_visible);
}


static BandLayout band_layout(Viz *viz, const VizFrame *f, Rect r) {
    BandLayout L;
    memset(&L, 0, sizeof L);
    L.pad = viz_px(viz, 12);
    L.size = VIZ_TEXT_CAPTION;
    L.line_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION) + viz_px(viz, 4);
    /* the counter sits in the caption band unless the title band carries it */
    if (f->beat_label && !f->title)
        L.counter_w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, f->beat_label) + 2 * L.pad;
    L.text_w = r.w - 4 * L.pad - 2 * L.counter_w; /* centred text: the same margin both sides */
    if (question_in_band(f) && L.n < BAND_ITEMS) L.item[L.n++] = (BandItem){f->question, 1, 0};
    for (int i = 0; f->captions && i < f->n_captions && L.n < BAND_ITEMS; i++)
        if (f->captions[i] && *f->captions[i]) L.item[L.n++] = (BandItem){f->captions[i], 0, 0};
    if (L.n == 0 || L.text_w <= 0 || L.line_h <= 0) {
        L.n = 0;
        return L;
    }
    /* at most 2/5 of the height: the figure keeps the rest. The narration is set in the
     * caption size; when it needs more lines than that, in the next smaller size, and
     * only when even body text does not fit are the last lines left out, and counted on
     * a line of their own (the handout has them all) */
    int avail = r.h - lesson_overlay_top(viz, f);
    static const VizTextSize sizes[] = {VIZ_TEXT_CAPTION, VIZ_TEXT_TITLE, VIZ_TEXT_BODY};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        L.size = sizes[si];
        L.line_h = viz_line_height(viz, VIZ_FONT_BOLD, L.size) + viz_px(viz, 4);
        int max_lines = (avail * 2 / 5 - 2 * L.pad) / L.line_h;
        if (max_lines < 1) max_lines = 1;
        int need = 0, k[BAND_ITEMS];
        for (int i = 0; i < L.n; i++) {
            char shown[1100];
            snprintf(shown, sizeof shown, "%s%s", L.item[i].question ? "? " : "", L.item[i].text);
            k[i] = draw_count_lines(viz, VIZ_FONT_BOLD, L.size, shown, L.text_w, 1000);
            need += k[i];
        }
        int room = need <= max_lines ? max_lines : max_lines - 1; /* the last line says what is left out */
        L.lines = 0;
        for (int i = 0; i < L.n; i++) {
            L.item[i].lines = L.lines + k[i] <= room ? k[i] : room - L.lines;
            if (L.item[i].lines < 0) L.item[i].lines = 0;
            L.lines += L.item[i].lines;
        }
        L.more = need - L.lines;
        if (L.more > 0) L.lines++;
        if (need <= max_lines) break;
    }
    L.h = L.lines > 0 ? L.lines * L.line_h + 2 * L.pad : 0;
    return L;
}

int lesson_overlay_top(const Viz *viz, const VizFrame *f) {
    if (!f || !f->title) return 0;
    return viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + 2 * viz_px(viz, 8);
}

int lesson_overlay_bottom(Viz *viz, const VizFrame *f, Rect r) {
    if (!f) return 0;
    BandLayout L = band_layout(viz, f, r);
    if (L.h == 0 && f->beat_label && !f->title && f->view.slide) /* a band for the counter alone */
        return viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + 2 * viz_px(viz, 8);
    return L.h;
}

int lesson_overlay_left_out(Viz *viz, const VizFrame *f, Rect r) { return f ? band_layout(viz, f, r).more : 0; }

static int draw_counter(Viz *viz, Rect band, const char *label, SDL_Color color) {
    TextStyle bs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = color,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE};
    return draw_text_in_rect(viz, rect_inset4(band, 0, 0, viz_px(viz, 12), 0), label, &bs);
}

int draw_lesson_overlay(Viz *viz, Rect r, const VizFrame *f) {
    if (r.w <= 0 || r.h <= 0 || !f) return 0;
    if (!f->title && !(f->captions && f->n_captions > 0) && !f->question && !f->beat_label) return 0;
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, &r);
    int pad = viz_px(viz, 12);
    Rect area = r;
    if (f->title) {
        Rect band = rect_cut_top(&area, lesson_overlay_top(viz, f));
        rc |= draw_fill_rect(viz, band, th->panel);
        rc |= draw_fill_rect(viz, (Rect){band.x, band.y + band.h - viz_px(viz, 2), band.w, viz_px(viz, 2)}, th->accent);
        Rect in = rect_inset4(band, pad, 0, pad, 0);
        if (f->beat_label) {
            int bw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, f->beat_label);
            rc |= draw_counter(viz, rect_cut_right(&in, bw + pad), f->beat_label, th->accent);
            rect_cut_right(&in, viz_px(viz, 16));
        }
        TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, in, f->title, &ts);
    }
    BandLayout L = band_layout(viz, f, r);
    int bottom = lesson_overlay_bottom(viz, f, r);
    if (bottom > 0) {
        Rect band = rect_cut_bottom(&area, bottom);
        rc |= draw_fill_rect(viz, band, CAPTION_BAND);
        if (f->beat_label && !f->title) rc |= draw_counter(viz, band, f->beat_label, CAPTION_TEXT);
        Rect in = rect_inset4(band, 2 * pad + L.counter_w, pad, 2 * pad + L.counter_w, pad);
        int used = 0;
        for (int i = 0; i < L.n && used < L.lines; i++) {
            if (L.item[i].lines <= 0) continue;
            char shown[1100];
            snprintf(shown, sizeof shown, "%s%s", L.item[i].question ? "? " : "", L.item[i].text);
            TextStyle cs = {.font = VIZ_FONT_BOLD, .size = L.size,
                            .color = L.item[i].question ? QUESTION_TEXT : CAPTION_TEXT,
                            .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
            Rect cr = {in.x, in.y + used * L.line_h, in.w, L.item[i].lines * L.line_h};
            rc |= draw_wrapped_text(viz, cr, shown, &cs, L.line_h, L.item[i].lines);
            used += L.item[i].lines;
        }
        if (L.more > 0) {
            char more[64];
            snprintf(more, sizeof more, "\xE2\x80\xA6 %d more line%s", L.more, L.more == 1 ? "" : "s");
            TextStyle ms = {.font = VIZ_FONT_SANS, .size = L.size, .color = CAPTION_TEXT,
                            .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
            rc |= draw_text_in_rect(viz, (Rect){in.x, in.y + used * L.line_h, in.w, L.line_h}, more, &ms);
        }
    } else if (f->beat_label && !f->title) {
        /* no band at all (a window outside slide mode): a small opaque badge */
        int small = viz_px(viz, 6);
        int bw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, f->beat_label) + 2 * small;
        int bh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + small;
        Rect badge = {r.x + r.w - bw, r.y, bw, bh};
        rc |= draw_fill_rect(viz, badge, th->accent);
        TextStyle bs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = color_text_on(th->accent),
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, badge, f->beat_label, &bs);
    }
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
