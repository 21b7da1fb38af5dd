/* base64.h — bytes as base64 text (RFC 4648 §4, with '=' padding, no line breaks), for
 * data: URIs (the fonts an SVG embeds). Not a decoder. */
#ifndef BASE64_H
#define BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Appends the base64 of p[0..n) to out (out->oom after a failed allocation). */
void base64_encode(StrBuf *out, const uint8_t *p, size_t n);

#endif
