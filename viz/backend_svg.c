/* backend_svg.c — the SVG backend: see backend_svg.h. The drawing goes into doc->body as
 * it is drawn; the parts that must come first but are known only at the end (the fonts
 * used, the clip paths) are put in front by svg_doc_finish. */
#include "backend_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "xml_escape.h"

static const char *const FONT_CLASS[VIZ_FONT_COUNT] = {[VIZ_FONT_SANS] = "s", [VIZ_FONT_BOLD] = "b",
                                                       [VIZ_FONT_MONO] = "m"};
/* The CSS of each face: the family SDL_ttf measured with (its file is embedded under
 * that name, and a viewer without @font-face finds the installed DejaVu), then the
 * generic family. Mono falls back to Sans as viz_text.c does for symbols Mono lacks. */
static const char *const FONT_CSS[VIZ_FONT_COUNT] = {
    [VIZ_FONT_SANS] = "font-family:'DejaVu Sans',sans-serif",
    [VIZ_FONT_BOLD] = "font-family:'DejaVu Sans',sans-serif;font-weight:bold",
    [VIZ_FONT_MONO] = "font-family:'DejaVu Sans Mono','DejaVu Sans',monospace",
};
static const char *const FACE_WEIGHT[VIZ_FONT_COUNT] = {[VIZ_FONT_SANS] = "normal", [VIZ_FONT_BOLD] = "bold",
                                                        [VIZ_FONT_MONO] = "normal"};
static const char *const FACE_FAMILY[VIZ_FONT_COUNT] = {[VIZ_FONT_SANS] = "DejaVu Sans",
                                                        [VIZ_FONT_BOLD] = "DejaVu Sans",
                                                        [VIZ_FONT_MONO] = "DejaVu Sans Mono"};

static SvgDoc *doc_of(Viz *viz) { return viz->backend_ctx; }

int svg_doc_init(SvgDoc *doc, const char *assets_dir, ErrorMsg *err) {
    memset(doc, 0, sizeof *doc);
    doc->assets_dir = assets_dir;
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        if (!(doc->used[f] = font_codepoints_new())) {
            svg_doc_free(doc);
            return error_set(err, "svg: out of memory");
        }
    return 0;
}

void svg_doc_free(SvgDoc *doc) {
    if (!doc) return;
    strbuf_free(&doc->body);
    strbuf_free(&doc->defs);
    for (int f = 0; f < VIZ_FONT_COUNT; f++) {
        font_codepoints_free(doc->used[f]);
        font_advance_close(doc->advance[f]);
    }
    memset(doc, 0, sizeof *doc);
}

/* ' fill="#rrggbb"' (+ opacity when translucent) for attribute `what` (fill / stroke). */
static void add_paint(StrBuf *b, const char *what, SDL_Color c) {
    strbuf_addf(b, " %s=\"#%02x%02x%02x\"", what, c.r, c.g, c.b);
    if (c.a != 255) strbuf_addf(b, " %s-opacity=\"%.4g\"", what, c.a / 255.0);
}

static int svg_page_begin(Viz *viz, int w, int h) {
    SvgDoc *d = doc_of(viz);
    if (d->pages > 0) return viz_fail(viz, "svg: a document holds one page (export each figure to its own file)");
    d->pages = 1;
    d->page_open = 1;
    d->w = w;
    d->h = h;
    return 0;
}

static void close_group(SvgDoc *d) {
    if (d->group_open) strbuf_adds(&d->body, "</g>\n");
    d->group_open = 0;
}

static int svg_page_end(Viz *viz) {
    SvgDoc *d = doc_of(viz);
    if (!d->page_open) return viz_fail(viz, "svg: page_end without page_begin");
    close_group(d);
    d->page_open = 0;
    if (d->body.oom) d->failed = 1;
    return d->failed ? viz_fail(viz, "svg: out of memory") : 0;
}

/* The id of a clip path for r: one of the recently defined ones, else a new one. */
static int clip_id(SvgDoc *d, Rect r) {
    for (int i = 0; i < SVG_CLIP_MEMORY && i < d->n_clips; i++) {
        const Rect *c = &d->clip_rect[i];
        if (c->x == r.x && c->y == r.y && c->w == r.w && c->h == r.h) return d->clip_id[i];
    }
    int id = d->n_clips++;
    d->clip_rect[id % SVG_CLIP_MEMORY] = r;
    d->clip_id[id % SVG_CLIP_MEMORY] = id;
    strbuf_addf(&d->defs, "<clipPath id=\"c%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n", id,
                r.x, r.y, r.w, r.h);
    return id;
}

static int svg_clip(Viz *viz, const Rect *clip) {
    SvgDoc *d = doc_of(viz);
    close_group(d);
    if (!clip) return 0;
    strbuf_addf(&d->body, "<g clip-path=\"url(#c%d)\">\n", clip_id(d, *clip));
    d->group_open = 1;
    return 0;
}

static int svg_fill_rect(Viz *viz, Rect r, SDL_Color color) {
    StrBuf *b = &doc_of(viz)->body;
    strbuf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", r.x, r.y, r.w, r.h);
    add_paint(b, "fill", color);
    strbuf_adds(b, "/>\n");
    return 0;
}

/* From pixel centre to pixel centre: a 1-px line with square caps covers both end
 * pixels as SDL's does; a thick one with butt caps is the raster backend's quad. */
static int svg_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness) {
    StrBuf *b = &doc_of(viz)->body;
    strbuf_addf(b, "<line x1=\"%d.5\" y1=\"%d.5\" x2=\"%d.5\" y2=\"%d.5\"", x0, y0, x1, y1);
    add_paint(b, "stroke", color);
    if (thickness > 1) strbuf_addf(b, " stroke-width=\"%d\"/>\n", thickness);
    else strbuf_adds(b, " stroke-linecap=\"square\"/>\n");
    return 0;
}

static int svg_text(Viz *viz, const VizTextRun *run) {
    SvgDoc *d = doc_of(viz);
    if ((int)run->font < 0 || run->font >= VIZ_FONT_COUNT) return viz_fail(viz, "svg: bad font %d", (int)run->font);
    /* the face's characters go into its subset, and into Sans's: a symbol Bold or Mono
     * lacks is drawn from Sans (viz_text.c), and the CSS falls back the same way */
    if (font_codepoints_add_utf8(d->used[run->font], run->utf8) != 0 ||
        font_codepoints_add_utf8(d->used[VIZ_FONT_SANS], run->utf8) != 0) {
        d->failed = 1;
        return viz_fail(viz, "svg: out of memory");
    }
    StrBuf *b = &d->body;
    /* The layout was made with SDL_ttf's hinted widths; a viewer sets unhinted ones (a few
     * % apart). textLength says the width for the viewers that honour it (browsers), and
     * letter-spacing spreads the difference for those that do not (librsvg). */
    strbuf_addf(b, "<text class=\"%s\" x=\"%d\" y=\"%d\" font-size=\"%d\" textLength=\"%d\"", FONT_CLASS[run->font],
                run->x, run->y + run->ascent, run->px, run->w);
    if (!d->advance[run->font]) {
        char path[4096];
        ErrorMsg e;
        if (viz_font_path(d->assets_dir, run->font, path, sizeof path) != 0 ||
            !(d->advance[run->font] = font_advance_open(path, &e)))
            return viz_fail(viz, "svg: cannot measure with the font of face %d in %s/fonts", (int)run->font,
                            d->assets_dir);
    }
    int glyphs = 0;
    double natural = font_advance_width(d->advance[run->font], run->utf8, run->px, &glyphs);
    double spacing = glyphs > 0 ? (run->w - natural) / glyphs : 0.0;
    if (fabs(spacing) >= 0.005) strbuf_addf(b, " letter-spacing=\"%.2f\"", spacing);
    add_paint(b, "fill", run->color);
    if (run->angle != 0.0) /* around the box's centre, in half pixels */
        strbuf_addf(b, " transform=\"rotate(%.6g %.1f %.1f)\"", run->angle, run->x + run->w / 2.0,
                    run->y + run->h / 2.0);
    strbuf_adds(b, ">");
    xml_escape(b, (const uint8_t *)run->utf8, strlen(run->utf8));
    strbuf_adds(b, "</text>\n");
    return 0;
}

const VizBackend VIZ_BACKEND_SVG = VIZ_BACKEND_OF(svg);

/* ---- the document ---------------------------------------------------------------- */

static void add_escaped(StrBuf *b, const char *s) { xml_escape(b, (const uint8_t *)s, strlen(s)); }

/* <metadata>: the provenance as the PNG's text chunks hold it, key for key. */
static void add_metadata(StrBuf *b, const PngText *meta, size_t n) {
    strbuf_adds(b, "<metadata>\n<inferscope:provenance xmlns:inferscope=\"urn:inferscope:figure-meta\">\n");
    for (size_t i = 0; i < n; i++) {
        strbuf_adds(b, "<inferscope:entry key=\"");
        add_escaped(b, meta[i].keyword);
        strbuf_adds(b, "\">");
        add_escaped(b, meta[i].value);
        strbuf_adds(b, "</inferscope:entry>\n");
    }
    strbuf_adds(b, "</inferscope:provenance>\n</metadata>\n");
}

/* The stylesheet: text keeps its spaces, one class per face, and each face used
 * embedded as a subset of the file SDL_ttf measured with. */
static int add_style(SvgDoc *d, StrBuf *b, ErrorMsg *err) {
    strbuf_adds(b, "<style>\n");
    StrBuf ttf = {0};
    for (int f = 0; f < VIZ_FONT_COUNT; f++) {
        if (font_codepoints_count(d->used[f]) == 0) continue;
        char path[4096];
        if (viz_font_path(d->assets_dir, (VizFont)f, path, sizeof path) != 0)
            return error_set(err, "%s/fonts: path too long", d->assets_dir);
        strbuf_clear(&ttf);
        if (font_subset(path, d->used[f], &ttf, err) != 0) {
            strbuf_free(&ttf);
            return -1;
        }
        strbuf_addf(b, "@font-face{font-family:'%s';font-weight:%s;src:url(data:font/ttf;base64,", FACE_FAMILY[f],
                    FACE_WEIGHT[f]);
        base64_encode(b, (const uint8_t *)ttf.data, ttf.len);
        strbuf_adds(b, ") format('truetype')}\n");
    }
    strbuf_free(&ttf);
    for (int f = 0; f < VIZ_FONT_COUNT; f++) strbuf_addf(b, ".%s{%s}\n", FONT_CLASS[f], FONT_CSS[f]);
    strbuf_adds(b, "</style>\n");
    return 0;
}

int svg_doc_finish(SvgDoc *d, const PngText *meta, size_t n_meta, uint8_t **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    if (d->pages == 0 || d->page_open) return error_set(err, "svg: no complete page was drawn");
    if (d->failed || d->body.oom || d->defs.oom) return error_set(err, "svg: out of memory");
    StrBuf b = {0};
    strbuf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    strbuf_addf(&b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" xml:space=\"preserve\">\n",
                d->w, d->h, d->w, d->h);
    for (size_t i = 0; i < n_meta; i++)
        if (strcmp(meta[i].keyword, "Title") == 0) {
            strbuf_adds(&b, "<title>");
            add_escaped(&b, meta[i].value);
            strbuf_adds(&b, "</title>\n");
        }
    add_metadata(&b, meta, n_meta);
    if (add_style(d, &b, err) != 0) {
        strbuf_free(&b);
        return -1;
    }
    strbuf_adds(&b, "<defs>\n");
    strbuf_add(&b, d->defs.data, d->defs.len);
    strbuf_adds(&b, "</defs>\n");
    strbuf_add(&b, d->body.data, d->body.len);
    strbuf_adds(&b, "</svg>\n");
    if (b.oom) {
        strbuf_free(&b);
        return error_set(err, "svg: out of memory for the document");
    }
    *out = (uint8_t *)b.data; /* ownership passes to the caller */
    *len = b.len;
    return 0;
}
