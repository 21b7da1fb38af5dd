/* kern_isa.h — (private to the kernels) one table of decode kernels per instruction set,
 * chosen at RUN time from the CPU's features (kern_dispatch.c), so one binary built for
 * the baseline ISA runs at full speed on an AVX2 laptop, an AVX-512 server or an ARM
 * board. Every table is generated from the same source, kern_body.h, over a handful of
 * vector primitives each ISA file defines (kern_avx512.c, kern_avx2.c, kern_neon.c,
 * kern_simd128.c, kern_scalar.c). Not the public API (kernels.h) and not the model. */
#ifndef KERN_ISA_H
#define KERN_ISA_H

#include <stddef.h>

#include "kernels.h"

/* y[j0..j1) = b[j0..j1) + sum_i x[i] W[i][j] for W (in, out) row-major in a weight dtype;
 * b may be NULL (zeros). */
typedef void (*KernMatvecFn)(float *y, const float *x, const void *w, const float *b, size_t in, size_t out,
                             size_t j0, size_t j1);
/* sum_i a[i] b[i] with b in a weight dtype */
typedef float (*KernDotFn)(const float *a, const void *b, size_t n);
/* dst[0..n) = float(src[0..n)) */
typedef void (*KernWidenFn)(float *dst, const void *src, size_t n);
/* y (M, N) += x (M, K) @ B with B = w (K, N) (trans 0) or w^T for w (N, K) (trans 1),
 * w in a weight dtype; threads inside. NULL in a table: use OpenBLAS. */
typedef void (*KernGemmFn)(float *y, const float *x, const void *w, size_t M, size_t K, size_t N, int trans);

/* y[a * ldy + b] = x_a . w_b for a < na <= R = KernIsa.dot_rows vectors of C floats and
 * b < nb <= KernIsa.dot_w rows of w (C weights each, contiguous, in a weight dtype): a register block,
 * so each w row read serves every vector (the logit lens's depths; unembed_many.c). xp:
 * the vectors' first C - C % L floats packed by vector step, L = KernIsa.lanes:
 * xp[(i / L) * R * L + a * L + i % L], zeros for a >= na; x (rows ldx apart): the same
 * vectors unpacked, for the last C % L floats. next: the KernIsa.dot_w rows of w the caller
 * reads after these (prefetched while these are computed; w itself for the last block). */
typedef void (*KernDotBlockFn)(float *y, size_t ldy, const float *xp, const float *x, size_t ldx, size_t na,
                               const void *w, size_t nb, const void *next, size_t C);

typedef struct KernIsa {
    const char *name;      /* "avx512", "avx2", "neon", "simd128", "scalar" (what INFERSCOPE_ISA takes) */
    const char *what;      /* one line for `make bench` and --help */
    int lanes;             /* floats per vector register */
    KernMatvecFn matvec[KERN_DTYPE_COUNT]; /* indexed by KernDtype */
    KernDotFn dot[KERN_DTYPE_COUNT];
    KernWidenFn widen[KERN_DTYPE_COUNT];
    KernGemmFn gemm[KERN_DTYPE_COUNT];     /* own packed gemm (prefill), or NULL */
    KernDotBlockFn dot_block[KERN_DTYPE_COUNT]; /* a few vectors against rows of a matrix */
    int dot_rows;          /* vectors a dot_block takes, and */
    int dot_w;             /* rows of w (what fits in registers) */
    void (*axpy)(float *y, float alpha, const float *x, size_t n);
    void (*attn_scores)(float *s, const float *q, const float *K, size_t n, size_t hs, float scale);
    void (*attn_mix)(float *z, const float *p, const float *V, size_t n, size_t hs);
    float (*stream_sum)(const float *p, size_t n); /* the bench's floor: a pure read */
    float (*fma_peak)(size_t iters);               /* the bench's FMA bound: 24*lanes flops/iter */
    void (*exp_sums)(const float *x, size_t n, float m, float *sum_e, float *sum_ed); /* kernels.h */
} KernIsa;

/* The tables (each NULL-free; the ISA files compile to nothing on other architectures). */
extern const KernIsa kern_isa_scalar;
#if defined(__x86_64__)
extern const KernIsa kern_isa_avx2;
extern const KernIsa kern_isa_avx512;
#endif
#if defined(__aarch64__)
extern const KernIsa kern_isa_neon;
#endif
#if defined(__wasm_simd128__)
extern const KernIsa kern_isa_simd128;
#endif

/* The table in use (selected on first call: INFERSCOPE_ISA, else the best the CPU has). */
const KernIsa *kern_isa(void);

#endif
