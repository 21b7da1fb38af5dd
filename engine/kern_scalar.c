/* kern_scalar.c — the decode kernels in plain C (kern_body.h over one-float "vectors"):
 * the portable fallback for any CPU, and the definition the SIMD tables are tested
 * against (INFERSCOPE_ISA=scalar). Unfused multiply-add, as the C source says. The
 * compiler may still vectorise loops for the baseline ISA (SSE2 on x86-64); the math
 * stays the same. */
#include <math.h>
#include <stdint.h>

#include "half.h"

#define KB_SUFFIX scalar
#define KB_TARGET
#define KB_NAME "scalar"
#define KB_WHAT "portable C (no SIMD intrinsics)"
#define VW 1
typedef float VF;

static inline VF v_load(const float *p) { return *p; }
static inline void v_store(float *p, VF v) { *p = v; }
static inline VF v_set1(float x) { return x; }
static inline VF v_zero(void) { return 0.0f; }
static inline VF v_add(VF a, VF b) { return a + b; }
static inline VF v_mul(VF a, VF b) { return a * b; }
static inline VF v_fma(VF a, VF b, VF c) { return a * b + c; }
static inline VF v_max(VF a, VF b) { return a > b ? a : b; }
static inline VF v_round(VF a) { return rintf(a); }
static inline VF v_pow2i(VF n) { return ldexpf(1.0f, (int)n); }
#define v_in_reg(a) ((void)0) /* loads are never folded into FMAs here */
static inline float v_hsum(VF a) { return a; }
static inline VF v_load_f16(const uint16_t *p) { return half_f16_to_f32(*p); }
static inline VF v_load_bf16(const uint16_t *p) { return half_bf16_to_f32(*p); }

#include "kern_body.h"
