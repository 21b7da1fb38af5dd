/* kern_body.h — THE decode kernels, written once over a small vector vocabulary and
 * compiled once per instruction set: each ISA file (kern_avx512.c, kern_avx2.c,
 * kern_neon.c, kern_simd128.c, kern_scalar.c) defines the primitives below and then includes this file,
 * which defines that ISA's functions and its KernIsa table. Not a header to include
 * anywhere else. Math contracts: kernels.h; why runtime dispatch: kern_isa.h.
 *
 * The includer defines:
 *   KB_SUFFIX            name suffix (avx2 -> matvec_f32_avx2, table kern_isa_avx2)
 *   KB_TARGET            function attribute enabling the ISA (target("avx2,fma,f16c")) or empty
 *   KB_NAME, KB_WHAT     the table's name and one-line description (strings)
 *   VF, VW               the vector type and its number of float lanes
 *   v_load v_store v_set1 v_zero v_add v_mul v_hsum
 *   v_fma(a, b, c)       a*b + c (fused where the ISA has it)
 *   v_load_f16(p), v_load_bf16(p)   VW 16-bit weights widened to float (exact)
 * or, where exact F16 widening is slow (SIMD128: no half conversion), KB_F16_GUARDED and:
 *   v_load_f16(p)        exact for finite halves, |v| >= 65536 for Inf/NaN ones
 *   v_load_f16_exact(p)  exact for every half
 *   v_f16_seen(v, &hi, &lo) (v, widening the range hi/lo), v_f16_special(hi, lo)
 *                        the F16 kernels then keep the range of what they widened and,
 *                        when it passed the largest finite half, redo the call with the
 *                        exact load: a model with an Inf/NaN weight gets the numbers of
 *                        its F32 image (slowly); every other model pays two operations.
 *   v_max v_round (to nearest) v_pow2i(n) (2^n for whole n in [-126, 127]) v_in_reg(v)
 *
 * Numerics, identical in every ISA except for the vector width: the matvec accumulates
 * each output column over the rows in order (4 rows per pass), dot products use four
 * vector accumulators plus one for the last whole vectors, tails are plain C. So the
 * AVX-512 table computes bit for bit what the hand-written AVX-512 kernels did, and the
 * other tables differ from it only by the summation split of their lane count.
 * `restrict`: outputs never alias inputs in the forward pass (kernels.h says so). */
#include <stdint.h>
#include <string.h>

#include "half.h"
#include "kern_isa.h"

#define KB_CAT2(a, b) a##_##b
#define KB_CAT(a, b) KB_CAT2(a, b)
#define KB(name) KB_CAT(name, KB_SUFFIX)

/* dot_block's register block: KB_DOT_ROWS vectors x KB_DOT_W rows of w, as many as
 * leave the accumulators and the KB_DOT_W + 1 other vectors of a step in registers.
 * KB_DOT_EACH(F) expands F(0) ... F(rows - 1); KB_DOT_EACH_W(F, a) expands F(a, 0) ...
 * F(a, KB_DOT_W - 1). Measured (logit lens of 124M, 12 depths, 1 thread, Zen 5, before
 * the prefetch of the next rows): on AVX-512, 6 x 4 streams wte as fast as the old 4 x 4
 * block (14.7 ms) and beats 12 x 2 (19.5 ms: one pass, too little work per load to keep
 * enough of wte in flight); on AVX2, 6 x 2 took 20 ms where 4 x 4 (16 + 5 registers:
 * it spilled) took 26.5. */
#if VW == 16 || VW == 4 /* AVX-512, NEON: 32 vector registers */
#define KB_DOT_ROWS 6
#define KB_DOT_W 4
#define KB_DOT_EACH_W(F, a) F(a, 0) F(a, 1) F(a, 2) F(a, 3)
#else /* AVX2: 16 registers; scalar */
#define KB_DOT_ROWS 6
#define KB_DOT_W 2
#define KB_DOT_EACH_W(F, a) F(a, 0) F(a, 1)
#endif
#define KB_DOT_EACH(F) F(0) F(1) F(2) F(3) F(4) F(5)

/* ---- the weight-dtype-generic kernels: matvec, dot, dot_block, widen (x3) ------------ */
#define KW_TAG f32
#define KW_T float
#define KW_LOADV(p) v_load(p)
#define KW_LOAD1(p) (*(p))
#include "kern_body_w.h"

#ifdef KB_F16_GUARDED
#define KW_TAG f16x /* the exact twin the guarded F16 kernels fall back to */
#define KW_T uint16_t
#define KW_LOADV(p) v_load_f16_exact(p)
#define KW_LOAD1(p) half_f16_to_f32(*(p))
#include "kern_body_w.h"
#define KW_GUARD f16x
#define KW_LOADV(p) v_f16_seen(v_load_f16(p), &kw_hi, &kw_lo)
#else
#define KW_LOADV(p) v_load_f16(p)
#endif
#define KW_TAG f16
#define KW_T uint16_t
#define KW_LOAD1(p) half_f16_to_f32(*(p))
#include "kern_body_w.h"

#define KW_TAG bf16
#define KW_T uint16_t
#define KW_LOADV(p) v_load_bf16(p)
#define KW_LOAD1(p) half_bf16_to_f32(*(p))
#include "kern_body_w.h"

/* ---- float-only kernels ------------------------------------------------------------ */

static KB_TARGET void KB(axpy)(float *restrict y, float alpha, const float *restrict x, size_t n) {
    size_t i = 0;
    VF va = v_set1(alpha);
    for (; i + VW <= n; i += VW) v_store(y + i, v_fma(va, v_load(x + i), v_load(y + i)));
    for (; i < n; i++) y[i] += alpha * x[i];
}

/* GPT-2's head size is 64 for every model size: q (or z) then lives in 64/VW registers
 * and each key/value row is one run of 64 floats. Two accumulators alternate so the FMA
 * latency is not one long chain. Other head sizes: one dot/axpy per key. */
enum { KB(HS_FAST) = 64, KB(NV) = 64 / VW };

static KB_TARGET void KB(attn_scores)(float *restrict s, const float *restrict q, const float *restrict K, size_t n,
                                      size_t hs, float scale) {
    if (hs == KB(HS_FAST) && KB(NV) >= 2) {
        VF qr[KB(NV)];
        /* complete unrolling keeps qr / acc in registers (-O2 alone leaves them on the stack) */
#pragma GCC unroll 16
        for (int v = 0; v < KB(NV); v++) qr[v] = v_load(q + v * VW);
        for (size_t j = 0; j < n; j++) {
            const float *k = K + j * 64;
            VF a = v_mul(qr[0], v_load(k)), b = v_mul(qr[1], v_load(k + VW));
#pragma GCC unroll 16
            for (int v = 2; v + 1 < KB(NV); v += 2) {
                a = v_fma(qr[v], v_load(k + v * VW), a);
                b = v_fma(qr[v + 1], v_load(k + (v + 1) * VW), b);
            }
            s[j] = v_hsum(v_add(a, b)) * scale;
        }
        return;
    }
    for (size_t j = 0; j < n; j++) s[j] = KB(dot_f32)(q, K + j * hs, hs) * scale;
}

static KB_TARGET void KB(attn_mix)(float *restrict z, const float *restrict p, const float *restrict V, size_t n,
                                   size_t hs) {
    if (hs == KB(HS_FAST)) {
        VF acc[KB(NV)];
#pragma GCC unroll 16
        for (int v = 0; v < KB(NV); v++) acc[v] = v_zero();
        for (size_t j = 0; j < n; j++) {
            const float *row = V + j * 64;
            VF pj = v_set1(p[j]);
#pragma GCC unroll 16
            for (int v = 0; v < KB(NV); v++) acc[v] = v_fma(pj, v_load(row + v * VW), acc[v]);
        }
#pragma GCC unroll 16
        for (int v = 0; v < KB(NV); v++) v_store(z + v * VW, acc[v]);
        return;
    }
    memset(z, 0, hs * sizeof *z);
    for (size_t j = 0; j < n; j++) KB(axpy)(z, p[j], V + j * hs, hs);
}

/* The bandwidth floor of `make bench`: a sum of n floats, four vector accumulators so
 * the loop is bound by loads, not by the latency of one add chain (a scalar sum reads
 * at a quarter of the bandwidth on AVX2 and made the old floor meaningless there). */
static KB_TARGET float KB(stream_sum)(const float *restrict p, size_t n) {
    VF a0 = v_zero(), a1 = v_zero(), a2 = v_zero(), a3 = v_zero();
    size_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        a0 = v_add(a0, v_load(p + i));
        a1 = v_add(a1, v_load(p + i + VW));
        a2 = v_add(a2, v_load(p + i + 2 * VW));
        a3 = v_add(a3, v_load(p + i + 3 * VW));
    }
    float s = v_hsum(v_add(v_add(a0, a1), v_add(a2, a3)));
    for (; i < n; i++) s += p[i];
    return s;
}

/* The FMA throughput bound of `make bench`: 12 independent chains (enough to cover the
 * FMA latency on two ports), no memory traffic. 24 * VW flops per iteration. */
/* exp(d) for d in [-87, 0], Cephes' expf: d = n ln 2 + r with n = round(d / ln 2) and ln 2
 * in two parts (r exact to about 1 ulp), exp(r) by its degree-7 polynomial on |r| <= ln 2 / 2,
 * times 2^n. Relative error under 2e-7 (test_lens checks it against exp in double). */
static inline KB_TARGET VF KB(v_exp_neg)(VF d) {
    const VF n = v_round(v_mul(d, v_set1(1.44269504088896341f)));
    VF r = v_fma(n, v_set1(-0.693359375f), d);
    r = v_fma(n, v_set1(2.12194440e-4f), r);
    VF y = v_set1(1.9875691500e-4f);
    y = v_fma(y, r, v_set1(1.3981999507e-3f));
    y = v_fma(y, r, v_set1(8.3334519073e-3f));
    y = v_fma(y, r, v_set1(4.1665795894e-2f));
    y = v_fma(y, r, v_set1(1.6666665459e-1f));
    y = v_fma(y, r, v_set1(5.0000001201e-1f));
    y = v_fma(y, v_mul(r, r), v_add(r, v_set1(1.0f)));
    return v_mul(y, v_pow2i(n));
}

/* The sums a softmax's statistics need, over x[0..n) with every x[i] <= m: S = sum e_i and
 * S_d = sum e_i d_i for d_i = max(x_i - m, -87), e_i = exp(d_i). Clamping keeps every term
 * finite (-inf logits included) and changes S by less than n * 2e-38 next to the max's
 * e = 1. Per-lane float partial sums: the caller sums chunks of a few thousand in double. */
static KB_TARGET void KB(exp_sums)(const float *restrict x, size_t n, float m, float *sum_e, float *sum_ed) {
    const VF neg_m = v_set1(-m), lo = v_set1(-87.0f);
    VF se = v_zero(), sd = v_zero();
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        const VF d = v_max(v_add(v_load(x + i), neg_m), lo);
        const VF e = KB(v_exp_neg)(d);
        se = v_add(se, e);
        sd = v_fma(e, d, sd);
    }
    float s = v_hsum(se), s_d = v_hsum(sd);
    for (; i < n; i++) {
        const VF d = v_max(v_set1(x[i] - m), lo);
        /* every lane holds the same e, and VW equal floats (VW a power of 2, e <= 1) sum exactly */
        const float e = v_hsum(KB(v_exp_neg)(d)) / (float)VW;
        s += e;
        s_d += e * (x[i] - m < -87.0f ? -87.0f : x[i] - m);
    }
    *sum_e = s;
    *sum_ed = s_d;
}

static KB_TARGET float KB(fma_peak)(size_t iters) {
    VF a[12];
#pragma GCC unroll 12
    for (int k = 0; k < 12; k++) a[k] = v_set1(1e-3f * (float)(k + 1));
    const VF m = v_set1(0.9999f), c = v_set1(1e-4f);
    for (size_t i = 0; i < iters; i++)
#pragma GCC unroll 12
        for (int k = 0; k < 12; k++) a[k] = v_fma(a[k], m, c);
    VF s = a[0];
#pragma GCC unroll 12
    for (int k = 1; k < 12; k++) s = v_add(s, a[k]);
    return v_hsum(s);
}

#ifndef KB_MATVEC_F16 /* an ISA's own F16 matvec and dot (SIMD128), else the ones above */
#define KB_MATVEC_F16 KB(matvec_f16)
#define KB_DOT_F16 KB(dot_f16)
#endif
#ifndef KB_GEMM_F32
#define KB_GEMM_F32 NULL
#define KB_GEMM_F16 NULL
#define KB_GEMM_BF16 NULL
#endif

const KernIsa KB(kern_isa) = {
    .name = KB_NAME,
    .what = KB_WHAT,
    .lanes = VW,
    .matvec = {KB(matvec_f32), KB_MATVEC_F16, KB(matvec_bf16)},
    .dot = {KB(dot_f32), KB_DOT_F16, KB(dot_bf16)},
    .widen = {KB(widen_f32), KB(widen_f16), KB(widen_bf16)},
    .gemm = {KB_GEMM_F32, KB_GEMM_F16, KB_GEMM_BF16},
    .dot_block = {KB(dot_block_f32), KB(dot_block_f16), KB(dot_block_bf16)},
    .dot_rows = KB_DOT_ROWS,
    .dot_w = KB_DOT_W,
    .axpy = KB(axpy),
    .attn_scores = KB(attn_scores),
    .attn_mix = KB(attn_mix),
    .stream_sum = KB(stream_sum),
    .fma_peak = KB(fma_peak),
    .exp_sums = KB(exp_sums),
};
