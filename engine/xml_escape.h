/* xml_escape.h — text as XML 1.0 character data or attribute value, the one XML escaper
 * of the tree: every string the SVG writer puts in a document goes through it, so no
 * token or caption can break out of its element (no way around it: the writer has no
 * other way to add text). What comes out, character by character:
 *   &  <  >  "  '          &amp; &lt; &gt; &quot; &apos;  (so "]]>" becomes "]]&gt;" and
 *                          the result is right in element content and in either kind of
 *                          quoted attribute)
 *   TAB LF CR              &#9; &#10; &#13;  (survive attribute-value normalisation)
 *   other C0 controls      U+2400 + c, their Control Pictures (␀ ␁ … ␟): XML 1.0 has no
 *                          way to carry them, not even as character references
 *   U+FFFE, U+FFFF         U+FFFD (not XML characters either)
 *   a byte not in UTF-8    U+FFFD, one per byte (utf8_decode_one, strict RFC 3629)
 *   anything else          itself, as UTF-8
 * A parser therefore reads back exactly the input whenever the input is valid UTF-8
 * without those controls and non-characters. Not an XML writer and not a parser. */
#ifndef XML_ESCAPE_H
#define XML_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Appends s[0..n) escaped to out (out->oom after a failed allocation). */
void xml_escape(StrBuf *out, const uint8_t *s, size_t n);

#endif
