/* viz.c — the drawing context: font loading and scaling, sizes (viz_px, viz_gx),
 * font metrics, the frame's error slot. Rendering text into textures, the text cache
 * and the fallback fonts are in viz_text.c. */
#include "viz.h"
#include "file_read.h"

#include "backend.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FONT_FILES[VIZ_FONT_COUNT] = {
    [VIZ_FONT_SANS] = "DejaVuSans.ttf",
    [VIZ_FONT_BOLD] = "DejaVuSans-Bold.ttf",
    [VIZ_FONT_MONO] = "DejaVuSansMono.ttf",
};

/* pixel sizes at scale 1 (SDL_ttf's point size is pixels at its default 72 dpi) */
static const float BASE_PX[VIZ_TEXT_SIZE_COUNT] = {
    [VIZ_TEXT_SMALL] = 11.0f,
    [VIZ_TEXT_BODY] = 14.0f,
    [VIZ_TEXT_TITLE] = 18.0f,
    [VIZ_TEXT_CAPTION] = 26.0f,
    [VIZ_TEXT_DISPLAY] = 48.0f, /* until viz_set_display_px */
};

static int font_px(float scale, VizTextSize size) {
    return (int)lroundf(BASE_PX[size] * scale);
}

static int check_scales(float ui_scale, float dpi_scale, ErrorMsg *err) {
    if (!(ui_scale >= VIZ_UI_SCALE_MIN && ui_scale <= VIZ_UI_SCALE_MAX))
        return error_set(err, "UI scale %g is outside %g..%g", (double)ui_scale,
                         (double)VIZ_UI_SCALE_MIN, (double)VIZ_UI_SCALE_MAX);
    if (!(dpi_scale >= VIZ_DPI_SCALE_MIN && dpi_scale <= VIZ_DPI_SCALE_MAX))
        return error_set(err, "DPI scale %g is outside %g..%g", (double)dpi_scale,
                         (double)VIZ_DPI_SCALE_MIN, (double)VIZ_DPI_SCALE_MAX);
    return 0;
}

int viz_font_path(const char *assets_dir, VizFont font, char *buf, size_t cap) {
    if ((int)font < 0 || font >= VIZ_FONT_COUNT) return -1;
    int n = snprintf(buf, cap, "%s/fonts/%s", assets_dir ? assets_dir : ".", FONT_FILES[font]);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Fonts, cache and scales: what every backend measures with. */
static int viz_open(Viz *viz, const char *assets_dir, float ui_scale, float dpi_scale, ThemeId theme,
                    ErrorMsg *err) {
    if (check_scales(ui_scale, dpi_scale, err) != 0) return -1;
    viz->ui_scale = ui_scale;
    viz->dpi_scale = dpi_scale;
    viz->scale = ui_scale * dpi_scale;
    viz_set_theme(viz, theme);
    if (TTF_Init() != 0) return error_set(err, "SDL_ttf init failed: %s", TTF_GetError());
    viz->ttf_inited = 1;
    viz->cache = calloc((size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS, sizeof *viz->cache);
    if (!viz->cache) return error_set(err, "viz_init: out of memory for the text cache");
    for (int f = 0; f < VIZ_FONT_COUNT; f++) {
        char path[4096];
        if (viz_font_path(assets_dir, (VizFont)f, path, sizeof path) != 0)
            return error_set(err, "%s/fonts: path too long", assets_dir);
        /* SDL_ttf opens it blocking: a FIFO in place of a font must be refused first */
        if (file_check_regular(path, err)) return -1;
        for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++) {
            viz->size_px[s] = font_px(viz->scale, (VizTextSize)s);
            TTF_Font *font = TTF_OpenFont(path, viz->size_px[s]);
            if (!font) return error_set(err, "%s: cannot open font (%s)", path, TTF_GetError());
            /* fixed hinting: the crispest on this FreeType, and golden images need
             * it not to depend on library defaults */
            TTF_SetFontHinting(font, TTF_HINTING_NORMAL);
            viz->fonts[f][s] = font;
        }
    }
    const char *chain = getenv("INFERSCOPE_FALLBACK_FONTS");
    viz_fallback_open(viz, chain ? chain : VIZ_FALLBACK_DEFAULT);
    return 0;
}

int viz_init(Viz *viz, SDL_Renderer *renderer, const char *assets_dir, float ui_scale,
             float dpi_scale, ThemeId theme, ErrorMsg *err) {
    memset(viz, 0, sizeof *viz);
    if (!renderer) return error_set(err, "viz_init: no renderer");
    viz->renderer = renderer;
    viz->backend = &VIZ_BACKEND_RASTER;
    return viz_open(viz, assets_dir, ui_scale, dpi_scale, theme, err);
}

int viz_init_backend(Viz *viz, const VizBackend *backend, void *ctx, const char *assets_dir, float ui_scale,
                     float dpi_scale, ThemeId theme, ErrorMsg *err) {
    memset(viz, 0, sizeof *viz);
    if (!backend) return error_set(err, "viz_init: no backend");
    viz->backend = backend;
    viz->backend_ctx = ctx;
    return viz_open(viz, assets_dir, ui_scale, dpi_scale, theme, err);
}

void viz_free(Viz *viz) {
    if (!viz) return;
    viz_text_cache_clear(viz);
    free(viz->cache);
    viz->cache = NULL;
    viz_fallback_close(viz);
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++) {
            if (viz->fonts[f][s]) TTF_CloseFont(viz->fonts[f][s]);
            viz->fonts[f][s] = NULL;
        }
    if (viz->ttf_inited) TTF_Quit(); /* SDL_ttf counts Init/Quit pairs */
    viz->ttf_inited = 0;
    viz->renderer = NULL;
    viz->backend_ctx = NULL;
}

int viz_set_scale(Viz *viz, float ui_scale, float dpi_scale, ErrorMsg *err) {
    if (check_scales(ui_scale, dpi_scale, err) != 0) return -1;
    float scale = ui_scale * dpi_scale;
    for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++) {
        if (s == VIZ_TEXT_DISPLAY) continue; /* absolute pixels, set by its users */
        int px = font_px(scale, (VizTextSize)s);
        for (int f = 0; f < VIZ_FONT_COUNT; f++)
            if (viz->fonts[f][s] && TTF_SetFontSize(viz->fonts[f][s], px) != 0)
                return error_set(err, "%s: cannot set size (%s)", FONT_FILES[f], TTF_GetError());
        viz->size_px[s] = px;
    }
    viz->ui_scale = ui_scale;
    viz->dpi_scale = dpi_scale;
    viz->scale = scale;
    viz_text_cache_clear(viz); /* every cached texture was rasterised at the old size */
    return 0;
}

void viz_set_theme(Viz *viz, ThemeId theme) {
    viz->theme = theme_get(theme);
    viz->theme_id = (int)theme >= 0 && theme < THEME_COUNT ? theme : THEME_LIGHT;
}

int viz_px(const Viz *viz, float logical) {
    long px = lroundf(logical * viz->scale);
    if (logical >= 1.0f && px < 1) px = 1;
    return (int)px;
}

float viz_slide_ui_scale(int w, int h, float factor) {
    float fw = (float)w / 1920.0f, fh = (float)h / 1080.0f;
    float s = 2.2f * (fw < fh ? fw : fh) * (factor > 0.0f ? factor : 1.0f);
    if (!(s >= VIZ_UI_SCALE_MIN)) s = VIZ_UI_SCALE_MIN;
    if (s > VIZ_UI_SCALE_MAX) s = VIZ_UI_SCALE_MAX;
    /* in steps of 1/20, so a window resized by a pixel keeps its fonts */
    return roundf(s * 20.0f) / 20.0f;
}

int viz_gx(const Viz *viz, float logical) {
    long px = lroundf(logical * viz->dpi_scale);
    if (logical >= 1.0f && px < 1) px = 1;
    return (int)px;
}

int viz_set_display_px(Viz *viz, int px) {
    if (px < VIZ_DISPLAY_PX_MIN) px = VIZ_DISPLAY_PX_MIN;
    if (px > VIZ_DISPLAY_PX_MAX) px = VIZ_DISPLAY_PX_MAX;
    if (px == viz->size_px[VIZ_TEXT_DISPLAY]) return px;
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        if (viz->fonts[f][VIZ_TEXT_DISPLAY] && TTF_SetFontSize(viz->fonts[f][VIZ_TEXT_DISPLAY], px) != 0)
            viz_fail(viz, "%s: cannot set size %d (%s)", FONT_FILES[f], px, TTF_GetError());
    viz->size_px[VIZ_TEXT_DISPLAY] = px;
    return px;
}

int viz_text_px(const Viz *viz, VizTextSize size) {
    return (int)size >= 0 && size < VIZ_TEXT_SIZE_COUNT ? viz->size_px[size] : 0;
}

TTF_Font *viz_font(const Viz *viz, VizFont font, VizTextSize size) {
    if ((int)font < 0 || font >= VIZ_FONT_COUNT || (int)size < 0 || size >= VIZ_TEXT_SIZE_COUNT)
        return NULL;
    return viz->fonts[font][size];
}

int viz_line_height(const Viz *viz, VizFont font, VizTextSize size) {
    TTF_Font *f = viz_font(viz, font, size);
    return f ? TTF_FontHeight(f) : 0;
}

int viz_ascent(const Viz *viz, VizFont font, VizTextSize size) {
    TTF_Font *f = viz_font(viz, font, size);
    return f ? TTF_FontAscent(f) : 0;
}

int viz_fail(Viz *viz, const char *fmt, ...) {
    if (viz->has_error) return -1;
    va_list ap;
    va_start(ap, fmt);
    char line[sizeof viz->last_error.text];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    error_set(&viz->last_error, "%s", line);
    viz->has_error = 1;
    return -1;
}

void viz_clear_error(Viz *viz) {
    viz->has_error = 0;
    viz->last_error.text[0] = '\0';
}
