/* test_json_escape.c — engine/json_escape (both modes) and the engine/strbuf it writes
 * into. Expected literals are written out by hand from RFC 8259 §7 and PEP 383, byte
 * by byte, so they do not come from the code under test. */
#include <string.h>

#include "check.h"
#include "json_escape.h"
#include "strbuf.h"

static void expect(const char *what, const void *in, size_t n, JsonEscapeMode mode, const char *want) {
    StrBuf b = {0};
    json_escape(&b, in, n, mode);
    CHECK(!b.oom && b.data && b.len == strlen(want) && strcmp(b.data, want) == 0, "%s: got %s want %s", what,
          b.data ? b.data : "(null)", want);
    strbuf_free(&b);
}

static void test_modes(void) {
    /* a, quote, newline, NUL, e-acute (C3 A9), a bad byte FF */
    const uint8_t mixed[] = {'a', '"', '\n', 0, 0xC3, 0xA9, 0xFF};
    expect("utf8 mixed", mixed, sizeof mixed, JSON_ESCAPE_UTF8, "\"a\\\"\\n\\u0000\xC3\xA9\\udcff\"");
    expect("ascii mixed", mixed, sizeof mixed, JSON_ESCAPE_ASCII, "\"a\\\"\\n\\u0000\\u00e9\\ufffd\"");
    /* U+1F600 (F0 9F 98 80) is the pair D83D DE00; U+2014 (E2 80 94); DEL; backslash, tab, CR */
    const uint8_t wide[] = {0xF0, 0x9F, 0x98, 0x80, 0xE2, 0x80, 0x94, 0x7F, '\\', '\t', '\r'};
    expect("ascii pair", wide, sizeof wide, JSON_ESCAPE_ASCII, "\"\\ud83d\\ude00\\u2014\\u007f\\\\\\t\\r\"");
    expect("utf8 pair", wide, sizeof wide, JSON_ESCAPE_UTF8, "\"\xF0\x9F\x98\x80\xE2\x80\x94\\u007f\\\\\\t\\r\"");
    /* an encoded surrogate (ED A0 80) and an overlong '/' (C0 AF) are not UTF-8: byte by byte */
    const uint8_t bad[] = {0xED, 0xA0, 0x80, 0xC0, 0xAF};
    expect("utf8 bad", bad, sizeof bad, JSON_ESCAPE_UTF8, "\"\\udced\\udca0\\udc80\\udcc0\\udcaf\"");
    expect("ascii bad", bad, sizeof bad, JSON_ESCAPE_ASCII, "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* a sequence cut at the end of the input */
    const uint8_t cut[] = {'x', 0xE2, 0x80};
    expect("utf8 cut", cut, sizeof cut, JSON_ESCAPE_UTF8, "\"x\\udce2\\udc80\"");
    expect("empty", "", 0, JSON_ESCAPE_ASCII, "\"\"");
}

static void test_strbuf(void) {
    StrBuf b = {0};
    strbuf_add(&b, NULL, 0);
    CHECK(b.data == NULL && b.len == 0, "an empty append allocates nothing");
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    strbuf_addf(&b, "%d:%s", 42, big); /* longer than the formatter's small buffer */
    CHECK(b.len == 3 + 999 && memcmp(b.data, "42:xx", 5) == 0 && b.data[b.len] == '\0', "long addf: %zu", b.len);
    strbuf_clear(&b);
    CHECK(b.len == 0 && b.data && b.data[0] == '\0', "clear keeps an empty string");
    for (int i = 0; i < 5000; i++) strbuf_adds(&b, "ab");
    CHECK(b.len == 10000 && b.data[9998] == 'a' && b.data[9999] == 'b' && b.data[10000] == '\0', "growth: %zu",
          b.len);
    const uint8_t nul[] = {'a', 0, 'b'};
    strbuf_clear(&b);
    strbuf_add(&b, nul, 3);
    CHECK(b.len == 3 && b.data[1] == 0 && b.data[2] == 'b', "bytes with a NUL are kept");
    strbuf_free(&b);
    strbuf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0, "free zeroes, twice is safe");
}

int main(void) {
    test_modes();
    test_strbuf();
    return check_summary("test_json_escape");
}
