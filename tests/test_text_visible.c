/* test_text_visible.c — engine/text_visible.h and the message paths built on it (issue 35):
 * ESC, BEL, the other C0 controls, DEL, the C1 controls U+0080..U+009F (two bytes in
 * UTF-8) and broken UTF-8 come out as \xNN; printable ASCII and valid UTF-8 (é, emoji)
 * pass unchanged; TEXT_KEEP_LINES keeps \n and \t only; cuts fall on a character boundary.
 * error_set (every ErrorMsg) is one line and inert; error_quote keeps its backslash rule;
 * the JSON escaper writes DEL and C1 as \u00XX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "error.h"
#include "json_escape.h"
#include "strbuf.h"
#include "text_visible.h"

static const char *vis(char *buf, size_t cap, const char *s, size_t n, unsigned flags) {
    text_visible(buf, cap, (const uint8_t *)s, n, flags);
    return buf;
}

int main(void) {
    char out[256];
    /* the attack: a title sequence, BEL, a C1 CSI, DEL */
    const char attack[] = "a\x1b]0;pwned\x07" "b\xc2\x9b" "2Jc\x7f";
    vis(out, sizeof out, attack, sizeof attack - 1, 0);
    CHECK(strcmp(out, "a\\x1B]0;pwned\\x07b\\xC2\\x9B2Jc\\x7F") == 0, "controls as \\xNN: %s", out);
    /* printable and valid UTF-8 unchanged; a backslash stays without the flag */
    const char plain[] = "caf\xc3\xa9 \xf0\x9f\x99\x82 a\\b ~";
    vis(out, sizeof out, plain, sizeof plain - 1, 0);
    CHECK(strcmp(out, plain) == 0, "text unchanged: %s", out);
    vis(out, sizeof out, "a\\b", 3, TEXT_ESCAPE_BACKSLASH);
    CHECK(strcmp(out, "a\\\\b") == 0, "backslash doubled on request: %s", out);
    /* lines: kept only with TEXT_KEEP_LINES; CR, FF, VT, BS never */
    vis(out, sizeof out, "x\ny\tz\r\b\f\v", 9, TEXT_KEEP_LINES);
    CHECK(strcmp(out, "x\ny\tz\\x0D\\x08\\x0C\\x0B") == 0, "keep lines: %s", out);
    vis(out, sizeof out, "x\ny\t", 4, 0);
    CHECK(strcmp(out, "x\\x0Ay\\x09") == 0, "no lines without the flag: %s", out);
    /* broken UTF-8: each byte that is not part of a valid sequence; U+00A0 (C2 A0) is not C1 */
    vis(out, sizeof out, "\xff\xc3(\xc2\xa0\xe2\x82", 7, 0);
    CHECK(strcmp(out, "\\xFF\\xC3(\xc2\xa0\\xE2\\x82") == 0, "broken UTF-8: %s", out);
    vis(out, sizeof out, "\xc2\x80\xc2\x9f\xc2\xa0", 6, 0);
    CHECK(strcmp(out, "\\xC2\\x80\\xC2\\x9F\xc2\xa0") == 0, "C1 range is exactly U+0080..U+009F: %s", out);
    /* NUL inside a counted string */
    vis(out, sizeof out, "a\0b", 3, 0);
    CHECK(strcmp(out, "a\\x00b") == 0, "NUL: %s", out);
    /* the cut: never half an escape, never half a character */
    char small[7];
    size_t n = text_visible(small, 6, (const uint8_t *)"ab\x1b" "cd", 5, 0);
    CHECK(n == 2 && strcmp(small, "ab") == 0, "cut before a whole \\x1B: '%s' (%zu)", small, n);
    n = text_visible(small, sizeof small, (const uint8_t *)"ab\x1b" "cd", 5, 0);
    CHECK(n == 6 && strcmp(small, "ab\\x1B") == 0, "a whole \\x1B that fits: '%s' (%zu)", small, n);
    n = text_visible(small, sizeof small, (const uint8_t *)"abcd\xc3\xa9", 6, 0);
    CHECK(n == 6 && strcmp(small, "abcd\xc3\xa9") == 0, "a 2-byte char fits exactly: %zu", n);
    n = text_visible(small, 6, (const uint8_t *)"abcd\xc3\xa9", 6, 0);
    CHECK(n == 4 && strcmp(small, "abcd") == 0, "a 2-byte char that does not fit is left out: %zu", n);
    CHECK(strcmp(text_visible_cstr(small, sizeof small, NULL), "") == 0, "NULL is empty");

    /* the stream writer gives the same bytes */
    char *mem = NULL;
    size_t mlen = 0;
    FILE *f = open_memstream(&mem, &mlen);
    text_visible_write(f, (const uint8_t *)attack, sizeof attack - 1, 0);
    text_visible_write(f, (const uint8_t *)"\n\xf0\x9f\x99\x82\t", 6, TEXT_KEEP_LINES);
    fclose(f);
    CHECK(mem && strcmp(mem, "a\\x1B]0;pwned\\x07b\\xC2\\x9B2Jc\\x7F\n\xf0\x9f\x99\x82\t") == 0, "stream: %s", mem);
    free(mem);

    /* error_set: one line (newline -> space, as before), the rest inert */
    ErrorMsg err;
    error_set(&err, "%s: not found", "m\x1b[2J\nx\xc2\x9b");
    CHECK(strcmp(err.text, "m\\x1B[2J x\\xC2\\x9B: not found") == 0, "error_set: %s", err.text);
    error_set(&err, "%s", "plain \xc3\xa9 \\x1B");
    CHECK(strcmp(err.text, "plain \xc3\xa9 \\x1B") == 0, "error_set leaves text and backslashes: %s", err.text);
    char big[700];
    memset(big, '\x1b', sizeof big - 1);
    big[sizeof big - 1] = 0;
    error_set(&err, "%s", big);
    CHECK(strlen(err.text) == 508 && strncmp(err.text + 504, "\\x1B", 4) == 0, "long message cut on a whole escape: %zu",
          strlen(err.text));
    /* error_quote: names from files, backslash doubled */
    char q[ERROR_QUOTE_CAP];
    CHECK(strcmp(ERROR_QUOTE(q, "w\\x\x1b"), "w\\\\x\\x1B") == 0, "error_quote: %s", q);

    /* JSON: DEL and C1 as \u00XX in both modes */
    StrBuf b = {0};
    json_escape(&b, (const uint8_t *)"\x7f\xc2\x9b\xc2\xa0", 5, JSON_ESCAPE_UTF8);
    CHECK(b.data && strcmp(b.data, "\"\\u007f\\u009b\xc2\xa0\"") == 0, "JSON: %s", b.data ? b.data : "(null)");
    strbuf_free(&b);
    return check_summary("test_text_visible");
}
