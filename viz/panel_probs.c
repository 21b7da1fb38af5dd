/* panel_probs.c — draw_probs_panel (panels.h): the next-token distribution through
 * the sampler's stages, from one SamplerRecord: per candidate the model's own
 * probability (T=1, outlined), after temperature (filled), cut by top-k/top-p (grey,
 * hatched, "cut"), renormalised (solid); an "all other N tokens" row so the accounting
 * covers the whole vocabulary; and the draw — u on the cumulative 0..1 strip.
 * Only reads the record (the sampler did the math); sums for display only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "ticks.h"
#include "token_label.h"

#define ARROW_RIGHT "\xE2\x86\x92"  /* → */
#define CHOSEN_MARK "\xE2\x96\xB6"  /* ▶ */
#define MIDDOT "\xC2\xB7"           /* · */

/* "50,242": counts of tokens are read aloud in class, so group the digits. */
static void fmt_count(long long n, char *buf, size_t cap) {
    char raw[32];
    snprintf(raw, sizeof raw, "%lld", n < 0 ? -n : n);
    size_t len = strlen(raw), o = 0;
    if (n < 0 && o + 1 < cap) buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < cap; i++) {
        buf[o++] = raw[i];
        size_t left = len - 1 - i;
        if (left > 0 && left % 3 == 0) buf[o++] = ',';
    }
    buf[o] = '\0';
}

/* A probability as a percentage with 3 significant digits ("87.2%", "0.0123%"): the
 * tiny model's flat distribution (p ≈ 2e-5) and a peaked one (p = 0.9) both read. */
static void fmt_pct(double p, char *buf, size_t cap) {
    if (p <= 0.0) snprintf(buf, cap, "0%%");
    else if (p < 1e-5) snprintf(buf, cap, "<0.001%%"); /* exponents read badly in class */
    else if (p >= 0.9995) snprintf(buf, cap, "%.1f%%", p * 100.0);
    else snprintf(buf, cap, "%.3g%%", p * 100.0);
}

/* Settings as the title states them: "T=0.8 · top-k 40 · top-p 0.95" (off = omitted). */
static void fmt_settings(const SamplerRecord *rec, char *buf, size_t cap) {
    if (rec->greedy) {
        snprintf(buf, cap, "greedy (argmax)");
        return;
    }
    int n = snprintf(buf, cap, "T=%g", (double)rec->settings.temperature);
    if (rec->settings.top_k > 0 && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " " MIDDOT " top-k %d", rec->settings.top_k);
    if (rec->settings.top_p < 1.0f && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " " MIDDOT " top-p %g", (double)rec->settings.top_p);
}

/* 45° hatch ("/") over r, then the clip goes back to `panel` (draw_set_clip is not a
 * stack). Hatching + grey + the word "cut" mark cut tokens: never colour alone. */
static int hatch_rect(Viz *viz, Rect r, Rect panel, int spacing, SDL_Color c) {
    Rect clip = rect_intersect(r, panel);
    if (clip.w <= 0 || clip.h <= 0) return 0;
    if (draw_set_clip(viz, &clip) != 0) return -1;
    int rc = 0;
    int dmin = r.x + r.y, dmax = r.x + r.w + r.y + r.h;
    int phase = ((dmin % spacing) + spacing) % spacing; /* anchored at x + y = 0 */
    for (int d = dmin - phase; d <= dmax && rc == 0; d += spacing)
        rc = draw_line(viz, d - (r.y + r.h), r.y + r.h, d - r.y + 1, r.y - 1, c, 1);
    if (draw_set_clip(viz, &panel) != 0) return -1;
    return rc;
}

/* Bar length in pixels for probability p on the 0..xmax axis across `w` pixels. */
static int bar_len(double p, double xmax, int w) {
    if (!(p > 0.0) || xmax <= 0.0) return 0;
    double f = p / xmax;
    if (f > 1.0) f = 1.0;
    int n = (int)lround(f * (double)w);
    return n < 1 ? 1 : n; /* a non-zero probability is never invisible */
}

/* The colours of the bar styles, shared by the bars and the legend. */
typedef struct BarStyle {
    SDL_Color temp_fill;  /* after temperature, kept */
    SDL_Color cut_fill;   /* after temperature, cut */
    SDL_Color cut_hatch;
    SDL_Color raw_line;   /* outline of the T=1 bar */
    SDL_Color final_fill; /* renormalised */
    SDL_Color other_fill; /* the "all other tokens" aggregate */
} BarStyle;

static BarStyle bar_style(const Theme *th) {
    BarStyle s;
    s.temp_fill = color_mix(th->panel, th->accent, 0.45f);
    s.cut_fill = color_mix(th->panel, th->cut, 0.25f);
    s.cut_hatch = th->cut;
    s.raw_line = th->text;
    s.final_fill = th->accent;
    s.other_fill = color_mix(th->panel, th->text_muted, 0.35f);
    return s;
}

/* One legend item: a small swatch drawn by kind, then the text; advances *x. */
enum { SW_RAW, SW_TEMP, SW_FINAL, SW_CUT, SW_CHOSEN };

static void legend_item(Viz *viz, Rect row, Rect panel, int *x, int kind, const char *text) {
    const Theme *th = viz->theme;
    BarStyle bs = bar_style(th);
    int sw_w = viz_px(viz, 20), gap = viz_px(viz, 5);
    Rect sw = {*x, row.y + row.h / 2 - viz_px(viz, 5), sw_w, viz_px(viz, 10)};
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    switch (kind) {
    case SW_RAW: draw_rect_outline(viz, sw, bs.raw_line, 1); break;
    case SW_TEMP: draw_fill_rect(viz, sw, bs.temp_fill); break;
    case SW_FINAL: draw_fill_rect(viz, rect_inset4(sw, 0, sw.h / 2, 0, 0), bs.final_fill); break;
    case SW_CUT:
        draw_fill_rect(viz, sw, bs.cut_fill);
        hatch_rect(viz, sw, panel, viz_px(viz, 5), bs.cut_hatch);
        break;
    default: {
        TextStyle cs = ts;
        cs.font = VIZ_FONT_BOLD;
        cs.color = th->accent;
        draw_text(viz, sw.x, row.y + row.h / 2, CHOSEN_MARK, &cs, NULL);
        break;
    }
    }
    int tw = 0;
    draw_text(viz, *x + sw_w + gap, row.y + row.h / 2, text, &ts, &tw);
    *x += sw_w + gap + tw + viz_px(viz, 14);
}

static int draw_question_card(Viz *viz, Rect area, const VizFrame *f) {
    const Theme *th = viz->theme;
    int body_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int w = area.w * 4 / 5, h = body_h * 4;
    Rect card = rect_center(area, w, h);
    draw_fill_rect(viz, card, color_mix(th->panel, th->accent, 0.08f));
    draw_rect_outline(viz, card, th->accent, viz_px(viz, 2));
    Rect in = rect_inset(card, viz_px(viz, 10));
    Rect top = rect_cut_top(&in, in.h / 2);
    TextStyle qs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_BOTTOM};
    draw_text_in_rect(viz, top, f->question && *f->question ? f->question : "Which token comes next?", &qs);
    TextStyle hs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_TOP};
    return draw_text_in_rect(viz, rect_inset4(in, 0, viz_px(viz, 6), 0, 0), "press " ARROW_RIGHT " to reveal", &hs);
}

/* The draw: the kept candidates' intervals [cum_lo, cum_hi) of the renormalised
 * distribution laid end to end on 0..1, u marked; the token whose interval holds u is
 * the one sampled (sampler.h). Kept tokens beyond the shown rows fill the rest of the
 * kept part in grey ("others"). */
static void draw_strip(Viz *viz, Rect area, const VizFrame *f, int shown) {
    const Theme *th = viz->theme;
    const SamplerRecord *rec = f->rec;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    Rect head = rect_cut_top(&area, small_h + viz_px(viz, 4));
    if (rec->greedy)
        draw_text_in_rect(viz, head, "The draw " MIDDOT " greedy: argmax " MIDDOT " no dice, the top token is taken", &ts);
    else
        draw_text_in_rect(viz, head, "The draw " MIDDOT " the token whose interval holds u is chosen", &ts);
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
            token_label(f->tok, row->id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
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

/* Column layout of one bar row. */
typedef struct RowCols {
    Rect rank, label, bar, nums;
} RowCols;

static RowCols row_cols(Viz *viz, Rect row, int label_w) {
    RowCols c;
    Rect r = row;
    c.rank = rect_cut_left(&r, viz_px(viz, 46));
    c.label = rect_cut_left(&r, label_w);
    rect_cut_left(&r, viz_px(viz, 8));
    c.nums = rect_cut_right(&r, viz_px(viz, 190));
    rect_cut_right(&r, viz_px(viz, 8));
    c.bar = r;
    return c;
}

/* One candidate (or the "all other" aggregate when row == NULL). */
typedef struct BarValues {
    double p_raw, p_temp, p_final;
    int kept;
} BarValues;

/* The bars of one row inside cols.bar: the temperature bar (filled, or grey+hatched
 * when cut) in the upper part with the T=1 bar as an outline on it, the renormalised
 * bar thin underneath. Returns the x where the longest bar ends. */
static int draw_bars(Viz *viz, Rect bar, Rect panel, const BarValues *v, double xmax, int aggregate) {
    BarStyle bs = bar_style(viz->theme);
    Rect b = rect_inset4(bar, 0, viz_px(viz, 2), 0, viz_px(viz, 2));
    int upper_h = b.h * 3 / 5, gap = viz_px(viz, 1) > 1 ? viz_px(viz, 1) : 1;
    Rect up = {b.x, b.y, 0, upper_h};
    Rect low = {b.x, b.y + upper_h + gap, 0, b.h - upper_h - gap};
    int lt = bar_len(v->p_temp, xmax, b.w), lr = bar_len(v->p_raw, xmax, b.w), lf = bar_len(v->p_final, xmax, b.w);
    up.w = lt;
    if (aggregate) {
        draw_fill_rect(viz, up, bs.other_fill);
    } else if (v->kept) {
        draw_fill_rect(viz, up, bs.temp_fill);
    } else {
        draw_fill_rect(viz, up, bs.cut_fill);
        hatch_rect(viz, up, panel, viz_px(viz, 5), bs.cut_hatch);
    }
    if (lr > 0) draw_rect_outline(viz, (Rect){b.x, b.y, lr, upper_h}, bs.raw_line, 1);
    low.w = lf;
    draw_fill_rect(viz, low, aggregate ? color_mix(viz->theme->panel, viz->theme->text_muted, 0.7f) : bs.final_fill);
    /* a bar longer than the axis is cut: say so with a break mark at the end */
    if ((v->p_temp > xmax || v->p_raw > xmax || v->p_final > xmax) && b.w > 8) {
        int x = b.x + b.w - viz_px(viz, 6);
        draw_fill_rect(viz, (Rect){x, b.y - 1, viz_px(viz, 3), b.h + 2}, viz->theme->panel);
    }
    int end = lt > lr ? lt : lr;
    if (lf > end) end = lf;
    return b.x + end;
}

int draw_probs_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    draw_set_clip(viz, &r);
    draw_fill_rect(viz, r, th->panel);
    draw_rect_outline(viz, r, th->panel_border, 1);
    Rect in = rect_inset(r, viz_px(viz, 10));
    const SamplerRecord *rec = f ? f->rec : NULL;

    /* title with the settings */
    char title[160], set[96];
    if (rec) {
        fmt_settings(rec, set, sizeof set);
        snprintf(title, sizeof title, "Next token " MIDDOT " %s", set);
    } else {
        snprintf(title, sizeof title, "Next token");
    }
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    draw_text_in_rect(viz, rect_cut_top(&in, title_h), title, &tts);
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    if (!rec || rec->n < 1 || rec->vocab_size < 1 || !f->tok) {
        TextStyle cs = ms;
        cs.size = VIZ_TEXT_BODY;
        cs.halign = VIZ_ALIGN_CENTER;
        int rc = draw_text_in_rect(viz, in, "no prediction yet (type a prompt; a full context has no next token)", &cs);
        draw_set_clip(viz, NULL);
        return rc;
    }
    char vocab[32], line[2 * TOKEN_LABEL_CAP + 160];
    fmt_count(rec->vocab_size, vocab, sizeof vocab);
    if (f->ids && f->n_pos > 0) {
        char last[TOKEN_LABEL_CAP];
        token_label(f->tok, f->ids[f->n_pos - 1], TOKEN_LABEL_DEFAULT, last, sizeof last);
        snprintf(line, sizeof line, "what follows '%s' (position %d) " MIDDOT " probabilities over all %s tokens",
                 last, f->n_pos - 1, vocab);
    } else {
        snprintf(line, sizeof line, "probabilities over all %s tokens", vocab);
    }
    draw_text_in_rect(viz, rect_cut_top(&in, small_h + viz_px(viz, 2)), line, &ms);
    rect_cut_top(&in, viz_px(viz, 4));

    if (f->view.hide_probs) {
        int rc = draw_question_card(viz, in, f);
        draw_set_clip(viz, NULL);
        return rc;
    }

    /* legend of the bar styles */
    Rect leg = rect_cut_top(&in, small_h + viz_px(viz, 6));
    int lx = leg.x;
    legend_item(viz, leg, r, &lx, SW_RAW, "model (T=1)");
    legend_item(viz, leg, r, &lx, SW_TEMP, rec->greedy ? "(no temperature)" : "after temperature");
    legend_item(viz, leg, r, &lx, SW_FINAL, "final (renormalised)");
    legend_item(viz, leg, r, &lx, SW_CUT, rec->greedy ? "cut (greedy keeps only the top)" : "cut (top-k / top-p)");
    legend_item(viz, leg, r, &lx, SW_CHOSEN, "chosen");
    rect_cut_top(&in, viz_px(viz, 4));

    /* bottom: the draw strip and, above it, the kept-mass summary */
    int strip_h = small_h + viz_px(viz, 4) + viz_px(viz, 24) + viz_px(viz, 3) + viz_px(viz, 6) + small_h;
    Rect strip = rect_cut_bottom(&in, strip_h);
    rect_cut_bottom(&in, viz_px(viz, 6));
    Rect summary = rect_cut_bottom(&in, body_h + viz_px(viz, 2));

    int shown = f->view.top_n < rec->n ? f->view.top_n : rec->n;
    if (shown < 1) shown = 1;
    /* the aggregate row: every token not shown, summed by the sampler over the full
     * vocabulary (rows the view hides are added back here) */
    BarValues other = {rec->other_raw, rec->other_temp, rec->other_final, 1};
    for (int i = shown; i < rec->n; i++) {
        other.p_raw += rec->rows[i].p_raw;
        other.p_temp += rec->rows[i].p_temp;
        other.p_final += rec->rows[i].p_final;
    }
    double xmax_raw = 0.0;
    for (int i = 0; i < shown; i++) {
        const SamplerRow *row = &rec->rows[i];
        double m = fmax(row->p_raw, fmax(row->p_temp, row->p_final));
        if (m > xmax_raw) xmax_raw = m;
    }
    double step = 0.0, ticks[16];
    ticks_nice(0.0, xmax_raw > 0 ? xmax_raw : 1.0, 4, ticks, 16, &step);
    double xmax = step > 0 ? ceil(xmax_raw / step - 1e-9) * step : 1.0;
    if (xmax <= 0.0) xmax = 1.0;
    if (xmax > 1.0) xmax = 1.0;

    /* rows: shown candidates + the aggregate, an axis under them */
    int axis_h = draw_axis_size(viz, VIZ_SIDE_BOTTOM, 0, xmax, 4, NULL);
    Rect rows_area = in;
    rect_cut_bottom(&rows_area, axis_h);
    int n_rows = shown + 1;
    int row_h = rows_area.h / n_rows;
    int max_row_h = viz_px(viz, 34);
    if (row_h > max_row_h) row_h = max_row_h;
    int two_lines = row_h >= body_h + small_h - viz_px(viz, 2);
    /* rows that do not need the whole height leave slack: pull the summary and the
     * strip up under the axis so the figure reads top to bottom without a hole */
    int slack = rows_area.h - n_rows * row_h;
    if (slack > 0) {
        summary.y -= slack;
        strip.y -= slack;
    }
    int label_w = viz_px(viz, 120);
    char lab[TOKEN_LABEL_CAP], num[64], num2[96];
    Rect bar_span = row_cols(viz, (Rect){rows_area.x, rows_area.y, rows_area.w, row_h}, label_w).bar;
    draw_axis(viz, (Rect){bar_span.x, rows_area.y, bar_span.w, row_h * n_rows}, VIZ_SIDE_BOTTOM, 0, xmax, 4, NULL, 1);
    int kept_shown = 0;
    for (int i = 0; i < n_rows; i++) {
        int agg = i == shown;
        Rect row = {rows_area.x, rows_area.y + i * row_h, rows_area.w, row_h};
        RowCols c = row_cols(viz, row, label_w);
        const SamplerRow *sr = agg ? NULL : &rec->rows[i];
        int chosen = sr && sr->id == rec->chosen.id;
        if (chosen) draw_fill_rect(viz, row, color_mix(th->panel, th->highlight, 0.16f));
        BarValues v = agg ? other : (BarValues){sr->p_raw, sr->p_temp, sr->p_final, sr->kept};
        if (sr && sr->kept) kept_shown++;
        /* rank */
        TextStyle rs = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_SANS, .size = VIZ_TEXT_BODY,
                        .color = chosen ? th->accent : th->text_muted, .halign = VIZ_ALIGN_RIGHT,
                        .valign = VIZ_ALIGN_MIDDLE};
        if (!agg) {
            snprintf(num, sizeof num, "%s#%d", chosen ? CHOSEN_MARK " " : "", i + 1);
            draw_text_in_rect(viz, rect_inset4(c.rank, 0, 0, viz_px(viz, 6), 0), num, &rs);
        }
        /* label: the token (mono, quoted by its marks) and its id underneath */
        TextStyle ls = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_BODY,
                        .color = v.kept || agg ? th->text : th->cut, .valign = VIZ_ALIGN_MIDDLE};
        if (agg) {
            char cnt[32];
            fmt_count((long long)rec->vocab_size - shown, cnt, sizeof cnt);
            snprintf(lab, sizeof lab, "all other %s tokens", cnt);
            ls.font = VIZ_FONT_SANS;
            ls.size = VIZ_TEXT_SMALL;
            draw_text_in_rect(viz, (Rect){c.rank.x, row.y, c.rank.w + c.label.w, row.h}, lab, &ls);
        } else {
            token_label(f->tok, sr->id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
            if (two_lines) {
                Rect top = {c.label.x, row.y, c.label.w, body_h};
                draw_text_in_rect(viz, top, lab, &ls);
                snprintf(num, sizeof num, "id %d", sr->id);
                TextStyle is = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                                .valign = VIZ_ALIGN_TOP};
                draw_text_in_rect(viz, (Rect){c.label.x, row.y + body_h - viz_px(viz, 2), c.label.w, small_h}, num, &is);
            } else {
                draw_text_in_rect(viz, c.label, lab, &ls);
            }
        }
        /* bars */
        int end = draw_bars(viz, c.bar, r, &v, xmax, agg);
        if (sr && !sr->kept) {
            TextStyle cs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->cut, .valign = VIZ_ALIGN_MIDDLE};
            if (end + viz_px(viz, 30) < c.bar.x + c.bar.w)
                draw_text(viz, end + viz_px(viz, 4), row.y + row.h / 2, "cut", &cs, NULL);
        }
        /* numbers: final (bold if chosen), then the earlier stages small */
        TextStyle ns = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_BODY,
                        .color = th->text, .halign = VIZ_ALIGN_LEFT, .valign = VIZ_ALIGN_MIDDLE};
        if (!agg && !sr->kept) {
            snprintf(num, sizeof num, "cut");
            ns.color = th->cut;
        } else {
            fmt_pct(v.p_final, num, sizeof num);
        }
        char a[24], b[24];
        fmt_pct(v.p_raw, a, sizeof a);
        fmt_pct(v.p_temp, b, sizeof b);
        if (rec->greedy) snprintf(num2, sizeof num2, "T=1 %s", a);
        else snprintf(num2, sizeof num2, "T=1 %s " ARROW_RIGHT " T=%g %s", a, (double)rec->settings.temperature, b);
        TextStyle ss = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .valign = VIZ_ALIGN_TOP};
        if (two_lines) {
            draw_text_in_rect(viz, (Rect){c.nums.x, row.y, c.nums.w, body_h}, num, &ns);
            draw_text_in_rect(viz, (Rect){c.nums.x, row.y + body_h - viz_px(viz, 2), c.nums.w, small_h}, num2, &ss);
        } else {
            char both[128];
            snprintf(both, sizeof both, "%s  (%s)", num, a);
            ns.size = VIZ_TEXT_SMALL;
            draw_text_in_rect(viz, c.nums, both, &ns);
        }
        if (!agg) viz_hits_add(hits, row, VIZ_HIT_PROB_BAR, sr->id, sr->rank);
        if (!agg && f->view.highlight_bar == i + 1)
            draw_rect_outline(viz, row, th->highlight, viz_px(viz, 2));
        if (chosen) draw_rect_outline(viz, row, th->accent, 1);
        if (agg) draw_fill_rect(viz, (Rect){row.x, row.y, row.w, 1}, th->panel_border);
    }

    /* the cutoff line between the last kept and the first cut row */
    int cut_here = !rec->greedy && rec->kept_after_p < rec->vocab_size;
    const char *which = rec->kept_after_p < rec->kept_after_k ? "top-p" : "top-k";
    char kept_n[32];
    fmt_count(rec->kept_after_p, kept_n, sizeof kept_n);
    if (cut_here && kept_shown < shown) {
        int y = rows_area.y + kept_shown * row_h;
        int x1 = rows_area.x + rows_area.w;
        for (int x = rows_area.x; x < x1; x += viz_px(viz, 8)) /* dashed */
            draw_fill_rect(viz, (Rect){x, y - viz_px(viz, 1), viz_px(viz, 5), viz_px(viz, 2)}, th->text);
        char cl[96];
        if (rec->kept_after_p < rec->kept_after_k)
            snprintf(cl, sizeof cl, "top-p %g cutoff", (double)rec->settings.top_p);
        else
            snprintf(cl, sizeof cl, "top-k %d cutoff", rec->settings.top_k);
        TextStyle cs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text,
                        .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_BOTTOM};
        int cw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, cl);
        Rect tag = {bar_span.x + bar_span.w - cw - viz_px(viz, 6), y - small_h - viz_px(viz, 2), cw + viz_px(viz, 6), small_h};
        draw_fill_rect(viz, tag, th->panel);
        draw_text(viz, bar_span.x + bar_span.w, y - viz_px(viz, 2), cl, &cs, NULL);
    }
    /* summary */
    char mass[24];
    fmt_pct(rec->kept_mass, mass, sizeof mass);
    TextStyle sst = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    if (rec->greedy) {
        token_label(f->tok, rec->chosen.id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
        snprintf(line, sizeof line, "greedy: argmax " MIDDOT " takes '%s' (%s at T=1) every time", lab, (fmt_pct(rec->chosen.p_raw, mass, sizeof mass), mass));
    } else if (cut_here) {
        snprintf(line, sizeof line, "%s: kept %s token%s = %s of the mass " MIDDOT " kept bars " ARROW_RIGHT " renormalised (\xC3\xB7 %.3g)",
                 which, kept_n, rec->kept_after_p == 1 ? "" : "s", mass, rec->kept_mass);
    } else {
        snprintf(line, sizeof line, "no cut: all %s tokens kept (100%% of the mass)", vocab);
    }
    draw_text_in_rect(viz, summary, line, &sst);
    if (rec->chosen.rank >= shown) {
        token_label(f->tok, rec->chosen.id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
        char extra[TOKEN_LABEL_CAP + 64];
        snprintf(extra, sizeof extra, "chosen: '%s' (rank %d, among \"all other\")", lab, rec->chosen.rank + 1);
        TextStyle es = sst;
        es.font = VIZ_FONT_BOLD;
        es.color = th->accent;
        es.halign = VIZ_ALIGN_RIGHT;
        draw_text_in_rect(viz, summary, extra, &es);
    }
    draw_strip(viz, rect_inset4(strip, bar_span.x - strip.x, 0, 0, 0), f, shown);
    int rc = viz->has_error ? -1 : 0;
    draw_set_clip(viz, NULL);
    return rc;
}
