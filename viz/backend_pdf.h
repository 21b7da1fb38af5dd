/* backend_pdf.h — the PDF backend (backend.h) on cairo's PDF surface: vector rectangles
 * and lines, text set with the same DejaVu files SDL_ttf measures with (cairo-ft), so
 * cairo embeds them as subsets and the words stay selectable and searchable (ToUnicode).
 * One document holds any number of pages: a figure, or a lesson's slides.
 *
 * Units: the page is w × h device pixels drawn at 96 per inch (as the PNG's pHYs says
 * for scale 1), i.e. 0.75 pt a pixel: a 1920×1080 figure is a 20 × 11.25 in page.
 * Each text run is stretched by the ratio of SDL_ttf's width to cairo's (hinted against
 * unhinted advances, within a few %), so it ends where the layout says.
 *
 * Usage:
 *     PdfDoc doc; pdf_doc_init(&doc, assets_dir, &err);
 *     viz_init_backend(&viz, &VIZ_BACKEND_PDF, &doc, ...);
 *     per page: draw_page_begin(&viz, w, h); … draw_* … draw_page_end(&viz);
 *     pdf_doc_finish(&doc, &info, &bytes, &len, &err);   // bytes: malloc'd
 *     viz_free(&viz); pdf_doc_free(&doc); */
#ifndef VIZ_BACKEND_PDF_H
#define VIZ_BACKEND_PDF_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "strbuf.h"

typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo cairo_t;
typedef struct _cairo_font_face cairo_font_face_t;

typedef struct PdfDoc {
    const char *assets_dir;    /* borrowed: the font files */
    StrBuf out;                /* the PDF bytes as cairo writes them */
    cairo_surface_t *surface;  /* owned; made at the first page */
    cairo_t *cr;               /* owned */
    cairo_font_face_t *faces[VIZ_FONT_COUNT]; /* owned, loaded at first use */
    int pages;                 /* pages begun */
    int page_open;
    int finished;
} PdfDoc;

/* The document information dictionary (cairo 1.16 writes the standard keys only). */
typedef struct PdfInfo {
    const char *title;    /* Title */
    const char *subject;  /* Subject */
    const char *keywords; /* Keywords: the figure's provenance as one JSON object */
    const char *creator;  /* Creator: the software */
} PdfInfo;

extern const VizBackend VIZ_BACKEND_PDF;

void pdf_doc_init(PdfDoc *doc, const char *assets_dir);
void pdf_doc_free(PdfDoc *doc); /* safe on a zeroed struct and twice */

/* Completes the document (after the last draw_page_end): the info dictionary, then the
 * fonts and cross-reference. *out is malloc'd (caller frees), *len its size. Returns 0,
 * or -1 with err (no page, cairo error). The doc takes no more pages afterwards. */
int pdf_doc_finish(PdfDoc *doc, const PdfInfo *info, uint8_t **out, size_t *len, ErrorMsg *err);

#endif
