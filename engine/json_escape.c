/* json_escape.c — see json_escape.h. UTF-8 is decoded by utf8_decode_one (strict RFC
 * 3629), so both modes agree on what counts as a character. */
#include "json_escape.h"

#include <stdio.h>

#include "utf8.h"

/* The short escapes of RFC 8259 §7 that we use; NULL for any other byte. */
static const char *short_escape(uint32_t c) {
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return NULL;
    }
}

void json_escape_to(JsonSink sink, void *ctx, const uint8_t *s, size_t n, JsonEscapeMode mode) {
    char u[16]; /* one \uXXXX escape, or a pair of them */
    sink(ctx, "\"", 1);
    for (size_t i = 0; i < n;) {
        uint32_t cp = s[i];
        size_t k = s[i] < 0x80 ? 1 : utf8_decode_one(s + i, n - i, &cp);
        const char *esc = k == 1 ? short_escape(cp) : NULL;
        int len = -1; /* > 0: u[0..len) is the output */
        if (esc) {
            sink(ctx, esc, 2);
        } else if (k == 0 && mode == JSON_ESCAPE_UTF8) {
            len = snprintf(u, sizeof u, "\\udc%02x", (unsigned)s[i]); /* PEP 383: U+DC80 + byte */
        } else if (k == 0) {
            sink(ctx, "\\ufffd", 6);
        } else if (cp >= 0x20 && cp < 0x7F) {
            sink(ctx, (const char *)s + i, 1);
        } else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (mode == JSON_ESCAPE_ASCII && cp < 0x10000)) {
            /* DEL and the C1 controls too: JSON read on a terminal must not drive it */
            len = snprintf(u, sizeof u, "\\u%04x", (unsigned)cp);
        } else if (mode == JSON_ESCAPE_ASCII) {
            uint32_t v = cp - 0x10000; /* UTF-16 surrogate pair */
            len = snprintf(u, sizeof u, "\\u%04x\\u%04x", (unsigned)(0xD800 + (v >> 10)),
                           (unsigned)(0xDC00 + (v & 0x3FF)));
        } else {
            sink(ctx, (const char *)s + i, k); /* valid UTF-8 as it is */
        }
        if (len > 0) sink(ctx, u, (size_t)len);
        i += k ? k : 1;
    }
    sink(ctx, "\"", 1);
}

static void strbuf_sink(void *ctx, const char *p, size_t n) { strbuf_add(ctx, p, n); }

void json_escape(StrBuf *out, const uint8_t *s, size_t n, JsonEscapeMode mode) {
    json_escape_to(strbuf_sink, out, s, n, mode);
}
