/* unembed_many.c — see unembed_many.h. AVX-512: 16 accumulators (4 vectors x 4 rows),
 * each 16-channel step loads 4 + 4 vectors for 16 FMAs; edges reuse the kernel with
 * duplicated rows whose results are not stored (one odd vector gets its own 1x4 block).
 * Plain C elsewhere. */
#include "unembed_many.h"

#include "kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

/* y block (nk <= 4 vectors, nv <= 4 rows) = x rows xk[] . w rows wv[]. Written out
 * with one named register per accumulator so the compiler keeps all 16 in zmm. */
static void block4x4(float *y, size_t ldy, const float *const xk[4], const float *const wv[4], size_t nk,
                     size_t nv, size_t C) {
#define ACC4(a) __m512 c##a##0 = _mm512_setzero_ps(), c##a##1 = c##a##0, c##a##2 = c##a##0, c##a##3 = c##a##0;
    ACC4(0) ACC4(1) ACC4(2) ACC4(3)
#undef ACC4
    const float *x0 = xk[0], *x1 = xk[1], *x2 = xk[2], *x3 = xk[3];
    const float *w0 = wv[0], *w1 = wv[1], *w2 = wv[2], *w3 = wv[3];
    for (size_t i = 0; i < C; i += 16) {
        const __mmask16 m = C - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (C - i)) - 1u); /* tail */
        const __m512 r0 = _mm512_maskz_loadu_ps(m, w0 + i), r1 = _mm512_maskz_loadu_ps(m, w1 + i);
        const __m512 r2 = _mm512_maskz_loadu_ps(m, w2 + i), r3 = _mm512_maskz_loadu_ps(m, w3 + i);
#define ROW(a)                                                                                                   \
    {                                                                                                            \
        const __m512 xa = _mm512_maskz_loadu_ps(m, x##a + i);                                                    \
        c##a##0 = _mm512_fmadd_ps(xa, r0, c##a##0);                                                              \
        c##a##1 = _mm512_fmadd_ps(xa, r1, c##a##1);                                                              \
        c##a##2 = _mm512_fmadd_ps(xa, r2, c##a##2);                                                              \
        c##a##3 = _mm512_fmadd_ps(xa, r3, c##a##3);                                                              \
    }
        ROW(0) ROW(1) ROW(2) ROW(3)
#undef ROW
    }
    const __m512 acc[4][4] = {{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}};
    for (size_t a = 0; a < nk; a++)
        for (size_t b = 0; b < nv; b++) y[a * ldy + b] = _mm512_reduce_add_ps(acc[a][b]);
}
/* The same for one vector against 4 rows (the odd depth left after blocks of 4). */
static void block1x4(float *y, const float *x, const float *const wv[4], size_t nv, size_t C) {
    __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    for (size_t i = 0; i < C; i += 16) {
        const __mmask16 m = C - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (C - i)) - 1u);
        const __m512 xa = _mm512_maskz_loadu_ps(m, x + i);
        c0 = _mm512_fmadd_ps(xa, _mm512_maskz_loadu_ps(m, wv[0] + i), c0);
        c1 = _mm512_fmadd_ps(xa, _mm512_maskz_loadu_ps(m, wv[1] + i), c1);
        c2 = _mm512_fmadd_ps(xa, _mm512_maskz_loadu_ps(m, wv[2] + i), c2);
        c3 = _mm512_fmadd_ps(xa, _mm512_maskz_loadu_ps(m, wv[3] + i), c3);
    }
    const __m512 acc[4] = {c0, c1, c2, c3};
    for (size_t b = 0; b < nv; b++) y[b] = _mm512_reduce_add_ps(acc[b]);
}
#endif

void unembed_many(float *y, size_t ldy, const float *x, size_t D, const float *w, size_t V, size_t C) {
    const long blocks = (long)((V + 3) / 4);
#pragma omp parallel for schedule(static)
    for (long bl = 0; bl < blocks; bl++) {
        const size_t v0 = (size_t)bl * 4, nv = V - v0 < 4 ? V - v0 : 4;
#if defined(__AVX512F__)
        const float *wv[4];
        for (size_t b = 0; b < 4; b++) wv[b] = w + (v0 + (b < nv ? b : 0)) * C;
        for (size_t k0 = 0; k0 < D; k0 += 4) {
            const size_t nk = D - k0 < 4 ? D - k0 : 4;
            if (nk == 1) {
                block1x4(y + k0 * ldy + v0, x + k0 * C, wv, nv, C);
                break;
            }
            const float *xk[4];
            for (size_t a = 0; a < 4; a++) xk[a] = x + (k0 + (a < nk ? a : 0)) * C;
            block4x4(y + k0 * ldy + v0, ldy, xk, wv, nk, nv, C);
        }
#else
        for (size_t b = 0; b < nv; b++)
            for (size_t k = 0; k < D; k++) y[k * ldy + v0 + b] = kern_dot(x + k * C, w + (v0 + b) * C, C);
#endif
    }
}
