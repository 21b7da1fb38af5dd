/* strbuf.c — see strbuf.h. Capacity doubles (amortised O(1) appends); sizes are checked
 * against SIZE_MAX before any arithmetic that could wrap. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `extra` more bytes plus the terminating NUL; sets oom when there is none. */
static int strbuf_reserve(StrBuf *b, size_t extra) {
    if (b->oom) return -1;
    if (extra > SIZE_MAX - 1 - b->len) {
        b->oom = 1;
        return -1;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

void strbuf_add(StrBuf *b, const void *p, size_t n) {
    if (n == 0 || strbuf_reserve(b, n)) return; /* n == 0 may come with p == NULL */
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void strbuf_adds(StrBuf *b, const char *s) { strbuf_add(b, s, strlen(s)); }

void strbuf_addf(StrBuf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        strbuf_add(b, small, (size_t)n);
        return;
    }
    if (strbuf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void strbuf_clear(StrBuf *b) {
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

void strbuf_free(StrBuf *b) {
    if (!b) return;
    free(b->data);
    memset(b, 0, sizeof *b);
}
