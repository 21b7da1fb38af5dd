/* json_escape.h — writing bytes as ONE JSON string literal (RFC 8259 §7), the one
 * escaper of the tree. Two modes, for the two kinds of reader:
 *   JSON_ESCAPE_UTF8   valid UTF-8 passes through as it is; each byte that is not part of
 *                      valid UTF-8 becomes \udcXX (PEP 383's surrogate escape, as Python's
 *                      os.fsdecode does), so os.fsencode(json.loads(text)) gives the
 *                      original bytes back: paths, token bytes, CLI output.
 *   JSON_ESCAPE_ASCII  pure printable ASCII out: every code point outside 0x20..0x7E is
 *                      \uXXXX (a surrogate pair above U+FFFF), so the literal fits a PNG
 *                      tEXt chunk; a byte that is not UTF-8 becomes \ufffd (one per byte).
 * Both escape '"', '\\', \n, \r, \t by their short forms and other controls (C0, DEL and
 * the C1 controls U+0080..U+009F) as \u00XX.
 * Not a JSON writer (cJSON is) and not a parser. */
#ifndef JSON_ESCAPE_H
#define JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef enum { JSON_ESCAPE_UTF8, JSON_ESCAPE_ASCII } JsonEscapeMode;

/* Where the literal goes, piece by piece (p[0..n) is never NUL-terminated). */
typedef void (*JsonSink)(void *ctx, const char *p, size_t n);

/* Hands s[0..n) as a JSON string literal, quotes included, to sink(ctx, ...). */
void json_escape_to(JsonSink sink, void *ctx, const uint8_t *s, size_t n, JsonEscapeMode mode);

/* The same appended to a StrBuf (out->oom after a failed allocation). */
void json_escape(StrBuf *out, const uint8_t *s, size_t n, JsonEscapeMode mode);

#endif
