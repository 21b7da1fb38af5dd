/* utf8.c — UTF-8 validation, U+FFFD replacement and incomplete-tail detection (utf8.h).
 * Everything derives from one table: Unicode Table 3-7 "Well-Formed UTF-8 Byte
 * Sequences", which gives for each lead byte the length and the allowed range of the
 * SECOND byte (that range is what excludes overlongs, surrogates and > U+10FFFF). */
#include "utf8.h"

/* Table 3-7, keyed by the lead byte:
 *   00..7F           1 byte
 *   C2..DF  80..BF   2 bytes
 *   E0      A0..BF   3 bytes   (80..9F would be overlong)
 *   E1..EC  80..BF   3 bytes
 *   ED      80..9F   3 bytes   (A0..BF would encode surrogates D800..DFFF)
 *   EE..EF  80..BF   3 bytes
 *   F0      90..BF   4 bytes   (80..8F would be overlong)
 *   F1..F3  80..BF   4 bytes
 *   F4      80..8F   4 bytes   (90..BF would exceed U+10FFFF)
 * C0, C1, F5..FF and 80..BF can never start a sequence. Bytes after the second are
 * always 80..BF. Returns the length, or 0 for an impossible lead byte. */
static size_t lead_info(uint8_t c, uint8_t *lo, uint8_t *hi) {
    *lo = 0x80;
    *hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c == 0xE0) { *lo = 0xA0; return 3; }
    if (c == 0xED) { *hi = 0x9F; return 3; }
    if (c >= 0xE1 && c <= 0xEF) return 3;
    if (c == 0xF0) { *lo = 0x90; return 4; }
    if (c == 0xF4) { *hi = 0x8F; return 4; }
    if (c >= 0xF1 && c <= 0xF3) return 4;
    return 0;
}

/* How many bytes of s[0..n) (at most the sequence length) form a valid prefix of a
 * sequence, together with the full length k the lead byte promises. */
static size_t valid_prefix(const uint8_t *s, size_t n, size_t *k_out) {
    uint8_t lo, hi;
    size_t k = lead_info(s[0], &lo, &hi);
    *k_out = k;
    if (k == 0) return 0;
    size_t i = 1;
    for (; i < k && i < n; i++) {
        uint8_t c = s[i];
        uint8_t l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
        if (c < l || c > h) break;
    }
    return i;
}

size_t utf8_decode_one(const uint8_t *s, size_t n, uint32_t *cp) {
    size_t k;
    size_t got = valid_prefix(s, n, &k);
    if (k == 0 || got < k) return 0;
    if (cp) {
        static const uint8_t lead_mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
        uint32_t v = s[0] & lead_mask[k];
        for (size_t i = 1; i < k; i++) v = (v << 6) | (s[i] & 0x3Fu);
        *cp = v;
    }
    return k;
}

int utf8_validate(const uint8_t *s, size_t n, size_t *first_bad) {
    size_t i = 0;
    while (i < n) {
        /* fast path: ASCII is most of any English text */
        if (s[i] < 0x80) { i++; continue; }
        size_t k = utf8_decode_one(s + i, n - i, NULL);
        if (k == 0) {
            if (first_bad) *first_bad = i;
            return 0;
        }
        i += k;
    }
    return 1;
}

size_t utf8_invalid_subpart(const uint8_t *s, size_t n) {
    size_t k;
    size_t got = valid_prefix(s, n, &k);
    /* a bad lead byte is a subpart of its own; otherwise the valid-so-far prefix
     * (lead + well-placed continuations) is ONE subpart, and the byte that broke it
     * is examined afresh, e.g. "\xC0\xAF" -> 2 subparts, "\xED\xA0\x80" -> 3,
     * "\xF0\x9F\x98" at the end -> 1. */
    return got == 0 ? 1 : got;
}

size_t utf8_replaced_len(const uint8_t *s, size_t n) {
    size_t i = 0, out = 0;
    while (i < n) {
        size_t k = s[i] < 0x80 ? 1 : utf8_decode_one(s + i, n - i, NULL);
        if (k) {
            i += k;
            out += k;
        } else {
            i += utf8_invalid_subpart(s + i, n - i);
            out += 3; /* U+FFFD is EF BF BD */
        }
    }
    return out;
}

size_t utf8_replace_invalid(const uint8_t *s, size_t n, uint8_t *out) {
    size_t i = 0, o = 0;
    while (i < n) {
        size_t k = s[i] < 0x80 ? 1 : utf8_decode_one(s + i, n - i, NULL);
        if (k) {
            for (size_t j = 0; j < k; j++) out[o++] = s[i + j];
            i += k;
        } else {
            i += utf8_invalid_subpart(s + i, n - i);
            out[o++] = 0xEF;
            out[o++] = 0xBF;
            out[o++] = 0xBD;
        }
    }
    return o;
}

size_t utf8_incomplete_tail(const uint8_t *s, size_t n) {
    /* a sequence is at most 4 bytes, so an incomplete one starts in the last 3 */
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        size_t p = n - back;
        if ((s[p] & 0xC0) == 0x80) continue; /* continuation byte: keep looking for the lead */
        size_t k;
        size_t got = valid_prefix(s + p, back, &k);
        return (k > back && got == back) ? back : 0;
    }
    return 0;
}
