/* test_utf8.c — engine/utf8: validation offsets, the U+FFFD "maximal subpart" rule
 * (checked against Python's bytes.decode('utf-8', 'replace') results written out here
 * and against the reference tok_invalid_utf8.jsonl), code points, incomplete tails.
 * Not the tokenizer (test_tokenizer.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf8.h"

typedef struct Case {
    const char *name;
    const char *in;      /* bytes */
    size_t n;
    int valid;
    size_t first_bad;
    const char *replaced; /* Python: in.decode('utf-8','replace').encode() */
    size_t rn;
    size_t tail;         /* utf8_incomplete_tail */
} Case;

#define S(x) x, sizeof x - 1
static const Case CASES[] = {
    {"empty", S(""), 1, 0, S(""), 0},
    {"ascii with NUL", S("a\0b"), 1, 0, S("a\0b"), 0},
    {"2/3/4-byte", S("\xC3\xA9\xE2\x82\xAC\xF0\x9F\xA6\xB1"), 1, 0, S("\xC3\xA9\xE2\x82\xAC\xF0\x9F\xA6\xB1"), 0},
    {"max U+10FFFF", S("\xF4\x8F\xBF\xBF"), 1, 0, S("\xF4\x8F\xBF\xBF"), 0},
    {"lone FF", S("abc\xFF" "def"), 0, 3, S("abc\xEF\xBF\xBD" "def"), 0},
    {"stray continuation", S("caf\x80 ok"), 0, 3, S("caf\xEF\xBF\xBD ok"), 0},
    /* C0 can never start a sequence: C0 and AF are two subparts -> two U+FFFD */
    {"overlong slash", S("path\xC0\xAF" "etc"), 0, 4, S("path\xEF\xBF\xBD\xEF\xBF\xBD" "etc"), 0},
    /* ED A0: A0 is outside ED's second-byte range 80..9F -> three U+FFFD */
    {"surrogate", S("x\xED\xA0\x80y"), 0, 1, S("x\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDy"), 0},
    /* a truncated character at the end is ONE subpart */
    {"truncated emoji", S("smile \xF0\x9F\x98"), 0, 6, S("smile \xEF\xBF\xBD"), 3},
    /* F0 9F then 'A': F0 9F is one subpart, A survives */
    {"truncated mid", S("\xF0\x9F" "A"), 0, 0, S("\xEF\xBF\xBD" "A"), 0},
    {"above U+10FFFF", S("\xF4\x90\x80\x80"), 0, 0,
     S("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), 0},
    {"F5 lead", S("\xF5\x80"), 0, 0, S("\xEF\xBF\xBD\xEF\xBF\xBD"), 0},
    {"E0 overlong", S("\xE0\x80\x80"), 0, 0, S("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), 0},
    {"tail E2 82", S("ok\xE2\x82"), 0, 2, S("ok\xEF\xBF\xBD"), 2},
    {"tail C3", S("\xC3"), 0, 0, S("\xEF\xBF\xBD"), 1},
    /* a tail that can never complete (ED A0) is not held back */
    {"tail ED A0", S("\xED\xA0"), 0, 0, S("\xEF\xBF\xBD\xEF\xBF\xBD"), 0},
    {"tail FF", S("a\xFF"), 0, 1, S("a\xEF\xBF\xBD"), 0},
};

int main(void) {
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const Case *c = &CASES[i];
        const uint8_t *in = (const uint8_t *)c->in;
        size_t bad = 12345;
        int v = utf8_validate(in, c->n, &bad);
        CHECK(v == c->valid, "%s: valid %d, want %d", c->name, v, c->valid);
        if (!c->valid) CHECK(bad == c->first_bad, "%s: first bad %zu, want %zu", c->name, bad, c->first_bad);
        size_t rl = utf8_replaced_len(in, c->n);
        CHECK(rl == c->rn, "%s: replaced length %zu, want %zu", c->name, rl, c->rn);
        uint8_t out[64];
        size_t w = rl <= sizeof out ? utf8_replace_invalid(in, c->n, out) : 0;
        CHECK(w == c->rn && memcmp(out, c->replaced, c->rn) == 0, "%s: replaced bytes differ", c->name);
        size_t tail = utf8_incomplete_tail(in, c->n);
        CHECK(tail == c->tail, "%s: incomplete tail %zu, want %zu", c->name, tail, c->tail);
    }
    uint32_t cp = 0;
    CHECK(utf8_decode_one((const uint8_t *)"\xF0\x9F\xA6\xB1", 4, &cp) == 4 && cp == 0x1F9B1, "U+1F9B1: %X", cp);
    CHECK(utf8_decode_one((const uint8_t *)"\xC2\x85", 2, &cp) == 2 && cp == 0x85, "U+0085: %X", cp);
    CHECK(utf8_decode_one((const uint8_t *)"\xEF\xBB\xBF", 3, &cp) == 3 && cp == 0xFEFF, "U+FEFF: %X", cp);
    CHECK(utf8_decode_one((const uint8_t *)"\xF0\x9F\xA6", 3, &cp) == 0, "truncated decodes");
    CHECK(utf8_decode_one((const uint8_t *)"\xC1\xBF", 2, &cp) == 0, "overlong C1 decodes");
    CHECK(utf8_invalid_subpart((const uint8_t *)"\xF0\x9F\x98" "A", 4) == 3, "subpart F0 9F 98");
    CHECK(utf8_invalid_subpart((const uint8_t *)"\xED\xA0\x80", 3) == 1, "subpart ED A0");
    return check_summary("test_utf8");
}
