/* panel_probs_layout.h — where draw_probs_panel puts each block of text, computed
 * from the panel's rect, the scale and the record before anything is drawn: the
 * same function the panel uses, exposed so a test can check at any window size and
 * UI scale that no two blocks overlap and none leaves the panel. Also the columns of a
 * bar row and the probability axis (panel_probs_axis.c). Not a drawing API: only
 * rects, widths and the strings chosen to fit them (long or short wording, or dropped).
 *
 * Room goes to the bars first: the bar column keeps at least the width it has at UI
 * scale 100 % (the token labels are shortened instead, full text on hover), and the
 * rows keep at least the height they have at 100 % when the panel is in the window's
 * layout (the strip, the subtitle and the legend are dropped first, and the panel
 * says "F: enlarge"). Shown alone (view.fill) the rows grow to fill the panel. */
#ifndef VIZ_PANEL_PROBS_LAYOUT_H
#define VIZ_PANEL_PROBS_LAYOUT_H

#include "frame.h"
#include "viz.h"

#define PROBS_LEGEND_ITEMS 5
#define PROBS_TEXT_CAP 512
/* Smallest row, logical pixels: one line of 14 px text (DejaVu: ascent + descent
 * = 17 px with the line gap, ink ~14 px) without touching its neighbours. */
#define PROBS_MIN_ROW_PX 16
/* Tallest row in the window's layout, logical pixels (alone, rows fill the panel). */
#define PROBS_MAX_ROW_PX 34

/* Widths of the columns of one bar row (pixels): rank, token label, bars, numbers. */
typedef struct ProbsCols {
    int rank_w, label_w, bar_w, nums_w;
    int gap;     /* between label and bars, and bars and numbers */
    int compact; /* 1: the numbers column holds the final probability only */
} ProbsCols;

typedef struct ProbsLayout {
    int too_small;                   /* 1: not even one bar fits: title + a message only */
    Rect title, subtitle;            /* title line; the "what follows …" line (h = 0: dropped) */
    char subtitle_text[PROBS_TEXT_CAP];
    Rect legend_item[PROBS_LEGEND_ITEMS]; /* swatch + text of each legend entry, flowed into rows
                                           * (all w = 0: legend dropped) */
    const char *legend_text[PROBS_LEGEND_ITEMS];
    int shown;                       /* candidate rows drawn (view.top_n, fewer when cramped) */
    Rect rows;                       /* shown + 1 rows ("all other" last), row_h each */
    int row_h;
    int two_lines;                   /* 1: rows tall enough for a second line (id, stages) */
    ProbsCols cols;                  /* the columns inside rows */
    Rect axis;                       /* probability axis under the rows, full panel width */
    int n_summary;                   /* 0..2 summary lines under the axis */
    Rect summary[2];
    char summary_text[2][PROBS_TEXT_CAP];
    int summary_is_chosen[2];        /* 1: the "chosen: … among all other" line */
    Rect strip;                      /* the draw (u on the cumulative strip), h = 0: dropped */
    int dropped;                     /* 1: something was left out for room (the panel offers F) */
} ProbsLayout;

/* Fills *out for draw_probs_panel(viz, r, f, …) with f->rec set and bars not hidden.
 * Returns 0, or -1 when there is nothing to lay out (no record or tokenizer). */
int probs_panel_layout(Viz *viz, Rect r, const VizFrame *f, ProbsLayout *out);

/* The columns for `shown` candidate rows of f->rec across `width` pixels. */
ProbsCols probs_columns(Viz *viz, const VizFrame *f, int width, int shown, int two_lines);

/* "50,242": counts of tokens are read aloud in class, so group the digits. */
void probs_fmt_count(long long n, char *buf, size_t cap);
/* "Next token · T=0.8 · top-k 40": the title states the settings. */
void probs_title(const SamplerRecord *rec, char *buf, size_t cap);

/* One stage of the chain as the bars show it, in the order it ran (rec->stages): its
 * name with its setting ("T=1.5", "top-p 0.9", "min-p 0.05", "penalties"), the tokens it
 * kept, and one row's probability after it (rec->stages[s].p[row], or .other for the
 * "all other" row), 0 once cut. Only stages whose setting changed something. Read from
 * the record: nothing is recomputed here. */
typedef struct ProbsStageCell {
    char name[32];
    int stage;  /* SamplerStage */
    int kept;   /* tokens left after it */
    double p;   /* the row's probability after it, renormalised over its survivors */
    int cut;    /* 1: this stage cut the row (p = 0 from here on) */
} ProbsStageCell;

/* The cells of row `row` (0 <= row < rec->n; -1 = "all other": every token not among
 * the first `shown` rows, summed) into out[0..cap); returns how many there are (<= SAMPLER_N_STAGES + 1). The list stops at
 * the stage that cut the row. */
int probs_stage_cells(const SamplerRecord *rec, int row, int shown, ProbsStageCell *out, int cap);

/* The chain's numbers under the final one, in the order it ran: "T=1 35.9%", or
 * "T=1 9.1% → top-p 0.9 12.4% → T=1.5 8.0%", "... → min-p 0.05 cut". row, shown as above. */
void probs_stage_text(const SamplerRecord *rec, int row, int shown, char *buf, size_t cap);

/* What each stage kept, in the order the chain ran: "penalties 50,257 → top-p 0.9 236 →
 * T=1.5 236" (active stages only; "" when none is). */
void probs_chain_text(const SamplerRecord *rec, char *buf, size_t cap);

/* ---- the probability axis (panel_probs_axis.c) ---- */

typedef struct ProbsAxis {
    VizProbAxis kind;
    double xmax;     /* linear: the value at the end of the axis (a probability) */
    double step_pct; /* linear: tick spacing in percent */
    int decades;     /* log: the axis spans 10^-decades … 1 */
} ProbsAxis;

/* The axis for the view's choice: AUTO fits `longest` (the longest candidate bar,
 * about `target` ticks), LINEAR ends at view.prob_axis_max, LOG spans 0.001 % … 100 %. */
ProbsAxis probs_axis_for(const VizView *view, double longest, int target);
/* Bar length in pixels for probability p on a bar column `w` wide (a probability > 0
 * is never invisible; past the end is w: the caller marks it broken). */
int probs_bar_len(const ProbsAxis *ax, double p, int w);
/* 1 if p lies beyond the axis end (the bar is drawn broken, with its number). */
int probs_past_axis(const ProbsAxis *ax, double p);
/* Grid lines at the ticks across `bars` (before the bars, so the bars cover them). */
void draw_probs_grid(Viz *viz, Rect bars, const ProbsAxis *ax);
/* The axis line, ticks and labels along `axis` under the bar column `bars`; the title
 * ("probability →", "probability, log scale →") in `title_col`, ending before the first
 * label. Tick labels that would touch are skipped, the end label always stays. */
void draw_probs_axis(Viz *viz, Rect bars, Rect axis, Rect title_col, const ProbsAxis *ax);

/* The draw strip in area: the kept tokens' intervals on 0..1 (the first `shown` rows
 * labelled), the chosen one outlined, u marked (panel_probs_strip.c). */
void probs_draw_strip(Viz *viz, Rect area, const VizFrame *f, int shown);

#endif
