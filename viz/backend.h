/* backend.h — the one seam under draw.h's primitives: the few things a drawing target
 * must know how to do (set the clip, fill a rectangle, stroke a line, set a run of
 * text, begin and end a page). draw.c turns every primitive of draw.h into calls of
 * these slots; the panels call draw.h and never know which backend is behind it, as
 * matplotlib's artists draw through its RendererBase and never know Agg from SVG.
 * One file per backend: backend_raster.c (SDL's renderer: the window and PNG export),
 * backend_svg.c (SVG text written directly), backend_pdf.c (cairo's PDF surface).
 *
 * Every slot gets the Viz (the raster backend needs its renderer and text cache, the
 * others their state in viz->backend_ctx) and returns 0, or -1 after recording one line
 * with viz_fail. A NULL slot is a primitive the backend does not know: draw.c refuses
 * it with "the <name> backend cannot draw <slot>" instead of skipping it, so a figure
 * can never silently lose part of itself in one format. Adding a primitive = one slot
 * here + one function per backend file.
 *
 * Coordinates are device pixels of the page (raster pixels; the vector backends write
 * the same numbers and scale the page as a whole), x right, y down. Colours are sRGB
 * bytes with straight alpha: an opaque colour paints exactly that colour, a
 * translucent one blends over what is there. Text is measured with SDL_ttf (FreeType)
 * in every backend, so layouts are identical across formats; a backend only sets
 * the run at the box it is given. */
#ifndef VIZ_BACKEND_H
#define VIZ_BACKEND_H

#include <SDL.h>

#include "layout.h"
#include "viz.h"

/* One line of text, measured and placed by draw.c. */
typedef struct VizTextRun {
    const char *utf8;   /* non-empty; what the reader sees (and a PDF/SVG reader can copy) */
    VizFont font;
    VizTextSize size;
    int px;             /* the font's size in pixels (its em: viz_text_px) */
    int x, y;           /* top-left of the upright line box */
    int w, h;           /* the box: width as SDL_ttf measures the text, the line height */
    int ascent;         /* the baseline is at y + ascent in the upright box */
    SDL_Color color;
    double angle;       /* degrees, clockwise, around the box's centre (SDL's sense):
                         * 0 upright, -90 reading bottom to top */
} VizTextRun;

typedef struct VizBackend {
    const char *name; /* "raster", "svg", "pdf": named in errors */
    /* A page of w × h device pixels starts / is complete (a PDF page; an SVG document). */
    int (*page_begin)(Viz *viz, int w, int h);
    int (*page_end)(Viz *viz);
    /* Limits the following draws to clip (NULL = the whole page). */
    int (*clip)(Viz *viz, const Rect *clip);
    /* r has w, h > 0. */
    int (*fill_rect)(Viz *viz, Rect r, SDL_Color color);
    /* thickness 1: the 1-px line with both end pixels included; thicker: a quad of that
     * width centred on the segment from pixel centre to pixel centre. */
    int (*line)(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness);
    int (*text)(Viz *viz, const VizTextRun *run);
} VizBackend;

/* The table of a backend whose functions are named <prefix>_<slot> (raster_fill_rect,
 * svg_text, ...): a new slot added here makes every backend that lacks its function
 * fail to compile, so no backend can forget it. */
#define VIZ_BACKEND_OF(prefix)                                                                             \
    {                                                                                                      \
        .name = #prefix, .page_begin = prefix##_page_begin, .page_end = prefix##_page_end,                 \
        .clip = prefix##_clip, .fill_rect = prefix##_fill_rect, .line = prefix##_line, .text = prefix##_text \
    }

/* The backends, one file each: this one, and VIZ_BACKEND_SVG (backend_svg.h),
 * VIZ_BACKEND_PDF (backend_pdf.h). */
extern const VizBackend VIZ_BACKEND_RASTER;

#endif
