/* text_visible.c — control characters and broken UTF-8 written as \xNN (text_visible.h). */
#include "text_visible.h"

#include "utf8.h"

static size_t hex_byte(char *out, uint8_t b) {
    static const char hex[] = "0123456789ABCDEF";
    out[0] = '\\', out[1] = 'x', out[2] = hex[b >> 4], out[3] = hex[b & 15];
    return 4;
}

size_t text_visible_piece(const uint8_t *s, size_t n, unsigned flags, char piece[8], size_t *len) {
    uint32_t cp = 0;
    size_t k = utf8_decode_one(s, n, &cp);
    if (s[0] == '\\' && (flags & TEXT_ESCAPE_BACKSLASH)) {
        piece[0] = piece[1] = '\\';
        *len = 2;
        return 1;
    }
    if ((s[0] == '\n' || s[0] == '\t') && (flags & TEXT_KEEP_LINES)) {
        piece[0] = (char)s[0];
        *len = 1;
        return 1;
    }
    if (k == 0 || cp < 0x20 || cp == 0x7F) { /* C0, DEL, or not UTF-8: one byte */
        *len = hex_byte(piece, s[0]);
        return 1;
    }
    if (cp >= 0x80 && cp <= 0x9F) { /* C1 control (two bytes in UTF-8): both shown */
        *len = hex_byte(piece, s[0]) + hex_byte(piece + 4, s[1]);
        return 2;
    }
    for (size_t i = 0; i < k; i++) piece[i] = (char)s[i];
    *len = k;
    return k;
}

size_t text_visible(char *out, size_t cap, const uint8_t *s, size_t n, unsigned flags) {
    if (cap == 0) return 0;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char piece[8];
        size_t len, k = text_visible_piece(s + i, n - i, flags, piece, &len);
        if (o + len >= cap) break;
        for (size_t j = 0; j < len; j++) out[o + j] = piece[j];
        o += len;
        i += k;
    }
    out[o] = '\0';
    return o;
}

const char *text_visible_cstr(char *out, size_t cap, const char *s) {
    if (!s) s = "";
    size_t n = 0;
    while (s[n]) n++;
    text_visible(out, cap, (const uint8_t *)s, n, 0);
    return out;
}

void text_visible_write(FILE *f, const uint8_t *s, size_t n, unsigned flags) {
    size_t plain = 0; /* a run of bytes that print as they are: one fwrite */
    for (size_t i = 0; i < n;) {
        char piece[8];
        size_t len, k = text_visible_piece(s + i, n - i, flags, piece, &len);
        if (len == k && (k > 1 || piece[0] == (char)s[i])) { /* unchanged */
            i += k;
            plain += k;
            continue;
        }
        fwrite(s + i - plain, 1, plain, f);
        plain = 0;
        fwrite(piece, 1, len, f);
        i += k;
    }
    fwrite(s + n - plain, 1, plain, f);
}
