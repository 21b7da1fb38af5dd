/* backend_raster.c — the raster backend (backend.h) on SDL's 2-D renderer: the window,
 * and PNG export through an offscreen software renderer. Opaque colours replace pixels
 * (exact colour, no rounding through the blender), translucent ones blend; text is
 * SDL_ttf's, copied from the Viz text cache (viz_text.c). */
#include "backend.h"

#include <math.h>

static int set_color(Viz *viz, SDL_Color c) {
    SDL_SetRenderDrawBlendMode(viz->renderer, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    if (SDL_SetRenderDrawColor(viz->renderer, c.r, c.g, c.b, c.a) != 0)
        return viz_fail(viz, "draw colour: %s", SDL_GetError());
    return 0;
}

static int raster_page_begin(Viz *viz, int w, int h) {
    (void)viz, (void)w, (void)h; /* the target was sized when it was made */
    return 0;
}

static int raster_page_end(Viz *viz) {
    (void)viz; /* the caller reads the pixels back (offscreen.h) or presents */
    return 0;
}

static int raster_clip(Viz *viz, const Rect *clip) {
    SDL_Rect r;
    if (clip) r = (SDL_Rect){clip->x, clip->y, clip->w, clip->h};
    if (SDL_RenderSetClipRect(viz->renderer, clip ? &r : NULL) != 0) return viz_fail(viz, "clip: %s", SDL_GetError());
    return 0;
}

static int raster_fill_rect(Viz *viz, Rect r, SDL_Color color) {
    if (set_color(viz, color) != 0) return -1;
    SDL_Rect s = {r.x, r.y, r.w, r.h};
    if (SDL_RenderFillRect(viz->renderer, &s) != 0) return viz_fail(viz, "fill: %s", SDL_GetError());
    return 0;
}

static int raster_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color color, int thickness) {
    if (thickness <= 1) {
        if (set_color(viz, color) != 0) return -1;
        if (SDL_RenderDrawLine(viz->renderer, x0, y0, x1, y1) != 0) return viz_fail(viz, "line: %s", SDL_GetError());
        return 0;
    }
    /* a thick segment is the quad p0 ± n·t/2, p1 ± n·t/2 with n the unit normal
     * (draw_line handles the zero-length segment) */
    float dx = (float)(x1 - x0), dy = (float)(y1 - y0);
    float len = sqrtf(dx * dx + dy * dy);
    float nx = -dy / len * (float)thickness * 0.5f, ny = dx / len * (float)thickness * 0.5f;
    /* pixel centres are at +0.5 in SDL's geometry coordinates */
    float ax = (float)x0 + 0.5f, ay = (float)y0 + 0.5f, bx = (float)x1 + 0.5f, by = (float)y1 + 0.5f;
    SDL_Vertex v[4] = {
        {{ax + nx, ay + ny}, color, {0, 0}},
        {{ax - nx, ay - ny}, color, {0, 0}},
        {{bx - nx, by - ny}, color, {0, 0}},
        {{bx + nx, by + ny}, color, {0, 0}},
    };
    const int idx[6] = {0, 1, 2, 0, 2, 3};
    SDL_SetRenderDrawBlendMode(viz->renderer, color.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    if (SDL_RenderGeometry(viz->renderer, NULL, v, 4, idx, 6) != 0)
        return viz_fail(viz, "thick line: %s", SDL_GetError());
    return 0;
}

/* The cached white layer tinted with the colour, then the colour glyphs (emoji) on top
 * with only the text's opacity. */
static int raster_text(Viz *viz, const VizTextRun *run) {
    VizTextLayers t;
    if (viz_text_layers(viz, run->font, run->size, run->utf8, &t) != 0) return -1;
    if (!t.mono) return 0;
    /* upright: the texture's top-left at the box's; rotated: its centre on the box's
     * centre (a texture can be taller than the line box when a glyph hangs below the
     * descent, and it turns around its own centre) */
    SDL_Rect dst = {run->x, run->y, t.w, t.h};
    if (run->angle != 0.0) dst = (SDL_Rect){run->x + run->w / 2 - t.w / 2, run->y + run->h / 2 - t.h / 2, t.w, t.h};
    SDL_SetTextureColorMod(t.mono, run->color.r, run->color.g, run->color.b);
    SDL_SetTextureAlphaMod(t.mono, run->color.a);
    if (SDL_RenderCopyEx(viz->renderer, t.mono, NULL, &dst, run->angle, NULL, SDL_FLIP_NONE) != 0)
        return viz_fail(viz, "text copy: %s", SDL_GetError());
    if (t.color) {
        SDL_SetTextureAlphaMod(t.color, run->color.a);
        if (SDL_RenderCopyEx(viz->renderer, t.color, NULL, &dst, run->angle, NULL, SDL_FLIP_NONE) != 0)
            return viz_fail(viz, "text copy: %s", SDL_GetError());
    }
    return 0;
}

const VizBackend VIZ_BACKEND_RASTER = VIZ_BACKEND_OF(raster);
