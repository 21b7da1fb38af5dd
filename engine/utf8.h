/* utf8.h — the few UTF-8 facts the tokenizer needs: is this byte string valid (and where
 * does it first go wrong), the WHATWG/Unicode "maximal subpart" replacement with U+FFFD,
 * and "does this buffer end in an incomplete-but-so-far-valid sequence" (for streaming
 * decode). Strict RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF.
 * Not a general Unicode library: no code point classes (PCRE2 does those). */
#ifndef UTF8_H
#define UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s[0..n), or 0 if s does not start with
 * one (bad lead byte, bad continuation, overlong, surrogate, > U+10FFFF, truncated).
 * n must be >= 1. If cp is not NULL and the result is > 0, *cp receives the code point. */
size_t utf8_decode_one(const uint8_t *s, size_t n, uint32_t *cp);

/* Returns 1 if s[0..n) is valid UTF-8. Otherwise returns 0 and, if first_bad is not
 * NULL, stores the byte offset of the first byte that is not part of a valid sequence
 * (for "abc\xFF" that is 3; for a truncated "\xF0\x9F\x98" at offset 6 it is 6). */
int utf8_validate(const uint8_t *s, size_t n, size_t *first_bad);

/* Length of the "maximal subpart" at s[0..n) that is invalid (Unicode §3.9, D93b; the
 * WHATWG decoder's rule): the longest prefix that could still begin a valid sequence,
 * at least 1. Each such subpart becomes exactly one U+FFFD. Only meaningful when
 * utf8_decode_one(s, n) == 0. */
size_t utf8_invalid_subpart(const uint8_t *s, size_t n);

/* Bytes needed to replace every invalid subpart of s[0..n) by U+FFFD (EF BF BD). */
size_t utf8_replaced_len(const uint8_t *s, size_t n);

/* Writes the replaced form of s[0..n) into out, which must hold utf8_replaced_len(s, n)
 * bytes. Same result as Python's bytes.decode('utf-8', 'replace').encode(). Returns the
 * number of bytes written. */
size_t utf8_replace_invalid(const uint8_t *s, size_t n, uint8_t *out);

/* If s[0..n) ends with the start of a multi-byte sequence that is valid so far but not
 * complete (e.g. "\xF0\x9F" or "\xE2\x82"), returns its length (1..3); else 0. A
 * streaming decoder holds those bytes back until the next token completes them. */
size_t utf8_incomplete_tail(const uint8_t *s, size_t n);

#endif
