/* panel_text_marks.h — the Text panel's optional marks (VizView.text_mode): the colour
 * of a token by its surprisal, the "seen in training" box, the legend strip under the
 * text, the summary in the header and the hover card with a token's numbers. Reads
 * the numbers src/session/text_marks.c put in the VizFrame; computes none. Private to
 * viz/panel_text*.c. */
#ifndef VIZ_PANEL_TEXT_MARKS_H
#define VIZ_PANEL_TEXT_MARKS_H

#include "draw.h"
#include "frame.h"

/* Surprisal colour scale: 0 .. this many bits (more saturates: p <= 1/1024 is a token
 * the model hardly considered). Fixed, so figures can be compared. */
#define TEXT_SURPRISAL_MAX_BITS 10.0

/* How tokens [i, j) are marked: *fill = 1 and *bg when they get a background (surprisal
 * or seen), *seen = 1 when one of them is a seen token (draw the box). */
void text_marks_style(const VizFrame *f, int i, int j, int *fill, SDL_Color *bg, int *seen, const Theme *th);

/* Height of the legend strip under the text for f's mode (0 for plain). */
int text_marks_legend_h(Viz *viz, const VizFrame *f);
/* Draws the legend strip into r. */
int draw_text_marks_legend(Viz *viz, Rect r, const VizFrame *f);
/* The header's summary for the mode ("seen 30 % of 40 generated · longest run 19"), "" if none. */
void text_marks_summary(const VizFrame *f, char *buf, size_t cap);
/* The card with token `pos`'s numbers next to its box (within panel). */
int draw_text_marks_card(Viz *viz, Rect panel, Rect box, const VizFrame *f, int pos);

/* The seen box colour (outline) and tint for a theme. */
SDL_Color text_seen_tint(const Theme *th);
SDL_Color text_seen_edge(const Theme *th);

#endif
