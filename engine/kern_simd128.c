/* kern_simd128.c — the decode kernels for WebAssembly SIMD128 (the browser build; every
 * current browser and Node.js run it), from kern_body.h. The module is compiled with
 * -msimd128 as a whole, and a runtime without SIMD refuses to load it at all, so no
 * feature test is needed. SIMD128 has no fused multiply-add (relaxed SIMD is not part of
 * the standard) and no half-precision conversion: v_fma is a multiply then an add, as the
 * C source of the scalar table says, and F16 is widened with integer operations. */
#if defined(__wasm_simd128__)
#include <stdint.h>
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
static inline VF v_load_f16(const uint16_t *p) {
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
/* BF16 is the top half of a float: zero-extend to 32 bits and shift into place */
static inline VF v_load_bf16(const uint16_t *p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }

#include "kern_body.h"
#else
typedef int kern_simd128_not_this_arch; /* ISO C wants a non-empty file */
#endif
