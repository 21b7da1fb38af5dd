/* theme.c — the colour values of the light and dark themes. Chosen so every text
 * colour passes WCAG 2.x contrast on both background and panel (tests/test_viz_layout.c
 * checks the ratios): classrooms project onto washed-out screens, so the light theme
 * uses near-black text and no pale-grey body text. */
#include "theme.h"

#include <string.h>

static const Theme THEMES[THEME_COUNT] = {
    [THEME_LIGHT] = {
        .name = "light",
        .background = {0xF2, 0xF2, 0xEF, 255},
        .panel = {0xFF, 0xFF, 0xFF, 255},
        .panel_border = {0xC8, 0xC8, 0xC4, 255},
        .text = {0x1A, 0x1A, 0x1A, 255},
        .text_muted = {0x55, 0x55, 0x55, 255},
        .grid = {0xE0, 0xE0, 0xDC, 255},
        .accent = {0x1F, 0x5F, 0xA8, 255},    /* blue, 6.4:1 on white */
        .highlight = {0xE6, 0x9F, 0x00, 255}, /* Okabe–Ito orange: outlines only */
        .cut = {0x85, 0x85, 0x85, 255},  /* 3.7:1 on white */
        /* Okabe-Ito vermillion, darkened to 4.5:1+ on white; told apart from the accent
         * blue under the common colour-vision deficiencies */
        .error = {0xB8, 0x3C, 0x00, 255},
        .sequential = COLORMAP_VIRIDIS,
        .diverging = COLORMAP_BURD,
    },
    [THEME_DARK] = {
        .name = "dark",
        .background = {0x15, 0x17, 0x1B, 255},
        .panel = {0x1F, 0x22, 0x28, 255},
        .panel_border = {0x3C, 0x41, 0x4A, 255},
        .text = {0xEC, 0xEC, 0xEA, 255},
        .text_muted = {0xA6, 0xAA, 0xB0, 255},
        .grid = {0x30, 0x34, 0x3C, 255},
        .accent = {0x6C, 0xB4, 0xEE, 255},
        .highlight = {0xF0, 0xB4, 0x00, 255},
        .cut = {0x7A, 0x7E, 0x86, 255},
        .error = {0xFF, 0x8A, 0x5C, 255}, /* vermillion, lightened for dark panels */
        .sequential = COLORMAP_VIRIDIS,
        .diverging = COLORMAP_BURD,
    },
};

const Theme *theme_get(ThemeId id) {
    if ((int)id < 0 || id >= THEME_COUNT) id = THEME_LIGHT;
    return &THEMES[id];
}

int theme_parse(const char *name, ThemeId *out) {
    for (int i = 0; i < THEME_COUNT; i++) {
        if (name && strcmp(name, THEMES[i].name) == 0) {
            *out = (ThemeId)i;
            return 0;
        }
    }
    return -1;
}
