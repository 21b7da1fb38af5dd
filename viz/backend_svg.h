/* backend_svg.h — the SVG backend (backend.h), writing SVG 1.1 text directly: <rect>,
 * <line>, <text> (selectable, searchable, editable in Inkscape), clip paths, the DejaVu
 * faces the text uses embedded as @font-face (cut to the glyphs used, font_subset.h),
 * and the provenance in <metadata>. Not cairo's SVG surface: that one turns every glyph
 * into a path, and a figure's words would no longer be text.
 *
 * Every string in the document goes through xml_escape (engine/xml_escape.h); there is
 * no other way text gets in. Coordinates are the page's device pixels, whole numbers.
 *
 * Usage (one document = one page):
 *     SvgDoc doc; svg_doc_init(&doc, assets_dir);
 *     viz_init_backend(&viz, &VIZ_BACKEND_SVG, &doc, ...);
 *     draw_page_begin(&viz, w, h); … draw_* … draw_page_end(&viz);
 *     svg_doc_finish(&doc, meta, n_meta, &bytes, &len, &err);  // bytes: malloc'd
 *     viz_free(&viz); svg_doc_free(&doc); */
#ifndef VIZ_BACKEND_SVG_H
#define VIZ_BACKEND_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "font_advance.h"
#include "font_subset.h"
#include "png_write.h"
#include "strbuf.h"

#define SVG_CLIP_MEMORY 64 /* clip rects remembered for reuse (panels repeat theirs) */

typedef struct SvgDoc {
    const char *assets_dir;  /* borrowed: the font files to embed */
    StrBuf body;             /* the drawing, written between page_begin and page_end */
    StrBuf defs;             /* <clipPath> definitions */
    int w, h;                /* the page, device pixels */
    int pages;               /* pages begun (an SVG holds one) */
    int page_open;
    int group_open;          /* 1 while a clipped <g> is open in body */
    int n_clips;             /* clip paths defined: ids c0 .. c<n_clips - 1> */
    Rect clip_rect[SVG_CLIP_MEMORY]; /* the latest defined, by id % SVG_CLIP_MEMORY */
    int clip_id[SVG_CLIP_MEMORY];
    FontCodepoints *used[VIZ_FONT_COUNT]; /* owned: characters set in each face */
    FontAdvance *advance[VIZ_FONT_COUNT]; /* owned, opened at first use: viewers' widths */
    int failed;              /* 1 after an allocation failed: finish refuses */
} SvgDoc;

extern const VizBackend VIZ_BACKEND_SVG;

/* doc must be freed with svg_doc_free. Returns 0, or -1 with err (out of memory). */
int svg_doc_init(SvgDoc *doc, const char *assets_dir, ErrorMsg *err);
void svg_doc_free(SvgDoc *doc); /* safe on a zeroed struct and twice */

/* The whole document after draw_page_end: the XML declaration, <svg> with its size,
 * <title> (the "Title" entry of meta), <metadata> holding every meta entry (the PNG's
 * text chunks, figure_meta.h, as <inferscope:entry key="...">value</inferscope:entry>),
 * the embedded font subsets, the clip paths and the drawing. *out is malloc'd (caller
 * frees), *len its size. Returns 0, or -1 with err (no page drawn, font unreadable, out
 * of memory). */
int svg_doc_finish(SvgDoc *doc, const PngText *meta, size_t n_meta, uint8_t **out, size_t *len, ErrorMsg *err);

#endif
