/* kern_avx512.c — the decode kernels for x86-64 with AVX-512 (F + BW + VL: Skylake-SP,
 * Ice Lake, Zen 4 and later) from kern_body.h, plus our own packed gemm for the prompt
 * pass: Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) does not recognise recent Xeons and
 * falls back to its SSE3 "Prescott" kernels (~25 GFLOP/s against ~130 for its SkylakeX
 * ones, which cannot be selected from inside the program). Compiled with target
 * attributes, used only when the CPU reports the features (kern_dispatch.c). */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern_isa.h"

#define KB_SUFFIX avx512
#define KB_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c")))
#define KB_NAME "avx512"
#define KB_WHAT "AVX-512 (F, BW, VL) + FMA, 16 floats per register"
#define VW 16
typedef __m512 VF;

static inline KB_TARGET VF v_load(const float *p) { return _mm512_loadu_ps(p); }
static inline KB_TARGET void v_store(float *p, VF v) { _mm512_storeu_ps(p, v); }
static inline KB_TARGET VF v_set1(float x) { return _mm512_set1_ps(x); }
static inline KB_TARGET VF v_zero(void) { return _mm512_setzero_ps(); }
static inline KB_TARGET VF v_add(VF a, VF b) { return _mm512_add_ps(a, b); }
static inline KB_TARGET VF v_mul(VF a, VF b) { return _mm512_mul_ps(a, b); }
static inline KB_TARGET VF v_fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
static inline KB_TARGET VF v_max(VF a, VF b) { return _mm512_max_ps(a, b); }
static inline KB_TARGET VF v_round(VF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* 2^n for whole n in [-126, 127]: n + 127 into the exponent bits */
static inline KB_TARGET VF v_pow2i(VF n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
/* A vector the compiler must hold in a register: a value used by several FMAs is then
 * loaded once, not folded into each as a memory operand (loads, not FMAs, were the
 * limit of the dot_block kernel). */
#define v_in_reg(a) __asm__("" : "+v"(a))
static inline KB_TARGET float v_hsum(VF a) { return _mm512_reduce_add_ps(a); }
static inline KB_TARGET VF v_load_f16(const uint16_t *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline KB_TARGET VF v_load_bf16(const uint16_t *p) {
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

/* ---- multi-row products (prefill) ----------------------------------------------------
 * Column panels are 32 floats wide (two zmm) and the k dimension is cut into blocks of
 * KC rows, so a packed block of weights (KC x 32 floats = 16 KB) sits in L1 on the
 * thread's stack while every row block of the input streams past it. Packing turns the
 * weight reads into one contiguous stream (the unpacked panel has a 4-12 KB stride per
 * k, which defeats the prefetchers and costs a TLB miss per row) and is where F16/BF16
 * weights are widened, so the multiply loop is the same for every dtype. */
#define KC 128

/* y[r, 0..32) += sum_k x[r, k] pk[k, 0..32) for 8 rows r: 16 accumulators in registers;
 * each k loads two packed vectors and broadcasts one input per row. */
static KB_TARGET void gemm_nn_8x32(float *y, size_t ldy, const float *x, size_t ldx, const float *pk, size_t kc,
                                   __mmask16 m0, __mmask16 m1) {
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define DECL(r) __m512 c##r##0 = _mm512_maskz_loadu_ps(m0, y + r * ldy), \
                       c##r##1 = _mm512_maskz_loadu_ps(m1, y + r * ldy + 16);
    ROWS(DECL)
    for (size_t k = 0; k < kc; k++) {
        __m512 b0 = _mm512_load_ps(pk + k * 32), b1 = _mm512_load_ps(pk + k * 32 + 16);
#define STEP(r) { __m512 a = _mm512_set1_ps(x[r * ldx + k]); \
                  c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0); c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1); }
        ROWS(STEP)
    }
#define STORE(r) _mm512_mask_storeu_ps(y + r * ldy, m0, c##r##0); \
                 _mm512_mask_storeu_ps(y + r * ldy + 16, m1, c##r##1);
    ROWS(STORE)
#undef ROWS
#undef DECL
#undef STEP
#undef STORE
}

/* the same for one row (the rows left over after blocks of 8) */
static KB_TARGET void gemm_nn_1x32(float *y, const float *x, const float *pk, size_t kc, __mmask16 m0,
                                   __mmask16 m1) {
    __m512 c0 = _mm512_maskz_loadu_ps(m0, y), c1 = _mm512_maskz_loadu_ps(m1, y + 16);
    for (size_t k = 0; k < kc; k++) {
        __m512 a = _mm512_set1_ps(x[k]);
        c0 = _mm512_fmadd_ps(a, _mm512_load_ps(pk + k * 32), c0);
        c1 = _mm512_fmadd_ps(a, _mm512_load_ps(pk + k * 32 + 16), c1);
    }
    _mm512_mask_storeu_ps(y, m0, c0);
    _mm512_mask_storeu_ps(y + 16, m1, c1);
}

static __mmask16 tail_mask(size_t n) { return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u); }

/* 16 weights of dtype dt at p (element index), lanes outside mask m read as 0 */
static inline KB_TARGET __m512 load16_masked(const void *w, size_t idx, KernDtype dt, __mmask16 m) {
    if (dt == KERN_F32) return _mm512_maskz_loadu_ps(m, (const float *)w + idx);
    __m256i h = _mm256_maskz_loadu_epi16(m, (const uint16_t *)w + idx);
    if (dt == KERN_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* Packs B[k0..k0+kc) x [j..j+nc) into pk (kc x 32, zero-padded). trans 0: B = w (K, N);
 * trans 1: B[k][c] = w[j+c][k0+k] for w (N, K) — each of the nc rows of w is read
 * contiguously (widened 16 at a time) and written as a column of the block. */
static KB_TARGET void pack_block(float *pk, const void *w, KernDtype dt, size_t K, size_t N, size_t k0, size_t kc,
                                 size_t j, size_t nc, int trans) {
    __mmask16 m0 = tail_mask(nc), m1 = nc > 16 ? tail_mask(nc - 16) : 0;
    if (!trans) {
        for (size_t k = 0; k < kc; k++) {
            size_t at = (k0 + k) * N + j;
            _mm512_store_ps(pk + k * 32, load16_masked(w, at, dt, m0));
            _mm512_store_ps(pk + k * 32 + 16, load16_masked(w, at + 16, dt, m1));
        }
        return;
    }
    if (nc < 32) memset(pk, 0, KC * 32 * sizeof *pk);
    for (size_t c = 0; c < nc; c++) {
        size_t at = (j + c) * K + k0;
        for (size_t k = 0; k < kc; k += 16) {
            _Alignas(64) float t[16];
            _mm512_store_ps(t, load16_masked(w, at + k, dt, tail_mask(kc - k)));
            size_t e = kc - k < 16 ? kc - k : 16;
            for (size_t q = 0; q < e; q++) pk[(k + q) * 32 + c] = t[q];
        }
    }
}

/* y (M, N) += x (M, K) @ B. Threads split the 32-column panels; each packs KC x 32
 * blocks of B and runs all row blocks of x past it. */
static KB_TARGET void gemm_dt(float *y, const float *x, const void *w, KernDtype dt, size_t M, size_t K, size_t N,
                              int trans) {
    const long panels = (long)((N + 31) / 32);
#pragma omp parallel
    {
        _Alignas(64) float pk[KC * 32]; /* this thread's packed block of B */
#pragma omp for schedule(static)
        for (long p = 0; p < panels; p++) {
            size_t j = (size_t)p * 32, nc = N - j < 32 ? N - j : 32;
            __mmask16 m0 = tail_mask(nc), m1 = nc > 16 ? tail_mask(nc - 16) : 0;
            for (size_t k0 = 0; k0 < K; k0 += KC) {
                size_t kc = K - k0 < KC ? K - k0 : KC;
                pack_block(pk, w, dt, K, N, k0, kc, j, nc, trans);
                size_t i = 0;
                for (; i + 8 <= M; i += 8) gemm_nn_8x32(y + i * N + j, N, x + i * K + k0, K, pk, kc, m0, m1);
                for (; i < M; i++) gemm_nn_1x32(y + i * N + j, x + i * K + k0, pk, kc, m0, m1);
            }
        }
    }
}

static void gemm_f32(float *y, const float *x, const void *w, size_t M, size_t K, size_t N, int trans) {
    gemm_dt(y, x, w, KERN_F32, M, K, N, trans);
}
static void gemm_f16(float *y, const float *x, const void *w, size_t M, size_t K, size_t N, int trans) {
    gemm_dt(y, x, w, KERN_F16, M, K, N, trans);
}
static void gemm_bf16(float *y, const float *x, const void *w, size_t M, size_t K, size_t N, int trans) {
    gemm_dt(y, x, w, KERN_BF16, M, K, N, trans);
}
#define KB_GEMM_F32 gemm_f32
#define KB_GEMM_F16 gemm_f16
#define KB_GEMM_BF16 gemm_bf16

#include "kern_body.h"
#else
typedef int kern_avx512_not_this_arch; /* ISO C wants a non-empty file */
#endif
