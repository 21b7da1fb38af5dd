/* rng.h — the program's one random number generator: PCG32 (O'Neill 2014, "PCG: A
 * Family of Simple Fast Space-Efficient Statistically Good Algorithms for Random
 * Number Generation", the XSH-RR 64/32 variant of pcg-c-basic). A seed (uint64) fixes
 * the whole sequence on every machine and compiler: only 64-bit integer arithmetic.
 * It is NOT cryptographic and NOT libc rand(); it holds no global state (the caller
 * owns the Rng). sampler_run never calls it: the caller draws u once per step. */
#ifndef RNG_H
#define RNG_H

#include <stdint.h>

typedef struct Rng {
    uint64_t state; /* the LCG state; advanced by every draw */
    uint64_t inc;   /* the stream's increment (always odd); fixed by rng_seed */
} Rng;

/* The stream every inferscope generator uses. 54 is the stream of the pcg32 demo
 * program, so rng_seed(r, 42) reproduces its published first outputs
 * (0xa15c02b7, 0x7b47f409, ...) — a known answer a test can check. */
#define RNG_STREAM 54u

/* Seeds r from one 64-bit number (pcg32_srandom_r(seed, RNG_STREAM)). Any seed is
 * valid, 0 included. */
void rng_seed(Rng *r, uint64_t seed);

/* The next 32 uniformly distributed bits. */
uint32_t rng_next_u32(Rng *r);

/* A uniform double in [0, 1) with 53 random bits (every double k * 2^-53,
 * k = 0 .. 2^53-1, equally likely). Consumes two 32-bit draws: the first gives the
 * high bits. This is the "dice" u the sampler takes as input. */
double rng_uniform(Rng *r);

/* The dice: the draw u in [0, 1) for position pos with salt, a pure function of
 * (seed, pos, salt) so stepping back and forward, replaying a lesson or rolling again
 * gives exactly the same draws. The session's pending draw at pos is rng_dice(seed,
 * pos, salt); "re-roll" bumps the salt, so roll k of many (sampler_draws.h) is
 * rng_dice(seed, pos, salt + k): the draw the user would see after k re-rolls. */
double rng_dice(uint64_t seed, int pos, uint32_t salt);

#endif
