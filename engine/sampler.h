/* sampler.h — turns one row of logits into the next token, and records every stage so
 * a viewer can draw it without redoing any math:
 *   logits → softmax at T=1 ("raw") → softmax(logits / T) over the FULL vocabulary
 *   → top-k cut → top-p cut → renormalise → pick the token whose cumulative interval
 *   holds the draw u.   Greedy (or T = 0) = argmax.
 * It does not draw random numbers (the caller passes u, see rng.h: re-running with
 * other settings and the same u shows "the same dice"), and never allocates per call.
 *
 * Usage:
 *     Sampler s = {0};
 *     if (sampler_init(&s, V, &err)) ...;            // scratch sized for the vocab
 *     SamplerSettings set = {.temperature = 0.8f, .top_k = 40, .top_p = 0.95f};
 *     SamplerRecord rec;
 *     double u = rng_uniform(&rng);                  // once per generated token
 *     if (sampler_run(&s, &set, logits, u, 20, &rec, &err)) ...;
 *     next_token = rec.chosen.id;
 *     sampler_free(&s);
 *
 * Order of tokens: by logit, descending; equal logits by ascending id. For T > 0 this
 * is "higher probability first, then lower id"; where float rounding makes two
 * different logits give the same probability (e.g. both underflow to 0 at T=0.01), the
 * larger logit still comes first. Every rank, cut and cumulative sum uses this order,
 * so the same inputs give the same token on every machine. */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Most rows a SamplerRecord can show (the caller asks for top_n <= this). */
#define SAMPLER_MAX_SHOW 64

typedef struct SamplerSettings {
    float temperature; /* > 0 divides the logits; 0 means greedy; 1 = unchanged */
    int top_k;         /* keep the k most likely tokens; 0 = off */
    float top_p;       /* keep the smallest set with cumulative probability >= p; 1 = off */
    int greedy;        /* nonzero: argmax, the other settings are ignored */
} SamplerSettings;

/* Settings that change nothing: T=1, no top-k, no top-p, sampling. */
SamplerSettings sampler_settings_default(void);

/* One token's numbers at every stage. All probabilities are of the whole vocabulary. */
typedef struct SamplerRow {
    int id;          /* token id */
    int rank;        /* 0-based position in the token order (0 = highest logit); every rank
                        shown to a user is rank + 1 (1 = most likely), as in surprisal.h */
    float logit;     /* the input logit */
    double p_raw;    /* softmax(logits) at T = 1, the model's own distribution */
    double p_temp;   /* softmax(logits / T); = p_raw when greedy (T is not applied) */
    double p_cut;    /* p_temp if the token survived top-k and top-p, else 0 */
    double p_final;  /* p_cut / kept_mass: the distribution u is drawn against */
    double cum_lo;   /* the token's interval [cum_lo, cum_hi) of the final distribution: */
    double cum_hi;   /*   u in it picks the token. Cut tokens have cum_lo == cum_hi. */
    int kept;        /* 1 if the token survived both cuts */
} SamplerRow;

typedef struct SamplerRecord {
    SamplerSettings settings; /* the settings as given */
    int greedy;               /* 1 if argmax was used (settings.greedy or T == 0) */
    int vocab_size;           /* V: number of logits */

    int n;                              /* rows shown: min(top_n, SAMPLER_MAX_SHOW, V) */
    SamplerRow rows[SAMPLER_MAX_SHOW];  /* rows[i] is the token of rank i, i < n */

    /* Mass of every token NOT in rows[0..n) at each stage, summed directly (not as
     * 1 - shown), so shown + other = 1 up to rounding is a real check. */
    double other_raw, other_temp, other_cut, other_final;

    int kept_after_k;  /* tokens left after top-k (V when off; 1 when greedy) */
    int kept_after_p;  /* tokens left after top-p, always <= kept_after_k and >= 1 */
    double kept_mass;  /* sum of p_temp over the kept tokens: the renormaliser */
    double logsumexp;  /* log sum_i exp(logit_i): p_raw = exp(logit - logsumexp) */

    double u;          /* the draw, in [0, 1); unused when greedy */
    SamplerRow chosen; /* the chosen token (a copy of its row, even if rank >= n) */
} SamplerRecord;

/* Scratch memory for one vocabulary size, allocated once by sampler_init. Arrays are
 * indexed by RANK (position in the token order), not by id, except where noted. */
typedef struct Sampler {
    int vocab_size;       /* V */
    int *order;           /* (V) token id at each rank */
    int *order_tmp;       /* (V) radix-sort ping-pong buffer */
    uint32_t *keys;       /* (V) sort keys (see sampler.c) */
    uint32_t *keys_tmp;   /* (V) radix-sort ping-pong buffer */
    float *logits_sorted; /* (V) logit at each rank */
    double *p_raw;        /* (V) softmax at T = 1, by rank */
    double *p_temp;       /* (V) softmax(logits / T), by rank; written only when
                             T != 1 and not greedy (otherwise p_raw is that stage) */
    double *p_final;      /* (V) renormalised kept distribution, by rank (first kept) */
} Sampler;

/* Checks one settings struct. Errors name the setting and its value, e.g.
 * "sampler: top_p 1.5 is outside [0, 1]". NaN and infinities are errors. */
int sampler_settings_validate(const SamplerSettings *s, ErrorMsg *err);

/* Allocates scratch for vocab_size tokens (>= 1). On error s is left freeable. */
int sampler_init(Sampler *s, int vocab_size, ErrorMsg *err);

/* Frees the scratch; safe on a zeroed or half-built Sampler, and twice. */
void sampler_free(Sampler *s);

/* The whole pipeline on logits (V floats, any order, not modified). u in [0, 1) is the
 * draw; top_n >= 0 rows are recorded (clamped to SAMPLER_MAX_SHOW). Fills rec and
 * returns 0; on bad settings, bad u, a NaN or +inf logit, or all logits -inf, returns
 * -1 with one line in err (rec is then unspecified). -inf logits are allowed: they
 * are tokens with probability exactly 0, never chosen. */
int sampler_run(Sampler *s, const SamplerSettings *set, const float *logits, double u,
                int top_n, SamplerRecord *rec, ErrorMsg *err);

/* ---- The stages, public so tests and lessons can call them one at a time. ---- */

/* probs[i] = softmax(logits / temperature)[i] for i < n (any order), in double:
 * subtract the max logit before exp (softmax is shift-invariant, and exp of a value
 * <= 0 never overflows), sum in double. temperature > 0, n >= 1, the max must be
 * finite. Returns log sum_i exp(logits_i / temperature), the log of the normaliser. */
double sampler_apply_temperature(const float *logits, size_t n, float temperature,
                                 double *probs);

/* How many tokens top-k keeps out of n ranked ones: min(k, n), or n when k == 0. */
size_t sampler_apply_top_k(size_t n, int top_k);

/* How many of the first n (ranked, descending) probabilities top-p keeps: the
 * smallest m >= 1 with probs[0] + ... + probs[m-1] >= top_p (summed in double, in
 * rank order); n if the sum never gets there; n when top_p >= 1 (off). */
size_t sampler_apply_top_p(const double *probs, size_t n, float top_p);

/* out[i] = probs[i] / sum(probs[0..n)) for i < n. Returns that sum (the kept mass). */
double sampler_renormalise(const double *probs, size_t n, double *out);

/* The rank whose interval [c_{i-1}, c_i) of the running sum c_i = p[0] + ... + p[i]
 * holds u (p sums to 1; zero-probability tokens have empty intervals and are never
 * picked). If rounding leaves u >= the total, the last token with p > 0 is taken. */
size_t sampler_pick(const double *probs, size_t n, double u);

#endif
