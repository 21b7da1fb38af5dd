/* theme.h — the two colour themes (light for projectors and print, dark for screens).
 * A Theme is a plain constant struct of named colours; panels read it through
 * viz->theme and never hard-code colours. Not a styling system: sizes live in viz.h
 * (font sizes, viz_px) and layout.h. Data maps (viridis…) are chosen here too so a
 * figure and its legend always agree. */
#ifndef VIZ_THEME_H
#define VIZ_THEME_H

#include <SDL.h>

#include "colormap.h"

typedef enum ThemeId { THEME_LIGHT = 0, THEME_DARK, THEME_COUNT } ThemeId;

typedef struct Theme {
    const char *name;       /* "light" / "dark", for settings files and PNG provenance */
    SDL_Color background;   /* window / figure background */
    SDL_Color panel;        /* panel fill, drawn on background */
    SDL_Color panel_border; /* 1-px panel outlines, separators */
    SDL_Color text;         /* body text; contrast >= 7:1 on panel and background */
    SDL_Color text_muted;   /* secondary labels, tick labels; >= 4.5:1 on panel */
    SDL_Color grid;         /* grid lines and axis lines behind data */
    SDL_Color accent;       /* the "current" thing: chosen token, active layer; >= 4.5:1 */
    SDL_Color highlight;    /* hover / cross-panel highlight outline (not for text) */
    SDL_Color cut;          /* tokens cut by top-k/top-p, masked cells: greyed out but
                             * still readable as text (>= 3:1 on panel) */
    SDL_Color error;        /* error messages (always with a text marker too); >= 4.5:1 */
    ColormapId sequential;  /* map for 0..1 values (probabilities, attention pattern) */
    ColormapId diverging;   /* map for signed values (residual stream, logits deltas) */
} Theme;

/* The constant theme for id (static storage, never freed). Unknown ids give light. */
const Theme *theme_get(ThemeId id);

/* Parse "light" / "dark" (as written by Theme.name). Returns 0 and sets *out, or -1
 * for anything else (caller reports). */
int theme_parse(const char *name, ThemeId *out);

#endif
