/* backend_pdf.c — the PDF backend: see backend_pdf.h. */
#include "backend_pdf.h"

#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PT_PER_PX 0.75 /* 72 pt per inch / 96 px per inch */

static PdfDoc *doc_of(Viz *viz) { return viz->backend_ctx; }

void pdf_doc_init(PdfDoc *doc, const char *assets_dir) {
    memset(doc, 0, sizeof *doc);
    doc->assets_dir = assets_dir;
}

void pdf_doc_free(PdfDoc *doc) {
    if (!doc) return;
    if (doc->cr) cairo_destroy(doc->cr);
    if (doc->surface) cairo_surface_destroy(doc->surface);
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        if (doc->faces[f]) cairo_font_face_destroy(doc->faces[f]);
    strbuf_free(&doc->out);
    memset(doc, 0, sizeof *doc);
}

static cairo_status_t write_bytes(void *ctx, const unsigned char *data, unsigned int len) {
    StrBuf *b = ctx;
    strbuf_add(b, data, len);
    return b->oom ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

/* cairo's state after a call: 0, or -1 with the frame's error. */
static int check(Viz *viz, const char *what) {
    cairo_status_t st = cairo_status(doc_of(viz)->cr);
    if (st == CAIRO_STATUS_SUCCESS) return 0;
    return viz_fail(viz, "pdf: %s: %s", what, cairo_status_to_string(st));
}

static int pdf_page_begin(Viz *viz, int w, int h) {
    PdfDoc *d = doc_of(viz);
    if (d->finished || d->page_open) return viz_fail(viz, "pdf: page_begin on a %s document",
                                                     d->finished ? "finished" : "page-open");
    if (!d->surface) {
        d->surface = cairo_pdf_surface_create_for_stream(write_bytes, &d->out, w * PT_PER_PX, h * PT_PER_PX);
        d->cr = cairo_create(d->surface);
    } else {
        cairo_pdf_surface_set_size(d->surface, w * PT_PER_PX, h * PT_PER_PX);
    }
    d->pages++;
    d->page_open = 1;
    cairo_save(d->cr);
    cairo_scale(d->cr, PT_PER_PX, PT_PER_PX);
    return check(viz, "new page");
}

static int pdf_page_end(Viz *viz) {
    PdfDoc *d = doc_of(viz);
    if (!d->page_open) return viz_fail(viz, "pdf: page_end without page_begin");
    cairo_restore(d->cr);
    cairo_show_page(d->cr);
    d->page_open = 0;
    return check(viz, "end of page");
}

static int pdf_clip(Viz *viz, const Rect *clip) {
    cairo_t *cr = doc_of(viz)->cr;
    cairo_reset_clip(cr);
    if (clip) {
        cairo_rectangle(cr, clip->x, clip->y, clip->w, clip->h);
        cairo_clip(cr);
    }
    return check(viz, "clip");
}

static void set_source(cairo_t *cr, SDL_Color c) {
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

static int pdf_fill_rect(Viz *viz, Rect r, SDL_Color color) {
    cairo_t *cr = doc_of(viz)->cr;
    set_source(cr, color);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_fill(cr);
    return check(viz, "fill");
}

/* From pixel centre to pixel centre: square caps for the 1-px line (both end pixels,
 * as SDL's), butt caps for a thick one (the raster backend's quad). */
static int pdf_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness) {
    cairo_t *cr = doc_of(viz)->cr;
    set_source(cr, color);
    cairo_set_line_width(cr, thickness);
    cairo_set_line_cap(cr, thickness > 1 ? CAIRO_LINE_CAP_BUTT : CAIRO_LINE_CAP_SQUARE);
    cairo_move_to(cr, x0 + 0.5, y0 + 0.5);
    cairo_line_to(cr, x1 + 0.5, y1 + 0.5);
    cairo_stroke(cr);
    return check(viz, "line");
}

/* The face of font f from the same file SDL_ttf opened (fontconfig pattern naming the
 * file: cairo loads it with its own FreeType library and embeds a subset). */
static cairo_font_face_t *face_for(Viz *viz, VizFont f) {
    PdfDoc *d = doc_of(viz);
    if (d->faces[f]) return d->faces[f];
    char path[4096];
    if (viz_font_path(d->assets_dir, f, path, sizeof path) != 0) return NULL;
    FcPattern *p = FcPatternCreate();
    if (!p) return NULL;
    FcPatternAddString(p, FC_FILE, (const FcChar8 *)path);
    FcPatternAddInteger(p, FC_INDEX, 0);
    cairo_font_face_t *ff = cairo_ft_font_face_create_for_pattern(p);
    FcPatternDestroy(p);
    if (cairo_font_face_status(ff) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(ff);
        return NULL;
    }
    return d->faces[f] = ff;
}

static int pdf_text(Viz *viz, const VizTextRun *run) {
    cairo_t *cr = doc_of(viz)->cr;
    if ((int)run->font < 0 || run->font >= VIZ_FONT_COUNT) return viz_fail(viz, "pdf: bad font %d", (int)run->font);
    cairo_font_face_t *ff = face_for(viz, run->font);
    if (!ff) return viz_fail(viz, "pdf: cannot load the font of face %d from %s/fonts", (int)run->font,
                             doc_of(viz)->assets_dir);
    cairo_save(cr);
    cairo_set_font_face(cr, ff);
    cairo_set_font_size(cr, run->px);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, run->utf8, &ext);
    double cx = run->x + run->w / 2.0, cy = run->y + run->h / 2.0;
    if (run->angle != 0.0) { /* around the box's centre */
        cairo_translate(cr, cx, cy);
        cairo_rotate(cr, run->angle * M_PI / 180.0);
        cairo_translate(cr, -cx, -cy);
    }
    /* stretched to SDL_ttf's width: the run ends where the layout put its end */
    cairo_translate(cr, run->x, run->y + run->ascent);
    if (ext.x_advance > 0 && run->w > 0) cairo_scale(cr, run->w / ext.x_advance, 1.0);
    set_source(cr, run->color);
    cairo_move_to(cr, 0, 0);
    cairo_show_text(cr, run->utf8);
    cairo_restore(cr);
    return check(viz, "text");
}

const VizBackend VIZ_BACKEND_PDF = VIZ_BACKEND_OF(pdf);

int pdf_doc_finish(PdfDoc *d, const PdfInfo *info, uint8_t **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    if (!d->surface || d->pages == 0 || d->page_open || d->finished)
        return error_set(err, "pdf: no complete page was drawn");
    static const struct {
        cairo_pdf_metadata_t key;
        size_t off;
    } KEYS[] = {
        {CAIRO_PDF_METADATA_TITLE, offsetof(PdfInfo, title)},
        {CAIRO_PDF_METADATA_SUBJECT, offsetof(PdfInfo, subject)},
        {CAIRO_PDF_METADATA_KEYWORDS, offsetof(PdfInfo, keywords)},
        {CAIRO_PDF_METADATA_CREATOR, offsetof(PdfInfo, creator)},
    };
    for (size_t i = 0; info && i < sizeof KEYS / sizeof KEYS[0]; i++) {
        const char *v = *(const char *const *)((const char *)info + KEYS[i].off);
        if (v) cairo_pdf_surface_set_metadata(d->surface, KEYS[i].key, v);
    }
    cairo_destroy(d->cr);
    d->cr = NULL;
    cairo_surface_finish(d->surface);
    d->finished = 1;
    cairo_status_t st = cairo_surface_status(d->surface);
    if (st != CAIRO_STATUS_SUCCESS) return error_set(err, "pdf: %s", cairo_status_to_string(st));
    if (d->out.oom) return error_set(err, "pdf: out of memory for the document");
    *out = (uint8_t *)d->out.data; /* ownership passes to the caller */
    *len = d->out.len;
    memset(&d->out, 0, sizeof d->out);
    return 0;
}
