/* rng.c — PCG32 (see rng.h). Reads no clock, no environment: the seed is everything. */
#include "rng.h"

/* Knuth's 64-bit LCG multiplier, the one PCG uses: state' = state * A + inc (mod 2^64). */
#define PCG_MULT 6364136223846793005ULL

uint32_t rng_next_u32(Rng *r) {
    uint64_t old = r->state;
    r->state = old * PCG_MULT + r->inc;
    /* Output permutation XSH RR: xor the high bits down ("xorshift high"), keep 32
     * of them, then rotate by the top 5 bits of the old state ("random rotation").
     * The LCG's low bits have short periods; the permutation hides them. */
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

void rng_seed(Rng *r, uint64_t seed) {
    /* pcg32_srandom_r: the stream picks an odd increment; the seed is mixed in
     * between two steps so nearby seeds (1, 2, 3...) start far apart. */
    r->state = 0u;
    r->inc = ((uint64_t)RNG_STREAM << 1u) | 1u;
    (void)rng_next_u32(r);
    r->state += seed;
    (void)rng_next_u32(r);
}

double rng_uniform(Rng *r) {
    /* 64 random bits, keep the top 53 (a double's significand), scale by 2^-53:
     * exact, never rounds up to 1.0. */
    uint64_t hi = rng_next_u32(r);
    uint64_t lo = rng_next_u32(r);
    uint64_t bits = ((hi << 32) | lo) >> 11;
    return (double)bits * 0x1.0p-53;
}

/* splitmix64 finaliser (Steele et al. 2014): turns (seed, pos, salt) into a well-mixed
 * 64-bit seed so neighbouring positions and salts get unrelated dice. */
static uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double rng_dice(uint64_t seed, int pos, uint32_t salt) {
    Rng r;
    rng_seed(&r, mix64(seed ^ mix64(((uint64_t)(uint32_t)pos << 32) | salt)));
    return rng_uniform(&r);
}
