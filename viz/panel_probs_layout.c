/* panel_probs_layout.c — the layout of the probability panel (panel_probs_layout.h):
 * which lines fit (longest wording first, least important dropped first), the columns
 * of a bar row, the shared wording (title, counts, summaries). Measures text, draws
 * nothing. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_probs_layout.h"
#include "prob_format.h"
#include "token_label.h"

#define ARROW_RIGHT "\xE2\x86\x92"  /* → */
#define CHOSEN_MARK "\xE2\x96\xB6"  /* ▶ */
#define MIDDOT "\xC2\xB7"           /* · */

void probs_fmt_count(long long n, char *buf, size_t cap) {
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

void probs_title(const SamplerRecord *rec, char *buf, size_t cap) {
    /* "Next token · T=0.8 · top-k 40 · top-p 0.95", off omitted (the settings table's words) */
    int n = snprintf(buf, cap, "Next token " MIDDOT " ");
    if (n > 0 && (size_t)n < cap) settings_format_line(&rec->settings, rec->greedy, SETTINGS_TITLE, buf + n, cap - (size_t)n);
}

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
    prob_format_pct(rec->kept_mass, mass, sizeof mass);
    probs_fmt_count(rec->vocab_size, vocab, sizeof vocab);
    probs_fmt_count(rec->kept_after_p, kept_n, sizeof kept_n);
    const char *which = rec->kept_after_p < rec->kept_after_k ? "top-p" : "top-k";
    char div[24];
    prob_format_sig(rec->kept_mass, 3, div, sizeof div);
    if (f->draws && f->draws->n > 0 && rec->n > 0) {
        /* many rolls: how often the favourite came up, and Pearson's χ² against p_final */
        const SamplerDraws *d = f->draws;
        char n_s[32], won[32], pf[24], pw[24], chi[24], pv[24];
        probs_fmt_count(d->n, n_s, sizeof n_s);
        probs_fmt_count(d->row_counts[0], won, sizeof won);
        char lost[32];
        probs_fmt_count(d->n - d->row_counts[0], lost, sizeof lost);
        prob_format_pct(rec->rows[0].p_final, pf, sizeof pf);
        prob_format_pct((double)d->row_counts[0] / d->n, pw, sizeof pw);
        prob_format_sig(d->chi2, 3, chi, sizeof chi);
        prob_format_sig(d->p_value, 2, pv, sizeof pv);
        token_label(f->tok, rec->rows[0].id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
        if (shorter) snprintf(buf, cap, "\xCF\x87\xC2\xB2 %s " MIDDOT " p = %s", chi, pv);
        else
            snprintf(buf, cap, "%s rolls (thin bars): '%s' (p %s) won %s = %s, lost %s " MIDDOT
                               " \xCF\x87\xC2\xB2 = %s, dof %d, p = %s",
                     n_s, lab, pf, won, pw, lost, chi, d->dof, pv);
        return;
    }
    if (rec->greedy) {
        token_label(f->tok, rec->chosen.id, TOKEN_LABEL_DEFAULT, lab, sizeof lab);
        char p[24];
        prob_format_pct(rec->chosen.p_raw, p, sizeof p);
        if (shorter) snprintf(buf, cap, "greedy: always the argmax");
        else snprintf(buf, cap, "greedy: argmax " MIDDOT " takes '%s' (%s at T=1) every time", lab, p);
    } else if (sampler_chain_is_plain(rec) == 0) {
        /* penalties, min-p or temperature after a cut: the chain's own order and counts,
         * so what each stage kept is read where it happened */
        char chain[PROBS_TEXT_CAP / 2];
        probs_chain_text(rec, chain, sizeof chain);
        probs_fmt_count(rec->n_kept, kept_n, sizeof kept_n);
        if (shorter) snprintf(buf, cap, "the chain kept %s token%s", kept_n, rec->n_kept == 1 ? "" : "s");
        else snprintf(buf, cap, "chain: %s " MIDDOT " kept %s, renormalised", chain, kept_n);
    } else if (rec->kept_after_p < rec->vocab_size) {
        if (shorter)
            snprintf(buf, cap, "%s kept %s = %s of the mass", which, kept_n, mass);
        else
            snprintf(buf, cap, "%s: kept %s token%s = %s of the mass " MIDDOT " kept bars " ARROW_RIGHT
                               " renormalised (\xC3\xB7 %s)",
                     which, kept_n, rec->kept_after_p == 1 ? "" : "s", mass, div);
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

/* A stage's name with its setting, as the title writes settings. */
static void stage_name(const SamplerRecord *rec, int stage, char *buf, size_t cap) {
    const SamplerSettings *st = &rec->settings;
    switch (stage) {
    case SAMPLER_STAGE_TEMPERATURE: snprintf(buf, cap, "T=%g", (double)st->temperature); break;
    case SAMPLER_STAGE_TOP_K: snprintf(buf, cap, "top-k %d", st->top_k); break;
    case SAMPLER_STAGE_TOP_P: snprintf(buf, cap, "top-p %g", (double)st->top_p); break;
    case SAMPLER_STAGE_MIN_P: snprintf(buf, cap, "min-p %g", (double)st->min_p); break;
    case SAMPLER_STAGE_PENALTIES: snprintf(buf, cap, "penalties"); break;
    case SAMPLER_STAGE_GREEDY: snprintf(buf, cap, "greedy"); break;
    default: snprintf(buf, cap, "?"); break;
    }
}

/* Row i's probability after stage j; the "all other" row sums the rows from `shown` on
 * and the record's own sum of the tokens beyond its rows. */
static double stage_p(const SamplerRecord *rec, int j, int row, int shown) {
    if (row >= 0) return rec->stages[j].p[row];
    double s = rec->stages[j].other;
    for (int i = shown < 0 ? 0 : shown; i < rec->n; i++) s += rec->stages[j].p[i];
    return s;
}

int probs_stage_cells(const SamplerRecord *rec, int row, int shown, ProbsStageCell *out, int cap) {
    int n = 0;
    if (!rec || row >= rec->n || row < -1) return 0;
    for (int j = 0; j < rec->n_stages && n < cap; j++) {
        const SamplerStageRecord *sr = &rec->stages[j];
        if (!sr->active) continue;
        ProbsStageCell *c = &out[n++];
        memset(c, 0, sizeof *c);
        stage_name(rec, sr->stage, c->name, sizeof c->name);
        c->stage = sr->stage;
        c->kept = sr->kept;
        c->p = stage_p(rec, j, row, shown);
        c->cut = row >= 0 && rec->rows[row].cut_by == j;
        if (c->cut) break;
    }
    return n;
}

void probs_stage_text(const SamplerRecord *rec, int row, int shown, char *buf, size_t cap) {
    char a[24];
    double raw = rec->other_raw;
    if (row >= 0) raw = rec->rows[row].p_raw;
    else
        for (int i = shown < 0 ? 0 : shown; i < rec->n; i++) raw += rec->rows[i].p_raw;
    prob_format_pct(raw, a, sizeof a);
    int o = snprintf(buf, cap, "T=1 %s", a);
    ProbsStageCell cells[SAMPLER_N_STAGES + 1];
    int n = probs_stage_cells(rec, row, shown, cells, SAMPLER_N_STAGES + 1);
    for (int i = 0; i < n && o > 0 && (size_t)o < cap; i++) {
        /* temperature 1 and penalties that left this row alone change nothing: skip */
        if (cells[i].stage == SAMPLER_STAGE_GREEDY) continue;
        if (cells[i].cut) {
            o += snprintf(buf + o, cap - (size_t)o, " " ARROW_RIGHT " %s cut", cells[i].name);
            break;
        }
        prob_format_pct(cells[i].p, a, sizeof a);
        o += snprintf(buf + o, cap - (size_t)o, " " ARROW_RIGHT " %s %s", cells[i].name, a);
    }
}

void probs_chain_text(const SamplerRecord *rec, char *buf, size_t cap) {
    ProbsStageCell cells[SAMPLER_N_STAGES + 1];
    int n = probs_stage_cells(rec, -1, rec->n, cells, SAMPLER_N_STAGES + 1), o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o >= 0 && (size_t)o < cap; i++) {
        char k[32];
        probs_fmt_count(cells[i].kept, k, sizeof k);
        o += snprintf(buf + o, cap - (size_t)o, "%s%s %s", i ? " " ARROW_RIGHT " " : "", cells[i].name, k);
    }
}

ProbsCols probs_columns(Viz *viz, const VizFrame *f, int width, int shown, int two_lines) {
    const SamplerRecord *rec = f->rec;
    ProbsCols c = {0};
    c.gap = viz_px(viz, 8);
    VizTextSize second = f->view.fill ? VIZ_TEXT_BODY : VIZ_TEXT_SMALL; /* slides: numbers >= body */
    int rank_w = 0, label_w = 0, final_w = 0, stage_w = 0;
    char buf[TOKEN_LABEL_CAP + 32];
    for (int i = 0; i <= shown && i < rec->n; i++) {
        const SamplerRow *row = &rec->rows[i];
        int chosen = row->id == rec->chosen.id;
        if (i < shown) {
            snprintf(buf, sizeof buf, "%s#%d", chosen ? CHOSEN_MARK " " : "", i + 1);
            int w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, buf);
            if (w > rank_w) rank_w = w;
            token_label_ex(f->tok, row->id, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, buf, sizeof buf);
            w = viz_text_width(viz, chosen ? VIZ_FONT_BOLD : VIZ_FONT_MONO, VIZ_TEXT_BODY, buf);
            if (w > label_w) label_w = w;
        }
        prob_format_pct(row->p_final, buf, sizeof buf);
        int w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, buf);
        if (w > final_w) final_w = w;
        probs_stage_text(rec, i < shown ? i : -1, shown, buf, sizeof buf);
        w = viz_text_width(viz, VIZ_FONT_SANS, second, buf);
        if (w > stage_w) stage_w = w;
    }
    /* the aggregate's numbers are the widest ("99.96%" of the mass) */
    int agg_w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "99.999%");
    if (agg_w > final_w) final_w = agg_w;
    if (two_lines) {
        int wi = viz_text_width(viz, VIZ_FONT_SANS, second, "id 50256");
        if (wi > label_w) label_w = wi;
    }
    c.rank_w = rank_w + viz_px(viz, 6);
    c.label_w = label_w + viz_px(viz, 4);
    if (c.label_w > viz_px(viz, 150)) c.label_w = viz_px(viz, 150); /* longer tokens end in "…" */
    c.nums_w = (two_lines && stage_w > final_w ? stage_w : final_w) + viz_px(viz, 4);
    c.compact = !two_lines;
    /* the bars keep at least 80 % of the width they have at UI scale 100 % (the same
     * columns with their text at 100 %): the stage numbers go first (they are on hover),
     * then the labels are shortened — but never below six characters, the token must
     * stay readable */
    int text_100 = (int)((float)(c.rank_w + c.label_w + c.nums_w) / viz->ui_scale) + 2 * viz_gx(viz, 8);
    int bar_min = (width - text_100) * 4 / 5;
    int bar = width - c.rank_w - c.label_w - c.nums_w - 2 * c.gap;
    if (bar < bar_min && !c.compact) {
        c.compact = 1;
        c.nums_w = final_w + viz_px(viz, 4);
        bar = width - c.rank_w - c.label_w - c.nums_w - 2 * c.gap;
    }
    if (bar < bar_min) {
        int label_min = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, "\xE2\x90\xA3" "abcd\xE2\x80\xA6");
        int lw = width - c.rank_w - c.nums_w - 2 * c.gap - bar_min;
        if (lw < label_min) lw = label_min;
        if (lw < c.label_w) c.label_w = lw;
        bar = width - c.rank_w - c.label_w - c.nums_w - 2 * c.gap;
    }
    c.bar_w = bar > 0 ? bar : 0;
    return c;
}

/* What probs_panel_layout decides, shared by its parts: the panel's inner rect (cut from
 * the top as the parts are placed), the line heights, the wording picked and the plan
 * (what is dropped, how many rows fit). */
typedef struct ProbsLay {
    Viz *viz;
    const VizFrame *f;
    const SamplerRecord *rec;
    ProbsLayout *out;
    Rect in;
    int title_h, body_h, small_h, gap, gap4;
    int sub_h, leg_row_h, leg_rows, axis_h, sum_h, strip_h;
    char mass_l[PROBS_TEXT_CAP], mass_s[PROBS_TEXT_CAP];
    char ch_l[PROBS_TEXT_CAP], ch_s[PROBS_TEXT_CAP], ch_xs[PROBS_TEXT_CAP];
    const char *mass, *ch;      /* the wording that fits alone on a line */
    int wm, wc;
    const char *m1[4], *c1[4];  /* both on one line: the candidates, longest first */
    int wm1[4], wc1[4], one_line;
    int want, level, fit, has_chosen, n_sum;
} ProbsLay;

/* subtitle: long, or without the vocabulary clause */
static void lay_subtitle(ProbsLay *L) {
    const VizFrame *f = L->f;
    ProbsLayout *out = L->out;
    char vocab[32], last[TOKEN_LABEL_CAP];
    probs_fmt_count(L->rec->vocab_size, vocab, sizeof vocab);
    if (f->ids && f->n_pos > 0) {
        token_label(f->tok, f->ids[f->n_pos - 1], TOKEN_LABEL_DEFAULT, last, sizeof last);
        snprintf(out->subtitle_text, sizeof out->subtitle_text,
                 "what follows '%s' (position %d) " MIDDOT " probabilities over all %s tokens", last, f->n_pos - 1,
                 vocab);
        if (viz_text_width(L->viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, out->subtitle_text) > L->in.w)
            snprintf(out->subtitle_text, sizeof out->subtitle_text, "what follows '%s' (position %d)", last,
                     f->n_pos - 1);
    } else {
        snprintf(out->subtitle_text, sizeof out->subtitle_text, "probabilities over all %s tokens", vocab);
    }
    L->sub_h = L->small_h + viz_px(L->viz, 2);
}

/* legend: long words on one row, else short words on one row, else long words
 * flowed over two rows, else short ones over as many as needed */
static void lay_legend(ProbsLay *L) {
    Viz *viz = L->viz;
    Rect in = L->in;
    Rect *items = L->out->legend_item;
    int row_h = L->leg_row_h = L->small_h + viz_px(viz, 6);
    const char *lt[PROBS_LEGEND_ITEMS], *st[PROBS_LEGEND_ITEMS];
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) {
        lt[i] = legend_long(i, L->rec->greedy);
        st[i] = legend_short(i, L->rec->greedy);
    }
    const char *const *pick = lt;
    int rows = legend_flow(viz, in.x, 0, in.w, row_h, lt, items);
    if (rows > 1 && legend_flow(viz, in.x, 0, in.w, row_h, st, items) == 1) pick = st;
    else if (rows > 2) pick = st;
    L->leg_rows = legend_flow(viz, in.x, 0, in.w, row_h, pick, items);
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) L->out->legend_text[i] = pick[i];
}

/* the summary wording: the chosen token's line only when it has no bar */
static void lay_summary_wording(ProbsLay *L) {
    Viz *viz = L->viz;
    int w = L->in.w;
    summary_mass(L->f, 0, L->mass_l, sizeof L->mass_l);
    summary_mass(L->f, 1, L->mass_s, sizeof L->mass_s);
    summary_chosen(L->f, 0, L->ch_l, sizeof L->ch_l);
    summary_chosen(L->f, 1, L->ch_s, sizeof L->ch_s);
    summary_chosen(L->f, 2, L->ch_xs, sizeof L->ch_xs);
    int wm_l = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, L->mass_l);
    int wm_s = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, L->mass_s);
    int wc_l = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, L->ch_l);
    int wc_s = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, L->ch_s);
    L->mass = wm_l <= w ? L->mass_l : L->mass_s;
    L->ch = wc_l <= w ? L->ch_l : L->ch_s;
    L->wm = wm_l <= w ? wm_l : wm_s;
    L->wc = wc_l <= w ? wc_l : wc_s;
    if (L->wc > w) { /* a narrow panel: just the token */
        L->ch = L->ch_xs;
        L->wc = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, L->ch_xs);
    }
    /* both on one line, the longest wording that fits (k = -1: none does) */
    const char *m1[4] = {L->mass_l, L->mass_s, L->mass_l, L->mass_s}, *c1[4] = {L->ch_l, L->ch_l, L->ch_s, L->ch_s};
    int wm1[4] = {wm_l, wm_s, wm_l, wm_s}, wc1[4] = {wc_l, wc_l, wc_s, wc_s};
    L->one_line = -1;
    for (int k = 0; k < 4; k++) {
        L->m1[k] = m1[k], L->c1[k] = c1[k], L->wm1[k] = wm1[k], L->wc1[k] = wc1[k];
        if (L->one_line < 0 && wm1[k] + viz_px(viz, 24) + wc1[k] <= w) L->one_line = k;
    }
}

/* The height above the rows at level lv: the title, then the subtitle (dropped at 3)
 * and the legend (dropped at 4). */
static int plan_top(const ProbsLay *L, int lv) {
    return L->title_h + (lv < 3 ? L->sub_h + L->gap4 : 0) + (lv < 4 ? L->leg_rows * L->leg_row_h + L->gap4 : 0);
}

/* The height below the rows: the axis, n_sum summary lines, the strip (dropped at 2). */
static int plan_bottom(const ProbsLay *L, int lv, int n_sum) {
    return L->axis_h + L->gap + n_sum * L->sum_h + (lv < 2 ? L->strip_h + L->gap : 0);
}

/* what to give up when the panel is short, least important first: the second
 * summary line (the mass is also in the "all other" row), the strip, the subtitle,
 * the legend, the mass line. Rows are at least PROBS_MIN_ROW_PX tall (below
 * that, the ink of neighbouring labels touches); the bars shrink to 5 (then 3) before anything
 * but the second summary line goes. Level: what is dropped; need: rows required.
 * The chosen token is always named, by its bar or by its line.
 * Sets L->level (-1: not even one bar), fit, has_chosen, n_sum. */
static void lay_pick_plan(ProbsLay *L) {
    const SamplerRecord *rec = L->rec;
    Viz *viz = L->viz;
    int want = L->want, in_h = L->in.h;
    int min5 = want < 5 ? want : 5, min3 = want < 3 ? want : 3, min2 = want < 2 ? want : 2;
    static const int plan_level[] = {0, 1, 0, 1, 2, 3, 4, 5, 5};
    int plan_need[] = {want, want, min5, min5, min3, min3, min3, min2, 1};
    /* in logical pixels, so a 2x export makes the same choices as the window */
    int min_row = viz_px(viz, PROBS_MIN_ROW_PX);
    L->level = -1, L->fit = 0, L->has_chosen = 0, L->n_sum = 0;
    /* the rows' height at UI scale 100 %: the text around them (level 0) is the part
     * that grows with the UI scale. In the window's layout a larger scale gives up
     * strip, subtitle, legend (in that order) before the rows fall below it (pass 0);
     * only when that cannot keep them do the rows shrink (pass 1, the plan alone). */
    int chrome0 = L->title_h + L->sub_h + L->gap4 + L->leg_rows * L->leg_row_h + L->gap4 + L->axis_h + L->gap +
                  L->sum_h + L->strip_h + L->gap;
    int rows_100 = in_h - (int)((float)chrome0 / viz->ui_scale);
    int rows_cap = viz_gx(viz, PROBS_MAX_ROW_PX) * (want + 1);
    if (rows_100 > rows_cap) rows_100 = rows_cap;
    int best_avail = -1, best_p = -1;
    for (int pass = L->f->view.fill ? 1 : 0; pass < 2 && L->level < 0; pass++) {
        for (size_t p = 0; p < sizeof plan_level / sizeof plan_level[0]; p++) {
            int lv = plan_level[p];
            if (pass == 0 && lv > 4) continue; /* the mass line stays while the rows keep their room */
            /* the chosen token needs a line when its rank is beyond the rows shown */
            L->has_chosen = rec->chosen.rank >= plan_need[p];
            /* level 5 keeps only the chosen line: a draw nobody can see is not shown */
            L->n_sum = lv >= 5 ? L->has_chosen : (L->has_chosen && L->one_line < 0 && lv < 1) ? 2 : 1;
            int rows_avail = in_h - plan_top(L, lv) - plan_bottom(L, lv, L->n_sum);
            L->fit = rows_avail / min_row - 1; /* - 1: the "all other" row */
            if (L->fit >= plan_need[p] && (pass == 1 || rows_avail >= rows_100 - viz_gx(viz, 2))) {
                L->level = lv;
                break;
            }
            if (pass == 0 && L->fit >= plan_need[p] && rows_avail > best_avail) {
                best_avail = rows_avail;
                best_p = (int)p;
            }
        }
        /* the window's layout cannot keep the rows' height: the plan with the most room
         * for them (the bars first; the chosen token stays named) */
        if (pass == 0 && L->level < 0 && best_p >= 0) {
            int lv = L->level = plan_level[best_p];
            L->has_chosen = rec->chosen.rank >= plan_need[best_p];
            L->n_sum = (L->has_chosen && L->one_line < 0 && lv < 1) ? 2 : 1;
            L->fit = (in_h - plan_top(L, lv) - plan_bottom(L, lv, L->n_sum)) / min_row - 1;
        }
    }
}

/* The title, the subtitle and the legend, cut from the top of L->in. */
static void place_head(ProbsLay *L) {
    ProbsLayout *out = L->out;
    out->title = rect_cut_top(&L->in, L->title_h);
    if (L->level < 3) {
        out->subtitle = rect_cut_top(&L->in, L->sub_h);
        rect_cut_top(&L->in, L->gap4);
    }
    if (L->level < 4) {
        Rect leg = rect_cut_top(&L->in, L->leg_rows * L->leg_row_h);
        for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) out->legend_item[i].y += leg.y;
        rect_cut_top(&L->in, L->gap4);
    } else {
        for (int i = 0; i < PROBS_LEGEND_ITEMS; i++) out->legend_item[i] = (Rect){0, 0, 0, 0};
    }
}

/* summary lines: y relative to the summary block, placed below */
static void place_summary(ProbsLay *L) {
    ProbsLayout *out = L->out;
    Rect in = L->in;
    int sum_h = L->sum_h;
    if (L->n_sum >= 1 && L->has_chosen && L->one_line >= 0) {
        int k = L->one_line;
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", L->m1[k]);
        snprintf(out->summary_text[1], PROBS_TEXT_CAP, "%s", L->c1[k]);
        out->summary[0] = (Rect){in.x, 0, L->wm1[k], sum_h};
        out->summary[1] = (Rect){in.x + in.w - L->wc1[k], 0, L->wc1[k], sum_h};
        out->summary_is_chosen[1] = 1;
        out->n_summary = 2;
        L->n_sum = 1;
    } else if (L->n_sum == 2) {
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", L->mass);
        snprintf(out->summary_text[1], PROBS_TEXT_CAP, "%s", L->ch);
        out->summary[0] = (Rect){in.x, 0, L->wm < in.w ? L->wm : in.w, sum_h};
        out->summary[1] = (Rect){in.x, sum_h, L->wc < in.w ? L->wc : in.w, sum_h};
        out->summary_is_chosen[1] = 1;
        out->n_summary = 2;
    } else if (L->n_sum == 1) {
        const char *t = L->has_chosen ? L->ch : L->mass;
        int w = L->has_chosen ? L->wc : L->wm;
        snprintf(out->summary_text[0], PROBS_TEXT_CAP, "%s", t);
        out->summary[0] = (Rect){in.x, 0, w < in.w ? w : in.w, sum_h};
        out->summary_is_chosen[0] = L->has_chosen;
        out->n_summary = 1;
    }
}

/* rows, then the axis, the summary and the strip right under them: rows that do
 * not need the whole height leave the slack at the bottom, not as a hole */
static void place_rows(ProbsLay *L) {
    Viz *viz = L->viz;
    const VizFrame *f = L->f;
    ProbsLayout *out = L->out;
    Rect in = L->in;
    int rows_avail = in.h - plan_bottom(L, L->level, L->n_sum);
    int n_rows = out->shown + 1;
    /* rows share the height to the pixel (rect_grid_cell), not a rounded row height
     * times n: a 2x export then puts every row where the 1x one does */
    int rows_h = rows_avail;
    if (!f->view.fill && rows_h > viz_px(viz, PROBS_MAX_ROW_PX) * n_rows) rows_h = viz_px(viz, PROBS_MAX_ROW_PX) * n_rows;
    out->row_h = rows_h / n_rows;
    /* a second line (id, stages) when the row holds it; alone, in body text */
    int second_h = f->view.fill ? L->body_h : L->small_h;
    out->two_lines = out->row_h >= L->body_h + second_h - viz_px(viz, 2);
    out->rows = (Rect){in.x, in.y, in.w, rows_h};
    out->cols = probs_columns(viz, f, in.w, out->shown, out->two_lines);
    out->dropped = L->level >= 2 || out->shown < L->want;
    out->axis = (Rect){in.x, out->rows.y + out->rows.h, in.w, L->axis_h};
    int y = out->axis.y + L->axis_h + L->gap;
    for (int i = 0; i < out->n_summary; i++) out->summary[i].y += y;
    y += L->n_sum * L->sum_h;
    if (L->level < 2) out->strip = (Rect){in.x, y + L->gap, in.w, L->strip_h};
}

/* the tight title and subtitle boxes (text is cut to the panel width) */
static void tighten_titles(ProbsLay *L) {
    ProbsLayout *out = L->out;
    char title[160];
    probs_title(L->rec, title, sizeof title);
    int tw = viz_text_width(L->viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE, title);
    out->title.w = tw < out->title.w ? tw : out->title.w;
    int sw = viz_text_width(L->viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, out->subtitle_text);
    out->subtitle.w = sw < out->subtitle.w ? sw : out->subtitle.w;
}

int probs_panel_layout(Viz *viz, Rect r, const VizFrame *f, ProbsLayout *out) {
    memset(out, 0, sizeof *out);
    const SamplerRecord *rec = f ? f->rec : NULL;
    if (!rec || rec->n < 1 || rec->vocab_size < 1 || !f->tok) return -1;
    ProbsLay L = {.viz = viz, .f = f, .rec = rec, .out = out};
    L.in = draw_panel_inner(viz, r);
    L.title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    L.body_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    L.small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    L.gap = viz_px(viz, 6), L.gap4 = viz_px(viz, 4);
    lay_subtitle(&L);
    lay_legend(&L);
    lay_summary_wording(&L);
    L.want = f->view.top_n < rec->n ? f->view.top_n : rec->n;
    if (L.want < 1) L.want = 1;
    L.axis_h = axis_height(viz), L.sum_h = L.body_h + viz_px(viz, 2), L.strip_h = strip_height(viz);
    lay_pick_plan(&L);
    if (L.level < 0) { /* not even one bar: only the title and a message */
        out->too_small = 1;
        out->title = rect_cut_top(&L.in, L.title_h);
        out->shown = 0;
    } else {
        out->shown = L.fit < L.want ? L.fit : L.want;
        L.has_chosen = rec->chosen.rank >= out->shown;
        if (!L.has_chosen) L.n_sum = L.level >= 5 ? 0 : 1;
        place_head(&L);
        place_summary(&L);
        place_rows(&L);
    }
    tighten_titles(&L);
    return 0;
}
