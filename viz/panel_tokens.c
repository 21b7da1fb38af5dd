/* panel_tokens.c — draw_tokens_panel: the token strip (one chip per position: the
 * token's visible label, its id, a band coloured by position with the position
 * number) and, under it, the BPE replay of the selected prompt word (panel_bpe.c).
 * Shown alone (view.fill: a slide, a focused panel) the chips are set as large as the
 * panel allows, wrapped over rows, so a 4-token prompt reads from the back of a hall.
 * Only reads the VizFrame; nothing here tokenizes. Layout is recomputed every call
 * from r (immediate mode); nothing is allocated (fixed-size arrays on the stack). */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_bpe.h"
#include "panels.h"
#include "token_label.h"

/* Chips considered at most: more than any screen holds at the smallest chip width
 * (the "… N earlier tokens" marker covers the rest). Bounds the width array. */
#define MAX_CHIPS 1024

/* Sizes of one chip, in device pixels, from the text sizes it uses. */
typedef struct ChipMetrics {
    VizTextSize label_size; /* the token: TITLE, or DISPLAY when set to fill the panel */
    VizTextSize small_size; /* its id and position number */
    int band_h;  /* coloured position band with the position number */
    int label_h; /* the token text */
    int id_h;    /* the id line */
    int bytes_h; /* the token's bytes in hex under the id (a slide with room), or 0 */
    int pen_h;   /* the penalty line ("Δ−1.52") when the pending draw's penalties changed
                    a token of the strip, or 0 */
    int h;       /* whole chip */
    int pad;     /* inner horizontal padding */
    int gap;     /* between chips */
    int row_gap; /* between rows */
    int divider_w; /* the prompt | generated divider slot */
    int max_w;   /* chips wider than this cut their label with "…" */
    int one_row; /* only one row fits: the short "… N" marker */
    int no_marker; /* not even the marker and the newest chip fit one row: no marker */
} ChipMetrics;

/* Spacing grows with the label once it is larger than the UI's own sizes. */
static int at_least(int a, int b) { return a > b ? a : b; }

/* 1 if any chip of the strip carries a penalty mark. */
static int has_penalty_marks(const VizFrame *f) {
    if (!f || !f->rec || !f->ids) return 0;
    for (int p = 0; p < f->n_pos; p++)
        if (tokens_penalty_mark(f, p, NULL)) return 1;
    return 0;
}

int tokens_penalty_mark(const VizFrame *f, int p, double *delta) {
    const SamplerRecord *rec = f ? f->rec : NULL;
    /* the record must be the one for this strip: its context is these tokens */
    if (!rec || !f->ids || rec->n_penalised < 1 || rec->n_context != f->n_pos) return 0;
    if (p < rec->window_start || p >= rec->n_context) return 0;
    const SamplerPenalty *pen = sampler_record_penalty(rec, f->ids[p]);
    if (!pen) return 0;
    if (delta) *delta = pen->after - pen->before;
    return 1;
}

/* "Δ−1.52": the logit change, with a real minus sign. */
static void penalty_text(double d, char *buf, size_t cap) {
    double a = d < 0 ? -d : d;
    snprintf(buf, cap, a >= 10.0 ? "\xCE\x94%s%.1f" : "\xCE\x94%s%.2f", d < 0 ? "\xE2\x88\x92" : "+", a);
}

static ChipMetrics chip_metrics(Viz *viz, int avail_w, VizTextSize label_size, VizTextSize small_size, int bytes,
                                const VizFrame *f) {
    ChipMetrics m;
    m.label_size = label_size;
    m.small_size = small_size;
    int lh = viz_line_height(viz, VIZ_FONT_MONO, label_size);
    m.band_h = viz_line_height(viz, VIZ_FONT_MONO, small_size) + viz_px(viz, 2);
    m.label_h = lh + viz_px(viz, 2);
    m.id_h = viz_line_height(viz, VIZ_FONT_MONO, small_size) + viz_px(viz, 3);
    m.bytes_h = bytes ? m.id_h : 0;
    m.pen_h = has_penalty_marks(f) ? m.id_h : 0;
    if (label_size == VIZ_TEXT_DISPLAY) /* a slide: a taller colour band for the position */
        m.band_h = at_least(m.band_h, viz_text_px(viz, VIZ_TEXT_DISPLAY) * 2 / 5);
    m.h = m.band_h + m.label_h + m.id_h + m.bytes_h + m.pen_h;
    m.pad = at_least(viz_px(viz, 6), lh / 10);
    m.gap = at_least(viz_px(viz, 4), lh / 12);
    m.row_gap = at_least(viz_px(viz, 6), lh / 8);
    m.divider_w = at_least(viz_px(viz, 14), lh / 3);
    m.max_w = label_size == VIZ_TEXT_DISPLAY ? avail_w : viz_px(viz, 220);
    if (m.max_w > avail_w) m.max_w = avail_w;
    m.one_row = 0;
    m.no_marker = 0;
    return m;
}

static int chip_is_newest(const VizFrame *f, int p) { return p == f->n_pos - 1 && f->n_pos > f->n_prompt; }

/* The newest token's label is bold; the others are monospace (ids line up). */
static VizFont chip_font(const VizFrame *f, int p) { return chip_is_newest(f, p) ? VIZ_FONT_BOLD : VIZ_FONT_MONO; }

/* Label and id texts of the chip at position p (a character no installed font has, or
 * a part of one, as bytes). */
static void chip_texts(Viz *viz, const VizFrame *f, int p, char *label, size_t label_cap, char *id, size_t id_cap) {
    token_label_ex(f->tok, f->ids[p], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, label, label_cap);
    snprintf(id, id_cap, "%d", f->ids[p]);
}

/* "20 75 70 6f 6e": what the token is made of (a slide about tokens shows it). */
static void chip_bytes(const VizFrame *f, int p, char *buf, size_t cap) {
    size_t n = 0, o = 0;
    const uint8_t *b = tok_token_bytes(f->tok, f->ids[p], &n);
    buf[0] = '\0';
    for (size_t i = 0; b && i < n && o + 4 < cap; i++) o += (size_t)snprintf(buf + o, cap - o, i ? " %02x" : "%02x", b[i]);
}

/* The chip's natural width (label, id, position or bytes, whichever is widest, plus
 * padding). */
static int chip_natural_width(Viz *viz, const VizFrame *f, int p, const ChipMetrics *m) {
    char label[TOKEN_LABEL_CAP], id[16], pos[16], bytes[TOKEN_LABEL_CAP];
    chip_texts(viz, f, p, label, sizeof label, id, sizeof id);
    snprintf(pos, sizeof pos, "%d", p);
    int w = viz_text_width(viz, chip_font(f, p), m->label_size, label);
    int wi = viz_text_width(viz, VIZ_FONT_MONO, m->small_size, id);
    int wp = viz_text_width(viz, VIZ_FONT_MONO, m->small_size, pos);
    if (wi > w) w = wi;
    if (wp > w) w = wp;
    if (m->bytes_h) {
        chip_bytes(f, p, bytes, sizeof bytes);
        int wb = viz_text_width(viz, VIZ_FONT_MONO, m->small_size, bytes);
        if (wb > w) w = wb;
    }
    double d;
    if (m->pen_h && tokens_penalty_mark(f, p, &d)) {
        char pt[32];
        penalty_text(d, pt, sizeof pt);
        int wq = viz_text_width(viz, VIZ_FONT_BOLD, m->small_size, pt);
        if (wq > w) w = wq;
    }
    return w + 2 * m->pad;
}

static int chip_width(Viz *viz, const VizFrame *f, int p, const ChipMetrics *m) {
    int w = chip_natural_width(viz, f, p, m);
    return w > m->max_w ? m->max_w : w;
}

/* "… 12 earlier tokens", or "… 12" when only one row of chips fits. */
static void marker_text(int n_earlier, int compact, char *buf, size_t cap) {
    if (compact) snprintf(buf, cap, "\xE2\x80\xA6 %d", n_earlier);
    else snprintf(buf, cap, "\xE2\x80\xA6 %d earlier token%s", n_earlier, n_earlier == 1 ? "" : "s");
}

/* Walks the strip layout for chips [start, n) in rows of width `width`: the optional
 * "… N earlier" marker first, the divider before the first generated chip. Calls
 * place(ctx, kind, index, x, row, w) for each element if place != NULL. Returns the
 * rows used. kind: 0 chip, 1 marker, 2 divider. */
typedef void (*PlaceFn)(void *ctx, int kind, int index, int x, int row, int w);

static int strip_layout(Viz *viz, const VizFrame *f, const int *widths, int base, int start, int width,
                        const ChipMetrics *m, PlaceFn place, void *ctx) {
    int x = 0, row = 0;
    /* puts one element of width w, wrapping first if it does not fit on this row */
#define PUT(kind, index, w)                                        \
    do {                                                           \
        int w_ = (w);                                              \
        if (x > 0 && x + w_ > width) {                             \
            x = 0;                                                 \
            row++;                                                 \
        }                                                          \
        if (place) place(ctx, (kind), (index), x, row, w_);        \
        x += w_ + m->gap;                                          \
    } while (0)
    if (start > 0 && !m->no_marker) {
        char mk[64];
        marker_text(start, m->one_row, mk, sizeof mk);
        PUT(1, start, viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, mk) + 2 * m->pad);
    }
    for (int p = start; p < f->n_pos; p++) {
        if (p == f->n_prompt && p > 0) PUT(2, p, m->divider_w);
        PUT(0, p, widths[p - base]);
    }
#undef PUT
    return row + 1;
}

typedef struct DrawCtx {
    Viz *viz;
    const VizFrame *f;
    const ChipMetrics *m;
    Rect area;       /* where the strip goes */
    Rect clip;       /* the panel: hit regions never reach beyond it */
    VizHits *hits;
    int rc;
} DrawCtx;

static void draw_chip(DrawCtx *c, int p, Rect chip) {
    Viz *viz = c->viz;
    const Theme *th = viz->theme;
    const VizFrame *f = c->f;
    const ChipMetrics *m = c->m;
    char label[TOKEN_LABEL_CAP], id[16], pos[16];
    chip_texts(viz, f, p, label, sizeof label, id, sizeof id);
    snprintf(pos, sizeof pos, "%d", p);
    int newest = chip_is_newest(f, p);
    int generated = p >= f->n_prompt;

    /* body: the figure background (a step darker than the panel), tinted with the
     * highlight colour for the newest token — the same tint the text panel uses */
    SDL_Color body = newest ? color_mix(th->background, th->highlight, 0.35f) : th->background;
    c->rc |= draw_fill_rect(viz, chip, body);
    c->rc |= draw_rect_outline(viz, chip, th->panel_border, 1);

    /* position band: colour = position on the sequential map, with the number on it
     * so the colour is never the only carrier (legend "position" in the header) */
    float t = f->n_pos > 1 ? (float)p / (float)(f->n_pos - 1) : 0.0f;
    Rect band = {chip.x, chip.y, chip.w, m->band_h};
    c->rc |= draw_text_on_cell(viz, band, colormap_sample(th->sequential, t), pos, VIZ_FONT_MONO, m->small_size);

    Rect lab = {chip.x + m->pad, chip.y + m->band_h, chip.w - 2 * m->pad, m->label_h};
    TextStyle ls = {.font = chip_font(f, p), .size = m->label_size,
                    .color = th->text, .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    c->rc |= draw_text_in_rect(viz, lab, label, &ls);
    Rect idr = {chip.x + m->pad, lab.y + lab.h, chip.w - 2 * m->pad, m->id_h - viz_px(viz, 3)};
    TextStyle is = {.font = VIZ_FONT_MONO, .size = m->small_size, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    c->rc |= draw_text_in_rect(viz, idr, id, &is);
    if (m->bytes_h) {
        char bytes[TOKEN_LABEL_CAP];
        chip_bytes(f, p, bytes, sizeof bytes);
        Rect br = {idr.x, idr.y + m->id_h, idr.w, m->bytes_h - viz_px(viz, 3)};
        c->rc |= draw_text_in_rect(viz, br, bytes, &is);
    }
    double d;
    if (m->pen_h && tokens_penalty_mark(f, p, &d)) {
        /* the penalties changed this token's logit for the pending draw: by how much,
         * in words and a box, so colour is not the only sign */
        char pt[32];
        penalty_text(d, pt, sizeof pt);
        Rect pr = {idr.x, idr.y + m->id_h + m->bytes_h, idr.w, m->pen_h - viz_px(viz, 3)};
        TextStyle ps = {.font = VIZ_FONT_BOLD, .size = m->small_size, .color = th->text,
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        c->rc |= draw_fill_rect(viz, pr, color_mix(th->background, th->cut, 0.25f));
        c->rc |= draw_text_in_rect(viz, pr, pt, &ps);
    }

    /* generated tokens are underlined in the accent colour (as in the text panel) */
    if (generated) {
        int uh = viz_px(viz, 3);
        c->rc |= draw_fill_rect(viz, (Rect){chip.x, chip.y + chip.h - uh, chip.w, uh}, th->accent);
    }
    if (p == f->view.selected_token)
        c->rc |= draw_rect_outline(viz, chip, th->accent, viz_px(viz, 2));
    if (p == f->view.highlight_token) {
        int o = viz_px(viz, 2);
        c->rc |= draw_rect_outline(viz, rect_inset(chip, -o), th->highlight, viz_px(viz, 3));
    }
    viz_hits_add(c->hits, rect_intersect(chip, c->clip), VIZ_HIT_TOKEN_CHIP, p, 0);
}

static void place_draw(void *ctx, int kind, int index, int x, int row, int w) {
    DrawCtx *c = ctx;
    Viz *viz = c->viz;
    const Theme *th = viz->theme;
    const ChipMetrics *m = c->m;
    /* rows go down from the top of the strip area */
    Rect e = {c->area.x + x, c->area.y + row * (m->h + m->row_gap), w, m->h};
    /* rows past the area are skipped, except the first (clipped by the panel) so a
     * tiny panel still shows the latest tokens */
    if (row > 0 && e.y + e.h > c->area.y + c->area.h + 1) return;
    if (kind == 0) {
        draw_chip(c, index, e);
    } else if (kind == 1) {
        char mk[64];
        marker_text(index, m->one_row, mk, sizeof mk);
        TextStyle s = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                       .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        c->rc |= draw_rect_outline(viz, e, th->grid, 1);
        c->rc |= draw_text_in_rect(viz, e, mk, &s);
    } else {
        /* prompt | generated: a solid bar as tall as the chips (the header says so) */
        int lw = viz_px(viz, 3);
        c->rc |= draw_fill_rect(viz, (Rect){e.x + (e.w - lw) / 2, e.y, lw, e.h}, th->text_muted);
    }
}

/* ---- the panel ------------------------------------------------------------------ */

/* The id/position size for a label of px pixels: the largest UI size up to a third. */
static VizTextSize small_for(const Viz *viz, int px) {
    static const VizTextSize order[] = {VIZ_TEXT_CAPTION, VIZ_TEXT_TITLE, VIZ_TEXT_BODY};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (viz_text_px(viz, order[i]) * 3 <= px) return order[i];
    return VIZ_TEXT_SMALL;
}

/* Rows the strip of chips [start, n) needs at width w. */
static int rows_needed(Viz *viz, const VizFrame *f, const int *widths, int base, int start, int w,
                       const ChipMetrics *m) {
    return strip_layout(viz, f, widths, base, start, w, m, NULL, NULL);
}

/* Shown alone, the chips are set in the largest size at which all of them (and the
 * replay of the selected word) fit in `in` without scrolling: binary search on the label
 * size (rows only grow with it). Returns that size, 0 when not even the title size fits
 * (then the strip scrolls as in the window). Leaves widths[] for the size returned. */
static int fill_label_px(Viz *viz, const VizFrame *f, Rect in, const BpeReplay *rp, int bytes, int *widths) {
    int n = f->n_pos;
    if (n > MAX_CHIPS) return 0;
    int lo = viz_text_px(viz, VIZ_TEXT_TITLE), hi = in.h < VIZ_DISPLAY_PX_MAX ? in.h : VIZ_DISPLAY_PX_MAX, best = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        viz_set_display_px(viz, mid);
        ChipMetrics m = chip_metrics(viz, in.w, VIZ_TEXT_DISPLAY, small_for(viz, mid), bytes, f);
        int cut = 0;
        for (int p = 0; p < n; p++) {
            widths[p] = chip_natural_width(viz, f, p, &m);
            cut |= widths[p] > in.w;
        }
        BpeSizes bs = {VIZ_TEXT_DISPLAY, m.small_size};
        int need = rows_needed(viz, f, widths, 0, 0, in.w, &m) * (m.h + m.row_gap) + bpe_replay_height(viz, rp, bs);
        if (!cut && need <= in.h) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

/* Header: title and counts; the position legend and the key to the marks only when a
 * row of chips still fits under them (small panels at a large UI scale). Cuts it off
 * the top of *in. */
static int draw_header(Viz *viz, Rect *in, const VizFrame *f, int n, const ChipMetrics *m) {
    const Theme *th = viz->theme;
    int rc = 0;
    ColorbarSpec cb = {.map = th->sequential, .vmin = 0, .vmax = n > 1 ? n - 1 : 1,
                       .label = "position", .target_ticks = 3};
    int cb_h = draw_colorbar_size(viz, &cb, viz_px(viz, 8));
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int gap_h = viz_px(viz, 8);
    int full_head = cb_h > title_h ? cb_h : title_h;
    int compact = in->h < full_head + gap_h + m->h;
    if (compact && in->h < title_h + viz_px(viz, 4) + m->h) {
        /* not even a title row: "Tokens" beside the chips, the strip after it */
        Rect tc = rect_cut_left(in, viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, "Tokens") + viz_px(viz, 12));
        TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        return draw_text(viz, tc.x, tc.y + (m->h < tc.h ? m->h : tc.h) / 2, "Tokens", &ts, NULL);
    }
    Rect head = rect_cut_top(in, compact ? title_h : full_head);
    if (!compact) {
        Rect legend = rect_cut_right(&head, in->w / 4 < viz_px(viz, 200) ? in->w / 4 : viz_px(viz, 200));
        rc |= draw_colorbar(viz, legend, &cb, NULL);
        rect_cut_right(&head, viz_px(viz, 12));
    }
    Rect tr = rect_cut_top(&head, title_h);
    int tw = 0;
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    rc |= draw_text(viz, tr.x, tr.y, "Tokens", &ts, &tw);
    char counts[96];
    int n_prompt = f ? (f->n_prompt < n ? f->n_prompt : n) : 0;
    snprintf(counts, sizeof counts, "%d prompt \xE2\x94\x82 %d generated (underlined)", n_prompt, n - n_prompt);
    /* the short form rather than a cut one */
    TextStyle cs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                    .valign = VIZ_ALIGN_MIDDLE};
    Rect cr = {tr.x + tw + viz_px(viz, 12), tr.y, tr.w - tw - viz_px(viz, 12), tr.h};
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, counts) > cr.w)
        snprintf(counts, sizeof counts, "%d \xE2\x94\x82 %d", n_prompt, n - n_prompt);
    rc |= draw_text_in_rect(viz, cr, counts, &cs);
    if (!compact) {
        /* key to the marks, under the title (what a student asks first) */
        Rect key = rect_cut_top(&head, viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL));
        TextStyle ks = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .valign = VIZ_ALIGN_MIDDLE};
        static const char *const keys[] = {
            TOKEN_MARK_SPACE " space    " TOKEN_MARK_NEWLINE " newline    <e2 80> bytes of a split character    "
            "tinted: newest",
            TOKEN_MARK_SPACE " space   " TOKEN_MARK_NEWLINE " newline   <e2 80> bytes",
            TOKEN_MARK_SPACE " space   <e2 80> bytes"};
        static const char *const pen_keys[] = {
            "\xCE\x94\xE2\x88\x92" "1.5: what the penalties did to this token's logit for the next draw    "
            TOKEN_MARK_SPACE " space    <e2 80> bytes",
            "\xCE\x94: logit change by the penalties   " TOKEN_MARK_SPACE " space",
            "\xCE\x94: change by the penalties"};
        const char *const *kl = m->pen_h ? pen_keys : keys;
        const char *k = viz_text_first_fitting(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, kl, 3, key.w);
        rc |= draw_text_in_rect(viz, key, k, &ks);
    }
    rect_cut_top(in, compact ? viz_px(viz, 4) : gap_h);
    return rc;
}

int tokens_panel_height(Viz *viz, int w, const VizFrame *f, int max_rows, int max_h) {
    int pad = draw_panel_pad(viz);
    int inner_w = w - 2 * pad;
    ChipMetrics m = chip_metrics(viz, inner_w, VIZ_TEXT_TITLE, VIZ_TEXT_SMALL, 0, f);
    ColorbarSpec cb = {.map = viz->theme->sequential, .vmin = 0, .vmax = 1, .label = "position", .target_ticks = 3};
    int cb_h = draw_colorbar_size(viz, &cb, viz_px(viz, 8));
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int full_head = (cb_h > title_h ? cb_h : title_h) + viz_px(viz, 8);
    int n = f && f->ids && f->tok ? f->n_pos : 0;
    int rows = 1;
    if (n > 0 && inner_w > 0) {
        int widths[MAX_CHIPS] = {0};
        int base = n > MAX_CHIPS ? n - MAX_CHIPS : 0;
        for (int p = base; p < n; p++) widths[p - base] = chip_width(viz, f, p, &m);
        rows = rows_needed(viz, f, widths, base, base, inner_w, &m);
    }
    if (rows > max_rows) rows = max_rows;
    int replay = 0;
    if (n > 0) {
        BpeReplay rp = bpe_replay_find(f);
        replay = bpe_replay_height(viz, &rp, (BpeSizes){VIZ_TEXT_TITLE, VIZ_TEXT_BODY});
    }
    /* the richest that fits max_h: every row with the full header, one row, then the
     * title beside the chips (draw_header makes the same choice from the height) */
    const int heads[4] = {full_head, full_head, 0, 0};
    const int n_rows[4] = {rows, 1, rows, 1};
    int h = 0;
    for (int i = 0; i < 4; i++) {
        h = 2 * pad + heads[i] + n_rows[i] * (m.h + m.row_gap) + replay;
        if (h <= max_h) break;
    }
    return h;
}

int draw_tokens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    int n = f && f->ids && f->tok ? f->n_pos : 0;
    ChipMetrics m = chip_metrics(viz, in.w, VIZ_TEXT_TITLE, VIZ_TEXT_SMALL, 0, f);
    if (m.pen_h && m.h > in.h) { /* a strip too low for the penalty line: chips stay whole */
        m.h -= m.pen_h;
        m.pen_h = 0;
    }
    rc |= draw_header(viz, &in, f, n, &m);
    if (n <= 0) {
        TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        rc |= draw_text_in_rect(viz, in, "No prompt yet.", &es);
        draw_set_clip(viz, NULL);
        return rc || viz->has_error ? -1 : 0;
    }

    int widths[MAX_CHIPS] = {0}; /* (filled below; zeroed for the compiler) */
    int base = n > MAX_CHIPS ? n - MAX_CHIPS : 0;
    BpeReplay rp = bpe_replay_find(f);
    BpeSizes bs = {VIZ_TEXT_TITLE, VIZ_TEXT_BODY};
    /* alone, the chips are set large; each also shows its bytes when that costs the
     * label little (a short prompt on a slide: the strip is as wide as the slide anyway) */
    int fill_px = f->view.fill ? fill_label_px(viz, f, in, &rp, 0, widths) : 0;
    int bytes = 0;
    if (fill_px > 0) {
        int with_bytes = fill_label_px(viz, f, in, &rp, 1, widths);
        bytes = with_bytes * 10 >= fill_px * 9;
        if (bytes) fill_px = with_bytes;
        viz_set_display_px(viz, fill_px);
        m = chip_metrics(viz, in.w, VIZ_TEXT_DISPLAY, small_for(viz, fill_px), bytes, f);
        bs = (BpeSizes){VIZ_TEXT_DISPLAY, m.small_size};
    }
    for (int p = base; p < n; p++) widths[p - base] = chip_width(viz, f, p, &m);

    /* BPE replay below the strip: all it wants if the chips still fit, else at most
     * half, and never the last row of chips */
    int want = bpe_replay_height(viz, &rp, bs);
    int row_step = m.h + m.row_gap;
    int chips_h = rows_needed(viz, f, widths, base, base, in.w, &m) * row_step;
    if (fill_px > 0) { /* a slide: the block of chips and replay centred in the panel */
        int slack = in.h - chips_h - want;
        if (slack > 0) in = rect_inset4(in, 0, slack / 2, 0, slack - slack / 2);
    }
    int max_replay = in.h - chips_h;
    if (max_replay < in.h / 2) max_replay = in.h / 2;
    if (max_replay > in.h - row_step) max_replay = in.h - row_step;
    if (want > max_replay) want = max_replay > 0 ? max_replay : 0;
    /* a replay without room for its title and one row is not shown at all */
    if (want < bpe_replay_height(viz, &(BpeReplay){.note = "x"}, bs) + m.label_h) want = 0;
    Rect replay = rect_cut_bottom(&in, want);

    /* the smallest start whose layout fits the rows available: rows needed only
     * shrink as start grows, so binary search */
    int max_rows = (in.h + m.row_gap) / row_step;
    if (max_rows < 1) max_rows = 1;
    m.one_row = max_rows == 1;
    int lo = base, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (rows_needed(viz, f, widths, base, mid, in.w, &m) <= max_rows) hi = mid;
        else lo = mid + 1;
    }
    /* the newest chip must be seen: without the marker when both do not fit */
    if (rows_needed(viz, f, widths, base, lo, in.w, &m) > max_rows) m.no_marker = 1;
    DrawCtx ctx = {viz, f, &m, in, rect_inset(r, 1), hits, 0};
    int rows = strip_layout(viz, f, widths, base, lo, in.w, &m, place_draw, &ctx);
    rc |= ctx.rc;
    /* the replay follows the chips directly when they leave room */
    int below = in.y + rows * row_step + m.row_gap;
    if (replay.h > 0 && below < replay.y) {
        replay.h += replay.y - below;
        replay.y = below;
    }

    if (replay.h > 0) rc |= draw_bpe_replay(viz, replay, f, &rp, bs);
    /* one row with at most three chips of a longer text: the status line offers F */
    if (m.one_row && lo > base && n - lo <= 3) rc |= draw_enlarge_hint(viz, VIZ_PANEL_TOKENS, f);
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
