/* draw.c — the primitives of draw.h, computed from the arguments each call (immediate
 * mode) and drawn through the Viz's backend (backend.h): the raster one today's SDL
 * renderer, or SVG / PDF. Nothing here knows which; the only state kept is the clip
 * (in the Viz) and, for raster, the Viz text cache. */
#include "draw.h"

#include <math.h>
#include <string.h>

#include "backend.h"
#include "ticks.h"

#define ELLIPSIS "\xE2\x80\xA6" /* U+2026 HORIZONTAL ELLIPSIS, in DejaVu */
#define MAX_TICKS 32

/* A slot the backend leaves NULL is a primitive it cannot draw: an error for the
 * frame, never a silent gap in the figure. */
static int missing_slot(Viz *viz, const char *slot) {
    return viz_fail(viz, "the %s backend cannot draw %s", viz->backend->name, slot);
}
#define BACKEND_CALL(viz, slot, ...) \
    ((viz)->backend->slot ? (viz)->backend->slot((viz), __VA_ARGS__) : missing_slot((viz), #slot))

int draw_page_begin(Viz *viz, int w, int h) {
    viz->clip_on = 0;
    return BACKEND_CALL(viz, page_begin, w, h);
}

int draw_page_end(Viz *viz) {
    return viz->backend->page_end ? viz->backend->page_end(viz) : missing_slot(viz, "page_end");
}

int draw_panel_pad(const Viz *viz) {
    int a = viz_gx(viz, 10), b = viz_px(viz, 6);
    return a > b ? a : b;
}

Rect draw_panel_inner(const Viz *viz, Rect r) { return rect_inset(r, draw_panel_pad(viz)); }

int draw_panel_begin(Viz *viz, Rect r, Rect *inner) {
    int rc = draw_set_clip(viz, &r);
    rc |= draw_fill_rect(viz, r, viz->theme->panel);
    rc |= draw_rect_outline(viz, r, viz->theme->panel_border, 1);
    *inner = draw_panel_inner(viz, r);
    return rc ? -1 : 0;
}

int draw_set_clip(Viz *viz, const Rect *clip) {
    viz->clip_on = clip != NULL;
    if (clip) viz->clip = *clip;
    return BACKEND_CALL(viz, clip, clip);
}

int draw_fill_rect(Viz *viz, Rect r, SDL_Color color) {
    if (r.w <= 0 || r.h <= 0) return 0;
    return BACKEND_CALL(viz, fill_rect, r, color);
}

int draw_rect_outline(Viz *viz, Rect r, SDL_Color color, int thickness) {
    if (r.w <= 0 || r.h <= 0) return 0;
    if (thickness < 1) thickness = 1;
    if (2 * thickness >= r.w || 2 * thickness >= r.h) return draw_fill_rect(viz, r, color);
    /* four non-overlapping strips, so translucent outlines blend evenly at corners */
    Rect inner = r;
    Rect top = rect_cut_top(&inner, thickness), bottom = rect_cut_bottom(&inner, thickness);
    Rect left = rect_cut_left(&inner, thickness), right = rect_cut_right(&inner, thickness);
    if (draw_fill_rect(viz, top, color) || draw_fill_rect(viz, bottom, color) ||
        draw_fill_rect(viz, left, color) || draw_fill_rect(viz, right, color))
        return -1;
    return 0;
}

int draw_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness) {
    if (thickness > 1 && x0 == x1 && y0 == y1) {
        /* a thick line of length 0 is its end dot, a square of the thickness */
        Rect dot = {x0 - thickness / 2, y0 - thickness / 2, thickness, thickness};
        return draw_fill_rect(viz, dot, color);
    }
    return BACKEND_CALL(viz, line, x0, y0, x1, y1, color, thickness < 1 ? 1 : thickness);
}

/* Back up from byte offset n to the start of a UTF-8 character (never inside a
 * multi-byte sequence: continuation bytes are 10xxxxxx). */
static size_t utf8_floor(const char *s, size_t n) {
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    return n;
}

int draw_fit_text(Viz *viz, VizFont font, VizTextSize size, const char *utf8, int max_width,
                  char *buf, size_t cap) {
    if (cap == 0) return 0;
    buf[0] = '\0';
    if (!utf8 || !*utf8 || max_width <= 0) return 0;
    size_t len = strlen(utf8);
    if (len < cap) {
        int w = viz_text_width(viz, font, size, utf8);
        if (w <= max_width) {
            memcpy(buf, utf8, len + 1);
            return w;
        }
    }
    const size_t ell = sizeof ELLIPSIS - 1;
    if (cap <= ell) return 0;
    /* binary search on the prefix length (text width grows with the prefix) */
    size_t lo = 0, hi = len < cap - ell - 1 ? len : cap - ell - 1;
    hi = utf8_floor(utf8, hi);
    int best_w = -1;
    size_t best = 0;
    while (lo <= hi) {
        size_t mid = utf8_floor(utf8, lo + (hi - lo) / 2);
        memcpy(buf, utf8, mid);
        memcpy(buf + mid, ELLIPSIS, ell + 1);
        int w = viz_text_width(viz, font, size, buf);
        if (w <= max_width) {
            best = mid;
            best_w = w;
            /* next character start after mid */
            size_t next = mid + 1;
            while (next < len && ((unsigned char)utf8[next] & 0xC0) == 0x80) next++;
            if (next > hi) break;
            lo = next;
        } else {
            if (mid == 0) break;
            hi = utf8_floor(utf8, mid - 1);
            if (hi < lo) break;
        }
    }
    if (best_w < 0) {
        buf[0] = '\0';
        return 0;
    }
    memcpy(buf, utf8, best);
    memcpy(buf + best, ELLIPSIS, ell + 1);
    return best_w;
}

/* The backend's text slot for utf8 measured w pixels wide, box top-left at (x, y). */
static int text_run(Viz *viz, int x, int y, const char *utf8, VizFont font, VizTextSize size, SDL_Color color,
                    double angle, int w) {
    VizTextRun run = {.utf8 = utf8, .font = font, .size = size, .px = viz_text_px(viz, size), .x = x, .y = y,
                      .w = w, .h = viz_line_height(viz, font, size), .ascent = viz_ascent(viz, font, size),
                      .color = color, .angle = angle};
    return BACKEND_CALL(viz, text, &run);
}

int draw_text(Viz *viz, int x, int y, const char *utf8, const TextStyle *style, int *drawn_w) {
    if (drawn_w) *drawn_w = 0;
    if (!utf8 || !*utf8) return 0;
    char fitted[512];
    const char *text = utf8;
    if (style->max_width > 0 &&
        (strlen(utf8) >= sizeof fitted ||
         viz_text_width(viz, style->font, style->size, utf8) > style->max_width)) {
        draw_fit_text(viz, style->font, style->size, utf8, style->max_width, fitted, sizeof fitted);
        text = fitted;
        if (!*text) return 0;
    }
    int w = viz_text_width_cached(viz, style->font, style->size, text);
    if (w <= 0) return 0;
    int line_h = viz_line_height(viz, style->font, style->size);
    int tx = style->halign == VIZ_ALIGN_CENTER ? x - w / 2
             : style->halign == VIZ_ALIGN_RIGHT ? x - w
                                                 : x;
    int ty = style->valign == VIZ_ALIGN_MIDDLE     ? y - line_h / 2
             : style->valign == VIZ_ALIGN_BASELINE ? y - viz_ascent(viz, style->font, style->size)
             : style->valign == VIZ_ALIGN_BOTTOM   ? y - line_h
                                                   : y;
    if (text_run(viz, tx, ty, text, style->font, style->size, style->color, 0.0, w) != 0) return -1;
    if (drawn_w) *drawn_w = w;
    return 0;
}

int draw_text_at(Viz *viz, int x, int y, const char *utf8, VizFont font, VizTextSize size, SDL_Color color,
                 double angle) {
    if (!utf8 || !*utf8) return 0;
    return text_run(viz, x, y, utf8, font, size, color, angle, viz_text_width_cached(viz, font, size, utf8));
}

/* Clip to r intersected with the current clip; *saved gets the clip to restore. */
static int push_clip(Viz *viz, Rect r, Rect *saved) {
    int had = viz->clip_on;
    *saved = viz->clip;
    Rect c = had ? rect_intersect(r, *saved) : r;
    draw_set_clip(viz, &c);
    return had;
}

static void pop_clip(Viz *viz, int had, const Rect *saved) { draw_set_clip(viz, had ? saved : NULL); }

int draw_text_in_rect(Viz *viz, Rect r, const char *utf8, const TextStyle *style) {
    if (r.w <= 0 || r.h <= 0 || !utf8 || !*utf8) return 0;
    TextStyle s = *style;
    s.max_width = (style->max_width > 0 && style->max_width < r.w) ? style->max_width : r.w;
    int x = s.halign == VIZ_ALIGN_CENTER ? r.x + r.w / 2
            : s.halign == VIZ_ALIGN_RIGHT ? r.x + r.w
                                          : r.x;
    int y;
    switch (s.valign) {
    case VIZ_ALIGN_TOP: y = r.y; break;
    case VIZ_ALIGN_BOTTOM: y = r.y + r.h; break;
    default: s.valign = VIZ_ALIGN_MIDDLE; y = r.y + r.h / 2; break;
    }
    Rect saved;
    int had = push_clip(viz, r, &saved);
    int rc = draw_text(viz, x, y, utf8, &s, NULL);
    pop_clip(viz, had, &saved);
    return rc;
}

int draw_text_on_cell(Viz *viz, Rect cell, SDL_Color fill, const char *utf8, VizFont font,
                      VizTextSize size) {
    if (draw_fill_rect(viz, cell, fill) != 0) return -1;
    TextStyle s = {.font = font, .size = size, .color = color_text_on(fill),
                   .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    return draw_text_in_rect(viz, rect_inset(cell, 1), utf8, &s);
}

int draw_hatch(Viz *viz, Rect r, Rect restore, int ox, int oy, int spacing, SDL_Color c) {
    Rect clip = rect_intersect(r, restore);
    if (clip.w <= 0 || clip.h <= 0 || spacing < 1) return 0;
    if (draw_set_clip(viz, &clip) != 0) return -1;
    /* lines x + y = d for d ≡ ox + oy (mod spacing), crossing r */
    int dmin = r.x + r.y, dmax = r.x + r.w + r.y + r.h;
    int phase = ((dmin - ox - oy) % spacing + spacing) % spacing;
    int rc = 0;
    for (int d = dmin - phase; d <= dmax && rc == 0; d += spacing)
        rc = draw_line(viz, d - (r.y + r.h), r.y + r.h, d - r.y + 1, r.y - 1, c, 1);
    if (draw_set_clip(viz, &restore) != 0) return -1;
    return rc;
}

/* ---- wrapped text ------------------------------------------------------------ */

/* 1 when text[0..i) ends with an opening quote standing alone before a space — the
 * `"` of `" park"`, how lessons quote a token with its leading space: a line must not
 * end there, or the quote is left dangling and the token starts the next line bare. */
static int ends_with_open_quote(const char *text, size_t i) {
    static const char *const QUOTES[] = {"\"", "'", "\xE2\x80\x9C", "\xE2\x80\x98", "\xC2\xAB"};
    for (size_t q = 0; q < sizeof QUOTES / sizeof QUOTES[0]; q++) {
        size_t k = strlen(QUOTES[q]);
        if (i >= k && memcmp(text + i - k, QUOTES[q], k) == 0 && (i == k || text[i - k - 1] == ' ')) return 1;
    }
    return 0;
}

size_t draw_wrap_line(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, char *buf,
                        size_t cap) {
    size_t n = strcspn(text, "\n");
    size_t best = 0; /* bytes of the longest prefix ending at a word end that fits */
    for (size_t i = 1; i <= n && i < cap; i++) {
        if (i < n && text[i] != ' ') continue; /* candidate breaks: before a space, at the end */
        if (i < n && ends_with_open_quote(text, i)) continue;
        if (i + 1 < n && text[i + 1] == '%') continue; /* "0.22 %" stays on one line */
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

int draw_count_lines(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, int max_lines) {
    int lines = 0;
    char buf[512];
    while (*text && lines < max_lines) {
        text += draw_wrap_line(viz, font, size, text, max_w, buf, sizeof buf);
        lines++;
    }
    return lines;
}

/* The last line that fits when more text follows: its words up to one that leaves room for
 * "…" (or, when not even its first word does, that word cut with "…"), so a cut sentence
 * says it is cut. */
static void end_with_ellipsis(Viz *viz, VizFont font, VizTextSize size, int max_w, char *buf, size_t cap) {
    const size_t ell = sizeof ELLIPSIS - 1;
    size_t n = strlen(buf);
    if (n + ell >= cap) n = cap - ell - 1;
    while (n > 0) {
        char t[512 + sizeof ELLIPSIS];
        memcpy(t, buf, n);
        memcpy(t + n, ELLIPSIS, ell + 1);
        if (viz_text_width(viz, font, size, t) <= max_w) {
            memcpy(buf, t, n + ell + 1);
            return;
        }
        while (n > 0 && buf[n - 1] != ' ') n--; /* back to the previous word's end */
        while (n > 0 && buf[n - 1] == ' ') n--;
    }
    char word[512 + sizeof ELLIPSIS];
    size_t w = strcspn(buf, " ");
    if (w > 511) w = 511;
    memcpy(word, buf, w);
    memcpy(word + w, ELLIPSIS, ell + 1);
    draw_fit_text(viz, font, size, word, max_w, buf, cap);
}

size_t draw_wrap_line_last(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, int last,
                           char *buf, size_t cap) {
    size_t used = draw_wrap_line(viz, font, size, text, max_w, buf, cap);
    if (last && text[used + strspn(text + used, " \n")] != '\0') end_with_ellipsis(viz, font, size, max_w, buf, cap);
    return used;
}

int draw_wrapped_text(Viz *viz, Rect area, const char *text, const TextStyle *st, int line_h, int max_lines) {
    int rc = 0, line = 0;
    char buf[512];
    while (*text && line < max_lines) {
        text += draw_wrap_line_last(viz, st->font, st->size, text, area.w, line == max_lines - 1, buf, sizeof buf);
        Rect lr = {area.x, area.y + line * line_h, area.w, line_h};
        rc |= draw_text_in_rect(viz, lr, buf, st);
        line++;
    }
    return rc;
}

int draw_fit_wrapped_px(Viz *viz, VizFont font, const char *text, int max_w, int max_h, int min_px, int max_px,
                        int *lines) {
    if (lines) *lines = 0;
    if (!text || !*text || max_w <= 0 || max_h <= 0) return viz_set_display_px(viz, min_px);
    /* lines and height shrink monotonically with the size: binary search the largest
     * size whose wrap has no cut word and fits the height */
    int lo = min_px, hi = max_px, best = min_px, best_lines = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        viz_set_display_px(viz, mid);
        int lh = viz_line_height(viz, font, VIZ_TEXT_DISPLAY);
        int n = draw_count_lines(viz, font, VIZ_TEXT_DISPLAY, text, max_w, 1000);
        int widest_word_fits = 1;
        const char *t = text;
        while (*t && widest_word_fits) { /* a word wider than the line would be cut */
            size_t w = strcspn(t, " \n");
            char word[256];
            size_t wl = w < sizeof word - 1 ? w : sizeof word - 1;
            memcpy(word, t, wl);
            word[wl] = '\0';
            if (wl && viz_text_width(viz, font, VIZ_TEXT_DISPLAY, word) > max_w) widest_word_fits = 0;
            t += w;
            while (*t == ' ' || *t == '\n') t++;
        }
        if (widest_word_fits && n * lh <= max_h) {
            best = mid;
            best_lines = n;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    viz_set_display_px(viz, best);
    if (lines) *lines = best_lines ? best_lines : draw_count_lines(viz, font, VIZ_TEXT_DISPLAY, text, max_w, 1000);
    return best;
}

/* ---- colour bar --------------------------------------------------------------- */

static int tick_len(Viz *viz) { return viz_px(viz, 4.0f); }
static int tick_gap(Viz *viz) { return viz_px(viz, 2.0f); }

static size_t spec_ticks(const ColorbarSpec *spec, double *ticks, double *step) {
    int target = spec->target_ticks > 0 ? spec->target_ticks : 5;
    return ticks_nice(spec->vmin, spec->vmax, target, ticks, MAX_TICKS, step);
}

static int max_label_width(Viz *viz, const double *ticks, size_t n, double step) {
    int m = 0;
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        int w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, ticks_format(ticks[i], step, buf, sizeof buf));
        if (w > m) m = w;
    }
    return m;
}

int draw_colorbar_size(Viz *viz, const ColorbarSpec *spec, int bar_px) {
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int label_h = spec->label && *spec->label ? small_h + tick_gap(viz) : 0;
    if (!spec->vertical) return label_h + 1 + bar_px + 1 + tick_len(viz) + tick_gap(viz) + small_h;
    double ticks[MAX_TICKS], step;
    size_t n = spec_ticks(spec, ticks, &step);
    return 1 + bar_px + 1 + tick_len(viz) + tick_gap(viz) + max_label_width(viz, ticks, n, step);
}

int draw_colorbar(Viz *viz, Rect area, const ColorbarSpec *spec, Rect *bar_out) {
    if (bar_out) *bar_out = (Rect){area.x, area.y, 0, 0};
    if (area.w <= 0 || area.h <= 0) return 0;
    const Theme *th = viz->theme;
    double ticks[MAX_TICKS], step;
    size_t n = spec_ticks(spec, ticks, &step);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int tl = tick_len(viz), gap = tick_gap(viz);
    char buf[32];
    Rect r = area;
    if (spec->label && *spec->label) {
        Rect lab = rect_cut_top(&r, small_h + gap);
        TextStyle ls = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text};
        if (draw_text_in_rect(viz, lab, spec->label, &ls) != 0) return -1;
    }
    Rect bar;
    if (!spec->vertical) {
        /* room below for ticks and labels; inset the ends by half an end label so the
         * labels of vmin and vmax stay inside the area */
        rect_cut_bottom(&r, tl + gap + small_h);
        int half = n ? max_label_width(viz, ticks, n, step) / 2 + 1 : 1;
        bar = rect_inset4(r, half, 1, half, 1); /* 1 px for the outline around it */
    } else {
        int lw = max_label_width(viz, ticks, n, step);
        rect_cut_right(&r, tl + gap + lw);
        int half = small_h / 2 + 1;
        bar = rect_inset4(r, 1, half, 1, half);
    }
    if (bar.w <= 0 || bar.h <= 0) return 0;
    if (bar_out) *bar_out = bar;
    /* the gradient: one line per pixel, t = i/(n-1) so both ends are exact */
    int len = spec->vertical ? bar.h : bar.w;
    for (int i = 0; i < len; i++) {
        float t = len > 1 ? (float)i / (float)(len - 1) : 0.0f;
        SDL_Color c = colormap_sample(spec->map, t);
        Rect line = spec->vertical ? (Rect){bar.x, bar.y + bar.h - 1 - i, bar.w, 1}
                                   : (Rect){bar.x + i, bar.y, 1, bar.h};
        if (draw_fill_rect(viz, line, c) != 0) return -1;
    }
    if (draw_rect_outline(viz, rect_inset(bar, -1), th->panel_border, 1) != 0) return -1;
    double span = spec->vmax - spec->vmin;
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted};
    for (size_t i = 0; i < n; i++) {
        double f = span > 0 ? (ticks[i] - spec->vmin) / span : 0.0;
        ticks_format(ticks[i], step, buf, sizeof buf);
        if (!spec->vertical) {
            int px = bar.x + (int)lround(f * (bar.w - 1));
            int y0 = bar.y + bar.h + 1;
            if (draw_fill_rect(viz, (Rect){px, y0, 1, tl}, th->text_muted) != 0) return -1;
            ts.halign = VIZ_ALIGN_CENTER;
            ts.valign = VIZ_ALIGN_TOP;
            if (draw_text(viz, px, y0 + tl + gap, buf, &ts, NULL) != 0) return -1;
        } else {
            int py = bar.y + bar.h - 1 - (int)lround(f * (bar.h - 1));
            int x0 = bar.x + bar.w + 1;
            if (draw_fill_rect(viz, (Rect){x0, py, tl, 1}, th->text_muted) != 0) return -1;
            ts.halign = VIZ_ALIGN_LEFT;
            ts.valign = VIZ_ALIGN_MIDDLE;
            if (draw_text(viz, x0 + tl + gap, py, buf, &ts, NULL) != 0) return -1;
        }
    }
    return 0;
}

/* ---- axis --------------------------------------------------------------------- */

int axis_value_to_px(Rect plot, VizSide side, double vmin, double vmax, double v) {
    double span = vmax - vmin;
    double f = span != 0.0 ? (v - vmin) / span : 0.0;
    if (side == VIZ_SIDE_BOTTOM || side == VIZ_SIDE_TOP)
        return plot.x + (int)lround(f * (double)(plot.w - 1));
    return plot.y + plot.h - 1 - (int)lround(f * (double)(plot.h - 1));
}

int draw_axis_size(Viz *viz, VizSide side, double vmin, double vmax, int target_ticks,
                   const char *label) {
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int gap = tick_gap(viz);
    int label_sz = label && *label ? gap + small_h : 0;
    if (side == VIZ_SIDE_BOTTOM || side == VIZ_SIDE_TOP)
        return 1 + tick_len(viz) + gap + small_h + label_sz;
    double ticks[MAX_TICKS], step;
    size_t n = ticks_nice(vmin, vmax, target_ticks, ticks, MAX_TICKS, &step);
    return 1 + tick_len(viz) + gap + max_label_width(viz, ticks, n, step) + label_sz;
}

/* The axis title of a vertical axis reads bottom-to-top: the text is rotated -90°
 * around its centre, so its on-screen box is h×w. */
static int draw_rotated_label(Viz *viz, int cx, int cy, const char *label, SDL_Color color) {
    int w = viz_text_width_cached(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, label);
    int h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    return draw_text_at(viz, cx - w / 2, cy - h / 2, label, VIZ_FONT_SANS, VIZ_TEXT_SMALL, color, -90.0);
}

int draw_axis(Viz *viz, Rect plot, VizSide side, double vmin, double vmax, int target_ticks,
              const char *label, int grid) {
    if (plot.w <= 0 || plot.h <= 0) return 0;
    const Theme *th = viz->theme;
    double ticks[MAX_TICKS], step;
    size_t n = ticks_nice(vmin, vmax, target_ticks, ticks, MAX_TICKS, &step);
    int tl = tick_len(viz), gap = tick_gap(viz);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int horizontal = side == VIZ_SIDE_BOTTOM || side == VIZ_SIDE_TOP;
    char buf[32];
    if (grid) {
        for (size_t i = 0; i < n; i++) {
            int p = axis_value_to_px(plot, side, vmin, vmax, ticks[i]);
            Rect g = horizontal ? (Rect){p, plot.y, 1, plot.h} : (Rect){plot.x, p, plot.w, 1};
            if (draw_fill_rect(viz, g, th->grid) != 0) return -1;
        }
    }
    /* the axis line sits on the first pixel outside the plot */
    Rect line = side == VIZ_SIDE_BOTTOM ? (Rect){plot.x, plot.y + plot.h, plot.w, 1}
                : side == VIZ_SIDE_TOP  ? (Rect){plot.x, plot.y - 1, plot.w, 1}
                : side == VIZ_SIDE_LEFT ? (Rect){plot.x - 1, plot.y, 1, plot.h}
                                        : (Rect){plot.x + plot.w, plot.y, 1, plot.h};
    if (draw_fill_rect(viz, line, th->text_muted) != 0) return -1;
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted};
    int max_w = 0;
    for (size_t i = 0; i < n; i++) {
        int p = axis_value_to_px(plot, side, vmin, vmax, ticks[i]);
        ticks_format(ticks[i], step, buf, sizeof buf);
        Rect tick;
        int tx, ty;
        switch (side) {
        case VIZ_SIDE_BOTTOM:
            tick = (Rect){p, line.y + 1, 1, tl};
            tx = p, ty = line.y + 1 + tl + gap;
            ts.halign = VIZ_ALIGN_CENTER, ts.valign = VIZ_ALIGN_TOP;
            break;
        case VIZ_SIDE_TOP:
            tick = (Rect){p, line.y - tl, 1, tl};
            tx = p, ty = line.y - tl - gap;
            ts.halign = VIZ_ALIGN_CENTER, ts.valign = VIZ_ALIGN_BOTTOM;
            break;
        case VIZ_SIDE_LEFT:
            tick = (Rect){line.x - tl, p, tl, 1};
            tx = line.x - tl - gap, ty = p;
            ts.halign = VIZ_ALIGN_RIGHT, ts.valign = VIZ_ALIGN_MIDDLE;
            break;
        default:
            tick = (Rect){line.x + 1, p, tl, 1};
            tx = line.x + 1 + tl + gap, ty = p;
            ts.halign = VIZ_ALIGN_LEFT, ts.valign = VIZ_ALIGN_MIDDLE;
            break;
        }
        int w = 0;
        if (draw_fill_rect(viz, tick, th->text_muted) != 0 || draw_text(viz, tx, ty, buf, &ts, &w) != 0)
            return -1;
        if (w > max_w) max_w = w;
    }
    if (!label || !*label) return 0;
    int off = 1 + tl + gap; /* distance from the plot edge to the tick labels */
    TextStyle lab = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text,
                     .halign = VIZ_ALIGN_CENTER, .max_width = horizontal ? plot.w : 0};
    switch (side) {
    case VIZ_SIDE_BOTTOM:
        lab.valign = VIZ_ALIGN_TOP;
        return draw_text(viz, plot.x + plot.w / 2, plot.y + plot.h + off + small_h + gap, label, &lab, NULL);
    case VIZ_SIDE_TOP:
        lab.valign = VIZ_ALIGN_BOTTOM;
        return draw_text(viz, plot.x + plot.w / 2, plot.y - off - small_h - gap, label, &lab, NULL);
    case VIZ_SIDE_LEFT:
        return draw_rotated_label(viz, plot.x - off - max_w - gap - small_h / 2,
                                  plot.y + plot.h / 2, label, th->text);
    default:
        return draw_rotated_label(viz, plot.x + plot.w + off + max_w + gap + small_h / 2,
                                  plot.y + plot.h / 2, label, th->text);
    }
}
