/* frame_size.c — WIDTHxHEIGHT parsing with one range rule (see frame_size.h). */
#include "frame_size.h"

#include <stdio.h>
#include <string.h>

#include "parse_num.h"

/* One side: digits only (parse_num_int, which also refuses a sign's '+'), in [lo, hi]. */
static int side(const char *s, size_t n, int lo, int hi, int *out) {
    char buf[16];
    long long v = 0;
    if (n == 0 || n >= sizeof buf || s[0] == '-') return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (parse_num_int(buf, &v) != NUM_OK || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

int viz_size_parse(const char *flag, const char *text, int min_w, int min_h, int *w, int *h, ErrorMsg *err) {
    const char *x = strchr(text, 'x');
    int ww = 0, hh = 0;
    if (!x || side(text, (size_t)(x - text), min_w, VIZ_FRAME_MAX_SIDE, &ww) ||
        side(x + 1, strlen(x + 1), min_h, VIZ_FRAME_MAX_SIDE, &hh))
        return error_set(err, "%s: '%.40s' is not WIDTHxHEIGHT from %dx%d to %dx%d", flag, text, min_w, min_h,
                         VIZ_FRAME_MAX_SIDE, VIZ_FRAME_MAX_SIDE);
    *w = ww;
    *h = hh;
    return 0;
}
