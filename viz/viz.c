/* viz.c — the drawing context: font loading/scaling and the bounded text-texture
 * cache. Why a cache: rasterising a string with FreeType and uploading it costs ~50 µs,
 * and a frame redraws hundreds of identical labels; a fixed-size set-associative cache
 * keeps that cost near zero without ever growing (no unbounded memory in a long
 * classroom session). Why white textures: colour is applied at copy time with
 * SDL_SetTextureColorMod (exact: 255·c/255 = c), so one texture serves every colour. */
#include "viz.h"

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

static void cache_clear(Viz *viz) {
    if (viz->cache) {
        for (size_t i = 0; i < (size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS; i++) {
            if (viz->cache[i].texture) SDL_DestroyTexture(viz->cache[i].texture);
            viz->cache[i].texture = NULL;
        }
    }
    if (viz->scratch) SDL_DestroyTexture(viz->scratch);
    viz->scratch = NULL;
}

int viz_init(Viz *viz, SDL_Renderer *renderer, const char *assets_dir, float ui_scale,
             float dpi_scale, ThemeId theme, ErrorMsg *err) {
    memset(viz, 0, sizeof *viz);
    if (!renderer) return error_set(err, "viz_init: no renderer");
    if (check_scales(ui_scale, dpi_scale, err) != 0) return -1;
    viz->renderer = renderer;
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
        int n = snprintf(path, sizeof path, "%s/fonts/%s", assets_dir ? assets_dir : ".",
                         FONT_FILES[f]);
        if (n < 0 || (size_t)n >= sizeof path)
            return error_set(err, "%s/fonts: path too long", assets_dir);
        for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++) {
            TTF_Font *font = TTF_OpenFont(path, font_px(viz->scale, (VizTextSize)s));
            if (!font) return error_set(err, "%s: cannot open font (%s)", path, TTF_GetError());
            /* fixed hinting: the crispest on this FreeType, and golden images need
             * it not to depend on library defaults */
            TTF_SetFontHinting(font, TTF_HINTING_NORMAL);
            viz->fonts[f][s] = font;
        }
    }
    return 0;
}

void viz_free(Viz *viz) {
    if (!viz) return;
    cache_clear(viz);
    free(viz->cache);
    viz->cache = NULL;
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++) {
            if (viz->fonts[f][s]) TTF_CloseFont(viz->fonts[f][s]);
            viz->fonts[f][s] = NULL;
        }
    if (viz->ttf_inited) TTF_Quit(); /* SDL_ttf counts Init/Quit pairs */
    viz->ttf_inited = 0;
    viz->renderer = NULL;
}

int viz_set_scale(Viz *viz, float ui_scale, float dpi_scale, ErrorMsg *err) {
    if (check_scales(ui_scale, dpi_scale, err) != 0) return -1;
    float scale = ui_scale * dpi_scale;
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        for (int s = 0; s < VIZ_TEXT_SIZE_COUNT; s++)
            if (viz->fonts[f][s] &&
                TTF_SetFontSize(viz->fonts[f][s], font_px(scale, (VizTextSize)s)) != 0)
                return error_set(err, "%s: cannot set size (%s)", FONT_FILES[f], TTF_GetError());
    viz->ui_scale = ui_scale;
    viz->dpi_scale = dpi_scale;
    viz->scale = scale;
    cache_clear(viz); /* every cached texture was rasterised at the old size */
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

int viz_text_width(const Viz *viz, VizFont font, VizTextSize size, const char *utf8) {
    TTF_Font *f = viz_font(viz, font, size);
    int w = 0, h = 0;
    if (!f || !utf8 || !*utf8) return 0;
    if (TTF_SizeUTF8(f, utf8, &w, &h) != 0) return 0;
    return w;
}

/* FNV-1a (Fowler–Noll–Vo) over the key bytes: fast, good spread for short strings. */
static Uint64 key_hash(VizFont font, VizTextSize size, const char *s) {
    Uint64 h = 1469598103934665603ULL;
    h = (h ^ (Uint64)font) * 1099511628211ULL;
    h = (h ^ (Uint64)size) * 1099511628211ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static SDL_Texture *render_white(Viz *viz, TTF_Font *f, const char *utf8, int *w, int *h) {
    const SDL_Color white = {255, 255, 255, 255};
    SDL_Surface *surf = TTF_RenderUTF8_Blended(f, utf8, white);
    if (!surf) {
        viz_fail(viz, "cannot render text \"%.40s\": %s", utf8, TTF_GetError());
        return NULL;
    }
    SDL_Texture *tex = SDL_CreateTextureFromSurface(viz->renderer, surf);
    *w = surf->w;
    *h = surf->h;
    SDL_FreeSurface(surf);
    if (!tex) {
        viz_fail(viz, "cannot upload text texture: %s", SDL_GetError());
        return NULL;
    }
    SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND);
    return tex;
}

SDL_Texture *viz_text_texture(Viz *viz, VizFont font, VizTextSize size, const char *utf8,
                              int *w, int *h) {
    *w = 0;
    *h = 0;
    TTF_Font *f = viz_font(viz, font, size);
    if (!f) {
        viz_fail(viz, "viz_text_texture: bad font %d / size %d", (int)font, (int)size);
        return NULL;
    }
    if (!utf8 || !*utf8) { /* SDL_ttf refuses "" ("Text has zero width"): nothing to draw */
        *h = TTF_FontHeight(f);
        return NULL;
    }
    viz->tick++;
    size_t len = strlen(utf8);
    if (len >= VIZ_TEXT_CACHE_KEY_MAX || !viz->cache) {
        if (viz->scratch) SDL_DestroyTexture(viz->scratch);
        viz->scratch = render_white(viz, f, utf8, w, h);
        return viz->scratch;
    }
    Uint64 hash = key_hash(font, size, utf8);
    VizTextCacheEntry *set = viz->cache + (hash % VIZ_TEXT_CACHE_SETS) * VIZ_TEXT_CACHE_WAYS;
    VizTextCacheEntry *victim = &set[0];
    for (int i = 0; i < VIZ_TEXT_CACHE_WAYS; i++) {
        VizTextCacheEntry *e = &set[i];
        if (e->texture && e->hash == hash && e->font == (unsigned char)font && e->size == (unsigned char)size &&
            strcmp(e->text, utf8) == 0) {
            e->last_used = viz->tick;
            viz->cache_hits++;
            *w = e->w;
            *h = e->h;
            return e->texture;
        }
        /* prefer an empty slot, else the least recently used one */
        if (!victim->texture) continue;
        if (!e->texture || e->last_used < victim->last_used) victim = e;
    }
    viz->cache_misses++;
    SDL_Texture *tex = render_white(viz, f, utf8, w, h);
    if (!tex) return NULL;
    if (victim->texture) SDL_DestroyTexture(victim->texture);
    victim->texture = tex;
    victim->w = *w;
    victim->h = *h;
    victim->last_used = viz->tick;
    victim->hash = hash;
    victim->font = (unsigned char)font;
    victim->size = (unsigned char)size;
    memcpy(victim->text, utf8, len + 1);
    return tex;
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
