/* half.h — 16-bit float formats to float32 and back, bit by bit (static inline).
 * F16 = IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
 * BF16 = "brain float": the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa).
 * Used by the checkpoint loader to widen F16/BF16 weights once at load time; the
 * narrowing functions exist for tests and tools that write such files.
 * Not a vectorised converter: loading is a one-off cost, clarity wins here. */
#ifndef HALF_H
#define HALF_H

#include <stdint.h>
#include <string.h>

/* Reinterprets bits as a float without breaking strict aliasing (memcpy is the
 * sanctioned way in C; compilers turn it into a register move). */
static inline float half_bits_to_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t half_f32_to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* binary16 -> binary32. Every F16 value is exactly representable in F32, so this is
 * exact. Cases by exponent field e (5 bits):
 *   e = 0, m = 0      ±0
 *   e = 0, m != 0     subnormal: value = m * 2^-24; renormalise by shifting m left
 *                     until its implicit bit (bit 10) appears, lowering the exponent
 *   e = 31            ±inf (m = 0) or NaN (m != 0; payload kept, quiet bit set)
 *   otherwise         normal: rebias exponent 15 -> 127, widen mantissa 10 -> 23 bits */
static inline float half_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;
    if (e == 0) {
        if (m == 0) return half_bits_to_f32(sign);
        /* subnormal: 0.m * 2^-14; normalise to 1.m' * 2^(e32 - 127) */
        uint32_t e32 = 127 - 15 + 1;
        while ((m & 0x400u) == 0) {
            m <<= 1;
            e32--;
        }
        m &= 0x3FFu;
        return half_bits_to_f32(sign | (e32 << 23) | (m << 13));
    }
    if (e == 31) return half_bits_to_f32(sign | 0x7F800000u | (m << 13) | (m ? 0x400000u : 0));
    return half_bits_to_f32(sign | ((e - 15 + 127) << 23) | (m << 13));
}

/* bfloat16 -> binary32: BF16 *is* the upper half of an F32, so widen by a shift. */
static inline float half_bf16_to_f32(uint16_t b) {
    return half_bits_to_f32((uint32_t)b << 16);
}

/* binary32 -> bfloat16, round to nearest, ties to even (what PyTorch does).
 * Adding 0x7FFF + (lsb of the kept part) to the bits and truncating rounds the
 * dropped 16 bits correctly; NaN is handled first so rounding cannot turn it into inf. */
static inline uint16_t half_f32_to_bf16(float f) {
    uint32_t u = half_f32_to_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* binary32 -> binary16, round to nearest, ties to even; overflow gives ±inf,
 * tiny values become F16 subnormals or ±0. */
static inline uint16_t half_f32_to_f16(float f) {
    uint32_t u = half_f32_to_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);           /* NaN */
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);          /* >= 65520 rounds to inf */
    if (a < 0x38800000u) {                                            /* below 2^-14: subnormal */
        if (a < 0x33000000u) return sign;                             /* below 2^-25: rounds to 0 */
        uint32_t e = a >> 23;
        uint32_t m = (a & 0x7FFFFFu) | 0x800000u;                     /* 1.m with implicit bit */
        uint32_t shift = 126 - e;                                     /* 14..24 */
        /* value = m * 2^(e-150); F16 subnormal unit is 2^-24, so keep m >> (126 - e) */
        uint32_t kept = m >> shift;
        uint32_t rest = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rest > half || (rest == half && (kept & 1u))) kept++;
        return (uint16_t)(sign | kept);
    }
    /* normal: rebias 127 -> 15 and round the 13 dropped mantissa bits */
    uint32_t r = a - ((127u - 15u) << 23);
    r += 0xFFFu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
}

#endif
