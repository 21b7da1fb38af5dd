/* panel_text.c — draw_text_panel: the prompt and the generated continuation as
 * running text, token by token, so each token keeps its own style: prompt in the text
 * colour, generated tokens in the accent colour AND underlined (colour is never the
 * only cue), the newest token on a tinted background, view.highlight_token outlined.
 * Newlines break lines (with a faint ↵ so the newline token stays visible); lines wrap
 * at token boundaries; when the text overflows, the latest lines are shown under an
 * "↑ N earlier lines" line. Shown alone (view.fill) the text is set as large as the
 * panel allows. With view.text_mode the tokens also carry marks (panel_text_marks.c:
 * surprisal colours or "seen in training" boxes, a legend strip under the text, a
 * hover card with the numbers). Not a text editor and no decoding policy of its own: labels come from
 * token_label (characters no installed font has are shown as bytes). */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_text_marks.h"
#include "panels.h"
#include "token_label.h"
#include "utf8.h"

/* Bytes gathered for one on-screen segment (a token, or a few tokens that together
 * complete a UTF-8 character split between them, like the two halves of an emoji). */
#define SEG_MAX 64

/* Style of a run of text: which cues to draw. */
typedef struct RunStyle {
    int generated; /* accent colour + underline */
    int newest;    /* tinted background */
    int outlined;  /* highlight outline (cross-panel highlight) */
    int mark;      /* muted colour: the ↵ of a newline */
    int fill;      /* background bg (a surprisal colour or the seen tint) */
    SDL_Color bg;
    int seen;      /* the "seen in training" box */
    int on_colour; /* text in black or white, whichever reads on bg (surprisal) */
} RunStyle;

typedef struct TextLayout {
    Viz *viz;
    VizTextSize size; /* TITLE in the window, DISPLAY when set to fill the panel */
    Rect area;      /* where lines go */
    int line_h;     /* pixels per line */
    int x;          /* pen, relative to area.x */
    int line;       /* current line (0 = first line of the text) */
    int first_line; /* first line drawn */
    int skip_top;   /* line slots left free at the top (the "earlier lines" note) */
    int draw;       /* 0: measure only */
    VizHits *hits;
    int rc;
    const VizFrame *f;
    int hover_pos;  /* token under the mouse (-1 none) and its box, for the card */
    Rect hover_box;
} TextLayout;

static const VizFont TEXT_FONT = VIZ_FONT_SANS;

/* Draws one run at (x, y) with its cues; returns the width drawn. */
static int draw_run(Viz *viz, VizTextSize size, int x, int y, int line_h, const char *s, const RunStyle *st,
                    int max_w, int *rc) {
    const Theme *th = viz->theme;
    int w = viz_text_width(viz, TEXT_FONT, size, s);
    if (max_w > 0 && w > max_w) w = max_w;
    int lh = viz_line_height(viz, TEXT_FONT, size);
    int ul = lh / 14 > viz_px(viz, 2) ? lh / 14 : viz_px(viz, 2); /* underline grows with the text */
    Rect box = {x, y, w, line_h};
    /* a hairline gap on the right keeps neighbouring tokens apart */
    if (st->fill) *rc |= draw_fill_rect(viz, rect_inset4(box, 0, viz_px(viz, 1), viz_px(viz, 1), viz_px(viz, 1)), st->bg);
    if (st->newest && !(st->fill && st->on_colour)) *rc |= draw_fill_rect(viz, rect_inset4(box, -viz_px(viz, 2), 0, -viz_px(viz, 2), 0),
                                          color_mix(th->panel, th->highlight, 0.40f));
    TextStyle ts = {.font = TEXT_FONT, .size = size, .valign = VIZ_ALIGN_TOP, .max_width = max_w,
                    .color = st->mark ? th->text_muted : st->generated ? th->accent : th->text};
    if (st->fill && st->on_colour) ts.color = color_text_on(st->bg);
    *rc |= draw_text(viz, x, y + (line_h - lh) / 2, s, &ts, NULL);
    /* In a seen box the underline sits inside it, clear of the box's 2 px edge: drawn on
     * the edge it merged with it, and "generated" was then told by colour alone. */
    int ul_y = st->seen ? y + line_h - viz_px(viz, 1) - viz_px(viz, 2) - viz_px(viz, 2) - ul
                        : y + line_h - ul - viz_px(viz, 1);
    if (st->generated && !st->mark)
        *rc |= draw_fill_rect(viz, (Rect){x + (st->seen ? viz_px(viz, 4) : 0), ul_y, w - (st->seen ? viz_px(viz, 8) : 0), ul},
                              st->fill && st->on_colour ? ts.color : th->accent);
    if (st->seen)
        *rc |= draw_rect_outline(viz, rect_inset4(box, 0, viz_px(viz, 1), 0, viz_px(viz, 1)), text_seen_edge(th),
                                 viz_px(viz, 2));
    if (st->outlined)
        *rc |= draw_rect_outline(viz, rect_inset(box, -viz_px(viz, 3)), th->highlight, viz_px(viz, 2));
    return w;
}

static void new_line(TextLayout *L) {
    L->line++;
    L->x = 0;
}

/* Places (and draws, in the visible lines) one run of a segment. */
static void put_run(TextLayout *L, const char *s, const RunStyle *st, int token) {
    if (!*s) return;
    Viz *viz = L->viz;
    int w = viz_text_width(viz, TEXT_FONT, L->size, s);
    if (L->x > 0 && L->x + w > L->area.w) {
        new_line(L);
        /* a wrapped line starts at the word, not at the space before it */
        while (*s == ' ') s++;
        if (!*s) return;
        w = viz_text_width(viz, TEXT_FONT, L->size, s);
    }
    int max_w = w > L->area.w ? L->area.w : 0;
    if (max_w) w = max_w;
    int vis = L->line - L->first_line + L->skip_top;
    if (L->draw && vis >= L->skip_top && (vis + 1) * L->line_h <= L->area.h) {
        int y = L->area.y + vis * L->line_h;
        draw_run(viz, L->size, L->area.x + L->x, y, L->line_h, s, st, max_w, &L->rc);
        Rect box = {L->area.x + L->x, y, w, L->line_h};
        if (token >= 0) viz_hits_add(L->hits, box, VIZ_HIT_TOKEN_CHIP, token, 0);
        if (token >= 0 && L->f && rect_contains(box, L->f->view.mouse_x, L->f->view.mouse_y)) {
            L->hover_pos = token;
            L->hover_box = box;
        }
    }
    L->x += w;
}

/* Lays out tokens [0, n) of f; returns the number of lines used. */
static int layout_text(TextLayout *L, const VizFrame *f) {
    L->x = 0;
    L->line = 0;
    int n = f->n_pos;
    for (int i = 0; i < n;) {
        uint8_t seg[SEG_MAX];
        size_t len = 0, tl = 0;
        const uint8_t *b;
        int j = i;
        /* gather tokens while the bytes end in an unfinished UTF-8 character */
        do {
            b = tok_token_bytes(f->tok, f->ids[j], &tl);
            if (!b || len + tl > SEG_MAX) break;
            memcpy(seg + len, b, tl);
            len += tl;
            j++;
        } while (j < n && utf8_incomplete_tail(seg, len) > 0);
        if (j == i) { /* a bad id or a huge token: show its own label */
            char lab[TOKEN_LABEL_CAP];
            token_label_ex(f->tok, f->ids[i], TOKEN_LABEL_RAW_SPACES, viz_glyph_provided, L->viz, lab, sizeof lab);
            RunStyle st = {.generated = i >= f->n_prompt, .newest = i == n - 1 && n > f->n_prompt,
                           .outlined = i == f->view.highlight_token};
            text_marks_style(f, i, i + 1, &st.fill, &st.bg, &st.seen, L->viz->theme);
            st.on_colour = f->view.text_mode == VIZ_TEXT_SURPRISAL;
            put_run(L, lab, &st, i);
            i++;
            continue;
        }
        RunStyle st = {.generated = i >= f->n_prompt,
                       .newest = j == n && n > f->n_prompt,
                       .outlined = f->view.highlight_token >= i && f->view.highlight_token < j,
                       .on_colour = f->view.text_mode == VIZ_TEXT_SURPRISAL};
        text_marks_style(f, i, j, &st.fill, &st.bg, &st.seen, L->viz->theme);
        /* split at newlines: text before, a ↵ mark, then a line break */
        size_t s0 = 0;
        for (size_t k = 0; k <= len; k++) {
            if (k < len && seg[k] != '\n') continue;
            if (k > s0) {
                char lab[TOKEN_LABEL_CAP];
                token_label_bytes_ex(seg + s0, k - s0, TOKEN_LABEL_RAW_SPACES, viz_glyph_provided, L->viz, lab,
                                     sizeof lab);
                put_run(L, lab, &st, i);
            }
            if (k < len) {
                RunStyle ms = st;
                ms.mark = 1;
                put_run(L, TOKEN_MARK_NEWLINE, &ms, i);
                new_line(L);
            }
            s0 = k + 1;
        }
        i = j;
    }
    return L->line + 1;
}

static int text_line_h(Viz *viz, VizTextSize size) {
    int lh = viz_line_height(viz, TEXT_FONT, size);
    return lh + (lh / 4 > viz_px(viz, 6) ? lh / 4 : viz_px(viz, 6));
}

static int header_h(Viz *viz) {
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int line_h = text_line_h(viz, VIZ_TEXT_TITLE);
    return title_h > line_h ? title_h : line_h;
}

int text_panel_height(Viz *viz, int w, const VizFrame *f, int min_lines, int max_lines) {
    int lines = min_lines;
    int aw = w - 2 * draw_panel_pad(viz) - 2 * viz_px(viz, 4);
    if (f && f->ids && f->tok && f->n_pos > 0 && aw > 0) {
        TextLayout L = {viz, VIZ_TEXT_TITLE, {0, 0, aw, 0}, text_line_h(viz, VIZ_TEXT_TITLE), 0, 0, 0, 0, 0, NULL, 0,
                        f, -1, {0, 0, 0, 0}};
        lines = layout_text(&L, f);
    }
    if (lines < min_lines) lines = min_lines;
    if (lines > max_lines) lines = max_lines;
    return 2 * draw_panel_pad(viz) + header_h(viz) + viz_px(viz, 6) + lines * text_line_h(viz, VIZ_TEXT_TITLE) +
           text_marks_legend_h(viz, f);
}

/* Shown alone: the largest size at which the whole text fits (binary search, lines
 * only grow with the size); 0 if not even the window's size fits (it then scrolls). */
static int fill_text_px(Viz *viz, const VizFrame *f, Rect area) {
    int lo = viz_text_px(viz, VIZ_TEXT_TITLE), hi = area.h < VIZ_DISPLAY_PX_MAX ? area.h : VIZ_DISPLAY_PX_MAX, best = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        viz_set_display_px(viz, mid);
        TextLayout L = {viz, VIZ_TEXT_DISPLAY, area, text_line_h(viz, VIZ_TEXT_DISPLAY), 0, 0, 0, 0, 0, NULL, 0,
                        f, -1, {0, 0, 0, 0}};
        int lines = layout_text(&L, f);
        if (lines * L.line_h <= area.h) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

/* Header: title and step on the left, a legend drawn with the real styles right. */
static int draw_header(Viz *viz, Rect head, const VizFrame *f, int n) {
    const Theme *th = viz->theme;
    int rc = 0, tw = 0;
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text(viz, head.x, head.y + head.h / 2, "Text", &ts, &tw);
    int sub_w = 0;
    if (n > 0) {
        char sub[160], marks[128];
        text_marks_summary(f, marks, sizeof marks);
        snprintf(sub, sizeof sub, "step %d%s%s", n - f->n_prompt, marks[0] ? "  \xC2\xB7  " : "", marks);
        TextStyle ss = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                        .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text(viz, head.x + tw + viz_px(viz, 12), head.y + head.h / 2, sub, &ss, &sub_w);
    }
    static const char *const LEG[3] = {"prompt", "generated", "newest"};
    const RunStyle LST[3] = {{.generated = 0}, {.generated = 1}, {.generated = 1, .newest = 1}};
    int lw[3], total = 0, gap = viz_px(viz, 14), nleg = f && f->view.text_mode == VIZ_TEXT_SURPRISAL ? 2 : 3;
    int line_h = text_line_h(viz, VIZ_TEXT_TITLE);
    for (int i = 0; i < nleg; i++) total += (lw[i] = viz_text_width(viz, TEXT_FONT, VIZ_TEXT_TITLE, LEG[i])) + gap;
    if (total <= head.w - tw - sub_w - viz_px(viz, 36)) { /* only when it leaves the title room */
        int x = head.x + head.w - total + gap;
        for (int i = 0; i < nleg; i++) {
            draw_run(viz, VIZ_TEXT_TITLE, x, head.y + (head.h - line_h) / 2, line_h, LEG[i], &LST[i], 0, &rc);
            x += lw[i] + gap;
        }
    }
    return rc;
}

int draw_text_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    int n = f && f->ids && f->tok ? f->n_pos : 0;
    rc |= draw_header(viz, rect_cut_top(&in, header_h(viz)), f, n);
    rect_cut_top(&in, viz_px(viz, 6));
    if (n <= 0) {
        TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        rc |= draw_text_in_rect(viz, in, "No prompt yet.", &es);
        draw_set_clip(viz, NULL);
        return rc || viz->has_error ? -1 : 0;
    }

    int leg_h = text_marks_legend_h(viz, f);
    if (leg_h > 0 && leg_h < in.h / 2) rc |= draw_text_marks_legend(viz, rect_cut_bottom(&in, leg_h), f);
    Rect area = rect_inset4(in, viz_px(viz, 4), 0, viz_px(viz, 4), 0);
    VizTextSize size = VIZ_TEXT_TITLE;
    int fill_px = f->view.fill ? fill_text_px(viz, f, area) : 0;
    if (fill_px > 0) {
        viz_set_display_px(viz, fill_px);
        size = VIZ_TEXT_DISPLAY;
    }
    /* measure, then draw from the first line that keeps the end visible */
    TextLayout L = {viz, size, area, text_line_h(viz, size), 0, 0, 0, 0, 0, hits, 0, f, -1, {0, 0, 0, 0}};
    int lines = layout_text(&L, f);
    int fit = area.h / L.line_h;
    if (fit < 1) fit = 1;
    if (fill_px > 0) { /* a slide: the text block centred vertically */
        int slack = area.h - lines * L.line_h;
        if (slack > 0) L.area.y += slack / 2;
    }
    if (lines > fit && fit >= 3) {
        /* the first line slot says how much scrolled away above (not when only two
         * lines fit: then both show text, not a note and the last word alone) */
        L.skip_top = 1;
        L.first_line = lines - (fit - 1);
    } else {
        L.first_line = lines > fit ? lines - fit : 0;
    }
    L.draw = 1;
    layout_text(&L, f);
    /* two lines or fewer of a longer text: offer the panel alone (the header's right end) */
    if (L.first_line > 0 && fit <= 2) rc |= draw_enlarge_hint(viz, VIZ_PANEL_TEXT, f);
    rc |= L.rc;
    if (L.first_line > 0 && L.skip_top) {
        char more[64];
        snprintf(more, sizeof more, "\xE2\x86\x91 %d earlier line%s", L.first_line, L.first_line == 1 ? "" : "s");
        TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                        .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, (Rect){L.area.x, L.area.y, L.area.w, L.line_h}, more, &ms);
    }
    if (L.hover_pos >= 0 && !f->view.print && f->view.text_mode != VIZ_TEXT_PLAIN)
        rc |= draw_text_marks_card(viz, r, L.hover_box, f, L.hover_pos);
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
