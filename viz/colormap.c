/* colormap.c — sampling of the sequential tables (colormap_data.c) and of the
 * diverging BuRd map, plus WCAG luminance/contrast. No allocation, no state.
 *
 * Why these maps: viridis and cividis are perceptually uniform (equal steps in t look
 * like equal steps in lightness, CAM02-UCS) and stay readable in greyscale and for the
 * common colour-vision deficiencies, so "twice as bright" honestly means "twice the
 * probability". Jet/rainbow maps invent edges that are not in the data. */
#include "colormap.h"

#include <math.h>

#include "colormap_data.h"

/* Paul Tol, "Colour Schemes", SRON/EPS/TN/09-002 (issue 3.2, 2021), diverging scheme
 * "BuRd" (the same 9 colours as Cynthia Brewer's RdBu, reversed; ColorBrewer marks it
 * colour-blind safe). Blue = negative, red = positive, #F7F7F7 the neutral centre.
 * Between the 9 anchors we interpolate linearly in sRGB, as Tol's own examples do. */
static const unsigned char BURD_ANCHORS[9][3] = {
    {0x21, 0x66, 0xAC}, {0x43, 0x93, 0xC3}, {0x92, 0xC5, 0xDE}, {0xD1, 0xE5, 0xF0},
    {0xF7, 0xF7, 0xF7}, {0xFD, 0xDB, 0xC7}, {0xF4, 0xA5, 0x82}, {0xD6, 0x60, 0x4D},
    {0xB2, 0x18, 0x2B},
};
static const SDL_Color BURD_BAD = {0xFF, 0xEE, 0x99, 255}; /* Tol's "bad data" colour */
static const SDL_Color SEQUENTIAL_BAD = {128, 128, 128, 255};

static Uint8 unit_to_byte(float v) {
    /* round half up; the clamp keeps float noise from wrapping 255.6 to 0 */
    float b = v * 255.0f + 0.5f;
    if (b <= 0.0f) return 0;
    if (b >= 255.0f) return 255;
    return (Uint8)b;
}

static SDL_Color sample_table(const float table[256][3], float t) {
    float pos = t * 255.0f;
    int i = (int)pos;
    if (i >= 255) i = 254; /* t = 1 falls in the last interval with frac = 1 */
    float f = pos - (float)i;
    SDL_Color c;
    c.r = unit_to_byte(table[i][0] + f * (table[i + 1][0] - table[i][0]));
    c.g = unit_to_byte(table[i][1] + f * (table[i + 1][1] - table[i][1]));
    c.b = unit_to_byte(table[i][2] + f * (table[i + 1][2] - table[i][2]));
    c.a = 255;
    return c;
}

static SDL_Color sample_anchors(const unsigned char (*anchors)[3], int n, float t) {
    float pos = t * (float)(n - 1);
    int i = (int)pos;
    if (i >= n - 1) i = n - 2;
    float f = pos - (float)i;
    SDL_Color c;
    c.r = (Uint8)lroundf((float)anchors[i][0] + f * (float)(anchors[i + 1][0] - anchors[i][0]));
    c.g = (Uint8)lroundf((float)anchors[i][1] + f * (float)(anchors[i + 1][1] - anchors[i][1]));
    c.b = (Uint8)lroundf((float)anchors[i][2] + f * (float)(anchors[i + 1][2] - anchors[i][2]));
    c.a = 255;
    return c;
}

SDL_Color colormap_sample(ColormapId map, float t) {
    int nan = isnan(t);
    if (!nan) t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    switch (map) {
    case COLORMAP_VIRIDIS: return nan ? SEQUENTIAL_BAD : sample_table(COLORMAP_VIRIDIS_TABLE, t);
    case COLORMAP_CIVIDIS: return nan ? SEQUENTIAL_BAD : sample_table(COLORMAP_CIVIDIS_TABLE, t);
    case COLORMAP_BURD: return nan ? BURD_BAD : sample_anchors(BURD_ANCHORS, 9, t);
    default: break;
    }
    return (SDL_Color){255, 0, 255, 255};
}

SDL_Color colormap_sample_signed(ColormapId map, float x, float max_abs) {
    if (isnan(x)) return colormap_sample(map, NAN);
    if (!(max_abs > 0.0f)) return colormap_sample(map, 0.5f);
    return colormap_sample(map, 0.5f + 0.5f * (x / max_abs));
}

const char *colormap_name(ColormapId map) {
    switch (map) {
    case COLORMAP_VIRIDIS: return "viridis";
    case COLORMAP_CIVIDIS: return "cividis";
    case COLORMAP_BURD: return "BuRd";
    default: return "?";
    }
}

int colormap_is_diverging(ColormapId map) { return map == COLORMAP_BURD; }

/* sRGB transfer function inverse (IEC 61966-2-1), as WCAG 2.x defines luminance. */
static double srgb_to_linear(Uint8 v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double color_relative_luminance(SDL_Color c) {
    return 0.2126 * srgb_to_linear(c.r) + 0.7152 * srgb_to_linear(c.g) +
           0.0722 * srgb_to_linear(c.b);
}

double color_contrast_ratio(SDL_Color a, SDL_Color b) {
    double la = color_relative_luminance(a), lb = color_relative_luminance(b);
    if (la < lb) {
        double t = la;
        la = lb;
        lb = t;
    }
    return (la + 0.05) / (lb + 0.05);
}

SDL_Color color_text_on(SDL_Color bg) {
    const SDL_Color black = {0, 0, 0, 255}, white = {255, 255, 255, 255};
    /* equal contrast happens at luminance ~0.179: brighter backgrounds get black */
    return color_contrast_ratio(bg, black) >= color_contrast_ratio(bg, white) ? black : white;
}

SDL_Color color_mix(SDL_Color a, SDL_Color b, float f) {
    f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
    SDL_Color c;
    c.r = (Uint8)lroundf((float)a.r + f * (float)(b.r - a.r));
    c.g = (Uint8)lroundf((float)a.g + f * (float)(b.g - a.g));
    c.b = (Uint8)lroundf((float)a.b + f * (float)(b.b - a.b));
    c.a = (Uint8)lroundf((float)a.a + f * (float)(b.a - a.a));
    return c;
}

/* Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour
 * vision deficiencies. Black is left out (it is the light theme's text colour) and yellow
 * comes last (it has little contrast on a light panel). */
static const SDL_Color OKABE_ITO[COLORMAP_CATEGORY_COUNT] = {
    {0, 114, 178, 255},   /* blue */
    {230, 159, 0, 255},   /* orange */
    {0, 158, 115, 255},   /* bluish green */
    {204, 121, 167, 255}, /* reddish purple */
    {86, 180, 233, 255},  /* sky blue */
    {213, 94, 0, 255},    /* vermillion */
    {240, 228, 66, 255},  /* yellow */
};

SDL_Color colormap_category(int i) {
    if (i < 0) i = -i;
    return OKABE_ITO[i % COLORMAP_CATEGORY_COUNT];
}
