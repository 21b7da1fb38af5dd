/* gelu_erf.c — exact GELU (see gelu_erf.h). erf in double: the float result is then
 * correctly rounded for every input that matters, and the cost (one erf per MLP unit)
 * is small next to the matmuls around it. */
#include "gelu_erf.h"

#include <math.h>

void gelu_erf(float *y, const float *x, size_t n) {
    const double r = 0.70710678118654752440; /* 1 / sqrt(2) */
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        y[i] = (float)(0.5 * v * (1.0 + erf(v * r)));
    }
}
