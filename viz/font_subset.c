/* font_subset.c — see font_subset.h. */
#include "font_subset.h"

#include <hb-subset.h>
#include <hb.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

struct FontCodepoints {
    hb_set_t *set;
};

FontCodepoints *font_codepoints_new(void) {
    FontCodepoints *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->set = hb_set_create();
    if (!hb_set_allocation_successful(c->set)) {
        font_codepoints_free(c);
        return NULL;
    }
    return c;
}

void font_codepoints_free(FontCodepoints *c) {
    if (!c) return;
    hb_set_destroy(c->set);
    free(c);
}

int font_codepoints_add_utf8(FontCodepoints *c, const char *utf8) {
    const uint8_t *s = (const uint8_t *)utf8;
    size_t n = strlen(utf8);
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t k = utf8_decode_one(s + i, n - i, &cp);
        if (k == 0) {
            i++;
            continue;
        }
        hb_set_add(c->set, cp);
        i += k;
    }
    return hb_set_allocation_successful(c->set) ? 0 : -1;
}

size_t font_codepoints_count(const FontCodepoints *c) { return hb_set_get_population(c->set); }

int font_subset(const char *path, const FontCodepoints *c, StrBuf *out, ErrorMsg *err) {
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (!blob) return error_set(err, "%s: cannot read the font to embed it", path);
    hb_face_t *face = hb_face_create(blob, 0);
    hb_blob_destroy(blob);
    if (hb_face_get_glyph_count(face) == 0) {
        hb_face_destroy(face);
        return error_set(err, "%s: not a font file (no glyphs)", path);
    }
    hb_subset_input_t *in = hb_subset_input_create_or_fail();
    if (!in) {
        hb_face_destroy(face);
        return error_set(err, "%s: out of memory for the font subset", path);
    }
    hb_set_union(hb_subset_input_unicode_set(in), c->set);
    hb_face_t *sub = hb_subset_or_fail(face, in);
    hb_subset_input_destroy(in);
    hb_face_destroy(face);
    if (!sub) return error_set(err, "%s: cutting the font down to the glyphs used failed", path);
    hb_blob_t *bytes = hb_face_reference_blob(sub);
    unsigned len = 0;
    const char *data = hb_blob_get_data(bytes, &len);
    strbuf_add(out, data, len);
    hb_blob_destroy(bytes);
    hb_face_destroy(sub);
    if (len == 0) return error_set(err, "%s: the font subset came out empty", path);
    return out->oom ? error_set(err, "%s: out of memory embedding the font", path) : 0;
}
