/* sampler_draws.h — many rolls of the dice against one final distribution: roll k of N
 * draws u_k = rng_dice(seed, pos, salt + k), the draw the user would get after k
 * re-rolls of the pending one, so the tally is reproducible and roll 0 is the pending
 * draw itself. Returns how often each token came up and Pearson's χ² against the final
 * probabilities (with its degrees of freedom and p-value), so a test can apply a χ²
 * test and a viewer can show "the most likely token (40 %) lost 6 rolls in 10".
 * Not the chain (sampler.h): it reads the distribution the last sampler_run left in
 * the Sampler, and refuses a record from an earlier run. No allocation. */
#ifndef SAMPLER_DRAWS_H
#define SAMPLER_DRAWS_H

#include <stdint.h>

#include "error.h"
#include "sampler.h"

#define SAMPLER_MAX_DRAWS 10000 /* rolls per call */
#define SAMPLER_CHI2_MIN_EXPECTED 5.0 /* bins expecting fewer draws are pooled (Cochran) */

typedef struct SamplerDraws {
    int n;                 /* rolls made */
    uint64_t seed;         /* roll k used rng_dice(seed, pos, salt + k) */
    int pos;
    uint32_t salt;
    int first_rank;        /* the rank roll 0 picked (= rec->chosen.rank if rec->u was roll 0) */
    int n_support;         /* tokens with final probability > 0: the categories */
    int n_distinct;        /* tokens drawn at least once */
    int row_counts[SAMPLER_MAX_SHOW]; /* how often rec->rows[i] came up (i < rec->n) */
    int other_count;       /* draws of tokens not among rec->rows */
    /* Pearson's χ² = Σ (count - n p)² / (n p) over bins in rank order: every token
     * expecting >= SAMPLER_CHI2_MIN_EXPECTED draws is a bin, the rest share one (merged
     * into the last bin if that one still expects fewer). dof = n_bins - 1. */
    double chi2;
    int n_bins, dof;
    double p_value;        /* P(χ²(dof) >= chi2): small = the counts do not fit */
    double tv;             /* total variation ½ Σ |count / n - p| over all tokens, in [0, 1] */
} SamplerDraws;

/* One drawn token, for listing them all (sampler_draws_list). */
typedef struct SamplerDrawCount {
    int id, rank, count;
    double p;              /* its final probability */
} SamplerDrawCount;

/* Rolls n (1..SAMPLER_MAX_DRAWS) times against the final distribution of the last
 * sampler_run on s, which must be the run that filled rec (rec->run == s->runs; else an
 * error says the record is stale). Fills out; the per-rank tally stays in
 * s->draw_counts until the next run. Same (seed, pos, salt, n) = the same counts. */
int sampler_draw_many(Sampler *s, const SamplerRecord *rec, uint64_t seed, int pos,
                      uint32_t salt, int n, SamplerDraws *out, ErrorMsg *err);

/* After sampler_draw_many: the tokens drawn at least once, in rank order, into
 * out[0..cap). Returns how many there are (may exceed cap; only cap are written); 0
 * if there were no draws since the last sampler_run. */
int sampler_draws_list(const Sampler *s, SamplerDrawCount *out, int cap);

#endif
