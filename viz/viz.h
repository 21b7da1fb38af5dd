/* viz.h — the drawing context every panel receives: the SDL renderer to draw on, the
 * three DejaVu fonts at the current UI scale (plus fallback fonts for characters
 * DejaVu lacks: emoji, CJK), the theme, and a bounded cache of text textures. One Viz
 * per renderer (window or offscreen export). It draws nothing by itself (see draw.h)
 * and knows nothing about the model.
 *
 * Usage:
 *     Viz viz = {0};
 *     if (viz_init(&viz, renderer, assets_dir, 1.5f, 1.0f, THEME_LIGHT, &err) != 0) …
 *     … each frame: draw_*(&viz, …) …
 *     viz_free(&viz);            // before SDL_DestroyRenderer(renderer)
 *
 * Sizes: panels think in "logical pixels" at scale 1 and convert with viz_px(), so a
 * projector (ui_scale 2) or a 300-dpi export (dpi_scale ~3) just multiplies. Font
 * sizes follow the same scale. viz_gx() converts with dpi_scale alone: the size a
 * plot has at UI scale 100 %, which a larger UI scale must not take away (text grows,
 * pictures keep their room). Thread-unsafe, like SDL rendering itself. */
#ifndef VIZ_VIZ_H
#define VIZ_VIZ_H

#include <SDL.h>
#include <SDL_ttf.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "layout.h"
#include "theme.h"

struct VizBackend; /* backend.h: what the primitives draw on */

typedef enum VizFont {
    VIZ_FONT_SANS = 0, /* DejaVu Sans: labels, body text */
    VIZ_FONT_BOLD,     /* DejaVu Sans Bold: titles, the chosen token */
    VIZ_FONT_MONO,     /* DejaVu Sans Mono: token strings, ids, numbers in columns */
    VIZ_FONT_COUNT
} VizFont;

typedef enum VizTextSize {
    VIZ_TEXT_SMALL = 0, /* 11 px at scale 1: tick labels, cell numbers */
    VIZ_TEXT_BODY,      /* 14 px: labels, tokens */
    VIZ_TEXT_TITLE,     /* 18 px: panel titles */
    VIZ_TEXT_CAPTION,   /* 26 px: lesson captions and questions, read from the back of a room */
    VIZ_TEXT_DISPLAY,   /* any size, set with viz_set_display_px: texts set to fill a slide */
    VIZ_TEXT_SIZE_COUNT
} VizTextSize;

/* Allowed scale ranges (viz_init / viz_set_scale reject values outside them). */
#define VIZ_UI_SCALE_MIN 1.0f  /* laptop */
#define VIZ_UI_SCALE_MAX 2.5f  /* projector at the back of a classroom */
#define VIZ_DPI_SCALE_MIN 0.5f
#define VIZ_DPI_SCALE_MAX 4.0f /* 4 × 96 dpi ≈ 384 dpi print export */

/* Text textures are cached by (font, size, text): 64 sets × 16 ways = 1024 textures at
 * most, least-recently-used replaced within a set. 16 ways because a frame redraws the
 * same labels in the same order each time, and a cyclic pattern that overflows a set
 * misses on every access under LRU. Texts longer than VIZ_TEXT_CACHE_KEY_MAX - 1 bytes
 * are rendered uncached each time. */
#define VIZ_TEXT_CACHE_SETS 64
#define VIZ_TEXT_CACHE_WAYS 16
#define VIZ_TEXT_CACHE_KEY_MAX 96
/* ... and at most one screen of pixels (viz_text_cache_budget: 4 bytes a pixel of the
 * renderer's output, never under VIZ_TEXT_CACHE_BYTES_MIN: 8 MiB up to 1920×1080, 33 MB
 * at 3840×2160), the least recently used texture of the whole cache dropped to make room.
 * Why: 1024 entries is no bound on memory, a texture's size follows the text's pixel
 * size: a 1920×1080 window held 8 MB of labels at UI scale 1 and 36 MB once large chips
 * (a panel alone, the display size) were among them, and 1024 such chips would be ~1 GB.
 * A frame draws less text than its screen holds (measured at 1920×1080: 1.9 MB of 145
 * labels at most, 5.4 MB of 26 chips with the tokens panel alone), so a screen keeps the
 * frame on screen cached; a single text larger than the budget is drawn uncached, as a
 * long one is. */
#define VIZ_TEXT_CACHE_BYTES_MIN ((size_t)8 << 20)

/* Fallback fonts tried, in order, for a character the requested face lacks (SDL_ttf
 * has no fallback of its own). The default chain is Debian's colour emoji and Droid
 * Sans Fallback (CJK) where installed; INFERSCOPE_FALLBACK_FONTS=path:path… replaces
 * it ("" = none, as the golden-image tests do). Missing files are skipped: without
 * them a character no font has is shown as its bytes by token labels. */
#define VIZ_FALLBACK_MAX 4
#define VIZ_FALLBACK_DEFAULT "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf:" \
                             "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
/* Display text sizes allowed (pixels). */
#define VIZ_DISPLAY_PX_MIN 6
#define VIZ_DISPLAY_PX_MAX 720
/* A rendered text: a white layer (coloured at copy time) and, only when the text holds
 * colour glyphs (emoji), a colour layer of the same size drawn on top unmodulated. */
typedef struct VizTextLayers {
    SDL_Texture *mono;  /* white + alpha; NULL for "" */
    SDL_Texture *color; /* colour glyphs, or NULL */
    int w, h;           /* size of both, pixels */
} VizTextLayers;

typedef struct VizTextCacheEntry {
    VizTextLayers tex;    /* owned by the Viz; tex.mono == NULL = empty slot */
    Uint64 last_used;     /* Viz.tick at the last hit, for LRU */
    Uint64 hash;          /* key hash: compared before the string */
    unsigned char font, size;
    unsigned short px;    /* pixel size it was rendered at (the display size varies) */
    char text[VIZ_TEXT_CACHE_KEY_MAX]; /* the key, NUL-terminated */
} VizTextCacheEntry;

/* One fallback font (owned by the Viz). */
typedef struct VizFallback {
    TTF_Font *font;
    int fixed;    /* 1: a bitmap font with one size (colour emoji: 128 px): scaled to fit */
    int color;    /* 1: its glyphs carry their own colour (not tinted with the text) */
    int cur_px;   /* size it is set to (scalable fonts follow the text) */
} VizFallback;

typedef struct Viz {
    const struct VizBackend *backend; /* static storage: what draw.h draws on (backend.h) */
    void *backend_ctx;      /* borrowed: the vector backends' document (NULL for raster) */
    SDL_Renderer *renderer; /* borrowed: must outlive the Viz (viz_free first); NULL for a
                             * vector backend (then no text textures are made) */
    Rect clip;              /* the clip set by draw_set_clip, when clip_on (kept here so
                             * draw.c can nest clips on any backend) */
    int clip_on;
    const Theme *theme;     /* static storage (theme_get); change with viz_set_theme */
    ThemeId theme_id;
    float ui_scale;  /* user setting, VIZ_UI_SCALE_MIN..MAX */
    float dpi_scale; /* screen/export density factor, VIZ_DPI_SCALE_MIN..MAX */
    float scale;     /* ui_scale * dpi_scale: what viz_px multiplies by */
    TTF_Font *fonts[VIZ_FONT_COUNT][VIZ_TEXT_SIZE_COUNT]; /* owned */
    int size_px[VIZ_TEXT_SIZE_COUNT]; /* pixel size of each text size now */
    VizFallback fallback[VIZ_FALLBACK_MAX]; /* (n_fallback) owned, tried in order */
    int n_fallback;
    VizTextCacheEntry *cache; /* owned, VIZ_TEXT_CACHE_SETS*WAYS entries, or NULL */
    VizTextLayers scratch;    /* owned: the last uncached (long) text */
    Uint64 tick;              /* counts text lookups, drives LRU */
    size_t cache_hits, cache_misses; /* for tests and the debug overlay */
    size_t cache_bytes;       /* pixel bytes the cached textures hold, <= viz_text_cache_budget */
    int ttf_inited;           /* 1 after our TTF_Init (balanced by TTF_Quit in viz_free) */
    ErrorMsg last_error;      /* first draw error since viz_clear_error (draw calls
                               * return -1 and do not take an ErrorMsg each) */
    int has_error;
    unsigned cramped_mask;    /* bit p: panel p left content out this frame (draw_enlarge_hint),
                               * read by the status line, which offers F */
} Viz;

/* The UI scale of a slide (a lesson beat, one panel alone) of logical size w × h:
 * type for the back of a lecture hall — 2.2 at 1920×1080, so body text is 31 px and
 * the smallest (tick labels, numbers) 24 px — in proportion for other sizes, times
 * `factor` (the user's own UI scale), within VIZ_UI_SCALE_MIN..MAX. */
float viz_slide_ui_scale(int w, int h, float factor);

/* Opens the fonts from <assets_dir>/fonts/{DejaVuSans,DejaVuSans-Bold,DejaVuSansMono}.ttf
 * at the given scales and the fallback chain (VIZ_FALLBACK_DEFAULT or
 * INFERSCOPE_FALLBACK_FONTS; missing files are skipped). Calls TTF_Init itself; SDL
 * video need not be initialised for an offscreen renderer. viz must be zeroed or
 * freed. On error returns -1 with err naming the file, and leaves *viz safe to viz_free. */
int viz_init(Viz *viz, SDL_Renderer *renderer, const char *assets_dir, float ui_scale,
             float dpi_scale, ThemeId theme, ErrorMsg *err);

/* The same for a vector backend (backend.h: backend_svg.h, backend_pdf.h): fonts and
 * measurements as viz_init, drawing through backend with ctx in viz->backend_ctx,
 * no renderer. */
int viz_init_backend(Viz *viz, const struct VizBackend *backend, void *ctx, const char *assets_dir,
                     float ui_scale, float dpi_scale, ThemeId theme, ErrorMsg *err);

/* The path of a font's file (<assets_dir>/fonts/DejaVuSans.ttf ...) in buf; -1 if it does
 * not fit. The vector backends embed the same files SDL_ttf measures with. */
int viz_font_path(const char *assets_dir, VizFont font, char *buf, size_t cap);

/* Releases fonts and cached textures (not the renderer). Safe on a zeroed struct and
 * twice in a row. */
void viz_free(Viz *viz);

/* Changes the scale: resizes every font (TTF_SetFontSize, cheap) and empties the text
 * cache. Returns -1 (nothing changed) for a scale outside the ranges above. */
int viz_set_scale(Viz *viz, float ui_scale, float dpi_scale, ErrorMsg *err);

void viz_set_theme(Viz *viz, ThemeId theme);

/* logical pixels → device pixels at the current scale, rounded; never returns 0 for
 * logical >= 1 so 1-px lines survive any scale. */
int viz_px(const Viz *viz, float logical);
/* The same at UI scale 1 (dpi_scale only): sizes of pictures, which a larger UI scale
 * must not shrink. */
int viz_gx(const Viz *viz, float logical);

/* Sets the pixel size of VIZ_TEXT_DISPLAY (clamped to VIZ_DISPLAY_PX_MIN..MAX);
 * cheap when unchanged. Cached textures keep their size in the key, so switching
 * between display sizes in one frame stays correct. Returns the size set. */
int viz_set_display_px(Viz *viz, int px);
/* Pixel size of a text size now (the font's em, as given to SDL_ttf). */
int viz_text_px(const Viz *viz, VizTextSize size);

/* 1 if some font of the chain (DejaVu, then the fallbacks) draws code point cp. A
 * TokenGlyphFn (token_label.h) with ctx = the Viz: labels show bytes only for
 * characters no installed font has. */
int viz_glyph_provided(void *viz, uint32_t cp);

/* The font for (face, size), borrowed, valid until viz_free. NULL for bad enums. */
TTF_Font *viz_font(const Viz *viz, VizFont font, VizTextSize size);

/* Line height (ascent + descent), ascent (baseline offset from the top) in pixels. */
int viz_line_height(const Viz *viz, VizFont font, VizTextSize size);
int viz_ascent(const Viz *viz, VizFont font, VizTextSize size);

/* Width in pixels of the rendered UTF-8 text (0 for "" or NULL or on error). Invalid
 * UTF-8 is measured as SDL_ttf draws it (replacement glyphs). */
int viz_text_width(const Viz *viz, VizFont font, VizTextSize size, const char *utf8);

/* The same width, answered from the text cache when this text was drawn before at this
 * size (a frame redraws the same labels every time: no shaping per frame). */
int viz_text_width_cached(Viz *viz, VizFont font, VizTextSize size, const char *utf8);

/* The first of choices[0..n) (longest wording first) that fits w pixels, else the last:
 * a narrow place gets a shorter wording, never a cut one. */
const char *viz_text_first_fitting(const Viz *viz, VizFont font, VizTextSize size, const char *const *choices,
                                   size_t n, int w);

/* The rendered text (viz_text.c): a white-on-transparent layer (SDL_BLENDMODE_BLEND;
 * colour it with SDL_SetTextureColorMod) and, for emoji, a colour layer to copy on top
 * unmodulated. Characters the face lacks come from the fallback chain, baseline-aligned;
 * fixed-size colour glyphs are scaled to the line height. Returns 0 and fills *out
 * (mono NULL, w 0, h = line height for ""); -1 on SDL failure (recorded in
 * viz->last_error). Borrowed: owned by the Viz and valid only until the next
 * viz_text_* / draw_text* call or viz_set_scale — copy out with SDL_RenderCopy at once. */
int viz_text_layers(Viz *viz, VizFont font, VizTextSize size, const char *utf8, VizTextLayers *out);

/* The white layer alone (texts without colour glyphs); *w and *h get its size.
 * Returns NULL with *w = 0 and *h = the line height for "" (not an error), NULL with
 * *w = *h = 0 on SDL failure. Same lifetime rules as viz_text_layers. */
SDL_Texture *viz_text_texture(Viz *viz, VizFont font, VizTextSize size, const char *utf8,
                              int *w, int *h);

/* Internal to viz.c / viz_text.c: drops every cached text texture. */
void viz_text_cache_clear(Viz *viz);
/* The most pixel bytes the text cache holds now: 4 × the renderer's output pixels, at
 * least VIZ_TEXT_CACHE_BYTES_MIN (why: there). */
size_t viz_text_cache_budget(const Viz *viz);
/* Internal: opens the fallback chain (colon-separated paths; missing files skipped). */
void viz_fallback_open(Viz *viz, const char *paths);
void viz_fallback_close(Viz *viz);

/* Records an error for the frame (first one wins) and returns -1; used by draw.c. */
int viz_fail(Viz *viz, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Forgets the recorded draw error (call once per frame after showing it). */
void viz_clear_error(Viz *viz);

#endif
