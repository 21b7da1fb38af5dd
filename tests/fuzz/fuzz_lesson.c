/* fuzz_lesson.c — libFuzzer harness for lesson_parse (src/lesson/lesson.h) on arbitrary bytes
 * (not NUL-terminated: a read past `len` is an ASan report). An accepted lesson must
 * have well-formed beats and valid UTF-8 texts; a refused one a single "PATH:LINE:"
 * line. Not the lesson runner (which needs a model). */
#include "fuzz.h"

#include <math.h>

#include "frame.h"
#include "lesson.h"

/* Same rule as the parser promises (RFC 3629): returns 1 if s[0..n) is valid UTF-8. */
static int fuzz_utf8_valid(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (k == 0 || n - i < k) return 0;
        unsigned long cp = k == 1 ? c : k == 2 ? (c & 0x1F) : k == 3 ? (c & 0x0F) : (c & 0x07);
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k;
    }
    return 1;
}

/* Returns 1 if the lesson was accepted, 0 if refused. */
static int fuzz_lesson_one(const uint8_t *data, size_t size) {
    /* A private copy of exactly `size` bytes, so ASan sees any read past the end even
     * when the caller's buffer happens to be longer (test replay). */
    char *text = malloc(size ? size : 1);
    FUZZ_ASSERT(text != NULL, "out of memory");
    if (size) memcpy(text, data, size);
    Lesson l;
    ErrorMsg err = {{0}};
    int rc = lesson_parse(&l, "fuzz.lesson", text, size, &err);
    free(text);
    if (rc != 0) {
        FUZZ_ASSERT_REFUSAL(err.text, "fuzz.lesson");
        FUZZ_ASSERT(l.dir == NULL && l.n_dir == 0 && l.beat_end == NULL, "lesson not zeroed");
        return 0;
    }
    FUZZ_ASSERT(l.n_beats >= 1, "accepted lesson without beats");
    size_t prev = 0;
    for (size_t b = 0; b < l.n_beats; b++) {
        FUZZ_ASSERT(l.beat_end[b] >= prev && l.beat_end[b] <= l.n_dir, "beat %zu ends at %zu", b,
                    l.beat_end[b]);
        prev = l.beat_end[b];
    }
    for (size_t i = 0; i < l.n_dir; i++) {
        const LessonDirective *d = &l.dir[i];
        FUZZ_ASSERT(d->line >= 1, "directive %zu line %d", i, d->line);
        if (d->text) FUZZ_ASSERT(fuzz_utf8_valid((const unsigned char *)d->text, d->text_len),
                                 "directive %zu (line %d): text is not valid UTF-8", i, d->line);
        if (d->op == LOP_PANEL) FUZZ_ASSERT(d->kind >= 0 && d->kind < VIZ_PANEL_COUNT, "panel %d", d->kind);
        if (d->op == LOP_EXPECT) {
            FUZZ_ASSERT(d->claim && fuzz_utf8_valid((const unsigned char *)d->claim, strlen(d->claim)),
                        "expect (line %d): claim missing or not UTF-8", d->line);
            FUZZ_ASSERT(d->kind >= 0 && d->kind < LEXP_COUNT, "expect kind %d", d->kind);
            FUZZ_ASSERT(d->cmp >= LCMP_GE && d->cmp <= LCMP_STRONGEST, "expect cmp %d", d->cmp);
            FUZZ_ASSERT(d->kind != LEXP_IDS || (d->ids && d->n_ids >= 1), "expect ids without ids");
            FUZZ_ASSERT(d->kind != LEXP_TOP || (d->n >= 1 && d->n <= LESSON_TOP_MAX), "expect top %ld", d->n);
            FUZZ_ASSERT(isfinite(d->x), "expect threshold not finite");
        }
    }
    lesson_free(&l);
    return 1;
}

FUZZ_ENTRY(fuzz_lesson_one)
