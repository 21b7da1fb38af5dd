/* offscreen.c — SDL_Surface + SDL_CreateSoftwareRenderer, and pixel read-back.
 * The software renderer writes straight into surface->pixels, so reading back is a
 * row copy; going through SDL_RenderReadPixels keeps one code path for windows. */
#include "offscreen.h"

#include <string.h>

int offscreen_create(Offscreen *off, int w, int h, ErrorMsg *err) {
    memset(off, 0, sizeof *off);
    if (w < 1 || h < 1 || w > OFFSCREEN_MAX_SIDE || h > OFFSCREEN_MAX_SIDE)
        return error_set(err, "offscreen size %dx%d is outside 1..%d", w, h, OFFSCREEN_MAX_SIDE);
    off->surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    if (!off->surface)
        return error_set(err, "cannot allocate a %dx%d image: %s", w, h, SDL_GetError());
    off->renderer = SDL_CreateSoftwareRenderer(off->surface);
    if (!off->renderer) {
        error_set(err, "cannot create a software renderer: %s", SDL_GetError());
        offscreen_free(off);
        return -1;
    }
    off->w = w;
    off->h = h;
    SDL_SetRenderDrawColor(off->renderer, 0, 0, 0, 255);
    SDL_RenderClear(off->renderer);
    return 0;
}

void offscreen_free(Offscreen *off) {
    if (!off) return;
    if (off->renderer) SDL_DestroyRenderer(off->renderer);
    if (off->surface) SDL_FreeSurface(off->surface);
    off->renderer = NULL;
    off->surface = NULL;
    off->w = off->h = 0;
}

size_t offscreen_rgba_size(int w, int h) {
    if (w <= 0 || h <= 0) return 0;
    size_t sw = (size_t)w, sh = (size_t)h;
    if (sw > SIZE_MAX / 4 / sh) return 0;
    return sw * sh * 4;
}

int renderer_read_rgba(SDL_Renderer *renderer, const Rect *area, uint8_t *dst, size_t dst_size,
                       ErrorMsg *err) {
    int w, h;
    if (SDL_GetRendererOutputSize(renderer, &w, &h) != 0)
        return error_set(err, "cannot read the output size: %s", SDL_GetError());
    SDL_Rect r = {0, 0, w, h};
    if (area) {
        if (area->x < 0 || area->y < 0 || area->w < 1 || area->h < 1 || area->x + area->w > w ||
            area->y + area->h > h)
            return error_set(err, "read-back area %dx%d+%d+%d is outside the %dx%d output",
                             area->w, area->h, area->x, area->y, w, h);
        r = (SDL_Rect){area->x, area->y, area->w, area->h};
    }
    size_t need = offscreen_rgba_size(r.w, r.h);
    if (need == 0 || dst_size < need)
        return error_set(err, "read-back buffer holds %zu bytes, %dx%d RGBA needs %zu", dst_size,
                         r.w, r.h, need);
    /* SDL reads relative to the current viewport; viz never sets one, so this is the
     * whole output. The clip rect does not affect read-back. */
    if (SDL_RenderReadPixels(renderer, &r, SDL_PIXELFORMAT_RGBA32, dst, r.w * 4) != 0)
        return error_set(err, "cannot read pixels back: %s", SDL_GetError());
    return 0;
}

int offscreen_read_rgba(Offscreen *off, uint8_t *dst, size_t dst_size, ErrorMsg *err) {
    if (!off->renderer) return error_set(err, "offscreen target not created");
    return renderer_read_rgba(off->renderer, NULL, dst, dst_size, err);
}
