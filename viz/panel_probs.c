/* panel_probs.c — draw_probs_panel (panels.h): the next-token distribution through
 * the sampler's stages, from one SamplerRecord: per candidate the model's own
 * probability (T=1, outlined), after temperature (filled), cut by top-k/top-p (grey,
 * hatched, "cut"), renormalised (solid); an "all other N tokens" row so the accounting
 * covers the whole vocabulary; and the draw — u on the cumulative 0..1 strip.
 * Layout first (probs_panel_layout, panel_probs_layout.h: longest wording that fits,
 * least important lines dropped when short), then drawing from that layout.
 * Only reads the record (the sampler did the math); sums for display only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_probs_layout.h"
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

/* "Next token · T=0.8 · top-k 40": the title states the settings. */
static void probs_title(const SamplerRecord *rec, char *buf, size_t cap) {
    char set[96];
    fmt_settings(rec, set, sizeof set);
    snprintf(buf, cap, "Next token " MIDDOT " %s", set);
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
    if (f->view.print) return 0; /* a printed question has no key to press */
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

/* Column widths: rank, token label, numbers; compact = a narrow panel, where the
 * numbers column keeps only the final probability so the bars keep a third of the
 * width (bars are the point of the panel). */
typedef struct ColWidths {
    int rank, label, nums, compact;
} ColWidths;

static ColWidths col_widths(Viz *viz, int width, int two_lines) {
    ColWidths w = {viz_px(viz, 46), viz_px(viz, 120), viz_px(viz, two_lines ? 190 : 150), 0};
    if (width - w.rank - w.label - w.nums - viz_px(viz, 16) < width * 35 / 100) {
        w.compact = 1;
        w.label = viz_px(viz, 96);
        w.nums = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, "0.00973%") + viz_px(viz, 4);
    }
    return w;
}

static RowCols row_cols(Viz *viz, Rect row, const ColWidths *cw) {
    RowCols c;
    Rect r = row;
    c.rank = rect_cut_left(&r, cw->rank);
    c.label = rect_cut_left(&r, cw->label);
    rect_cut_left(&r, viz_px(viz, 8));
    c.nums = rect_cut_right(&r, cw->nums);
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

/* ---- layout ------------------------------------------------------------------ */

/* The legend's wording, long (explains) and short (when a row has no room). */
static const char *legend_long(int i, int greedy) {
    static const char *const txt[PROBS_LEGEND_ITEMS] = {"model (T=1)", "after temperature", "final (renormalised)",
                                                        "cut (top-k / top-p)", "chosen"};
    if (greedy && i == 1) return "(no temperature)";
    if (greedy && i == 3) return "cut (greedy keeps only the top)";
    return txt[i];
}
static const char *legend_short(int i, int greedy) {
    static const char *const txt[PROBS_LEGEND_ITEMS] = {"T=1", "after T", "final", "cut", "chosen"};
    if (greedy && i == 1) return "(no T)";
    return txt[i];
}

static int legend_swatch_w(const Viz *viz) { return viz_px(viz, 20); }
static int legend_gap(const Viz *viz) { return viz_px(viz, 5); }
static int legend_spacing(const Viz *viz) { return viz_px(viz, 14); }

/* Flows the legend items into rows of width `w` starting at (x, y); returns the rows
 * used and writes each item's rect (swatch + text, tight). */
static int legend_flow(Viz *viz, int x, int y, int w, int row_h, const char *const *text, Rect *items) {
    int rows = 1, cx = x;
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) {
        int iw = legend_swatch_w(viz) + legend_gap(viz) + viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, text[i]);
        if (cx > x && cx + iw > x + w) {
            rows++;
            cx = x;
        }
        items[i] = (Rect){cx, y + (rows - 1) * row_h, iw < w ? iw : w, row_h};
        cx += iw + legend_spacing(viz);
    }
    return rows;
}

/* The summary under the axis: how much of the mass the cut kept (or greedy's rule),
 * long and short wording. */
static void summary_mass(const VizFrame *f, int shorter, char *buf, size_t cap) {
    const SamplerRecord *rec = f->rec;
    char mass[24], vocab[32], kept_n[32], lab[TOKEN_LABEL_CAP];
    fmt_pct(rec->kept_mass, mass, sizeof mass);
    fmt_count(rec->vocab_size, vocab, sizeof vocab);
    fmt_count(rec->kept_after_p, kept_n, sizeof kept_n);
    const char *which = rec->kept_after_p < rec->kept_after_k ? "top-p" : "top-k";
    if (rec->greedy) {
        token_label(f->tok, rec->chosen.id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
        char p[24];
        fmt_pct(rec->chosen.p_raw, p, sizeof p);
        if (shorter) snprintf(buf, cap, "greedy: always the argmax");
        else snprintf(buf, cap, "greedy: argmax " MIDDOT " takes '%s' (%s at T=1) every time", lab, p);
    } else if (rec->kept_after_p < rec->vocab_size) {
        if (shorter)
            snprintf(buf, cap, "%s kept %s = %s of the mass", which, kept_n, mass);
        else
            snprintf(buf, cap, "%s: kept %s token%s = %s of the mass " MIDDOT " kept bars " ARROW_RIGHT
                               " renormalised (\xC3\xB7 %.3g)",
                     which, kept_n, rec->kept_after_p == 1 ? "" : "s", mass, rec->kept_mass);
    } else {
        if (shorter) snprintf(buf, cap, "no cut: all tokens kept");
        else snprintf(buf, cap, "no cut: all %s tokens kept (100%% of the mass)", vocab);
    }
}

/* "chosen: '␣…' (rank 3736, among "all other")" — only when the chosen token has no
 * bar of its own. shorter: 0 full, 1 without "among", 2 the token alone. */
static void summary_chosen(const VizFrame *f, int shorter, char *buf, size_t cap) {
    char lab[TOKEN_LABEL_CAP];
    token_label(f->tok, f->rec->chosen.id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
    if (shorter > 1) snprintf(buf, cap, "chosen: '%s'", lab);
    else if (shorter) snprintf(buf, cap, "chosen: '%s' (rank %d)", lab, f->rec->chosen.rank + 1);
    else snprintf(buf, cap, "chosen: '%s' (rank %d, among \"all other\")", lab, f->rec->chosen.rank + 1);
}

static int strip_height(const Viz *viz) {
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    return small_h + viz_px(viz, 4) + viz_px(viz, 24) + viz_px(viz, 3) + viz_px(viz, 6) + small_h;
}

/* Height of the probability axis under the rows: line, ticks, tick labels. */
static int axis_height(const Viz *viz) {
    return 1 + viz_px(viz, 4) + viz_px(viz, 2) + viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
}

int probs_panel_layout(Viz *viz, Rect r, const VizFrame *f, ProbsLayout *out) {
    memset(out, 0, sizeof *out);
    const SamplerRecord *rec = f ? f->rec : NULL;
    if (!rec || rec->n < 1 || rec->vocab_size < 1 || !f->tok) return -1;
    Rect in = rect_inset(r, viz_px(viz, 10));
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int gap = viz_px(viz, 6), gap4 = viz_px(viz, 4);

    /* subtitle: long, or without the vocabulary clause */
    char vocab[32], last[TOKEN_LABEL_CAP];
    fmt_count(rec->vocab_size, vocab, sizeof vocab);
    if (f->ids && f->n_pos > 0) {
        token_label(f->tok, f->ids[f->n_pos - 1], TOKEN_LABEL_DEFAULT, last, sizeof last);
        snprintf(out->subtitle_text, sizeof out->subtitle_text,
                 "what follows '%s' (position %d) " MIDDOT " probabilities over all %s tokens", last, f->n_pos - 1,
                 vocab);
        if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, out->subtitle_text) > in.w)
            snprintf(out->subtitle_text, sizeof out->subtitle_text, "what follows '%s' (position %d)", last,
                     f->n_pos - 1);
    } else {
        snprintf(out->subtitle_text, sizeof out->subtitle_text, "probabilities over all %s tokens", vocab);
    }
    int sub_h = small_h + viz_px(viz, 2);

    /* legend: long words on one row, else short words on one row, else long words
     * flowed over two rows, else short ones over as many as needed */
    int leg_row_h = small_h + viz_px(viz, 6);
    const char *lt[PROBS_LEGEND_ITEMS], *st[PROBS_LEGEND_ITEMS];
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) {
        lt[i] = legend_long(i, rec->greedy);
        st[i] = legend_short(i, rec->greedy);
    }
    const char *const *pick = lt;
    int leg_rows = legend_flow(viz, in.x, 0, in.w, leg_row_h, lt, out->legend_item);
    if (leg_rows > 1 && legend_flow(viz, in.x, 0, in.w, leg_row_h, st, out->legend_item) == 1) pick = st;
    else if (leg_rows > 2) pick = st;
    leg_rows = legend_flow(viz, in.x, 0, in.w, leg_row_h, pick, out->legend_item);
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) out->legend_text[i] = pick[i];

    /* the summary wording: the chosen token's line only when it has no bar */
    char mass_l[PROBS_TEXT_CAP], mass_s[PROBS_TEXT_CAP], ch_l[PROBS_TEXT_CAP], ch_s[PROBS_TEXT_CAP];
    summary_mass(f, 0, mass_l, sizeof mass_l);
    summary_mass(f, 1, mass_s, sizeof mass_s);
    summary_chosen(f, 0, ch_l, sizeof ch_l);
    summary_chosen(f, 1, ch_s, sizeof ch_s);
    char ch_xs[PROBS_TEXT_CAP];
    summary_chosen(f, 2, ch_xs, sizeof ch_xs);
    int wm_l = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, mass_l);
    int wm_s = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, mass_s);
    int wc_l = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, ch_l);
    int wc_s = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, ch_s);
    const char *mass = wm_l <= in.w ? mass_l : mass_s, *ch = wc_l <= in.w ? ch_l : ch_s;
    int wm = wm_l <= in.w ? wm_l : wm_s, wc = wc_l <= in.w ? wc_l : wc_s;
    if (wc > in.w) { /* a narrow panel: just the token */
        ch = ch_xs;
        wc = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, ch_xs);
    }
    /* both on one line, the longest wording that fits (k = -1: none does) */
    const char *m1[4] = {mass_l, mass_s, mass_l, mass_s}, *c1[4] = {ch_l, ch_l, ch_s, ch_s};
    int wm1[4] = {wm_l, wm_s, wm_l, wm_s}, wc1[4] = {wc_l, wc_l, wc_s, wc_s}, one_line = -1;
    for (int k = 0; k < 4 && one_line < 0; k++)
        if (wm1[k] + viz_px(viz, 24) + wc1[k] <= in.w) one_line = k;

    /* what to give up when the panel is short, least important first: the second
     * summary line (the mass is also in the "all other" row), the strip, the subtitle,
     * the legend, the mass line. Rows are at least PROBS_MIN_ROW_PX tall (below
     * that, the ink of neighbouring labels touches); the bars shrink to 5 (then 3) before anything
     * but the second summary line goes. Level: what is dropped; need: rows required.
     * The chosen token is always named, by its bar or by its line. */
    int want = f->view.top_n < rec->n ? f->view.top_n : rec->n;
    if (want < 1) want = 1;
    int axis_h = axis_height(viz), sum_h = body_h + viz_px(viz, 2), strip_h = strip_height(viz);
    int min5 = want < 5 ? want : 5, min3 = want < 3 ? want : 3, min2 = want < 2 ? want : 2;
    static const int plan_level[] = {0, 1, 0, 1, 2, 3, 4, 5, 5};
    int plan_need[] = {want, want, min5, min5, min3, min3, min3, min2, 1};
    /* in logical pixels, so a 2x export makes the same choices as the window */
    int min_row = viz_px(viz, PROBS_MIN_ROW_PX);
    int level = -1, fit = 0, has_chosen = 0, n_sum = 0;
    for (size_t p = 0; p < sizeof plan_level / sizeof plan_level[0]; p++) {
        int lv = plan_level[p];
        int top = title_h + (lv < 3 ? sub_h + gap4 : 0) + (lv < 4 ? leg_rows * leg_row_h + gap4 : 0);
        /* the chosen token needs a line when its rank is beyond the rows shown */
        has_chosen = rec->chosen.rank >= plan_need[p];
        /* level 5 keeps only the chosen line: a draw nobody can see is not shown */
        n_sum = lv >= 5 ? has_chosen : (has_chosen && one_line < 0 && lv < 1) ? 2 : 1;
        int bottom = axis_h + gap + n_sum * sum_h + (lv < 2 ? strip_h + gap : 0);
        fit = (in.h - top - bottom) / min_row - 1; /* - 1: the "all other" row */
        if (fit >= plan_need[p]) {
            level = lv;
            break;
        }
    }
    if (level < 0) { /* not even one bar: only the title and a message */
        out->too_small = 1;
        out->title = rect_cut_top(&in, title_h);
        out->shown = 0;
        goto tight;
    }
    out->shown = fit < want ? fit : want;
    has_chosen = rec->chosen.rank >= out->shown;
    if (!has_chosen) n_sum = level >= 5 ? 0 : 1;

    out->title = rect_cut_top(&in, title_h);
    if (level < 3) {
        out->subtitle = rect_cut_top(&in, sub_h);
        rect_cut_top(&in, gap4);
    }
    if (level < 4) {
        Rect leg = rect_cut_top(&in, leg_rows * leg_row_h);
        for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) out->legend_item[i].y += leg.y;
        rect_cut_top(&in, gap4);
    } else {
        for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) out->legend_item[i] = (Rect){0, 0, 0, 0};
    }

    /* summary lines: y relative to the summary block, placed below */
    if (n_sum >= 1 && has_chosen && one_line >= 0) {
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", m1[one_line]);
        snprintf(out->summary_text[1], PROBS_TEXT_CAP, "%s", c1[one_line]);
        out->summary[0] = (Rect){in.x, 0, wm1[one_line], sum_h};
        out->summary[1] = (Rect){in.x + in.w - wc1[one_line], 0, wc1[one_line], sum_h};
        out->summary_is_chosen[1] = 1;
        out->n_summary = 2;
        n_sum = 1;
    } else if (n_sum == 2) {
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", mass);
        snprintf(out->summary_text[1], PROBS_TEXT_CAP, "%s", ch);
        out->summary[0] = (Rect){in.x, 0, wm < in.w ? wm : in.w, sum_h};
        out->summary[1] = (Rect){in.x, sum_h, wc < in.w ? wc : in.w, sum_h};
        out->summary_is_chosen[1] = 1;
        out->n_summary = 2;
    } else if (n_sum == 1) {
        const char *t = has_chosen ? ch : mass;
        int w = has_chosen ? wc : wm;
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", t);
        out->summary[0] = (Rect){in.x, 0, w < in.w ? w : in.w, sum_h};
        out->summary_is_chosen[0] = has_chosen;
        out->n_summary = 1;
    }

    /* rows, then the axis, the summary and the strip right under them: rows that do
     * not need the whole height leave the slack at the bottom, not as a hole */
    int rows_avail = in.h - axis_h - gap - n_sum * sum_h - (level < 2 ? strip_h + gap : 0);
    int n_rows = out->shown + 1;
    /* rows share the height to the pixel (rect_grid_cell), not a rounded row height
     * times n: a 2x export then puts every row where the 1x one does */
    int rows_h = rows_avail < viz_px(viz, 34) * n_rows ? rows_avail : viz_px(viz, 34) * n_rows;
    out->row_h = rows_h / n_rows;
    out->two_lines = out->row_h >= body_h + small_h - viz_px(viz, 2);
    out->rows = (Rect){in.x, in.y, in.w, rows_h};
    out->axis = (Rect){in.x, out->rows.y + out->rows.h, in.w, axis_h};
    int y = out->axis.y + axis_h + gap;
    for (int i = 0; i < out->n_summary; i++) out->summary[i].y += y;
    y += n_sum * sum_h;
    if (level < 2) out->strip = (Rect){in.x, y + gap, in.w, strip_h};
tight:;
    /* the tight title and subtitle boxes (text is cut to the panel width) */
    char title[160];
    probs_title(rec, title, sizeof title);
    int tw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title);
    out->title.w = tw < out->title.w ? tw : out->title.w;
    int sw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, out->subtitle_text);
    out->subtitle.w = sw < out->subtitle.w ? sw : out->subtitle.w;
    return 0;
}

/* ---- the probability axis ------------------------------------------------------ */

/* 0 … xmax along the bars, labelled in percent (students read "0.01%", not "1e-04"),
 * grid lines across the rows, the right end always labelled, and "probability" in the
 * label column to say what the axis measures. Returns xmax as a probability. */
static double probs_axis_max(double xmax_raw, int target, double *step_pct) {
    double ticks[16], step = 0.0;
    double top = xmax_raw > 0.0 ? xmax_raw * 100.0 : 100.0;
    ticks_nice(0.0, top, target, ticks, 16, &step);
    double xmax = step > 0 ? ceil(top / step - 1e-9) * step : 100.0;
    if (!(xmax > 0.0) || xmax > 100.0) xmax = 100.0;
    if (!(step > 0.0)) step = xmax;
    *step_pct = step;
    return xmax / 100.0;
}

static void draw_probs_axis(Viz *viz, Rect bars, Rect axis, Rect title_col, double xmax, double step_pct) {
    const Theme *th = viz->theme;
    double xmax_pct = xmax * 100.0;
    int n = (int)floor(xmax_pct / step_pct + 1e-6);
    if (n > 20) n = 20;
    int tl = viz_px(viz, 4), gap = viz_px(viz, 2), air = viz_px(viz, 8);
    draw_fill_rect(viz, (Rect){bars.x, axis.y, bars.w, 1}, th->text_muted);
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_LEFT, .valign = VIZ_ALIGN_TOP};
    /* labels in the order end, 0, then the middle ones; a label that would touch one
     * already drawn is skipped (its tick stays), so the right end is always named */
    int lo[21], hi[21], n_drawn = 0;
    for (int k = 0; k <= n; k++) {
        int i = k == 0 ? n : k - 1;
        double v = i == n ? xmax_pct : i * step_pct; /* the end exactly, not a rounded sum */
        int x = bars.x + (int)lround(v / xmax_pct * (double)(bars.w - 1));
        draw_fill_rect(viz, (Rect){x, axis.y + 1, 1, tl}, th->text_muted);
        char buf[40], num[32];
        ticks_format(v, step_pct, num, sizeof num);
        snprintf(buf, sizeof buf, "%s%%", num);
        int w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, buf);
        int left = x - w / 2;
        if (left + w > axis.x + axis.w) left = axis.x + axis.w - w; /* the end stays inside */
        if (left < bars.x - w / 2) left = bars.x - w / 2;
        int clash = 0;
        for (int d = 0; d < n_drawn; d++) clash |= left < hi[d] + air && left + w + air > lo[d];
        if (clash) continue;
        lo[n_drawn] = left;
        hi[n_drawn++] = left + w;
        draw_text(viz, left, axis.y + 1 + tl + gap, buf, &ts, NULL);
    }
    TextStyle as = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_TOP};
    /* the title ends before the first label drawn (the "0%" under the bars' start) */
    int right = title_col.x + title_col.w - viz_px(viz, 6);
    for (int d = 0; d < n_drawn; d++)
        if (lo[d] - air < right) right = lo[d] - air;
    draw_text_in_rect(viz, (Rect){title_col.x, axis.y + 1 + tl + gap, right - title_col.x,
                                  viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL)},
                      "probability " ARROW_RIGHT, &as);
}

/* Grid lines at the axis ticks, drawn before the bars so the bars cover them. */
static void draw_probs_grid(Viz *viz, Rect bars, double xmax, double step_pct) {
    double xmax_pct = xmax * 100.0;
    int n = (int)floor(xmax_pct / step_pct + 1e-6);
    for (int i = 1; i <= n && i <= 20; i++) {
        double v = i == n ? xmax_pct : i * step_pct;
        int x = bars.x + (int)lround(v / xmax_pct * (double)(bars.w - 1));
        draw_fill_rect(viz, (Rect){x, bars.y, 1, bars.h}, viz->theme->grid);
    }
}

/* ---- the panel ---------------------------------------------------------------- */

int draw_probs_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    draw_set_clip(viz, &r);
    draw_fill_rect(viz, r, th->panel);
    draw_rect_outline(viz, r, th->panel_border, 1);
    const SamplerRecord *rec = f ? f->rec : NULL;
    int body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    ProbsLayout L;
    if (probs_panel_layout(viz, r, f, &L) != 0) {
        Rect in = rect_inset(r, viz_px(viz, 10));
        draw_text_in_rect(viz, rect_cut_top(&in, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE)), "Next token",
                          &tts);
        TextStyle cs = ms;
        cs.size = VIZ_TEXT_BODY;
        cs.halign = VIZ_ALIGN_CENTER;
        int rc = draw_text_in_rect(viz, in,
                                   f && f->view.print ? "no prediction yet (a full context has no next token)"
                                                      : "no prediction yet (type a prompt; a full context has no next token)",
                                   &cs);
        draw_set_clip(viz, NULL);
        return rc;
    }
    char title[160];
    probs_title(rec, title, sizeof title);
    Rect in_w = rect_inset(r, viz_px(viz, 10)); /* the full inner width for cut texts */
    draw_text_in_rect(viz, (Rect){L.title.x, L.title.y, in_w.w, L.title.h}, title, &tts);
    draw_text_in_rect(viz, (Rect){L.subtitle.x, L.subtitle.y, in_w.w, L.subtitle.h}, L.subtitle_text, &ms);

    if (L.too_small) {
        TextStyle cs = ms;
        cs.halign = VIZ_ALIGN_CENTER;
        Rect rest = rect_inset4(in_w, 0, L.title.h, 0, 0);
        int rc = draw_text_in_rect(viz, rest, f->view.print ? "(panel too small)" : "too small: enlarge or lower the UI scale", &cs);
        draw_set_clip(viz, NULL);
        return rc;
    }
    if (f->view.hide_probs) {
        Rect area = in_w;
        area.y = L.subtitle.y + L.subtitle.h + viz_px(viz, 4);
        area.h = in_w.y + in_w.h - area.y;
        int rc = draw_question_card(viz, area, f);
        draw_set_clip(viz, NULL);
        return rc;
    }

    /* legend of the bar styles */
    static const int kinds[PROBS_LEGEND_ITEMS] = {SW_RAW, SW_TEMP, SW_FINAL, SW_CUT, SW_CHOSEN};
    for (int i = 0; i < PROBS_LEGEND_ITEMS && L.legend_item[i].w > 0; i++) {
        int lx = L.legend_item[i].x;
        legend_item(viz, L.legend_item[i], r, &lx, kinds[i], L.legend_text[i]);
    }

    int shown = L.shown;
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
    int row_h = L.row_h, two_lines = L.two_lines, n_rows = shown + 1;
    Rect rows_area = L.rows;
    ColWidths cw = col_widths(viz, rows_area.w, two_lines);
    RowCols span_cols = row_cols(viz, (Rect){rows_area.x, rows_area.y, rows_area.w, row_h}, &cw);
    Rect bar_span = span_cols.bar;
    /* about 4 ticks keep the axis end close to the longest bar; labels that do not
     * fit are thinned when drawn */
    int target = bar_span.w / viz_px(viz, 40);
    target = target < 2 ? 2 : target > 4 ? 4 : target;
    double step_pct;
    double xmax = probs_axis_max(xmax_raw, target, &step_pct);
    draw_probs_grid(viz, (Rect){bar_span.x, rows_area.y, bar_span.w, rows_area.h}, xmax, step_pct);
    char lab[TOKEN_LABEL_CAP], num[64], num2[96];
    int kept_shown = 0;
    for (int i = 0; i < n_rows; i++) {
        int agg = i == shown;
        Rect row = rect_grid_cell(rows_area, (size_t)n_rows, 1, (size_t)i, 0);
        RowCols c = row_cols(viz, row, &cw);
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
        /* at T = 1 the temperature stage changes nothing: say it once */
        if (rec->greedy || rec->settings.temperature == 1.0f) snprintf(num2, sizeof num2, "T=1 %s", a);
        else snprintf(num2, sizeof num2, "T=1 %s " ARROW_RIGHT " T=%g %s", a, (double)rec->settings.temperature, b);
        TextStyle ss = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .valign = VIZ_ALIGN_TOP};
        if (cw.compact) {
            ns.size = two_lines ? VIZ_TEXT_BODY : VIZ_TEXT_SMALL;
            draw_text_in_rect(viz, c.nums, num, &ns);
        } else if (two_lines) {
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
    draw_probs_axis(viz, bar_span, L.axis, (Rect){L.axis.x, L.axis.y, span_cols.rank.w + span_cols.label.w, L.axis.h},
                    xmax, step_pct);

    /* the cutoff line between the last kept and the first cut row */
    int cut_here = !rec->greedy && rec->kept_after_p < rec->vocab_size;
    if (cut_here && kept_shown < shown) {
        int y = rect_grid_cell(rows_area, (size_t)n_rows, 1, (size_t)kept_shown, 0).y;
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
    /* summary line(s), placed by the layout so they never overlap */
    for (int i = 0; i < L.n_summary; i++) {
        TextStyle sst = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        if (L.summary_is_chosen[i]) {
            sst.font = VIZ_FONT_BOLD;
            sst.color = th->accent;
        }
        draw_text_in_rect(viz, L.summary[i], L.summary_text[i], &sst);
    }
    if (L.strip.h > 0) draw_strip(viz, rect_inset4(L.strip, bar_span.x - L.strip.x, 0, 0, 0), f, shown);
    int rc = viz->has_error ? -1 : 0;
    draw_set_clip(viz, NULL);
    return rc;
}
