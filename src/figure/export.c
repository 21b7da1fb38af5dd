/* export.c — offscreen render (viz/offscreen.h + the panels) → PNG with provenance,
 * numbered file names, folder creation, contact sheets (see export.h). One Offscreen
 * + Viz per figure: creating them costs a few ms against ~100 ms-1 s of PNG encoding,
 * and keeps every export independent of the window's renderer. */
#include "export.h"
#include "export_dir.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_pdf.h"
#include "backend_svg.h"
#include "cli.h"
#include "draw.h"
#include "file_write.h"
#include "frame_fill.h"
#include "offscreen.h"
#include "panels.h"
#include "viz.h"

#define SHEET_CELL_MIN_W 240 /* logical px: a cell is a heatmap and its "L3 H5" */
#define SHEET_CELL_MIN_H 264
#define SHEET_CHROME_W 160   /* logical px: the label columns of the sheet */
#define SHEET_CHROME_H 220   /* logical px: header, legend, bottom labels */

/* The formats, by ExportFormat: the name is also the file extension. */
static const char *const FORMAT_NAMES[EXPORT_FORMAT_COUNT] = {[EXPORT_PNG] = "png", [EXPORT_SVG] = "svg",
                                                              [EXPORT_PDF] = "pdf"};

const char *export_format_name(ExportFormat f) {
    return (int)f >= 0 && f < EXPORT_FORMAT_COUNT ? FORMAT_NAMES[f] : NULL;
}

int export_format_parse(const char *name, ExportFormat *out) {
    for (int f = 0; f < EXPORT_FORMAT_COUNT; f++)
        if (strcmp(name, FORMAT_NAMES[f]) == 0) {
            *out = (ExportFormat)f;
            return 0;
        }
    return -1;
}

void export_format_names(const char *sep, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (int f = 0; f < EXPORT_FORMAT_COUNT && n < cap; f++) {
        int k = snprintf(buf + n, cap - n, "%s%s", f ? sep : "", FORMAT_NAMES[f]);
        if (k < 0) break;
        n += (size_t)k;
    }
}

ExportOptions export_options_default(void) {
    ExportOptions o;
    memset(&o, 0, sizeof o);
    o.dir = EXPORT_DEFAULT_DIR;
    o.panel = VIZ_PANEL_FRAME;
    o.width = EXPORT_DEFAULT_W;
    o.height = EXPORT_DEFAULT_H;
    o.scale = 1;
    o.ui_scale = 1.0f;
    o.theme = THEME_LIGHT;
    return o;
}

void export_image_free(ExportImage *img) {
    if (!img) return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

/* Options with the 0 = default fields filled in, validated. */
static int resolve_options(const ExportOptions *in, ExportOptions *o, ErrorMsg *err) {
    *o = *in;
    if (!o->dir || !*o->dir) o->dir = EXPORT_DEFAULT_DIR;
    if (o->width == 0 && o->height == 0) {
        o->width = EXPORT_DEFAULT_W;
        o->height = EXPORT_DEFAULT_H;
    }
    if (o->scale == 0) o->scale = 1;
    if (o->ui_scale == 0.0f) o->ui_scale = 1.0f;
    if (!o->assets_dir) o->assets_dir = cli_assets_dir();
    if (o->scale != 1 && o->scale != 2 && o->scale != 4)
        return error_set(err, "export: scale %d is not 1, 2 or 4", o->scale);
    if (!(o->ui_scale >= VIZ_UI_SCALE_MIN && o->ui_scale <= VIZ_UI_SCALE_MAX))
        return error_set(err, "export: UI scale %g is outside [%g, %g]", (double)o->ui_scale,
                         (double)VIZ_UI_SCALE_MIN, (double)VIZ_UI_SCALE_MAX);
    if (o->width < 1 || o->height < 1 || o->width > OFFSCREEN_MAX_SIDE / o->scale ||
        o->height > OFFSCREEN_MAX_SIDE / o->scale)
        return error_set(err, "export: size %dx%d at scale %d is outside 1..%d pixels a side", o->width, o->height,
                         o->scale, OFFSCREEN_MAX_SIDE);
    if (!viz_panel_name(o->panel)) return error_set(err, "export: unknown panel %d", (int)o->panel);
    if (!export_format_name(o->format)) return error_set(err, "export: unknown format %d", (int)o->format);
    if ((int)o->theme < 0 || o->theme >= THEME_COUNT) return error_set(err, "export: unknown theme %d", (int)o->theme);
    return 0;
}

/* A figure never shows the mouse, the help card or a blanked screen. */
static VizView figure_view(const VizView *view) {
    VizView v = *view;
    v.mouse_x = v.mouse_y = -1;
    v.show_help = 0;
    v.blank = 0;
    v.print = 1;
    return v;
}

/* What one figure is drawn on: the offscreen pixels (PNG) or a vector document, with
 * the Viz drawing through the matching backend (viz/backend.h). */
typedef struct Canvas {
    ExportFormat format;
    Offscreen off; /* png */
    SvgDoc svg;    /* svg */
    PdfDoc pdf_own; /* pdf of one figure */
    PdfDoc *pdf;   /* pdf: &pdf_own, or a deck's document (borrowed) */
    Viz viz;
    int w, h;      /* device pixels */
} Canvas;

static void canvas_free(Canvas *c) {
    viz_free(&c->viz); /* before the target it draws on */
    offscreen_free(&c->off);
    svg_doc_free(&c->svg);
    pdf_doc_free(&c->pdf_own);
}

/* The UI scale a figure is drawn at: a slide (a lesson beat, one panel alone) sets its
 * type for the back of the room from its size (viz_slide_ui_scale, the option as a
 * factor); the whole frame is drawn as the window draws it. */
float export_effective_ui_scale(const ExportOptions *o) {
    float ui = o->ui_scale > 0.0f ? o->ui_scale : 1.0f;
    if (o->overlay || o->panel != VIZ_PANEL_FRAME) return viz_slide_ui_scale(o->width, o->height, ui);
    return ui;
}

/* Opens the target of o->format (PNG when png_only; a page of deck_pdf when given) and
 * begins its page. */
static int canvas_open(Canvas *c, int w, int h, const ExportOptions *o, float ui, int png_only, PdfDoc *deck_pdf,
                       ErrorMsg *err) {
    memset(c, 0, sizeof *c);
    c->format = deck_pdf ? EXPORT_PDF : png_only ? EXPORT_PNG : o->format;
    c->w = w;
    c->h = h;
    /* scale goes in as dpi_scale: every viz_px and font size is multiplied by it, so
     * a 2x figure is drawn at 2x, not enlarged afterwards */
    int rc;
    if (c->format == EXPORT_SVG) {
        rc = svg_doc_init(&c->svg, o->assets_dir, err) ||
             viz_init_backend(&c->viz, &VIZ_BACKEND_SVG, &c->svg, o->assets_dir, ui, (float)o->scale, o->theme, err);
    } else if (c->format == EXPORT_PDF) {
        if (!deck_pdf) pdf_doc_init(&c->pdf_own, o->assets_dir);
        c->pdf = deck_pdf ? deck_pdf : &c->pdf_own;
        rc = viz_init_backend(&c->viz, &VIZ_BACKEND_PDF, c->pdf, o->assets_dir, ui, (float)o->scale, o->theme, err);
    } else {
        rc = offscreen_create(&c->off, w, h, err) ||
             viz_init(&c->viz, c->off.renderer, o->assets_dir, ui, (float)o->scale, o->theme, err);
    }
    if (rc == 0 && draw_page_begin(&c->viz, w, h) != 0) rc = error_set(err, "export: %s", c->viz.last_error.text);
    if (rc) canvas_free(c);
    return rc ? -1 : 0;
}

/* Ends the page; a draw error of the figure fails the export here. */
static int canvas_end(Canvas *c, ErrorMsg *err) {
    draw_page_end(&c->viz);
    if (c->viz.has_error) return error_set(err, "export: drawing failed: %s", c->viz.last_error.text);
    return 0;
}

/* The PDF's info dictionary from the provenance: Title, Creator (Software), Subject
 * (what it is), Keywords = every key as the sidecar's JSON object (cairo 1.16 writes no
 * custom keys), then the document. */
static int pdf_finish_with_meta(PdfDoc *pdf, const FigureMeta *meta, uint8_t **out, size_t *len, ErrorMsg *err) {
    char *json = NULL;
    size_t json_len = 0;
    if (figure_meta_json(meta, &json, &json_len, err)) return -1;
    if (json_len && json[json_len - 1] == '\n') json[json_len - 1] = '\0';
    PdfInfo info = {.subject = "inferscope figure; Keywords holds its provenance as JSON", .keywords = json};
    for (size_t i = 0; i < meta->n; i++) {
        if (strcmp(meta->text[i].keyword, "Title") == 0) info.title = meta->text[i].value;
        if (strcmp(meta->text[i].keyword, "Software") == 0) info.creator = meta->text[i].value;
    }
    int rc = pdf_doc_finish(pdf, &info, out, len, err);
    free(json);
    return rc;
}

/* Reads the pixels back into out (before any present, per SDL-HEADLESS.md). */
static int canvas_read(Canvas *c, ExportImage *out, ErrorMsg *err) {
    size_t n = offscreen_rgba_size(c->off.w, c->off.h);
    out->rgba = n ? malloc(n) : NULL;
    if (!out->rgba) return error_set(err, "export: out of memory for a %dx%d image", c->off.w, c->off.h);
    if (offscreen_read_rgba(&c->off, out->rgba, n, err)) {
        export_image_free(out);
        return -1;
    }
    out->w = c->off.w;
    out->h = c->off.h;
    return 0;
}

/* The file's bytes with the provenance in them: PNG text chunks, SVG <metadata>. */
static int canvas_encode(Canvas *c, const FigureMeta *meta, int scale, uint8_t **out, size_t *len, ErrorMsg *err) {
    if (c->format == EXPORT_SVG) return svg_doc_finish(&c->svg, meta->text, meta->n, out, len, err);
    if (c->format == EXPORT_PDF) return pdf_finish_with_meta(c->pdf, meta, out, len, err);
    ExportImage img;
    if (canvas_read(c, &img, err)) return -1;
    int rc = png_encode(img.rgba, img.w, img.h, 4, (size_t)img.w * 4, meta->text, meta->n, 96.0 * scale, out, len,
                        err);
    export_image_free(&img);
    return rc;
}

/* Draws the figure of o (a panel, the frame, or a lesson slide when o->overlay) on c. */
static int draw_figure(Canvas *c, const Session *s, const VizView *view, const ExportOptions *o) {
    VizView v = figure_view(view);
    VizFrame f;
    frame_fill(&f, s, &v);
    if (viz_panel_row(o->panel)) frame_fill_needs(&f, s, viz_panel_row(o->panel)->needs);
    f.last_step_ms = -1; /* wall time differs run to run: a figure shows only state */
    f.klass = o->klass;
    Rect full = rect_make(0, 0, c->w, c->h);
    int rc;
    if (o->overlay) {
        /* a lesson slide: the same draw call as the presenter's window (draw_frame with
         * the slide flag), so E in a lesson and `export --lesson` are what the class sees */
        f.title = o->overlay->title;
        f.captions = o->overlay->captions;
        f.n_captions = o->overlay->n_captions;
        f.question = o->overlay->question;
        f.beat_label = o->overlay->beat_label;
        f.view.slide = 1;
        f.view.focus = o->panel;
        rc = draw_frame(&c->viz, full, &f, NULL);
    } else {
        rc = draw_panel_figure(&c->viz, full, &f, o->panel, NULL);
    }
    if (rc && !c->viz.has_error) viz_fail(&c->viz, "the %s panel could not be drawn", viz_panel_name(o->panel));
    return rc;
}

/* Opens a canvas of o's size and draws the figure on it (page ended). */
static int render_figure(Canvas *c, const Session *s, const VizView *view, const ExportOptions *o, int png_only,
                         PdfDoc *deck_pdf, ErrorMsg *err) {
    if (session_len(s) == 0) return error_set(err, "export: no prompt yet: nothing to draw");
    if (canvas_open(c, o->width * o->scale, o->height * o->scale, o, export_effective_ui_scale(o), png_only, deck_pdf,
                    err))
        return -1;
    draw_figure(c, s, view, o);
    if (canvas_end(c, err)) {
        canvas_free(c);
        return -1;
    }
    return 0;
}

int export_render(const Session *s, const VizView *view, const ExportOptions *opt, ExportImage *out,
                  ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    Canvas c;
    if (render_figure(&c, s, view, &o, 1, NULL, err)) return -1;
    int rc = canvas_read(&c, out, err);
    canvas_free(&c);
    return rc;
}

/* ---- contact sheet ------------------------------------------------------------------ */

typedef struct SheetLayout {
    int layer0, n_layers, n_heads; /* the heads shown: layers [layer0, layer0+n_layers) */
    int cols, rows;
    int cell_w, cell_h;            /* logical, label strip included */
    int w, h;                      /* logical sheet size */
} SheetLayout;

static int sheet_layout(const Session *s, const ExportOptions *o, int layer, SheetLayout *L, ErrorMsg *err) {
    const Gpt2Config *cfg = &s->model.config;
    if (layer >= cfg->n_layer)
        return error_set(err, "export: layer %d does not exist (model %s has layers 0..%d)", layer, s->model.name,
                         cfg->n_layer - 1);
    L->n_heads = cfg->n_head;
    if (layer >= 0) {
        /* one layer: a near-square grid of its heads */
        L->layer0 = layer;
        L->n_layers = 1;
        L->cols = (int)ceil(sqrt((double)cfg->n_head));
        L->rows = (cfg->n_head + L->cols - 1) / L->cols;
    } else {
        /* every layer: one row per layer, one column per head (reads like the thumbnails) */
        L->layer0 = 0;
        L->n_layers = cfg->n_layer;
        L->cols = cfg->n_head;
        L->rows = cfg->n_layer;
    }
    /* the requested size, grown when the cells would be smaller than a readable heatmap */
    L->cell_w = (o->width - SHEET_CHROME_W) / L->cols;
    if (L->cell_w < SHEET_CELL_MIN_W) L->cell_w = SHEET_CELL_MIN_W;
    L->cell_h = (o->height - SHEET_CHROME_H) / L->rows;
    if (L->cell_h < SHEET_CELL_MIN_H) L->cell_h = SHEET_CELL_MIN_H;
    L->w = SHEET_CHROME_W + L->cell_w * L->cols;
    L->h = SHEET_CHROME_H + L->cell_h * L->rows;
    if (L->w < o->width) L->w = o->width;
    if (L->h < o->height) L->h = o->height;
    if ((long)L->w * o->scale > OFFSCREEN_MAX_SIDE || (long)L->h * o->scale > OFFSCREEN_MAX_SIDE)
        return error_set(err, "export: a contact sheet of %d x %d heads needs %ldx%ld pixels at scale %d "
                         "(at most %d a side): use a smaller --scale or one --layer",
                         L->rows, L->cols, (long)L->w * o->scale, (long)L->h * o->scale, o->scale, OFFSCREEN_MAX_SIDE);
    return 0;
}

/* Opens a canvas of the sheet's size and draws the sheet on it (page ended). */
static int render_sheet(Canvas *c, const Session *s, const VizView *view, const ExportOptions *o, int layer,
                        int png_only, ErrorMsg *err) {
    if (session_len(s) == 0) return error_set(err, "export: no prompt yet: nothing to draw");
    SheetLayout L = {0};
    if (sheet_layout(s, o, layer, &L, err)) return -1;
    /* a sheet is a figure of many small pictures: the UI scale as given, not a slide's */
    if (canvas_open(c, L.w * o->scale, L.h * o->scale, o, o->ui_scale, png_only, NULL, err)) return -1;
    Viz *viz = &c->viz;
    char title[256];
    int step = session_step_index(s);
    if (layer >= 0)
        snprintf(title, sizeof title, "Attention patterns of layer %d, every head \xC2\xB7 %s \xC2\xB7 step %d", layer,
                 s->model.name, step);
    else
        snprintf(title, sizeof title, "Attention patterns, every layer \xC3\x97 head \xC2\xB7 %s \xC2\xB7 step %d",
                 s->model.name, step);
    VizView v = figure_view(view);
    VizFrame f;
    frame_fill(&f, s, &v);
    int rc = draw_attention_sheet(viz, rect_make(0, 0, c->w, c->h), &f, L.layer0, L.n_layers, 0, title);
    if (rc && !viz->has_error) viz_fail(viz, "the attention panel could not be drawn");
    if (canvas_end(c, err)) {
        canvas_free(c);
        return -1;
    }
    return 0;
}

int export_render_contact_sheet(const Session *s, const VizView *view, const ExportOptions *opt, int layer,
                                ExportImage *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    Canvas c;
    if (render_sheet(&c, s, view, &o, layer, 1, err)) return -1;
    int rc = canvas_read(&c, out, err);
    canvas_free(&c);
    return rc;
}

/* ---- folders and names -------------------------------------------------------------- */

int export_make_dir(const char *dir, ErrorMsg *err) {
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) return error_set(err, "%s: folder name empty or too long", dir);
    memcpy(buf, dir, n + 1);
    /* mkdir -p: each prefix ending at a '/' (skipping the root), then the whole path */
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char saved = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                buf[i] = saved;
                return error_set(err, "%s: cannot create the folder: %.*s is a file, not a folder", dir, (int)i, buf);
            }
        } else if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            return error_set(err, "%s: cannot create the folder %s (%s)", dir, buf, strerror(e));
        }
        buf[i] = saved;
    }
    return 0;
}

int export_next_number(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 1;
    long best = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (nm[0] == '.') continue; /* hidden: ".", "..", our own temporaries */
        long x = 0;
        int digits = 0;
        while (nm[digits] >= '0' && nm[digits] <= '9' && digits < 9) x = x * 10 + (nm[digits++] - '0');
        if (digits == 0 || (nm[digits] != '-' && nm[digits] != '.')) continue;
        if (x > best) best = x;
    }
    closedir(d);
    return (int)(best + 1);
}

static int path_exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

int export_weights_sha256(const Session *s, Sha256Cache *cache, char hex[SHA256_HEX_LEN + 1], ErrorMsg *err) {
    hex[0] = '\0';
    if (!s->model.dir[0]) return error_set(err, "a random model has no weights file");
    char path[1100];
    snprintf(path, sizeof path, "%s/model.safetensors", s->model.dir);
    /* hash the file only while it is the one that was loaded: after a rewrite or a
     * replacement the bytes on disk are not the weights that drew the figure */
    FileIdentity now;
    if (file_identity(path, &now) != 0 || !file_identity_same(&now, &s->weights_loaded)) {
        error_set(err, "%s changed on disk after it was loaded: its hash would not name these weights", path);
        return 1;
    }
    Sha256Cache local = {0};
    const char *h = NULL;
    if (sha256_file_cached(cache ? cache : &local, path, &h, err)) return -1;
    memcpy(hex, h, SHA256_HEX_LEN + 1);
    return 0;
}

/* The hash for the provenance in local->hex, or NULL ("unknown": random model, file
 * changed since loading, unreadable) — a figure without a hash is still a figure. */
static const char *weights_sha(const Session *s, Sha256Cache *cache, Sha256Cache *local) {
    ErrorMsg e;
    return export_weights_sha256(s, cache, local->hex, &e) == 0 ? local->hex : NULL;
}

/* The provenance of the figure o draws of the session's state. */
static int figure_meta_of(const Session *s, const VizView *view, const ExportOptions *o, int contact_sheet,
                          int sheet_layer, FigureMeta *meta, ErrorMsg *err) {
    Sha256Cache local = {0};
    FigureMetaInput in = {.panel = contact_sheet ? VIZ_PANEL_ATTENTION : o->panel,
                          .width = o->width, .height = o->height, .scale = o->scale,
                          .ui_scale = o->ui_scale, .theme = o->theme,
                          .model_sha256 = weights_sha(s, o->sha_cache, &local),
                          .contact_sheet = contact_sheet, .sheet_layer = sheet_layer};
    return figure_meta_build(meta, s, view, &in, err);
}

int export_figure_meta(const Session *s, const VizView *view, const ExportOptions *opt, FigureMeta *meta,
                       ErrorMsg *err) {
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    return figure_meta_of(s, view, &o, 0, -1, meta, err);
}

/* Writes the figure drawn on c + provenance as the next numbered file "NNNN-<stem>.<ext>"
 * in o->dir (and its sidecar). */
static int write_figure(const Session *s, const VizView *view, const ExportOptions *o, Canvas *c,
                        const char *stem, int contact_sheet, int sheet_layer, char *out_path, size_t cap,
                        ErrorMsg *err) {
    if (export_make_dir(o->dir, err)) return -1;
    FigureMeta meta;
    if (figure_meta_of(s, view, o, contact_sheet, sheet_layer, &meta, err)) return -1;
    char *json = NULL;
    size_t json_len = 0;
    if (o->sidecar && figure_meta_json(&meta, &json, &json_len, err)) {
        figure_meta_free(&meta);
        return -1;
    }
    uint8_t *png = NULL;
    size_t png_len = 0;
    if (canvas_encode(c, &meta, o->scale, &png, &png_len, err)) {
        figure_meta_free(&meta);
        free(json);
        return -1;
    }
    FileWriteOptions wo = {.overwrite = 0, .write_fn = o->write_fn, .write_ctx = o->write_ctx};
    int rc = -1;
    char path[4200], jpath[4200];
    /* under the folder's lock: first sweep what an interrupted export left (export_dir.h) */
    int lock = export_dir_lock(o->dir, err);
    if (lock < 0) {
        free(png);
        free(json);
        figure_meta_free(&meta);
        return -1;
    }
    export_dir_sweep(o->dir);
    /* the number: 1 + the highest in the folder; if another exporter (without our lock:
     * another program) takes it meanwhile, link(2) refuses to overwrite: the next one */
    int num = export_next_number(o->dir);
    for (int attempt = 0; attempt < 100; attempt++, num++) {
        snprintf(path, sizeof path, "%s/%04d-%s.%s", o->dir, num, stem, export_format_name(c->format));
        snprintf(jpath, sizeof jpath, "%s/%04d-%s.json", o->dir, num, stem);
        if (path_exists(path) || (o->sidecar && path_exists(jpath))) continue;
        /* the sidecar first, the PNG last: the PNG is the commit point, so a figure
         * never appears without the sidecar that was asked for */
        if (o->sidecar && file_write_atomic(jpath, json, json_len, &wo, err) != 0) {
            if (strstr(err->text, "already exists")) continue; /* lost a race: next number */
            break;
        }
        if (file_write_atomic(path, png, png_len, &wo, err) != 0) {
            if (o->sidecar) unlink(jpath);
            if (strstr(err->text, "already exists")) continue;
            break;
        }
        rc = 0;
        break;
    }
    export_dir_unlock(lock);
    if (rc != 0 && !err->text[0]) error_set(err, "%s: no free file name after 100 tries", o->dir);
    if (rc == 0 && out_path && cap) snprintf(out_path, cap, "%s", path);
    free(png);
    free(json);
    figure_meta_free(&meta);
    return rc;
}

/* The file name after the number: "step-07-attention-L3H5" (the step, the panel, and
 * for attention the clamped layer/head that were actually drawn), "step-07-attention-
 * L3-heads" for a contact sheet; a single figure takes the caller's o->stem if set. */
static void figure_stem(const Session *s, const VizView *view, const ExportOptions *o, int sheet, int layer,
                        char *stem, size_t cap) {
    int step = session_step_index(s);
    if (sheet) {
        if (layer >= 0) snprintf(stem, cap, "step-%02d-attention-L%d-heads", step, layer);
        else snprintf(stem, cap, "step-%02d-attention-all-heads", step);
    } else if (o->stem && *o->stem) {
        snprintf(stem, cap, "%s", o->stem);
    } else {
        /* the panel table's file name ("attention-L3H5"), with the clamped layer/head
         * that were actually drawn */
        VizFrame f;
        frame_fill(&f, s, view);
        char what[64];
        viz_panel_format(viz_panel_row(o->panel)->stem, &f.view, what, sizeof what);
        snprintf(stem, cap, "step-%02d-%s", step, what);
    }
}

/* export_png (sheet 0) and export_contact_sheet (sheet 1, of `layer` or -1 = all):
 * render, name, write. */
static int export_figure(const Session *s, const VizView *view, const ExportOptions *opt, int sheet, int layer,
                         char *out_path, size_t cap, ErrorMsg *err) {
    ErrorMsg local;
    if (!err) err = &local;
    if (out_path && cap) out_path[0] = '\0';
    err->text[0] = '\0';
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    Canvas c;
    if (sheet ? render_sheet(&c, s, view, &o, layer, 0, err) : render_figure(&c, s, view, &o, 0, NULL, err)) return -1;
    char stem[96];
    figure_stem(s, view, &o, sheet, layer, stem, sizeof stem);
    int rc = write_figure(s, view, &o, &c, stem, sheet, sheet && layer >= 0 ? layer : -1, out_path, cap, err);
    canvas_free(&c);
    return rc;
}

int export_png(const Session *s, const VizView *view, const ExportOptions *opt, char *out_path, size_t cap,
               ErrorMsg *err) {
    return export_figure(s, view, opt, 0, -1, out_path, cap, err);
}

int export_contact_sheet(const Session *s, const VizView *view, const ExportOptions *opt, int layer,
                         char *out_path, size_t cap, ErrorMsg *err) {
    return export_figure(s, view, opt, 1, layer, out_path, cap, err);
}

/* ---- a multi-page PDF ------------------------------------------------------------- */

struct ExportPdfDeck {
    PdfDoc pdf; /* the document the pages are drawn into */
    int pages;
};

int export_pdf_deck_open(ExportPdfDeck **deck, const ExportOptions *opt, ErrorMsg *err) {
    *deck = NULL;
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    ExportPdfDeck *d = calloc(1, sizeof *d);
    if (!d) return error_set(err, "export: out of memory");
    pdf_doc_init(&d->pdf, o.assets_dir);
    *deck = d;
    return 0;
}

int export_pdf_deck_add(ExportPdfDeck *deck, const Session *s, const VizView *view, const ExportOptions *opt,
                        ErrorMsg *err) {
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    Canvas c;
    if (render_figure(&c, s, view, &o, 0, &deck->pdf, err)) return -1;
    canvas_free(&c); /* the page stays in the deck's document */
    deck->pages++;
    return 0;
}

int export_pdf_deck_write(ExportPdfDeck *deck, const Session *s, const VizView *view, const ExportOptions *opt,
                          const char *stem, char *out_path, size_t cap, ErrorMsg *err) {
    if (out_path && cap) out_path[0] = '\0';
    ExportOptions o;
    if (resolve_options(opt, &o, err)) return -1;
    if (deck->pages == 0) return error_set(err, "export: the PDF has no pages");
    Canvas c = {.format = EXPORT_PDF, .pdf = &deck->pdf};
    return write_figure(s, view, &o, &c, stem, 0, -1, out_path, cap, err);
}

int export_pdf_deck_pages(const ExportPdfDeck *deck) { return deck ? deck->pages : 0; }

void export_pdf_deck_free(ExportPdfDeck *deck) {
    if (!deck) return;
    pdf_doc_free(&deck->pdf);
    free(deck);
}
