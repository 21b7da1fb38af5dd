/* ticks.c — nice tick spacing (Heckbert 1990) and minimal-precision labels. */
#include "ticks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Smallest "nice" step >= raw: 1, 2, 2.5, 5 or 10 times a power of ten. */
static double nice_step(double raw) {
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p; /* mantissa in [1, 10) */
    double nice = m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 2.5 ? 2.5 : m <= 5.0 ? 5.0 : 10.0;
    return nice * p;
}

size_t ticks_nice(double vmin, double vmax, int target, double *out, size_t max_ticks,
                  double *step_out) {
    if (step_out) *step_out = 0.0;
    if (!isfinite(vmin) || !isfinite(vmax) || !(vmax > vmin) || target < 2 || !out)
        return 0;
    double step = nice_step((vmax - vmin) / (double)(target - 1));
    if (step_out) *step_out = step;
    double slack = 1e-9 * (vmax - vmin);
    /* integer multiples of step, so 0.1+0.2-style drift never creeps into labels */
    double k0 = ceil((vmin - slack) / step), k1 = floor((vmax + slack) / step);
    size_t n = 0;
    for (double k = k0; k <= k1 && n < max_ticks; k += 1.0) out[n++] = k * step;
    return n;
}

char *ticks_format(double v, double step, char *buf, size_t cap) {
    if (cap == 0) return buf;
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        return buf;
    }
    if (step > 0.0 && fabs(v) < step * 1e-6) v = 0.0; /* -1e-17 from k*step → "0" */
    if (v == 0.0) v = 0.0;                             /* turns -0.0 into +0.0 */
    double a = fabs(v);
    if (a != 0.0 && (a < 1e-4 || a >= 1e6)) {
        snprintf(buf, cap, "%.3g", v);
        return buf;
    }
    /* decimals needed to show the step exactly: 0.25 → 2, 0.5 → 1, 20 → 0 */
    int dec = 0;
    if (step > 0.0) {
        double s = step;
        while (dec < 6 && fabs(s - round(s)) > 1e-9 * fmax(1.0, s)) {
            s *= 10.0;
            dec++;
        }
    }
    snprintf(buf, cap, "%.*f", dec, v);
    /* trailing zeros add ink but no information on a tick label: "0.50" → "0.5" */
    if (dec > 0 && strchr(buf, '.')) {
        size_t n = strlen(buf);
        while (n > 0 && buf[n - 1] == '0') buf[--n] = '\0';
        if (n > 0 && buf[n - 1] == '.') buf[--n] = '\0';
        if (strcmp(buf, "-0") == 0) snprintf(buf, cap, "0");
    }
    return buf;
}
