/* export.h — figures for course material: renders a Session + VizView offscreen (no
 * window, no display) with the panels' own draw functions and writes a PNG with its
 * provenance (figure_meta.h) atomically, never overwriting anything. Used by the
 * window (E = the frame, Shift+E = the focused panel), `inferscope export` and tests.
 * SVG and PDF (ExportOptions.format) are drawn by the same panels through the vector
 * backends (viz/backend_svg.h, viz/backend_pdf.h) and written the same way.
 * Not a drawing module (viz/panels.h draws) and not the PNG codec (png_write.h).
 *
 * Resolution: width × height is the LOGICAL size (the window's); scale 2 or 4
 * re-renders everything at that density through the Viz dpi_scale (fonts, lines and
 * cells are drawn at 2×/4×, not upscaled), so a 1920×1080 frame at scale 2 is a
 * 3840×2160 image with exactly the same layout. pHYs says 96 × scale dpi.
 *
 * File names sort and say what they are:
 *     0007-step-07-attention-L3H5.png   (number-step-panel[-layer/head])
 *     0008-step-00-frame.png, 0009-step-02-attention-L1-heads.png (contact sheet)
 * The number is 1 + the highest number of any visible file in the folder, so nothing
 * is ever overwritten; if another process takes the name first the next one is used.
 * Temporary files (".NAME.tmp-XXXXXX", hidden) never count as figures. */
#ifndef EXPORT_H
#define EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "figure_meta.h"
#include "frame.h"
#include "png_write.h"
#include "session.h"
#include "sha256_file.h"
#include "theme.h"

#define EXPORT_DEFAULT_DIR "./inferscope-figures"
#define EXPORT_DEFAULT_W 1920
#define EXPORT_DEFAULT_H 1080

/* Lesson slide decorations drawn over a figure (all borrowed; NULL/0 = none). */
typedef struct ExportOverlay {
    const char *title;             /* lesson title, top band */
    const char *const *captions;   /* (n_captions) narration lines */
    int n_captions;
    const char *question;          /* an open question card */
    const char *beat_label;        /* "3 / 12" */
} ExportOverlay;

/* The file formats (the name is the extension): PNG pixels with text chunks; SVG and
 * PDF drawn through their vector backends (viz/backend.h) with the same layout and
 * colours, text kept as text, the same provenance keys (SVG <metadata>, PDF info). */
typedef enum ExportFormat { EXPORT_PNG = 0, EXPORT_SVG, EXPORT_PDF, EXPORT_FORMAT_COUNT } ExportFormat;

/* "png", "svg", ... (NULL for a bad value). */
const char *export_format_name(ExportFormat f);
/* 0 and *out for a name of the table, -1 otherwise. */
int export_format_parse(const char *name, ExportFormat *out);
/* The names joined with sep ("png|svg|pdf"), for --help and errors. */
void export_format_names(const char *sep, char *buf, size_t cap);

typedef struct ExportOptions {
    const char *dir;         /* output folder, created if missing; NULL/"" = EXPORT_DEFAULT_DIR */
    VizPanel panel;          /* VIZ_PANEL_FRAME (whole window) or one panel */
    int width, height;       /* logical size (the window size); 0 = 1920x1080 */
    int scale;               /* 1, 2 or 4 (0 = 1): re-rendered at that density */
    float ui_scale;          /* the window's UI scale, 1..2.5 (0 = 1); a slide (overlay set,
                              * or one panel) multiplies its own type size by it:
                              * export_effective_ui_scale */
    ThemeId theme;           /* light (print) or dark */
    ExportFormat format;     /* EXPORT_PNG (0) by default; export_render is always pixels */
    int sidecar;             /* 1: also write NAME.json with the same provenance */
    const char *assets_dir;  /* fonts live in <assets_dir>/fonts; NULL = cli_assets_dir() */
    Sha256Cache *sha_cache;  /* caller-owned cache of the weights' SHA-256 (NULL: hash
                              * model.safetensors on every export) */
    const ExportOverlay *overlay; /* lesson captions etc. drawn on top, or NULL */
    const char *stem;        /* file name after the number (e.g. "lesson04-beat-03"), or
                              * NULL for the default "step-07-attention-L3H5" form */
    PngWriteFn write_fn;     /* test seam for the file writes (NULL = write(2)) */
    void *write_ctx;
    const VizClass *klass;   /* the class room as the window shows it (its panel), or NULL */
} ExportOptions;

/* Defaults: EXPORT_DEFAULT_DIR, the frame, 1920x1080, scale 1, UI scale 1, light. */
ExportOptions export_options_default(void);

/* The UI scale the figure is drawn at: for a lesson slide or a single panel the
 * slide's (viz_slide_ui_scale of the logical size, times ui_scale), for the frame
 * ui_scale itself. opt must have its defaults filled in (width, height). */
float export_effective_ui_scale(const ExportOptions *opt);

/* Tight RGBA pixels (pitch w*4), owned. */
typedef struct ExportImage {
    uint8_t *rgba;
    int w, h;
} ExportImage;
void export_image_free(ExportImage *img);

/* Renders the figure to pixels without writing anything (tests, timing). The view is
 * used as given except that hover, help and blanking are off (a figure has no mouse).
 * Returns 0 or -1 with err (bad options, SDL/font failure, a panel's draw error). */
int export_render(const Session *s, const VizView *view, const ExportOptions *opt, ExportImage *out,
                  ErrorMsg *err);

/* Renders and writes the next numbered figure into opt->dir; out_path (cap bytes, may
 * be NULL) receives the file's path. Errors name the path: folder is a file, folder
 * not writable, disk full...; a failed export leaves no file behind (and no sidecar
 * without its PNG). */
int export_png(const Session *s, const VizView *view, const ExportOptions *opt, char *out_path, size_t cap,
               ErrorMsg *err);

/* A contact sheet: the attention panel of every head of `layer` (or of every layer ×
 * head when layer < 0) in one labelled grid. Each cell is at least 480x360 logical
 * pixels, so the sheet may be larger than opt's size. Otherwise as export_png. */
int export_contact_sheet(const Session *s, const VizView *view, const ExportOptions *opt, int layer,
                         char *out_path, size_t cap, ErrorMsg *err);
/* The same rendered to pixels only. */
int export_render_contact_sheet(const Session *s, const VizView *view, const ExportOptions *opt, int layer,
                                ExportImage *out, ErrorMsg *err);

/* Several figures as the pages of ONE PDF (a lesson's slides: the deck a teacher
 * prints or projects from a PDF viewer). export_pdf_deck_add draws one page of the
 * session's state as export_png would draw the figure (opt->format is ignored: always
 * a PDF page); export_pdf_deck_write writes the document as the next numbered
 * "NNNN-<stem>.pdf" in opt->dir, its provenance (the info dictionary) that of the state
 * given, normally the last page's. free is safe on a zeroed deck and after write. */
typedef struct ExportPdfDeck ExportPdfDeck;
int export_pdf_deck_open(ExportPdfDeck **deck, const ExportOptions *opt, ErrorMsg *err);
int export_pdf_deck_add(ExportPdfDeck *deck, const Session *s, const VizView *view, const ExportOptions *opt,
                        ErrorMsg *err);
int export_pdf_deck_write(ExportPdfDeck *deck, const Session *s, const VizView *view, const ExportOptions *opt,
                          const char *stem, char *out_path, size_t cap, ErrorMsg *err);
int export_pdf_deck_pages(const ExportPdfDeck *deck);
void export_pdf_deck_free(ExportPdfDeck *deck);

/* The provenance export_png would write for this figure (a video's metadata:
 * export_video.h). meta must be zeroed; free with figure_meta_free. */
int export_figure_meta(const Session *s, const VizView *view, const ExportOptions *opt, FigureMeta *meta,
                       ErrorMsg *err);

/* 1 + the highest leading number of a visible file name ("0007-...") in dir; 1 for an
 * empty or missing folder. */
int export_next_number(const char *dir);

/* The SHA-256 of the weights the session loaded (through cache, which may be NULL):
 * 0 with hex filled, 1 when model.safetensors changed on disk after loading (err says so;
 * then nothing names these weights), -1 on a random model or a read error. */
int export_weights_sha256(const Session *s, Sha256Cache *cache, char hex[SHA256_HEX_LEN + 1], ErrorMsg *err);

/* Creates dir and its parents if missing (mode 0755). Errors: a path component is a
 * file, permission denied... */
int export_make_dir(const char *dir, ErrorMsg *err);

#endif
