/* kern_avx2.c — the decode kernels for x86-64 with AVX2 + FMA + F16C (Haswell, Zen and
 * later: most school laptops), from kern_body.h. Compiled with a target attribute, not
 * -mavx2, so the rest of the binary stays baseline x86-64 and this table is only used
 * when the CPU reports the three features at run time (kern_dispatch.c). */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#define KB_SUFFIX avx2
#define KB_TARGET __attribute__((target("avx2,fma,f16c")))
#define KB_NAME "avx2"
#define KB_WHAT "AVX2 + FMA + F16C, 8 floats per register"
#define VW 8
typedef __m256 VF;

static inline KB_TARGET VF v_load(const float *p) { return _mm256_loadu_ps(p); }
static inline KB_TARGET void v_store(float *p, VF v) { _mm256_storeu_ps(p, v); }
static inline KB_TARGET VF v_set1(float x) { return _mm256_set1_ps(x); }
static inline KB_TARGET VF v_zero(void) { return _mm256_setzero_ps(); }
static inline KB_TARGET VF v_add(VF a, VF b) { return _mm256_add_ps(a, b); }
static inline KB_TARGET VF v_mul(VF a, VF b) { return _mm256_mul_ps(a, b); }
static inline KB_TARGET VF v_fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
static inline KB_TARGET VF v_max(VF a, VF b) { return _mm256_max_ps(a, b); }
static inline KB_TARGET VF v_round(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* 2^n for whole n in [-126, 127]: n + 127 into the exponent bits */
static inline KB_TARGET VF v_pow2i(VF n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
/* A vector the compiler must hold in a register: a value used by several FMAs is then
 * loaded once, not folded into each as a memory operand (loads, not FMAs, were the
 * limit of the dot_block kernel). */
#define v_in_reg(a) __asm__("" : "+x"(a))
static inline KB_TARGET float v_hsum(VF a) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}
/* F16C: 8 halves -> 8 floats in one instruction (exact) */
static inline KB_TARGET VF v_load_f16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p)); }
/* BF16 is the top half of a float: zero-extend to 32 bits and shift into place */
static inline KB_TARGET VF v_load_bf16(const uint16_t *p) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

#include "kern_body.h"
#else
typedef int kern_avx2_not_this_arch; /* ISO C wants a non-empty file */
#endif
