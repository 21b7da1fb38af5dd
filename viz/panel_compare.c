/* panel_compare.c — draw_compare_panel: settings side by side (VizFrame.compare, computed
 * by the app from engine/seq_compare.h). One column per setting, its spec on top; the
 * continuations ALIGNED BY POSITION: bands of COMPARE_BAND tokens, every column starting
 * band b at the same height, the band's first token number in the left gutter, so token
 * 13 of one column sits beside token 13 of the others. Tokens a column shares with the
 * greedy continuation before it leaves it are muted; the first token that differs is
 * boxed and marked with its number ("≠ 13"), never by colour alone. Under each column
 * its numbers: distinct-2/3, repeated n-grams, mean surprisal, where it leaves greedy.
 * Shown alone (a slide, a figure) the text is set as large as the panel allows. Long
 * tokens wrap between characters; nothing is cut, except that a panel too small for every
 * token shows the first bands and says which tokens it leaves out: the numbers stay. No
 * model math: every number is the engine's. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "seq_compare.h"
#include "token_label.h"

#define COMPARE_BAND 5 /* tokens per aligned band in the window; alone, also 10 or 20 */

typedef struct CmpLayout {
    Viz *viz;
    const VizFrame *f;
    const SeqCompare *c;
    Rect area;
    VizTextSize size;  /* tokens and numbers */
    int line_h;
    int band;          /* tokens per aligned band */
    int shown;         /* tokens shown per column: 0 all; else whole bands, or -1 none, when
                        * the panel is too small for all (the numbers, which count all, stay) */
    int draw;          /* 0: measure only */
    int rc;
} CmpLayout;

/* Tokens per column the layout shows (L->shown decoded). */
static int shown_tokens(const CmpLayout *L) {
    int n = L->c->n_new;
    return L->shown < 0 ? 0 : L->shown > 0 && L->shown < n ? L->shown : n;
}

static int utf8_len(unsigned char b) { return b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1; }

/* The longest prefix of s (whole UTF-8 characters, at least one) that fits w pixels. */
static size_t fit_prefix(Viz *viz, VizFont font, VizTextSize size, const char *s, int w) {
    char buf[TOKEN_LABEL_CAP];
    size_t n = 0, best = 0;
    while (s[n]) {
        size_t k = n + (size_t)utf8_len((unsigned char)s[n]);
        if (k >= sizeof buf) break;
        memcpy(buf, s, k);
        buf[k] = 0;
        if (viz_text_width(viz, font, size, buf) > w && best > 0) break;
        best = n = k;
    }
    return best ? best : strlen(s);
}

/* Flows text into a column of width w from pen (*x, *line); a run that does not fit on
 * the line goes to the next, and one wider than the column is split between characters.
 * Draws at (col.x, y0) when L->draw. mark: 0 plain, 1 muted (shared with greedy), 2 the
 * first difference (boxed). Returns nothing; advances the pen. */
static void flow(CmpLayout *L, Rect col, int y0, const char *s, VizFont font, int mark, int *x, int *line) {
    Viz *viz = L->viz;
    const Theme *th = viz->theme;
    int pad = mark == 2 ? viz_px(viz, 4) : 0;
    while (*s) {
        int w = viz_text_width(viz, font, L->size, s) + 2 * pad;
        if (*x > 0 && *x + w > col.w) {
            (*line)++;
            *x = 0;
            while (*s == ' ') s++; /* a wrapped line starts at the word */
            continue;
        }
        size_t take = strlen(s);
        char part[TOKEN_LABEL_CAP];
        if (w > col.w) take = fit_prefix(viz, font, L->size, s, col.w - 2 * pad);
        if (take >= sizeof part) take = sizeof part - 1;
        memcpy(part, s, take);
        part[take] = 0;
        w = viz_text_width(viz, font, L->size, part) + 2 * pad;
        if (L->draw) {
            int y = y0 + *line * L->line_h;
            TextStyle ts = {.font = font, .size = L->size, .valign = VIZ_ALIGN_TOP,
                            .color = mark == 1 ? th->text_muted : mark == 2 ? th->accent : th->text};
            int lh = viz_line_height(viz, font, L->size);
            if (mark == 2) {
                Rect box = {col.x + *x, y, w, L->line_h};
                L->rc |= draw_fill_rect(viz, box, color_mix(th->panel, th->accent, 0.12f));
                L->rc |= draw_rect_outline(viz, box, th->accent, viz_px(viz, 2));
            }
            L->rc |= draw_text(viz, col.x + *x + pad, y + (L->line_h - lh) / 2, part, &ts, NULL);
        }
        *x += w;
        s += take;
    }
}

/* An item wider than the column, flowed word by word; a word that starts with a digit
 * stays with the word before it ("token 1", "surprisal 11.20"), so a label keeps its
 * number. Only a word wider than the column itself is split between characters. */
static void flow_words(CmpLayout *L, Rect col, int y0, const char *s, VizFont font, int *x, int *line) {
    char word[96];
    while (*s) {
        size_t n = 0;
        while (s[n] == ' ') n++;
        for (;;) {
            while (s[n] && s[n] != ' ') n++;
            size_t next = n;
            while (s[next] == ' ') next++;
            if (!(s[next] >= '0' && s[next] <= '9')) break;
            n = next; /* a number: glued to this word */
        }
        if (n >= sizeof word) n = sizeof word - 1;
        memcpy(word, s, n);
        word[n] = 0;
        flow(L, col, y0, word, font, 0, x, line);
        s += n;
    }
}

/* A numbers line ("repeated 2-grams 13 · 3-grams 7") flowed item by item, so a line
 * too long for the column wraps after a " · " and never between a label and its number. */
static void flow_items(CmpLayout *L, Rect col, int y0, const char *s, VizFont font, int *x, int *line) {
    static const char SEP[] = " \xC2\xB7 ";
    char item[96];
    while (*s) {
        const char *sep = strstr(s, SEP);
        size_t n = sep ? (size_t)(sep - s) + sizeof SEP - 1 : strlen(s);
        if (n >= sizeof item) n = sizeof item - 1;
        memcpy(item, s, n);
        item[n] = 0;
        if (viz_text_width(L->viz, font, L->size, item) > col.w) flow_words(L, col, y0, item, font, x, line);
        else flow(L, col, y0, item, font, 0, x, line);
        s += n;
    }
}

/* The column rects (without the gutter) for the area. */
static void column_rects(const CmpLayout *L, int gutter, Rect *cols) {
    Rect body = rect_inset4(L->area, gutter, 0, 0, 0);
    float wts[SEQ_COMPARE_MAX_COLS] = {1, 1, 1, 1};
    rect_split_cols(body, wts, (size_t)L->c->n_cols, viz_px(L->viz, 14), cols);
}

/* The numbers under column k, one line each, into lines[4][cap]. */
static int column_numbers(const SeqCompare *c, int k, char lines[4][96]) {
    const SeqCompareColumn *col = &c->col[k];
    snprintf(lines[0], 96, "distinct-2 %.2f \xC2\xB7 distinct-3 %.2f", col->ngrams[1].distinct_ratio,
             col->ngrams[2].distinct_ratio);
    /* short enough for a quarter of 1280 px at 250 %: a wrapped line would split a word */
    snprintf(lines[1], 96, "repeated 2-grams %zu \xC2\xB7 3-grams %zu", col->ngrams[1].repeated, col->ngrams[2].repeated);
    snprintf(lines[2], 96, "surprisal %.2f bits/token", col->mean_surprisal_bits);
    if (col->diverge < 0) snprintf(lines[3], 96, "%s", col->settings.greedy ? "greedy: the reference" : "= greedy throughout");
    else snprintf(lines[3], 96, "\xE2\x89\xA0 greedy from token %ld", col->diverge + 1);
    return 4;
}

/* Lays out (and with L->draw draws) headers, bands and numbers; returns the height. */
static int layout(CmpLayout *L) {
    Viz *viz = L->viz;
    const Theme *th = viz->theme;
    const SeqCompare *c = L->c;
    const Tokenizer *tok = L->f->tok;
    char num[16];
    snprintf(num, sizeof num, "%d", c->n_new);
    int gutter = viz_text_width(viz, VIZ_FONT_MONO, L->size, num) + viz_px(viz, 10);
    Rect cols[SEQ_COMPARE_MAX_COLS];
    column_rects(L, gutter, cols);
    int y = L->area.y;
    /* headers: the spec as given, wrapped */
    int head_lines = 1;
    for (int k = 0; k < c->n_cols; k++) {
        int x = 0, line = 0;
        flow(L, cols[k], y, c->col[k].spec, VIZ_FONT_BOLD, 0, &x, &line);
        if (line + 1 > head_lines) head_lines = line + 1;
    }
    y += head_lines * L->line_h + viz_px(viz, 4);
    if (L->draw)
        L->rc |= draw_fill_rect(viz, (Rect){L->area.x, y, L->area.w, viz_px(viz, 2)}, th->panel_border);
    y += viz_px(viz, 6);
    /* the bands: every column starts band b at the same y */
    const int shown = shown_tokens(L);
    for (int b0 = 0; b0 < shown; b0 += L->band) {
        int b1 = b0 + L->band < shown ? b0 + L->band : shown, lines = 1;
        for (int k = 0; k < c->n_cols; k++) {
            const SeqCompareColumn *col = &c->col[k];
            int x = 0, line = 0;
            for (int i = b0; i < b1; i++) {
                char lb[TOKEN_LABEL_CAP];
                token_label(tok, col->ids[i], TOKEN_LABEL_RAW_SPACES, lb, sizeof lb);
                int mark = col->diverge < 0 || col->settings.greedy ? 0 : i < col->diverge ? 1 : i == col->diverge ? 2 : 0;
                flow(L, cols[k], y, lb, VIZ_FONT_SANS, mark, &x, &line);
            }
            if (line + 1 > lines) lines = line + 1;
        }
        if (L->draw) {
            char at[16];
            snprintf(at, sizeof at, "%d", b0 + 1);
            TextStyle gs = {.font = VIZ_FONT_MONO, .size = L->size, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
            L->rc |= draw_text(viz, L->area.x, y, at, &gs, NULL);
        }
        y += lines * L->line_h;
        if (L->draw && b1 < shown)
            L->rc |= draw_fill_rect(viz, (Rect){L->area.x, y + viz_px(viz, 2), L->area.w, viz_px(viz, 1)}, th->grid);
        y += viz_px(viz, 5);
    }
    if (shown < c->n_new) { /* said, not silently cut */
        char more[96];
        snprintf(more, sizeof more, "tokens %d\xE2\x80\x93%d not shown; the numbers count all %d", shown + 1, c->n_new,
                 c->n_new);
        if (L->draw) {
            TextStyle ms = {.font = VIZ_FONT_SANS, .size = L->size, .color = th->text_muted, .valign = VIZ_ALIGN_TOP,
                            .max_width = L->area.w};
            L->rc |= draw_text(viz, L->area.x, y, more, &ms, NULL);
        }
        y += L->line_h;
    }
    if (L->draw)
        L->rc |= draw_fill_rect(viz, (Rect){L->area.x, y, L->area.w, viz_px(viz, 2)}, th->panel_border);
    y += viz_px(viz, 8);
    /* the numbers under each column */
    int num_lines = 0;
    for (int k = 0; k < c->n_cols; k++) {
        char lines[4][96];
        int n = column_numbers(c, k, lines), x = 0, line = 0;
        for (int i = 0; i < n; i++) {
            flow_items(L, cols[k], y, lines[i], i == 3 ? VIZ_FONT_BOLD : VIZ_FONT_SANS, &x, &line);
            line++;
            x = 0;
        }
        if (line > num_lines) num_lines = line;
    }
    y += num_lines * L->line_h;
    return y - L->area.y;
}

static int header_h(Viz *viz) { return viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) + viz_px(viz, 4); }

/* Title, the prompt and the legend line; returns rc. */
static int draw_head(Viz *viz, Rect head, const VizFrame *f, const SeqCompare *c, VizTextSize size) {
    const Theme *th = viz->theme;
    int rc = 0, tw = 0;
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    rc |= draw_text(viz, head.x, head.y, "Settings side by side", &ts, &tw);
    if (!c) return rc;
    char sub[160];
    snprintf(sub, sizeof sub, "%d tokens each, the same dice (seed %llu)", c->n_new, (unsigned long long)c->seed);
    TextStyle ss = {.font = VIZ_FONT_SANS, .size = size, .color = th->text_muted, .valign = VIZ_ALIGN_TOP,
                    .max_width = head.w - tw - viz_px(viz, 16)};
    int lh_t = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE), lh_s = viz_line_height(viz, VIZ_FONT_SANS, size);
    rc |= draw_text(viz, head.x + tw + viz_px(viz, 16), head.y + (lh_t - lh_s), sub, &ss, NULL);
    (void)f;
    return rc;
}

/* The prompt and (with `legend`: tokens are shown) the legend, one line each at `size`;
 * returns the height used. */
static int draw_context(Viz *viz, Rect r, const VizFrame *f, const SeqCompare *c, VizTextSize size, int legend,
                        int draw) {
    const Theme *th = viz->theme;
    int lh = viz_line_height(viz, VIZ_FONT_SANS, size), rc = 0;
    char prompt[600];
    size_t k = (size_t)snprintf(prompt, sizeof prompt, "prompt: ");
    for (int i = 0; i < c->n_prompt && k + 1 < sizeof prompt; i++) {
        char lb[TOKEN_LABEL_CAP];
        token_label(f->tok, c->prompt[i], TOKEN_LABEL_RAW_SPACES, lb, sizeof lb);
        k += (size_t)snprintf(prompt + k, sizeof prompt - k, "%s", lb);
    }
    if (k >= sizeof prompt) k = sizeof prompt - 1;
    TextStyle ps = {.font = VIZ_FONT_SANS, .size = size, .color = th->text, .valign = VIZ_ALIGN_TOP, .max_width = r.w};
    if (draw) rc |= draw_text(viz, r.x, r.y, prompt, &ps, NULL);
    if (draw && legend) {
        /* the legend with the real styles: muted = as greedy, boxed = the first difference */
        TextStyle ms = ps;
        ms.color = th->text_muted;
        int x = r.x, w = 0, y = r.y + lh;
        rc |= draw_text(viz, x, y, "muted: same as greedy so far", &ms, &w);
        x += w + viz_px(viz, 18);
        const char *box = "\xE2\x89\xA0 first token that differs";
        int bw = viz_text_width(viz, VIZ_FONT_SANS, size, box) + viz_px(viz, 8);
        if (x + bw < r.x + r.w) {
            Rect b = {x, y, bw, lh};
            rc |= draw_fill_rect(viz, b, color_mix(th->panel, th->accent, 0.12f));
            rc |= draw_rect_outline(viz, b, th->accent, viz_px(viz, 2));
            TextStyle as = ps;
            as.color = th->accent;
            rc |= draw_text(viz, x + viz_px(viz, 4), y, box, &as, NULL);
            x += bw + viz_px(viz, 18);
        }
        const char *note = "surprisal: mean \xE2\x88\x92log2 p under the model at T = 1";
        ms.max_width = r.x + r.w - x;
        if (ms.max_width > viz_text_width(viz, VIZ_FONT_SANS, size, "surprisal: mean")) rc |= draw_text(viz, x, y, note, &ms, NULL);
    }
    (void)rc;
    return (legend ? 2 : 1) * lh + viz_px(viz, 6);
}

/* The largest display size (px) at which the whole layout fits L->area with L->band, never
 * below the small size; 0 when even that does not fit (heights only grow with the size). */
static int largest_fit(CmpLayout *L) {
    Viz *viz = L->viz;
    const Rect in = L->area;
    int lo = viz_text_px(viz, VIZ_TEXT_SMALL), hi = viz_text_px(viz, VIZ_TEXT_TITLE), best = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        viz_set_display_px(viz, mid);
        L->size = VIZ_TEXT_DISPLAY;
        L->line_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_DISPLAY) + viz_px(viz, 4);
        Rect a = in;
        a.y += draw_context(viz, a, L->f, L->c, VIZ_TEXT_DISPLAY, 1, 0);
        a.h -= a.y - in.y;
        L->area = a;
        if (layout(L) <= a.h) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    L->area = in;
    return best;
}

/* The most tokens per column, in whole bands, whose layout fits L->area at L->size (the
 * area under the prompt and legend); 0 when not even one band does. */
static int tokens_that_fit(CmpLayout *L) {
    int n = L->c->n_new;
    for (int shown = (n + L->band - 1) / L->band * L->band; shown > 0; shown -= L->band) {
        L->shown = shown;
        if (layout(L) <= L->area.h) return shown < n ? shown : n;
    }
    return 0;
}

/* The layout in the panel's inner rect `in` (below the title): type size, band, tokens
 * shown; sets the display size when the type is VIZ_TEXT_DISPLAY. */
static CmpLayout choose_layout(Viz *viz, Rect in, const VizFrame *f, const SeqCompare *c, ComparePanelFit *fit) {
    CmpLayout L = {viz, f, c, in, VIZ_TEXT_BODY, 0, COMPARE_BAND, 0, 0, 0};
    int fits_all = 0;
    if (f->view.fill) { /* alone: the band and type that set the text largest */
        int best = 0;
        for (int band = COMPARE_BAND; band <= 4 * COMPARE_BAND; band *= 2) {
            CmpLayout t = L;
            t.band = band;
            int px = largest_fit(&t);
            if (px > best) best = px, L.band = band;
        }
        /* not even the small size holds every token: the small size, fewer tokens */
        viz_set_display_px(viz, best ? best : viz_text_px(viz, VIZ_TEXT_SMALL));
        L.size = VIZ_TEXT_DISPLAY;
        fits_all = best > 0;
    }
    L.line_h = viz_line_height(viz, VIZ_FONT_SANS, L.size) + viz_px(viz, 4);
    Rect a = in;
    rect_cut_top(&a, draw_context(viz, in, f, c, L.size, 1, 0));
    L.area = a;
    int used = layout(&L); /* measured once; again only when tokens are left out */
    if (!fits_all && used > a.h) {
        /* too small for every token (a slide at UI scale 250 %, a short window): show the
         * first bands and keep the numbers, which the lessons' captions quote */
        int most = 0, band = COMPARE_BAND;
        for (int b = COMPARE_BAND; b <= (f->view.fill ? 4 : 1) * COMPARE_BAND; b *= 2) {
            CmpLayout t = L; /* alone: the band that shows the most tokens */
            t.band = b;
            int n = tokens_that_fit(&t);
            if (n > most) most = n, band = b;
        }
        L.band = band;
        if (most == 0) { /* not even one band: the numbers alone, the evidence a caption
                          * quotes, and no legend for tokens that are not there */
            L.shown = -1;
            a = in;
            rect_cut_top(&a, draw_context(viz, in, f, c, L.size, 0, 0));
            L.area = a;
        } else {
            L.shown = most;
        }
        used = layout(&L);
    }
    if (fit) *fit = (ComparePanelFit){viz_text_px(viz, L.size), L.band, shown_tokens(&L), used, a.h};
    return L;
}

int compare_panel_fit(Viz *viz, Rect r, const VizFrame *f, ComparePanelFit *fit) {
    const SeqCompare *c = f ? f->compare : NULL;
    if (r.w <= 0 || r.h <= 0 || !c || c->n_cols < 1 || !f->tok) return -1;
    Rect in = draw_panel_inner(viz, r);
    rect_cut_top(&in, header_h(viz));
    choose_layout(viz, in, f, c, fit);
    return 0;
}

int draw_compare_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    (void)hits;
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    const SeqCompare *c = f ? f->compare : NULL;
    Rect head = rect_cut_top(&in, header_h(viz));
    if (!c || c->n_cols < 1 || !f->tok) {
        rc |= draw_head(viz, head, f, NULL, VIZ_TEXT_BODY);
        TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        const char *note = f && f->compare_note ? f->compare_note : "nothing to compare yet";
        rc |= draw_wrapped_text(viz, rect_cut_top(&in, 4 * viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY)), note,
                                &es, viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY), 4);
        draw_set_clip(viz, NULL);
        return rc || viz->has_error ? -1 : 0;
    }
    ComparePanelFit fit;
    CmpLayout L = choose_layout(viz, in, f, c, &fit);
    rc |= draw_head(viz, head, f, c, L.size);
    draw_context(viz, in, f, c, L.size, L.shown >= 0, 1);
    L.draw = 1;
    layout(&L);
    rc |= L.rc;
    if (fit.used > fit.avail || fit.shown < c->n_new)
        viz->cramped_mask |= 1u << VIZ_PANEL_COMPARE; /* the status line offers F */
    draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
