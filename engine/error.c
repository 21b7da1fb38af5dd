/* error.c — the one formatter behind ErrorMsg (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text_visible.h"

int error_set(ErrorMsg *err, const char *fmt, ...) {
    if (!err) return -1;
    char raw[sizeof err->text];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1;
    /* keep it one line: a newline inside a message would break status lines/logs */
    for (size_t i = 0; i < len; i++)
        if (raw[i] == '\n' || raw[i] == '\r') raw[i] = ' ';
    /* and inert: a path or a name from a file may hold ESC, BEL, C1 controls (text_visible.h) */
    text_visible(err->text, sizeof err->text, (const uint8_t *)raw, len, 0);
    return -1;
}

const char *error_quote(char *out, size_t cap, const char *s, size_t n) {
    if (cap == 0) return out;
    size_t o = 0;
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        char piece[8];
        size_t len, k = text_visible_piece(u + i, n - i, TEXT_ESCAPE_BACKSLASH, piece, &len);
        if (o + len + 4 > cap) { /* room for "..." and the NUL */
            if (o + 4 <= cap) memcpy(out + o, "...", 3), o += 3;
            break;
        }
        memcpy(out + o, piece, len);
        o += len;
        i += k;
    }
    out[o] = 0;
    return out;
}

const char *error_quote_cstr(char *out, size_t cap, const char *s) {
    return error_quote(out, cap, s ? s : "", s ? strlen(s) : 0);
}
