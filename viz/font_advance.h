/* font_advance.h — how wide a viewer sets a text: the sum of HarfBuzz's unhinted
 * advances at a pixel size, as SVG renderers (librsvg through Pango, browsers) shape it.
 * SDL_ttf's widths, which the layout uses, come from hinted advances and differ by up to
 * a few % (DejaVu Sans Mono at 24 px: 14 px a character hinted, 14.45 unhinted); the
 * SVG backend spreads the difference over the characters (letter-spacing) so a run ends
 * where the layout put its end in every viewer. Not a text renderer. */
#ifndef VIZ_FONT_ADVANCE_H
#define VIZ_FONT_ADVANCE_H

#include "error.h"

typedef struct FontAdvance FontAdvance;

/* Opens the font file at path; NULL with err when it cannot be read. */
FontAdvance *font_advance_open(const char *path, ErrorMsg *err);
void font_advance_close(FontAdvance *fa); /* NULL is fine */

/* Width in pixels of utf8 set at px pixels per em; *glyphs (may be NULL) gets the
 * number of glyphs, over which letter-spacing spreads a difference. */
double font_advance_width(FontAdvance *fa, const char *utf8, int px, int *glyphs);

#endif
