/* ref_attn_f64.h — the float64 reference of one attention row, for the kernel tests:
 * scores s_j = scale * q . K_j and the mix z_d = sum_j P_j K_jd (the same K stands in
 * for V, as the tests fill one buffer). Returns the largest differences from what a
 * kernel wrote, so a test states its own tolerance. */
#ifndef REF_ATTN_F64_H
#define REF_ATTN_F64_H

#include <math.h>
#include <stddef.h>

/* q (hs), K (nk, hs) row-major, P (nk); the kernel's sc (nk) and z (hs). */
static inline void ref_attn_row_diffs(const float *q, const float *K, const float *P, int nk, int hs, double scale,
                                      const float *sc, const float *z, double *max_score_diff,
                                      double *max_mix_diff) {
    double ms = 0, mz = 0;
    for (int j = 0; j < nk; j++) {
        double acc = 0;
        for (int d = 0; d < hs; d++) acc += (double)q[d] * K[(size_t)j * (size_t)hs + (size_t)d];
        ms = fmax(ms, fabs(acc * scale - sc[j]));
    }
    for (int d = 0; d < hs; d++) {
        double acc = 0;
        for (int j = 0; j < nk; j++) acc += (double)P[j] * K[(size_t)j * (size_t)hs + (size_t)d];
        mz = fmax(mz, fabs(acc - z[d]));
    }
    *max_score_diff = ms;
    *max_mix_diff = mz;
}

#endif
