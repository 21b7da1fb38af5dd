/* offscreen.h — a W×H software renderer drawing into memory: headless tests, batch
 * PNG export at print resolution, and golden images. Same pixels as the window's
 * software renderer (see shared/SDL-HEADLESS.md). Needs no display and not even
 * SDL_Init(SDL_INIT_VIDEO); under SDL_VIDEODRIVER=dummy/offscreen it works the same.
 * Not a window and not a PNG writer (png_write.h encodes what this reads back).
 *
 * Pixel format: SDL_PIXELFORMAT_RGBA32, i.e. bytes R, G, B, A in memory order on
 * every CPU (an alias of ABGR8888 on little-endian), rows top to bottom, pitch w*4
 * in what offscreen_read_rgba returns — exactly what png_encode takes. */
#ifndef VIZ_OFFSCREEN_H
#define VIZ_OFFSCREEN_H

#include <SDL.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "layout.h"

#define OFFSCREEN_MAX_SIDE 16384 /* 16384² × 4 B = 1 GiB: far beyond any poster */

typedef struct Offscreen {
    SDL_Surface *surface;   /* owned: the pixels being drawn on (RGBA32) */
    SDL_Renderer *renderer; /* owned: software renderer on surface; pass to viz_init */
    int w, h;
} Offscreen;

/* Creates a w×h target cleared to opaque black. off must be zeroed or freed.
 * Returns -1 with err for sizes outside 1..OFFSCREEN_MAX_SIDE or SDL failure. */
int offscreen_create(Offscreen *off, int w, int h, ErrorMsg *err);

/* Destroys renderer and surface (free any Viz on it first). Safe on zeroed structs. */
void offscreen_free(Offscreen *off);

/* Bytes needed for a tight RGBA copy: w*h*4, overflow-checked (0 on overflow). */
size_t offscreen_rgba_size(int w, int h);

/* Copies the current pixels as tight RGBA (pitch w*4) into dst, which must hold
 * offscreen_rgba_size(off->w, off->h) bytes (dst_size is checked). Call before any
 * SDL_RenderPresent. Returns 0 or -1 with err. */
int offscreen_read_rgba(Offscreen *off, uint8_t *dst, size_t dst_size, ErrorMsg *err);

/* The same for any renderer (e.g. a window's, for "export this frame"): reads area
 * (NULL = the whole output) as tight RGBA via SDL_RenderReadPixels. dst_size must be
 * >= area w*h*4. Read before SDL_RenderPresent: after it the back buffer is undefined. */
int renderer_read_rgba(SDL_Renderer *renderer, const Rect *area, uint8_t *dst, size_t dst_size,
                       ErrorMsg *err);

#endif
