/* kern_simd128.c — the decode kernels for WebAssembly SIMD128 (the browser build; every
 * current browser and Node.js run it), from kern_body.h. The module is compiled with
 * -msimd128 as a whole, and a runtime without SIMD refuses to load it at all, so no
 * feature test is needed. SIMD128 has no fused multiply-add (relaxed SIMD is not part of
 * the standard) and no half-precision conversion: v_fma is a multiply then an add, as the
 * C source of the scalar table says, and F16 is widened with integer operations, fast
 * for finite halves and guarded for the others (KB_F16_GUARDED). */
#if defined(__wasm_simd128__)
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wasm_simd128.h>

#define KB_SUFFIX simd128
#define KB_TARGET
#define KB_NAME "simd128"
#define KB_WHAT "WebAssembly SIMD128, 4 floats per register, multiply then add (no FMA)"
#define VW 4
typedef v128_t VF;

static inline VF v_load(const float *p) { return wasm_v128_load(p); }
static inline void v_store(float *p, VF v) { wasm_v128_store(p, v); }
static inline VF v_set1(float x) { return wasm_f32x4_splat(x); }
static inline VF v_zero(void) { return wasm_f32x4_splat(0.0f); }
static inline VF v_add(VF a, VF b) { return wasm_f32x4_add(a, b); }
static inline VF v_mul(VF a, VF b) { return wasm_f32x4_mul(a, b); }
static inline VF v_fma(VF a, VF b, VF c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
/* pmax(b, a) is `b < a ? a : b`, the scalar table's `a > b ? a : b`: a NaN in a gives b,
 * as AVX's max does too (f32x4.max, and pmax(a, b), would give the NaN) */
static inline VF v_max(VF a, VF b) { return wasm_f32x4_pmax(b, a); }
static inline VF v_round(VF a) { return wasm_f32x4_nearest(a); }
/* 2^n for whole n in [-126, 127]: n + 127 into the exponent bits (n is whole: the
 * truncation is exact) */
static inline VF v_pow2i(VF n) {
    return wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
}
#define v_in_reg(a) ((void)0) /* no loads are folded into arithmetic here */
static inline float v_hsum(VF a) {
    const VF t = wasm_f32x4_add(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1)); /* a0+a2, a1+a3 */
    return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 1);
}
/* F16 -> float, exact (half.h's cases, 4 at a time): exponent and mantissa shifted into
 * place are the float e - 127 (normal) or a float subnormal (half subnormal), and one
 * multiply by 2^112 rebiases both exactly; e = 31 (inf, NaN) becomes the float's 255
 * with the payload kept and a NaN made quiet, as half_f16_to_f32 does. */
static inline VF v_load_f16_exact(const uint16_t *p) {
    const v128_t h = wasm_u32x4_load16x4(p);
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    const v128_t em = wasm_v128_and(h, wasm_i32x4_splat(0x7fff));
    const v128_t shifted = wasm_i32x4_shl(em, 13);
    const v128_t finite = wasm_f32x4_mul(shifted, wasm_f32x4_splat(0x1p112f));
    const v128_t nan_quiet = wasm_v128_and(wasm_i32x4_gt(em, wasm_i32x4_splat(0x7c00)), wasm_i32x4_splat(0x400000));
    const v128_t special = wasm_v128_or(wasm_v128_or(shifted, wasm_i32x4_splat(0x7f800000)), nan_quiet);
    const v128_t is_special = wasm_i32x4_ge(em, wasm_i32x4_splat(0x7c00));
    return wasm_v128_or(sign, wasm_v128_bitselect(special, finite, is_special));
}
/* The same for finite halves in four operations (KB_F16_GUARDED, kern_body.h): the half
 * goes to the top of a 32-bit lane (its sign is then the float's), an arithmetic shift
 * right by 3 puts exponent and mantissa where a float's are and copies the sign into
 * bits 30..28, which the mask clears; the multiply by 2^112 rebiases as above. A half with
 * e = 31 (Inf, NaN) comes out finite, 2^16 <= |v| < 2^17, above every finite half
 * (65,504): the guarded kernels watch for that and redo the call with the exact load.
 * Why: under V8 the exact load (eleven operations, five constants) made a 768 x 3072 F16
 * matvec 7.5 ms, this one 1.1 ms, F32 0.54 ms (Node 20, emcc -O2 -msimd128, quiet):
 * 124M F16 decode in Chromium was 17x the native time. */
static inline VF v_load_f16(const uint16_t *p) {
    const v128_t u = wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16);
    const v128_t bits = wasm_v128_and(wasm_i32x4_shr(u, 3), wasm_i32x4_splat((int32_t)0x8fffffff));
    return wasm_f32x4_mul(bits, wasm_f32x4_splat(0x1p112f));
}
/* the guard: the range of what v_load_f16 gave (two operations a vector, no constant) */
static inline VF v_f16_seen(VF v, VF *hi, VF *lo) {
    *hi = wasm_f32x4_pmax(*hi, v);
    *lo = wasm_f32x4_pmin(*lo, v);
    return v;
}
static inline int v_f16_special(VF hi, VF lo) {
    return wasm_v128_any_true(wasm_v128_or(wasm_f32x4_ge(hi, wasm_f32x4_splat(65536.0f)),
                                           wasm_f32x4_le(lo, wasm_f32x4_splat(-65536.0f))));
}
#define KB_F16_GUARDED 1
/* BF16 is the top half of a float: zero-extend to 32 bits and shift into place */
static inline VF v_load_bf16(const uint16_t *p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }

/* the F16 matvec of this table, below (the decode's matrices: 69 % of 124M's weights) */
static void matvec_f16_wide_simd128(float *restrict y, const float *restrict x, const void *restrict wv,
                                    const float *restrict b, size_t in, size_t out, size_t j0, size_t j1);
#define KB_MATVEC_F16 matvec_f16_wide_simd128
/* and its F16 dot (the unembedding: the other 31 %) */
static float dot_f16_wide_simd128(const float *restrict a, const void *restrict bv, size_t n);
#define KB_DOT_F16 dot_f16_wide_simd128

#include "kern_body.h"

/* 8 halves -> the bits of 8 floats times 2^-112 (top: sign | exponent | 7 bits of mantissa,
 * bottom: the other 3 bits << 13), with `seen` (the largest |half| << 1) widened: two
 * vectors of 4 after the interleave. */
#define KS_F16X8_SPLIT(h, top, low, seen, mask)                                                                  \
    const v128_t top = wasm_v128_and(wasm_i16x8_shr(h, 3), mask), low = wasm_i16x8_shl(h, 13);                   \
    seen = wasm_u16x8_max(seen, wasm_i16x8_shl(h, 1))
#define KS_F16X8_LO(top, low) wasm_i16x8_shuffle(low, top, 0, 8, 1, 9, 2, 10, 3, 11)
#define KS_F16X8_HI(top, low) wasm_i16x8_shuffle(low, top, 4, 12, 5, 13, 6, 14, 7, 15)
#define KS_F16_MET_SPECIAL(seen) wasm_v128_any_true(wasm_u16x8_ge(seen, wasm_i16x8_splat((int16_t)0xf800)))

/* kern_body_w.h's dot in the same order (s0..s3 over 16 weights a step, then s0 over whole
 * vectors, the tail in plain float), 8 halves per load as the matvec below; the rebias
 * multiply stays (folding it into a would cost the same multiply per element). */
static float dot_f16_wide_simd128(const float *restrict a, const void *restrict bv, size_t n) {
    const uint16_t *restrict b = bv;
    const v128_t mask = wasm_i16x8_splat((int16_t)0x8fff);
    const VF k = v_set1(0x1p112f);
    v128_t seen = wasm_i16x8_splat(0);
    VF s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();
    size_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        const v128_t h0 = wasm_v128_load(b + i), h1 = wasm_v128_load(b + i + 2 * VW);
        KS_F16X8_SPLIT(h0, t0, l0, seen, mask);
        KS_F16X8_SPLIT(h1, t1, l1, seen, mask);
        s0 = v_fma(v_load(a + i), v_mul(KS_F16X8_LO(t0, l0), k), s0);
        s1 = v_fma(v_load(a + i + VW), v_mul(KS_F16X8_HI(t0, l0), k), s1);
        s2 = v_fma(v_load(a + i + 2 * VW), v_mul(KS_F16X8_LO(t1, l1), k), s2);
        s3 = v_fma(v_load(a + i + 3 * VW), v_mul(KS_F16X8_HI(t1, l1), k), s3);
    }
    for (; i + VW <= n; i += VW) s0 = v_fma(v_load(a + i), v_load_f16_exact(b + i), s0);
    float s = v_hsum(v_add(v_add(s0, s1), v_add(s2, s3)));
    for (; i < n; i++) s += a[i] * half_f16_to_f32(b[i]);
    return KS_F16_MET_SPECIAL(seen) ? dot_f16_simd128(a, bv, n) : s;
}

/* kern_body_w.h's matvec (same order of every float operation, so the same bits) with two
 * savings that V8 needs (a 768 x 3072 F16 matvec in Node 20: generic guarded 0.60 ms, this
 * 0.44 ms, F32 0.30 ms): (1) 8 halves per load, split in 16-bit lanes into the top and
 * bottom halves of the floats' bits (sign | exponent | 7 bits of mantissa, 3 bits <<
 * 13) and interleaved, the guard one 16-bit max per 8; (2) no rebias multiply per weight:
 * x[i] * 2^112 times w * 2^-112 is the product x[i] * w, rounded once, as long as
 * x[i] * 2^112 is finite (|x[i]| < 2^16, checked first: else, and when a weight was
 * Inf/NaN, the generic kernel does the call). */
static void matvec_f16_wide_simd128(float *restrict y, const float *restrict x, const void *restrict wv,
                                    const float *restrict b, size_t in, size_t out, size_t j0, size_t j1) {
    for (size_t i = 0; i < in; i++)
        if (!(x[i] < 0x1p16f && x[i] > -0x1p16f)) {
            matvec_f16_simd128(y, x, wv, b, in, out, j0, j1);
            return;
        }
    const uint16_t *restrict w = wv;
    if (b) memcpy(y + j0, b + j0, (j1 - j0) * sizeof *y);
    else memset(y + j0, 0, (j1 - j0) * sizeof *y);
    const v128_t mask = wasm_i16x8_splat((int16_t)0x8fff);
    v128_t seen = wasm_i16x8_splat(0); /* the largest |half| << 1 met */
    size_t i = 0;
    for (; i + 4 <= in; i += 4) {
        const uint16_t *w0 = w + i * out, *w1 = w0 + out, *w2 = w1 + out, *w3 = w2 + out;
        const VF x0 = v_set1(x[i] * 0x1p112f), x1 = v_set1(x[i + 1] * 0x1p112f), x2 = v_set1(x[i + 2] * 0x1p112f),
                 x3 = v_set1(x[i + 3] * 0x1p112f);
        size_t j = j0;
        for (; j + 2 * VW <= j1; j += 2 * VW) {
            VF lo = v_load(y + j), hi = v_load(y + j + VW);
#define KS_ROW(wr, xr)                                                                                            \
    {                                                                                                             \
        const v128_t h = wasm_v128_load(wr + j);                                                                  \
        KS_F16X8_SPLIT(h, top, low, seen, mask);                                                                  \
        lo = v_fma(xr, KS_F16X8_LO(top, low), lo);                                                                \
        hi = v_fma(xr, KS_F16X8_HI(top, low), hi);                                                                \
    }
            KS_ROW(w0, x0) KS_ROW(w1, x1) KS_ROW(w2, x2) KS_ROW(w3, x3)
#undef KS_ROW
            v_store(y + j, lo);
            v_store(y + j + VW, hi);
        }
        if (j + VW <= j1) { /* one last vector of 4 columns, as kern_body_w.h's loop does it */
            VF acc = v_load(y + j);
            acc = v_fma(v_set1(x[i]), v_load_f16_exact(w0 + j), acc);
            acc = v_fma(v_set1(x[i + 1]), v_load_f16_exact(w1 + j), acc);
            acc = v_fma(v_set1(x[i + 2]), v_load_f16_exact(w2 + j), acc);
            acc = v_fma(v_set1(x[i + 3]), v_load_f16_exact(w3 + j), acc);
            v_store(y + j, acc);
            j += VW;
        }
        for (; j < j1; j++) /* and its column tail, exactly */
            y[j] += x[i] * half_f16_to_f32(w0[j]) + x[i + 1] * half_f16_to_f32(w1[j]) +
                    x[i + 2] * half_f16_to_f32(w2[j]) + x[i + 3] * half_f16_to_f32(w3[j]);
    }
    for (; i < in; i++) { /* the last in % 4 rows, as kern_body_w.h does them */
        const uint16_t *wr = w + i * out;
        for (size_t j = j0; j < j1; j++) y[j] += x[i] * half_f16_to_f32(wr[j]);
    }
    if (KS_F16_MET_SPECIAL(seen)) matvec_f16_simd128(y, x, wv, b, in, out, j0, j1); /* e = 31 somewhere */
}
#else
typedef int kern_simd128_not_this_arch; /* ISO C wants a non-empty file */
#endif
