/* error.c — the one formatter behind ErrorMsg (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

int error_set(ErrorMsg *err, const char *fmt, ...) {
    if (!err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    /* keep it one line: a newline inside a message would break status lines/logs */
    for (char *p = err->text; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return -1;
}

const char *error_quote(char *out, size_t cap, const char *s, size_t n) {
    if (cap == 0) return out;
    size_t o = 0;
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        char piece[24];
        uint32_t cp = 0;
        size_t k = utf8_decode_one(u + i, n - i, &cp), len;
        if (u[i] == '\\') {
            memcpy(piece, "\\\\", 2), len = 2, k = 1;
        } else if (k == 0 || cp < 0x20 || cp == 0x7F) {
            len = (size_t)snprintf(piece, sizeof piece, "\\x%02X", u[i]), k = 1;
        } else if (cp >= 0x80 && cp <= 0x9F) { /* C1 controls: both bytes shown */
            len = (size_t)snprintf(piece, sizeof piece, "\\x%02X\\x%02X", u[i], u[i + 1]);
        } else {
            memcpy(piece, u + i, k), len = k;
        }
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
