/* web_no_vector_export.c — the SVG and PDF backends of the browser build: there is no
 * cairo and no HarfBuzz subsetter in it, so an SVG or PDF export says so in one line
 * (the window shows it on the status line) instead of failing to link. PNG, the
 * window's E / Shift+E, is drawn by the raster backend as natively. */
#include <string.h>

#include "backend_pdf.h"
#include "backend_svg.h"

#define WEB_NO_VECTOR "is drawn by the native app only (the browser build writes PNG)"

static int no_page(Viz *viz, int w, int h) { return (void)viz, (void)w, (void)h, -1; }
static int no_end(Viz *viz) { return (void)viz, -1; }
static int no_clip(Viz *viz, const Rect *clip) { return (void)viz, (void)clip, -1; }
static int no_fill(Viz *viz, Rect r, SDL_Color c) { return (void)viz, (void)r, (void)c, -1; }
static int no_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color c, int t) {
    return (void)viz, (void)x0, (void)y0, (void)x1, (void)y1, (void)c, (void)t, -1;
}
static int no_text(Viz *viz, const VizTextRun *run) { return (void)viz, (void)run, -1; }

const VizBackend VIZ_BACKEND_SVG = {"svg", no_page, no_end, no_clip, no_fill, no_line, no_text};
const VizBackend VIZ_BACKEND_PDF = {"pdf", no_page, no_end, no_clip, no_fill, no_line, no_text};

int svg_doc_init(SvgDoc *doc, const char *assets_dir, ErrorMsg *err) {
    (void)assets_dir;
    memset(doc, 0, sizeof *doc);
    return error_set(err, "SVG " WEB_NO_VECTOR);
}
void svg_doc_free(SvgDoc *doc) { (void)doc; }
int svg_doc_finish(SvgDoc *doc, const PngText *meta, size_t n_meta, uint8_t **out, size_t *len, ErrorMsg *err) {
    (void)doc, (void)meta, (void)n_meta;
    *out = NULL;
    *len = 0;
    return error_set(err, "SVG " WEB_NO_VECTOR);
}

void pdf_doc_init(PdfDoc *doc, const char *assets_dir) {
    memset(doc, 0, sizeof *doc);
    doc->assets_dir = assets_dir;
}
void pdf_doc_free(PdfDoc *doc) { (void)doc; }
int pdf_doc_finish(PdfDoc *doc, const PdfInfo *info, uint8_t **out, size_t *len, ErrorMsg *err) {
    (void)doc, (void)info;
    *out = NULL;
    *len = 0;
    return error_set(err, "PDF " WEB_NO_VECTOR);
}
