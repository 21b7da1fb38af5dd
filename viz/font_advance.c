/* font_advance.c — see font_advance.h. */
#include "font_advance.h"

#include <hb.h>
#include <stdlib.h>
#include <string.h>

struct FontAdvance {
    hb_face_t *face;
    hb_font_t *font;
    hb_buffer_t *buf;
    unsigned upem;
};

FontAdvance *font_advance_open(const char *path, ErrorMsg *err) {
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (!blob) {
        error_set(err, "%s: cannot read the font", path);
        return NULL;
    }
    FontAdvance *fa = calloc(1, sizeof *fa);
    if (!fa) {
        hb_blob_destroy(blob);
        error_set(err, "%s: out of memory", path);
        return NULL;
    }
    fa->face = hb_face_create(blob, 0);
    hb_blob_destroy(blob);
    fa->font = hb_font_create(fa->face);
    fa->buf = hb_buffer_create();
    fa->upem = hb_face_get_upem(fa->face);
    if (fa->upem == 0 || !hb_buffer_allocation_successful(fa->buf)) {
        error_set(err, "%s: not a font file", path);
        font_advance_close(fa);
        return NULL;
    }
    /* advances in font units: scale to any pixel size afterwards */
    hb_font_set_scale(fa->font, (int)fa->upem, (int)fa->upem);
    return fa;
}

void font_advance_close(FontAdvance *fa) {
    if (!fa) return;
    hb_buffer_destroy(fa->buf);
    hb_font_destroy(fa->font);
    hb_face_destroy(fa->face);
    free(fa);
}

double font_advance_width(FontAdvance *fa, const char *utf8, int px, int *glyphs) {
    hb_buffer_clear_contents(fa->buf);
    hb_buffer_add_utf8(fa->buf, utf8, -1, 0, -1);
    hb_buffer_guess_segment_properties(fa->buf);
    hb_shape(fa->font, fa->buf, NULL, 0);
    unsigned n = 0;
    const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(fa->buf, &n);
    long long units = 0;
    for (unsigned i = 0; i < n; i++) units += pos[i].x_advance;
    if (glyphs) *glyphs = (int)n;
    return (double)units * px / fa->upem;
}
