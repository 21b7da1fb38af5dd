/* kern_neon.c — the decode kernels for 64-bit ARM (Apple Silicon, ARM Chromebooks,
 * Raspberry Pi 4/5), from kern_body.h. NEON, FMA and the F16 widening instruction
 * (FCVTL) are part of every ARMv8-A core, so no feature test is needed. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <stdint.h>

#define KB_SUFFIX neon
#define KB_TARGET
#define KB_NAME "neon"
#define KB_WHAT "ARM NEON (ARMv8-A) + FMA + FCVTL, 4 floats per register"
#define VW 4
typedef float32x4_t VF;

static inline VF v_load(const float *p) { return vld1q_f32(p); }
static inline void v_store(float *p, VF v) { vst1q_f32(p, v); }
static inline VF v_set1(float x) { return vdupq_n_f32(x); }
static inline VF v_zero(void) { return vdupq_n_f32(0.0f); }
static inline VF v_add(VF a, VF b) { return vaddq_f32(a, b); }
static inline VF v_mul(VF a, VF b) { return vmulq_f32(a, b); }
static inline VF v_fma(VF a, VF b, VF c) { return vfmaq_f32(c, a, b); }
static inline VF v_max(VF a, VF b) { return vmaxq_f32(a, b); }
static inline VF v_round(VF a) { return vrndnq_f32(a); }
/* 2^n for whole n in [-126, 127]: n + 127 into the exponent bits */
static inline VF v_pow2i(VF n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23)); }
#define v_in_reg(a) ((void)0) /* loads are never folded into FMAs here */
static inline float v_hsum(VF a) { return vaddvq_f32(a); }
static inline VF v_load_f16(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
static inline VF v_load_bf16(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }

#include "kern_body.h"
#else
typedef int kern_neon_not_this_arch; /* ISO C wants a non-empty file */
#endif
