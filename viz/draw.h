/* draw.h — the primitives every panel is built from: rectangles, lines, aligned and
 * truncated text, text on a coloured cell, a colour bar with ticks, an axis with
 * ticks. Each call draws immediately through the Viz's backend (backend.h: the SDL
 * renderer, SVG or PDF — a panel never knows which) with the theme's colours where
 * a colour is not passed; nothing is retained between frames except the Viz's text
 * cache. No model math here, and no layout policy beyond "fit into this Rect".
 *
 * Conventions: coordinates are device pixels (scale logical sizes with viz_px);
 * Rects are layout.h's (x, y top-left, w, h). Every function returns 0, or -1 after
 * recording one line in viz->last_error (the first error of the frame wins); a
 * zero-size rect or empty text draws nothing and returns 0. Colours with a < 255 are
 * alpha-blended, opaque colours overwrite (so a filled rect has exactly its colour).
 * These calls never allocate except when a text texture is created (bounded cache). */
#ifndef VIZ_DRAW_H
#define VIZ_DRAW_H

#include <SDL.h>
#include <stddef.h>

#include "colormap.h"
#include "layout.h"
#include "viz.h"

typedef enum VizAlignH { VIZ_ALIGN_LEFT = 0, VIZ_ALIGN_CENTER, VIZ_ALIGN_RIGHT } VizAlignH;

/* Vertical anchor of the point y given to draw_text: the top of the line box, its
 * middle, the baseline (so mixed fonts line up), or its bottom. */
typedef enum VizAlignV {
    VIZ_ALIGN_TOP = 0,
    VIZ_ALIGN_MIDDLE,
    VIZ_ALIGN_BASELINE,
    VIZ_ALIGN_BOTTOM
} VizAlignV;

typedef struct TextStyle {
    VizFont font;       /* VIZ_FONT_SANS (0) by default */
    VizTextSize size;   /* VIZ_TEXT_SMALL (0) by default: name one explicitly */
    SDL_Color color;    /* {0,0,0,0} = transparent = invisible: set it (theme->text) */
    VizAlignH halign;   /* x is the left edge / centre / right edge of the text */
    VizAlignV valign;   /* y is the top / middle / baseline / bottom of the line */
    int max_width;      /* > 0: text wider than this is cut and ends in "…" */
} TextStyle;

/* The padding inside a panel's border: it grows with the UI scale, but slower than the
 * text (10 px at 100 %, 15 at 250 %), so a large UI scale does not spend the room of the
 * pictures on margins. draw_panel_inner is r inset by it. */
int draw_panel_pad(const Viz *viz);
Rect draw_panel_inner(const Viz *viz, Rect r);
/* The start of every panel: clip to r (nothing a panel draws leaves it), fill it with
 * the panel colour, outline it; *inner gets r inside the padding. Returns 0 or -1. */
int draw_panel_begin(Viz *viz, Rect r, Rect *inner);

/* A page of w × h device pixels begins / is complete: the exporter brackets each figure
 * with them (a PDF page, an SVG document; nothing for the raster backend). */
int draw_page_begin(Viz *viz, int w, int h);
int draw_page_end(Viz *viz);

/* Limits the following draws to clip (NULL = whole target). Not a stack: panels set
 * their rect and reset to NULL when done. */
int draw_set_clip(Viz *viz, const Rect *clip);

int draw_fill_rect(Viz *viz, Rect r, SDL_Color color);

/* Outline drawn INSIDE r, `thickness` device pixels wide (>= 1). */
int draw_rect_outline(Viz *viz, Rect r, SDL_Color color, int thickness);

/* Straight line; thickness 1 is SDL's 1-px line (both end points included),
 * thicker lines are a quad of that width centred on the segment (no anti-aliasing). */
int draw_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness);

/* Draws UTF-8 text anchored at (x, y) per style. *drawn_w (may be NULL) gets the
 * width actually drawn (after truncation), 0 for "". */
int draw_text(Viz *viz, int x, int y, const char *utf8, const TextStyle *style, int *drawn_w);

/* Draws utf8 with the top-left of its upright line box (viz_text_width × viz_line_height)
 * at (x, y), in color (colour glyphs keep their colours), rotated by angle degrees
 * around the box's centre (0 = upright, -90 = reading bottom to top). No truncation. */
int draw_text_at(Viz *viz, int x, int y, const char *utf8, VizFont font, VizTextSize size, SDL_Color color,
                 double angle);

/* Text aligned inside r (left/centre/right × top/middle/bottom; BASELINE behaves as
 * MIDDLE here), cut with "…" to r.w (or style->max_width if smaller), clipped to r. */
int draw_text_in_rect(Viz *viz, Rect r, const char *utf8, const TextStyle *style);

/* Fills cell with `fill`, then centres the text in black or white, whichever
 * contrasts more with fill (color_text_on) — for numbers on heatmap cells. Text that
 * does not fit is cut with "…"; a cell narrower than "…" gets no text. */
int draw_text_on_cell(Viz *viz, Rect cell, SDL_Color fill, const char *utf8, VizFont font,
                      VizTextSize size);

/* Fits utf8 into max_width pixels: copies it whole into buf if it fits (and is shorter
 * than cap bytes), else writes the longest prefix that fits when followed by "…"
 * (the prefix is also limited to cap - 4 bytes). Cuts only between UTF-8 characters,
 * never inside a multi-byte one. Returns the pixel width of what buf holds; 0 with
 * buf = "" if not even "…" fits. */
int draw_fit_text(Viz *viz, VizFont font, VizTextSize size, const char *utf8, int max_width,
                  char *buf, size_t cap);

/* 45° hatch lines ("/") over r, clipped to r ∩ restore; the clip is then set to
 * `restore` (draw_set_clip is not a stack). The phase is anchored at (ox, oy) so the
 * hatching of neighbouring rects lines up into one pattern. For masked and cut marks:
 * a pattern as well as a colour, never colour alone. */
int draw_hatch(Viz *viz, Rect r, Rect restore, int ox, int oy, int spacing, SDL_Color c);

/* Greedy word wrap: the next line of text that fits max_w pixels, copied into buf;
 * returns the bytes of text it consumed (the spaces at the break and one '\n'
 * included). A word wider than the line is cut between characters with "…". */
size_t draw_wrap_line(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, char *buf,
                      size_t cap);
/* draw_wrap_line for a line that may be the last one shown: with last set and text left
 * after it, the line ends with "…" (dropping words until it fits), so a cut says it is cut. */
size_t draw_wrap_line_last(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, int last,
                           char *buf, size_t cap);
/* Lines text needs at width max_w (at most max_lines). */
int draw_count_lines(Viz *viz, VizFont font, VizTextSize size, const char *text, int max_w, int max_lines);
/* Draws text wrapped into area, one line per line_h (aligned per st), at most max_lines;
 * when text is left over, the last line ends with "…". */
int draw_wrapped_text(Viz *viz, Rect area, const char *text, const TextStyle *st, int line_h, int max_lines);
/* The largest VIZ_TEXT_DISPLAY size in [min_px, max_px] at which text wraps into
 * max_w × max_h without cutting a word (lines of the font's height). Leaves the display
 * size set to it and returns it; *lines (may be NULL) gets the line count. min_px
 * when nothing fits. For one-line texts set large on a slide. */
int draw_fit_wrapped_px(Viz *viz, VizFont font, const char *text, int max_w, int max_h, int min_px, int max_px,
                        int *lines);

typedef enum VizSide { VIZ_SIDE_LEFT = 0, VIZ_SIDE_BOTTOM, VIZ_SIDE_RIGHT, VIZ_SIDE_TOP } VizSide;

typedef struct ColorbarSpec {
    ColormapId map;
    double vmin, vmax; /* value at the low and high end (diverging: -m, +m) */
    const char *label; /* drawn above a horizontal bar / left of a vertical one; may be NULL */
    int vertical;      /* 0: low→high left to right; 1: low→high bottom to top */
    int target_ticks;  /* about how many tick labels (>= 2; 0 means 5) */
} ColorbarSpec;

/* A legend: the label, a gradient bar, tick marks and tick labels, all inside area
 * (the bar is inset so end labels stay inside). The gradient is one 1-px line per
 * pixel with t = i / (n - 1), so the first and last pixel rows/columns are exactly
 * colormap_sample(map, 0) and (map, 1). *bar_out (may be NULL) gets the gradient's
 * rect (for tests and for panels that want to mark a value on it). */
int draw_colorbar(Viz *viz, Rect area, const ColorbarSpec *spec, Rect *bar_out);

/* Device pixels a colour bar of this spec needs across its short side (height of a
 * horizontal one incl. label and tick labels; width of a vertical one), at bar
 * thickness `bar_px` — for rect_cut_*. */
int draw_colorbar_size(Viz *viz, const ColorbarSpec *spec, int bar_px);

/* Pixel position of value v along one side of plot: BOTTOM/TOP map vmin→plot.x and
 * vmax→plot.x + plot.w - 1; LEFT/RIGHT map vmin→bottom row, vmax→top row. Values
 * outside the range extrapolate (callers clip). vmax == vmin maps to the start. */
int axis_value_to_px(Rect plot, VizSide side, double vmin, double vmax, double v);

/* An axis along one side of plot (drawn just OUTSIDE plot): the axis line, outward
 * tick marks at nice values, tick labels (theme->text_muted, small), and an optional
 * label (NULL = none). With grid = 1 it first draws theme->grid lines across plot at
 * each tick — call it before drawing data so the data covers the grid. */
int draw_axis(Viz *viz, Rect plot, VizSide side, double vmin, double vmax, int target_ticks,
              const char *label, int grid);

/* Device pixels the axis needs outside plot (ticks + labels + label), for rect_cut_*
 * before drawing the plot. Depends on the widest tick label for LEFT/RIGHT. */
int draw_axis_size(Viz *viz, VizSide side, double vmin, double vmax, int target_ticks,
                   const char *label);

#endif
