/* font_subset.h — the glyphs a document uses, cut out of a TrueType file (HarfBuzz's
 * hb-subset), so an SVG can embed its fonts in tens of kilobytes instead of the
 * 0.3-0.8 MB of each whole DejaVu file. The subset keeps the layout tables of the kept
 * glyphs; a code point the font lacks is simply not in it. Not a font loader (SDL_ttf
 * measures and draws; this only copies). */
#ifndef VIZ_FONT_SUBSET_H
#define VIZ_FONT_SUBSET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "strbuf.h"

/* A set of code points (owned; HarfBuzz's hb_set_t underneath). */
typedef struct FontCodepoints FontCodepoints;

/* NULL when out of memory. */
FontCodepoints *font_codepoints_new(void);
void font_codepoints_free(FontCodepoints *set); /* NULL is fine */
/* Adds every character of the UTF-8 text (bytes that are not UTF-8 add nothing).
 * Returns 0, -1 when out of memory. */
int font_codepoints_add_utf8(FontCodepoints *set, const char *utf8);
size_t font_codepoints_count(const FontCodepoints *set);

/* Appends to out the TrueType file at path cut down to the glyphs of set. Returns 0, or
 * -1 with err naming the file (unreadable, not a font, subsetting failed). */
int font_subset(const char *path, const FontCodepoints *set, StrBuf *out, ErrorMsg *err);

#endif
