/* panel_probs_layout.h — where draw_probs_panel puts each block of text, computed
 * from the panel's rect, the scale and the record before anything is drawn: the
 * same function the panel uses, exposed so a test can check at any window size and
 * UI scale that no two blocks overlap and none leaves the panel. Not a drawing API:
 * only rects and the strings chosen to fit them (long or short wording, or dropped). */
#ifndef VIZ_PANEL_PROBS_LAYOUT_H
#define VIZ_PANEL_PROBS_LAYOUT_H

#include "frame.h"
#include "viz.h"

#define PROBS_LEGEND_ITEMS 5
#define PROBS_TEXT_CAP 512
/* Smallest row, logical pixels: one line of 14 px text (DejaVu: ascent + descent
 * = 17 px with the line gap, ink ~14 px) without touching its neighbours. */
#define PROBS_MIN_ROW_PX 16

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
    Rect axis;                       /* probability axis under the rows, full panel width */
    int n_summary;                   /* 0..2 summary lines under the axis */
    Rect summary[2];
    char summary_text[2][PROBS_TEXT_CAP];
    int summary_is_chosen[2];        /* 1: the "chosen: … among all other" line */
    Rect strip;                      /* the draw (u on the cumulative strip), h = 0: dropped */
} ProbsLayout;

/* Fills *out for draw_probs_panel(viz, r, f, …) with f->rec set and bars not hidden.
 * Returns 0, or -1 when there is nothing to lay out (no record or tokenizer). */
int probs_panel_layout(Viz *viz, Rect r, const VizFrame *f, ProbsLayout *out);

#endif
