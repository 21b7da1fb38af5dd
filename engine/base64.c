/* base64.c — see base64.h. Three bytes become four characters of 6 bits each. */
#include "base64.h"

void base64_encode(StrBuf *out, const uint8_t *p, size_t n) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        q[0] = A[v >> 18];
        q[1] = A[(v >> 12) & 63];
        q[2] = i + 1 < n ? A[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? A[v & 63] : '=';
        strbuf_add(out, q, 4);
    }
}
