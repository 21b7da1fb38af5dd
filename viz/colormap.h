/* colormap.h — value → colour for heatmaps and colour bars, plus the contrast helper
 * that picks black or white text for a coloured cell. Pure functions, no state, no
 * SDL calls (only the SDL_Color type). Not the place for value scaling policy beyond
 * the two helpers below: a panel decides what its 0 and 1 mean.
 *
 * Maps (sources are in colormap.c / colormap_data.c):
 *   COLORMAP_VIRIDIS  sequential, perceptually uniform, 0 = dark purple, 1 = yellow.
 *                     Use for probabilities and attention patterns (linear 0..1).
 *   COLORMAP_CIVIDIS  sequential, optimised for deuteranopia/protanopia, 0 = navy,
 *                     1 = yellow.
 *   COLORMAP_BURD     diverging blue–white–red (Paul Tol's "BuRd" = ColorBrewer RdBu
 *                     reversed), colour-blind safe; t = 0.5 is the neutral near-white.
 *                     Use for signed values via colormap_sample_signed().
 * All returned colours are opaque (a = 255), 8-bit sRGB. */
#ifndef VIZ_COLORMAP_H
#define VIZ_COLORMAP_H

#include <SDL.h>

typedef enum ColormapId {
    COLORMAP_VIRIDIS = 0,
    COLORMAP_CIVIDIS,
    COLORMAP_BURD,
    COLORMAP_COUNT
} ColormapId;

/* Colour at t in [0, 1]. t is clamped; NaN gives the map's "bad value" colour
 * (mid grey 128,128,128 for the sequential maps, Tol's #FFEE99 for BuRd) so a NaN in
 * a tensor is visible instead of silently looking like 0. Sequential maps
 * interpolate linearly between the 256 table rows; t = 0 and t = 1 return exactly
 * the first and last rows (rounded to 8 bits). An unknown map id returns magenta. */
SDL_Color colormap_sample(ColormapId map, float t);

/* Signed value on a diverging map: x / max_abs in [-1, 1] is mapped to t in [0, 1]
 * (0 → 0.5, the neutral centre; -max_abs → 0, blue; +max_abs → 1, red). Values
 * beyond ±max_abs saturate. max_abs <= 0 (or NaN) draws every finite x as neutral.
 * Scale max_abs to the *visible* max |x| and draw the scale next to the map. */
SDL_Color colormap_sample_signed(ColormapId map, float x, float max_abs);

/* Human-readable name ("viridis", "cividis", "BuRd"), for legends and PNG
 * provenance. Unknown ids give "?". */
const char *colormap_name(ColormapId map);

/* 1 if the map is diverging (centre = 0.5 is meaningful), else 0. */
int colormap_is_diverging(ColormapId map);

/* WCAG 2.x relative luminance of an sRGB colour, in [0, 1]
 * (linearise each channel, then 0.2126 R + 0.7152 G + 0.0722 B). Alpha ignored. */
double color_relative_luminance(SDL_Color c);

/* WCAG contrast ratio (L_light + 0.05) / (L_dark + 0.05), in [1, 21]. Body text
 * should reach 4.5. */
double color_contrast_ratio(SDL_Color a, SDL_Color b);

/* Black (0,0,0) or white (255,255,255) — whichever has the higher contrast ratio
 * against bg — for a number or label drawn on a heatmap cell. */
SDL_Color color_text_on(SDL_Color bg);

/* Colour i of a qualitative palette (Okabe-Ito without black), for things that are only
 * told apart, not ordered (one colour per attention head). Repeats after
 * COLORMAP_CATEGORY_COUNT: a legend must name each colour. */
#define COLORMAP_CATEGORY_COUNT 7
SDL_Color colormap_category(int i);

/* Linear mix in sRGB bytes: a at f = 0, b at f = 1 (f clamped). Alpha mixed too. */
SDL_Color color_mix(SDL_Color a, SDL_Color b, float f);

#endif
