/* panel_probs.c — draw_probs_panel (panels.h): the next-token distribution through
 * the sampler's stages, from one SamplerRecord: per candidate the model's own
 * probability (T=1, outlined), after temperature (filled), cut by top-k/top-p (grey,
 * hatched, "cut"), renormalised (solid); an "all other N tokens" row so the accounting
 * covers the whole vocabulary (never clipped: past the axis end it is drawn broken,
 * with its number); and the draw — u on the cumulative 0..1 strip. The hovered row
 * gets a card with its full label and every stage's number.
 * Layout first (panel_probs_layout.c), the axis in panel_probs_axis.c, then drawing.
 * Only reads the record (the sampler did the math); sums for display only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_probs_layout.h"
#include "panels.h"
#include "prob_format.h"
#include "token_label.h"

#define ARROW_RIGHT "\xE2\x86\x92"  /* → */
#define CHOSEN_MARK "\xE2\x96\xB6"  /* ▶ */
#define MIDDOT "\xC2\xB7"           /* · */

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
        draw_hatch(viz, sw, panel, 0, 0, viz_px(viz, 5), bs.cut_hatch);
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

/* The open question instead of the bars: a card with the question set as large as
 * it fits (wrapped), so the class reads it from the back; the key hint in the window. */
static int draw_question_card(Viz *viz, Rect area, const VizFrame *f) {
    const Theme *th = viz->theme;
    const char *q = f->question && *f->question ? f->question : "Which token comes next?";
    int pad = viz_px(viz, 14);
    int hint_h = f->view.print ? 0 : viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) + viz_px(viz, 6);
    /* alone the card takes most of the panel; in the window's layout four title lines */
    int w = area.w * 9 / 10, h = f->view.fill ? area.h * 4 / 5 : viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE) * 4;
    if (h > area.h) h = area.h;
    Rect card = rect_center(area, w, h);
    int rc = draw_fill_rect(viz, card, color_mix(th->panel, th->accent, 0.08f));
    rc |= draw_rect_outline(viz, card, th->accent, viz_px(viz, 3));
    Rect in = rect_inset(card, pad);
    Rect hint = rect_cut_bottom(&in, hint_h);
    int lo = viz_text_px(viz, VIZ_TEXT_TITLE), hi = f->view.fill ? in.h / 2 : 2 * lo, lines = 1;
    int px = draw_fit_wrapped_px(viz, VIZ_FONT_BOLD, q, in.w, in.h, lo, hi > lo ? hi : lo, &lines);
    (void)px;
    int lh = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_DISPLAY);
    if (lines < 1) lines = 1;
    Rect text = rect_center(in, in.w, lines * lh > in.h ? in.h : lines * lh);
    TextStyle qs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_DISPLAY, .color = th->text,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_wrapped_text(viz, text, q, &qs, lh, lines);
    if (hint_h > 0) {
        TextStyle hs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, hint, "press " ARROW_RIGHT " to reveal", &hs);
    }
    return rc;
}

/* Column rects of one bar row, from the layout's widths. */
typedef struct RowCols {
    Rect rank, label, bar, nums;
} RowCols;

static RowCols row_cols(Rect row, const ProbsCols *pc) {
    RowCols c;
    Rect r = row;
    c.rank = rect_cut_left(&r, pc->rank_w);
    c.label = rect_cut_left(&r, pc->label_w);
    rect_cut_left(&r, pc->gap);
    c.nums = rect_cut_right(&r, pc->nums_w);
    rect_cut_right(&r, pc->gap);
    c.bar = r;
    return c;
}

/* One candidate (or the "all other" aggregate when row == NULL). */
typedef struct BarValues {
    double p_raw, p_temp, p_final;
    int kept;
    double drawn;    /* share of the many rolls (f->draws) that came up, < 0: none */
} BarValues;

/* "//" across a bar that runs past the axis end: the axis is broken there, the bar's
 * number says how long it really is. */
static void draw_break_mark(Viz *viz, Rect b) {
    int x = b.x + b.w - viz_px(viz, 14), t = viz_px(viz, 3) > 2 ? viz_px(viz, 3) : 2;
    for (int k = 0; k < 2; k++) {
        int x0 = x + k * viz_px(viz, 6);
        draw_line(viz, x0 - viz_px(viz, 3), b.y + b.h + 1, x0 + viz_px(viz, 3), b.y - 2, viz->theme->panel, t);
    }
}

static int end_of(int a, int b, int c) {
    int m = a > b ? a : b;
    return m > c ? m : c;
}

/* The bars of one row inside cols.bar: the temperature bar (filled, or grey+hatched
 * when cut) in the upper part with the T=1 bar as an outline on it, the renormalised
 * bar thin underneath. Returns the x where the longest bar ends. */
static int draw_bars(Viz *viz, Rect bar, Rect panel, const BarValues *v, const ProbsAxis *ax, int aggregate) {
    BarStyle bs = bar_style(viz->theme);
    Rect b = rect_inset4(bar, 0, viz_px(viz, 2), 0, viz_px(viz, 2));
    int upper_h = b.h * 3 / 5, gap = viz_px(viz, 1) > 1 ? viz_px(viz, 1) : 1;
    Rect up = {b.x, b.y, 0, upper_h};
    Rect low = {b.x, b.y + upper_h + gap, 0, b.h - upper_h - gap};
    int lt = probs_bar_len(ax, v->p_temp, b.w), lr = probs_bar_len(ax, v->p_raw, b.w);
    int lf = probs_bar_len(ax, v->p_final, b.w);
    up.w = lt;
    if (aggregate) {
        draw_fill_rect(viz, up, bs.other_fill);
    } else if (v->kept) {
        draw_fill_rect(viz, up, bs.temp_fill);
    } else {
        draw_fill_rect(viz, up, bs.cut_fill);
        draw_hatch(viz, up, panel, 0, 0, viz_px(viz, 5), bs.cut_hatch);
    }
    if (lr > 0) draw_rect_outline(viz, (Rect){b.x, b.y, lr, upper_h}, bs.raw_line, 1);
    low.w = lf;
    draw_fill_rect(viz, low, aggregate ? color_mix(viz->theme->panel, viz->theme->text_muted, 0.7f) : bs.final_fill);
    if (v->drawn >= 0.0) {
        /* many rolls: the share each token came up, as a solid bar in the text colour
         * along the bottom of the final bar (the histogram over the bars; its number is
         * printed beside the row) */
        int t = viz_px(viz, 3) > 2 ? viz_px(viz, 3) : 2;
        int ld = probs_bar_len(ax, v->drawn, b.w);
        draw_fill_rect(viz, (Rect){b.x, b.y + b.h - t, ld, t}, viz->theme->text);
        if (ld > end_of(lt, lr, lf)) lf = ld;
    }
    if ((probs_past_axis(ax, v->p_temp) || probs_past_axis(ax, v->p_raw) || probs_past_axis(ax, v->p_final)) &&
        b.w > viz_px(viz, 24))
        draw_break_mark(viz, b);
    int end = lt > lr ? lt : lr;
    if (lf > end) end = lf;
    return b.x + end;
}

/* "all other 50,242 tokens" in the label columns, or "all other" there and the count
 * after the bar when the columns are narrow (large UI scale). Returns 1 when the count
 * still has to be written after the bar. */
static int other_label(Viz *viz, VizTextSize size, long long n, int w, char *buf, size_t cap) {
    char cnt[32];
    probs_fmt_count(n, cnt, sizeof cnt);
    snprintf(buf, cap, "all other %s tokens", cnt);
    if (viz_text_width(viz, VIZ_FONT_SANS, size, buf) <= w) return 0;
    snprintf(buf, cap, "all other");
    return 1;
}

/* The hovered row's card: the full label (labels may be shortened), id, every stage,
 * on two lines; above the row, or below it when there is no room above. */
static void draw_row_tooltip(Viz *viz, Rect panel, Rect row, const VizFrame *f, const SamplerRow *sr) {
    const SamplerRecord *rec = f->rec;
    char lab[TOKEN_LABEL_CAP], c[24], line[2][TOKEN_LABEL_CAP + 160];
    token_label_ex(f->tok, sr->id, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
    snprintf(line[0], sizeof line[0], "#%d '%s' " MIDDOT " id %d", sr->rank + 1, lab, sr->id);
    char stages[192];
    probs_stage_text(rec, (int)(sr - rec->rows), 0, stages, sizeof stages);
    prob_format_pct(sr->p_final, c, sizeof c);
    if (sr->kept) snprintf(line[1], sizeof line[1], "%s " ARROW_RIGHT " final %s", stages, c);
    else snprintf(line[1], sizeof line[1], "%s " MIDDOT " cut by the sampler", stages);
    const Theme *th = viz->theme;
    int pad = viz_px(viz, 6), lh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    int w = 0;
    for (int i = 0; i < 2; i++) {
        int lw = viz_text_width(viz, i ? VIZ_FONT_SANS : VIZ_FONT_BOLD, VIZ_TEXT_BODY, line[i]);
        if (lw > w) w = lw;
    }
    w += 2 * pad;
    int h = 2 * lh + pad;
    if (w > panel.w - 2 * pad) w = panel.w - 2 * pad;
    int x = f->view.mouse_x + viz_px(viz, 12), y = row.y - h - viz_px(viz, 2);
    if (x + w > panel.x + panel.w - pad) x = panel.x + panel.w - pad - w;
    if (y < panel.y + pad) y = row.y + row.h + viz_px(viz, 2);
    Rect card = {x, y, w, h};
    draw_fill_rect(viz, card, th->panel);
    draw_rect_outline(viz, card, th->text, 1);
    Rect in = rect_inset4(card, pad, pad / 2, pad, pad / 2);
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    draw_text_in_rect(viz, rect_cut_top(&in, lh), line[0], &ts);
    ts.font = VIZ_FONT_SANS;
    draw_text_in_rect(viz, rect_cut_top(&in, lh), line[1], &ts);
}

/* ---- the panel ---------------------------------------------------------------- */

/* Title, subtitle and the message of a panel without bars (no record, too small). */
static int draw_no_bars(Viz *viz, Rect r, const VizFrame *f, const ProbsLayout *L, int has_layout) {
    const Theme *th = viz->theme;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    Rect in = draw_panel_inner(viz, r);
    if (!has_layout) {
        draw_text_in_rect(viz, rect_cut_top(&in, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE)), "Next token",
                          &tts);
        return draw_text_in_rect(viz, in,
                                 f && f->view.print ? "no prediction yet (a full context has no next token)"
                                                    : "no prediction yet (type a prompt; a full context has no next token)",
                                 &ms);
    }
    char title[160];
    probs_title(f->rec, title, sizeof title);
    draw_text_in_rect(viz, (Rect){L->title.x, L->title.y, in.w, L->title.h}, title, &tts);
    const char *msg = f->view.print ? "(panel too small)" : "too small: F enlarges it";
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, msg) > in.w) msg = f->view.print ? "(small)" : "F: enlarge";
    return draw_text_in_rect(viz, rect_inset4(in, 0, L->title.h, 0, 0), msg, &ms);
}

/* The dashed cutoff line between the last kept and the first cut row, labelled. */
static void draw_cutoff(Viz *viz, const SamplerRecord *rec, Rect rows_area, int n_rows, int kept_shown, Rect bar_span) {
    const Theme *th = viz->theme;
    int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int y = rect_grid_cell(rows_area, (size_t)n_rows, 1, (size_t)kept_shown, 0).y;
    int x1 = rows_area.x + rows_area.w;
    for (int x = rows_area.x; x < x1; x += viz_px(viz, 8)) /* dashed */
        draw_fill_rect(viz, (Rect){x, y - viz_px(viz, 1), viz_px(viz, 5), viz_px(viz, 2)}, th->text);
    char cl[96];
    if (rec->kept_after_p < rec->kept_after_k) snprintf(cl, sizeof cl, "top-p %g cutoff", (double)rec->settings.top_p);
    else snprintf(cl, sizeof cl, "top-k %d cutoff", rec->settings.top_k);
    TextStyle cs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = th->text,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_BOTTOM};
    int cw = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_SMALL, cl);
    Rect tag = {bar_span.x + bar_span.w - cw - viz_px(viz, 6), y - small_h - viz_px(viz, 2), cw + viz_px(viz, 6), small_h};
    draw_fill_rect(viz, tag, th->panel);
    draw_text(viz, bar_span.x + bar_span.w, y - viz_px(viz, 2), cl, &cs, NULL);
}

/* The "all other" row's own words on its bar: how long it is when the axis cannot show
 * it (past the end, or only the final number in the column) and, when the label
 * columns had no room, how many tokens it sums. After the bar's end when there is
 * room, else inside the bar (past the axis: just before the break mark). */
static void annotate_other(Viz *viz, Rect row, Rect bar, int end, const BarValues *v, const ProbsAxis *ax,
                           const ProbsLayout *L, const SamplerRecord *rec, VizTextSize size, int with_count) {
    const Theme *th = viz->theme;
    double longest = v->p_temp > v->p_raw ? v->p_temp : v->p_raw;
    int past = probs_past_axis(ax, longest);
    int want_num = past || (L->cols.compact && longest - v->p_final > 0.0005);
    int after_x = end + viz_px(viz, 6), right = bar.x + bar.w;
    int in_l = bar.x + viz_px(viz, 6), in_r = end - viz_px(viz, past ? 24 : 6);
    SDL_Color on_bar = color_text_on(bar_style(th).other_fill);
    if (want_num) {
        char a[24], nb[48];
        prob_format_pct(longest, a, sizeof a);
        if (rec->greedy || rec->settings.temperature == 1.0f || v->p_raw >= v->p_temp) snprintf(nb, sizeof nb, "T=1 %s", a);
        else snprintf(nb, sizeof nb, "T=%g %s", (double)rec->settings.temperature, a);
        int nw = viz_text_width(viz, VIZ_FONT_BOLD, size, nb);
        TextStyle ns = {.font = VIZ_FONT_BOLD, .size = size, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        if (!past && after_x + nw <= right) {
            draw_text_in_rect(viz, (Rect){after_x, row.y, nw, row.h}, nb, &ns);
            after_x += nw + viz_px(viz, 12);
        } else if (nw <= in_r - in_l) {
            ns.color = on_bar;
            draw_text_in_rect(viz, (Rect){in_r - nw, row.y, nw, row.h}, nb, &ns);
            in_r -= nw + viz_px(viz, 12);
        }
    }
    if (!with_count) return;
    char cnt[32], tail[48];
    probs_fmt_count((long long)rec->vocab_size - L->shown, cnt, sizeof cnt);
    snprintf(tail, sizeof tail, "%s tokens", cnt);
    int tw = viz_text_width(viz, VIZ_FONT_SANS, size, tail);
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = size, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    if (after_x + tw <= right) {
        draw_text_in_rect(viz, (Rect){after_x, row.y, tw, row.h}, tail, &ts);
    } else if (tw <= in_r - in_l) {
        ts.color = on_bar;
        draw_text_in_rect(viz, (Rect){in_l, row.y, tw, row.h}, tail, &ts);
    }
}

/* One bar row: rank, label (+ id), bars, numbers (+ stages). */
static void draw_row(Viz *viz, Rect row, Rect panel, const VizFrame *f, const ProbsLayout *L, const SamplerRow *sr,
                     const BarValues *v, const ProbsAxis *ax) {
    const Theme *th = viz->theme;
    const SamplerRecord *rec = f->rec;
    RowCols c = row_cols(row, &L->cols);
    int agg = sr == NULL, chosen = sr && sr->id == rec->chosen.id;
    int body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    VizTextSize second = f->view.fill ? VIZ_TEXT_BODY : VIZ_TEXT_SMALL;
    int second_h = viz_line_height(viz, VIZ_FONT_SANS, second);
    /* two lines are centred in the row as a block */
    int block_y = row.y + (row.h - (L->two_lines ? body_h + second_h - viz_px(viz, 2) : body_h)) / 2;
    if (chosen) draw_fill_rect(viz, row, color_mix(th->panel, th->highlight, 0.16f));
    char lab[TOKEN_LABEL_CAP], num[64];
    if (!agg) {
        TextStyle rs = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_SANS, .size = VIZ_TEXT_BODY,
                        .color = chosen ? th->accent : th->text_muted, .halign = VIZ_ALIGN_RIGHT,
                        .valign = VIZ_ALIGN_MIDDLE};
        snprintf(num, sizeof num, "%s#%d", chosen ? CHOSEN_MARK " " : "", sr->rank + 1);
        draw_text_in_rect(viz, rect_inset4(c.rank, 0, 0, viz_px(viz, 6), 0), num, &rs);
    }
    TextStyle ls = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_BODY,
                    .color = v->kept || agg ? th->text : th->cut, .valign = VIZ_ALIGN_MIDDLE};
    int count_after_bar = 0;
    if (agg) {
        Rect lr = {c.rank.x, row.y, c.rank.w + c.label.w, row.h};
        ls.font = VIZ_FONT_SANS;
        ls.size = second;
        count_after_bar = other_label(viz, second, (long long)rec->vocab_size - L->shown, lr.w, lab, sizeof lab);
        draw_text_in_rect(viz, lr, lab, &ls);
    } else {
        token_label_ex(f->tok, sr->id, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, lab, sizeof lab);
        if (L->two_lines) {
            draw_text_in_rect(viz, (Rect){c.label.x, block_y, c.label.w, body_h}, lab, &ls);
            snprintf(num, sizeof num, "id %d", sr->id);
            TextStyle is = {.font = VIZ_FONT_SANS, .size = second, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
            draw_text_in_rect(viz, (Rect){c.label.x, block_y + body_h - viz_px(viz, 2), c.label.w, second_h}, num, &is);
        } else {
            draw_text_in_rect(viz, c.label, lab, &ls);
        }
    }
    int end = draw_bars(viz, c.bar, panel, v, ax, agg);
    if (agg) annotate_other(viz, row, c.bar, end, v, ax, L, rec, second, count_after_bar);
    if (sr && !sr->kept) {
        TextStyle cs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->cut, .valign = VIZ_ALIGN_MIDDLE};
        if (end + viz_px(viz, 30) < c.bar.x + c.bar.w) draw_text(viz, end + viz_px(viz, 4), row.y + row.h / 2, "cut", &cs, NULL);
    } else if (sr && v->drawn >= 0.0 && f->draws && (L->cols.compact || !L->two_lines)) {
        /* many rolls, no second line for the count: it goes after the bars */
        char cnt[32], t[40];
        probs_fmt_count((long long)(v->drawn * f->draws->n + 0.5), cnt, sizeof cnt);
        snprintf(t, sizeof t, "%s\xC3\x97", cnt);
        TextStyle cs = {.font = VIZ_FONT_BOLD, .size = second, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        int tw = viz_text_width(viz, VIZ_FONT_BOLD, second, t);
        if (end + viz_px(viz, 6) + tw < c.bar.x + c.bar.w)
            draw_text(viz, end + viz_px(viz, 6), row.y + row.h / 2, t, &cs, NULL);
        /* no room after the bars: the line under the axis names the favourite's count */
    }
    /* numbers: the final probability in body text (bold if chosen), the stages under it */
    TextStyle ns = {.font = chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = VIZ_TEXT_BODY, .color = th->text,
                    .valign = VIZ_ALIGN_MIDDLE};
    if (!agg && !sr->kept) {
        snprintf(num, sizeof num, "cut");
        ns.color = th->cut;
    } else {
        prob_format_pct(v->p_final, num, sizeof num);
    }
    if (L->cols.compact || !L->two_lines) {
        draw_text_in_rect(viz, c.nums, num, &ns);
    } else {
        char stages[192];
        probs_stage_text(rec, agg ? -1 : (int)(sr - rec->rows), L->shown, stages, sizeof stages);
        if (v->drawn >= 0.0 && f->draws && (agg || sr->kept)) { /* many rolls: how often this row came up */
            char cnt[32], pc[24];
            probs_fmt_count((long long)(v->drawn * f->draws->n + 0.5), cnt, sizeof cnt);
            prob_format_pct(v->drawn, pc, sizeof pc);
            snprintf(stages, sizeof stages, "drawn %s\xC3\x97 = %s", cnt, pc);
        }
        TextStyle ss = {.font = VIZ_FONT_SANS, .size = second, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
        draw_text_in_rect(viz, (Rect){c.nums.x, block_y, c.nums.w, body_h}, num, &ns);
        draw_text_in_rect(viz, (Rect){c.nums.x, block_y + body_h - viz_px(viz, 2), c.nums.w, second_h}, stages, &ss);
    }
}

/* legend of the bar styles */
static void draw_legend(Viz *viz, Rect r, const ProbsLayout *L) {
    static const int kinds[PROBS_LEGEND_ITEMS] = {SW_RAW, SW_TEMP, SW_FINAL, SW_CUT, SW_CHOSEN};
    for (int i = 0; i < PROBS_LEGEND_ITEMS && L->legend_item[i].w > 0; i++) {
        int lx = L->legend_item[i].x;
        legend_item(viz, L->legend_item[i], r, &lx, kinds[i], L->legend_text[i]);
    }
}

/* the aggregate row: every token not shown, summed by the sampler over the full
 * vocabulary (rows the view hides are added back here) */
static BarValues other_row_values(const SamplerRecord *rec, int shown, const SamplerDraws *dr) {
    BarValues other = {rec->other_raw, rec->other_temp, rec->other_final, 1, dr ? (double)dr->other_count / dr->n : -1.0};
    for (int i = shown; i < rec->n; i++) {
        other.p_raw += rec->rows[i].p_raw;
        other.p_temp += rec->rows[i].p_temp;
        other.p_final += rec->rows[i].p_final;
        if (dr) other.drawn += (double)dr->row_counts[i] / dr->n;
    }
    return other;
}

/* The longest bar of the rows shown (any stage, or the share of the rolls): the axis
 * is scaled to it. */
static double longest_bar(const SamplerRecord *rec, int shown, const SamplerDraws *dr) {
    double longest = 0.0;
    for (int i = 0; i < shown; i++) {
        const SamplerRow *row = &rec->rows[i];
        double m = fmax(row->p_raw, fmax(row->p_temp, row->p_final));
        if (dr) m = fmax(m, (double)dr->row_counts[i] / dr->n);
        if (m > longest) longest = m;
    }
    return longest;
}

/* parts switched off: a ghost mark at the original model's p of this token, so
 * the ablated bar is read against it (a line, not a colour) */
static void draw_ghost_mark(Viz *viz, Rect row, const ProbsCols *cols, const ProbsAxis *ax, double p_orig) {
    const Theme *th = viz->theme;
    Rect gb = row_cols(row, cols).bar;
    int gx = gb.x + probs_bar_len(ax, p_orig, gb.w);
    if (gx > gb.x + gb.w) gx = gb.x + gb.w;
    int t = viz_px(viz, 2);
    draw_fill_rect(viz, (Rect){gx - t / 2, row.y + viz_px(viz, 1), t, row.h - viz_px(viz, 2)}, th->text);
    draw_fill_rect(viz, (Rect){gx - t * 2, row.y + viz_px(viz, 1), t * 4, t}, th->text);
    draw_fill_rect(viz, (Rect){gx - t * 2, row.y + row.h - viz_px(viz, 1) - t, t * 4, t}, th->text);
}

/* summary line(s), placed by the layout so they never overlap */
static void draw_summary_lines(Viz *viz, const ProbsLayout *L) {
    const Theme *th = viz->theme;
    for (int i = 0; i < L->n_summary; i++) {
        TextStyle sst = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        if (L->summary_is_chosen[i]) {
            sst.font = VIZ_FONT_BOLD;
            sst.color = th->accent;
        }
        draw_text_in_rect(viz, L->summary[i], L->summary_text[i], &sst);
    }
}

int draw_probs_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect inner;
    draw_panel_begin(viz, r, &inner);
    const SamplerRecord *rec = f ? f->rec : NULL;
    ProbsLayout L;
    int has_layout = probs_panel_layout(viz, r, f, &L) == 0;
    if (!has_layout || L.too_small) {
        int rc = draw_no_bars(viz, r, f, &L, has_layout);
        draw_set_clip(viz, NULL);
        return rc;
    }
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    char title[160];
    probs_title(rec, title, sizeof title);
    Rect in_w = draw_panel_inner(viz, r); /* the full inner width for cut texts */
    draw_text_in_rect(viz, (Rect){L.title.x, L.title.y, in_w.w, L.title.h}, title, &tts);
    draw_text_in_rect(viz, (Rect){L.subtitle.x, L.subtitle.y, in_w.w, L.subtitle.h}, L.subtitle_text, &ms);
    if (f->view.hide_probs) {
        Rect area = in_w;
        area.y = L.subtitle.y + L.subtitle.h + viz_px(viz, 4);
        area.h = in_w.y + in_w.h - area.y;
        int rc = draw_question_card(viz, area, f);
        draw_set_clip(viz, NULL);
        return rc;
    }

    draw_legend(viz, r, &L);

    int shown = L.shown, n_rows = shown + 1;
    const SamplerDraws *dr = f->draws && f->draws->n > 0 ? f->draws : NULL;
    BarValues other = other_row_values(rec, shown, dr);
    double longest = longest_bar(rec, shown, dr);
    Rect rows_area = L.rows;
    RowCols span = row_cols((Rect){rows_area.x, rows_area.y, rows_area.w, L.row_h}, &L.cols);
    Rect bar_span = span.bar;
    /* about 4 ticks keep the axis end close to the longest bar; labels that do not fit
     * are thinned when drawn */
    int target = bar_span.w / viz_px(viz, 40);
    target = target < 2 ? 2 : target > 4 ? 4 : target;
    ProbsAxis ax = probs_axis_for(&f->view, longest, target);
    draw_probs_grid(viz, (Rect){bar_span.x, rows_area.y, bar_span.w, rows_area.h}, &ax);
    int kept_shown = 0, hover = -1;
    Rect hover_row = {0, 0, 0, 0};
    for (int i = 0; i < n_rows; i++) {
        int agg = i == shown;
        Rect row = rect_grid_cell(rows_area, (size_t)n_rows, 1, (size_t)i, 0);
        const SamplerRow *sr = agg ? NULL : &rec->rows[i];
        BarValues v = agg ? other
                          : (BarValues){sr->p_raw, sr->p_temp, sr->p_final, sr->kept,
                                        dr ? (double)dr->row_counts[i] / dr->n : -1.0};
        if (sr && sr->kept) kept_shown++;
        draw_row(viz, row, r, f, &L, sr, &v, &ax);
        if (!agg && f->p_orig) draw_ghost_mark(viz, row, &L.cols, &ax, f->p_orig[i]);
        if (!agg) viz_hits_add(hits, row, VIZ_HIT_PROB_BAR, sr->id, sr->rank);
        if (!agg && f->view.highlight_bar == i + 1) draw_rect_outline(viz, row, th->highlight, viz_px(viz, 2));
        if (sr && sr->id == rec->chosen.id) draw_rect_outline(viz, row, th->accent, 1);
        if (agg) draw_fill_rect(viz, (Rect){row.x, row.y, row.w, 1}, th->panel_border);
        if (!agg && rect_contains(row, f->view.mouse_x, f->view.mouse_y)) {
            hover = i;
            hover_row = row;
        }
    }
    draw_probs_axis(viz, bar_span, L.axis, (Rect){L.axis.x, L.axis.y, span.rank.w + span.label.w, L.axis.h}, &ax);
    if (!rec->greedy && rec->kept_after_p < rec->vocab_size && kept_shown < shown)
        draw_cutoff(viz, rec, rows_area, n_rows, kept_shown, bar_span);
    draw_summary_lines(viz, &L);
    if (L.strip.h > 0) probs_draw_strip(viz, rect_inset4(L.strip, bar_span.x - L.strip.x, 0, 0, 0), f, shown);
    if (L.dropped) draw_enlarge_hint(viz, VIZ_PANEL_PROBS, f);
    if (hover >= 0) draw_row_tooltip(viz, r, hover_row, f, &rec->rows[hover]);
    int rc = viz->has_error ? -1 : 0;
    draw_set_clip(viz, NULL);
    return rc;
}
