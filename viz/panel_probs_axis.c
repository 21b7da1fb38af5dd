/* panel_probs_axis.c — the probability axis of the bars (panel_probs_layout.h):
 * automatic (fits the longest candidate bar), fixed linear (so slides that are
 * compared share one scale) or logarithmic (0.001 % … 100 % in decades, so the top
 * token and the long tail read on one axis). Labels in percent: students read
 * "0.01%", not "1e-04". Pure mapping plus the axis drawing; no data. */
#include <math.h>
#include <stdio.h>

#include "draw.h"
#include "panel_probs_layout.h"
#include "ticks.h"

#define ARROW_RIGHT "\xE2\x86\x92" /* → */
#define LOG_DECADES 5              /* 10^-5 = 0.001 %: the smallest value fmt prints */
#define MAX_TICKS 20

ProbsAxis probs_axis_for(const VizView *view, double longest, int target) {
    ProbsAxis ax = {view ? view->prob_axis : VIZ_AXIS_AUTO, 1.0, 25.0, LOG_DECADES};
    if (ax.kind == VIZ_AXIS_LOG) return ax;
    double top = 100.0;
    if (ax.kind == VIZ_AXIS_LINEAR) top = view->prob_axis_max > 0.0f ? (double)view->prob_axis_max * 100.0 : 100.0;
    else if (longest > 0.0) top = longest * 100.0;
    double ticks[16], step = 0.0;
    ticks_nice(0.0, top, target, ticks, 16, &step);
    double xmax = top;
    /* auto: round the end up to a tick so it is labelled with a round number */
    if (ax.kind == VIZ_AXIS_AUTO && step > 0) xmax = ceil(top / step - 1e-9) * step;
    if (!(xmax > 0.0) || xmax > 100.0) xmax = 100.0;
    ax.step_pct = step > 0.0 ? step : xmax;
    ax.xmax = xmax / 100.0;
    return ax;
}

int probs_past_axis(const ProbsAxis *ax, double p) { return ax->kind != VIZ_AXIS_LOG && p > ax->xmax * (1.0 + 1e-9); }

int probs_bar_len(const ProbsAxis *ax, double p, int w) {
    if (!(p > 0.0) || w <= 0) return 0;
    double f;
    if (ax->kind == VIZ_AXIS_LOG) f = (log10(p) + ax->decades) / ax->decades;
    else f = ax->xmax > 0.0 ? p / ax->xmax : 0.0;
    if (f > 1.0) f = 1.0;
    int n = f > 0.0 ? (int)lround(f * (double)w) : 0;
    return n < 1 ? 1 : n; /* a non-zero probability is never invisible */
}

/* Tick i of n (0 = the start): its value in percent and its x. */
static int tick_count(const ProbsAxis *ax) {
    if (ax->kind == VIZ_AXIS_LOG) return ax->decades;
    int n = (int)floor(ax->xmax * 100.0 / ax->step_pct + 1e-6);
    return n > MAX_TICKS ? MAX_TICKS : n;
}

static double tick_value_pct(const ProbsAxis *ax, int i, int n) {
    if (ax->kind == VIZ_AXIS_LOG) return 100.0 * pow(10.0, (double)(i - ax->decades));
    return i == n ? ax->xmax * 100.0 : i * ax->step_pct; /* the end exactly, not a rounded sum */
}

static int tick_x(const ProbsAxis *ax, Rect bars, int i, int n) {
    double f = ax->kind == VIZ_AXIS_LOG ? (double)i / ax->decades : tick_value_pct(ax, i, n) / (ax->xmax * 100.0);
    return bars.x + (int)lround(f * (double)(bars.w - 1));
}

static void tick_label(const ProbsAxis *ax, int i, int n, char *buf, size_t cap) {
    double v = tick_value_pct(ax, i, n);
    if (ax->kind == VIZ_AXIS_LOG) {
        int d = ax->decades - 2 - i; /* decimals of 10^(i - decades + 2) */
        snprintf(buf, cap, "%.*f%%", d > 0 ? d : 0, v);
        return;
    }
    char num[32];
    ticks_format(v, ax->step_pct, num, sizeof num);
    snprintf(buf, cap, "%s%%", num);
}

void draw_probs_grid(Viz *viz, Rect bars, const ProbsAxis *ax) {
    int n = tick_count(ax);
    for (int i = 1; i <= n; i++)
        draw_fill_rect(viz, (Rect){tick_x(ax, bars, i, n), bars.y, 1, bars.h}, viz->theme->grid);
}

void draw_probs_axis(Viz *viz, Rect bars, Rect axis, Rect title_col, const ProbsAxis *ax) {
    const Theme *th = viz->theme;
    int n = tick_count(ax);
    int tl = viz_px(viz, 4), gap = viz_px(viz, 2), air = viz_px(viz, 8);
    draw_fill_rect(viz, (Rect){bars.x, axis.y, bars.w, 1}, th->text_muted);
    TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_LEFT, .valign = VIZ_ALIGN_TOP};
    /* labels in the order end, start, then the middle ones; a label that would touch one
     * already drawn is skipped (its tick stays), so the right end is always named */
    int lo[MAX_TICKS + 1], hi[MAX_TICKS + 1], n_drawn = 0;
    for (int k = 0; k <= n; k++) {
        int i = k == 0 ? n : k - 1;
        int x = tick_x(ax, bars, i, n);
        draw_fill_rect(viz, (Rect){x, axis.y + 1, 1, tl}, th->text_muted);
        char buf[40];
        tick_label(ax, i, n, buf, sizeof buf);
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
    /* the title ends before the first label drawn (the one under the bars' start) */
    int right = title_col.x + title_col.w - viz_px(viz, 6);
    for (int d = 0; d < n_drawn; d++)
        if (lo[d] - air < right) right = lo[d] - air;
    Rect tr = {title_col.x, axis.y + 1 + tl + gap, right - title_col.x,
               viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL)};
    const char *title = ax->kind == VIZ_AXIS_LOG ? "probability, log scale " ARROW_RIGHT : "probability " ARROW_RIGHT;
    if (viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, title) > tr.w)
        title = ax->kind == VIZ_AXIS_LOG ? "log " ARROW_RIGHT : "p " ARROW_RIGHT;
    draw_text_in_rect(viz, tr, title, &as);
}
