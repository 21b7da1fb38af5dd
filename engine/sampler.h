/* sampler.h — turns one row of logits into the next token through a CHAIN of stages run
 * in an explicit order, and records every stage so a viewer can draw it without redoing
 * any math. Each stage acts on the survivors of the one before and renormalises over
 * them, as Hugging Face transformers' logits processors/warpers and llama.cpp's sampler
 * chain do:
 *   penalties    repetition θ (CTRL / HF: logit / θ if > 0, · θ if < 0), frequency F and
 *                presence P (OpenAI: logit − count·F − [count > 0]·P), over the last N
 *                context tokens
 *   temperature  logits / T
 *   top_k        keep the k most likely
 *   top_p        keep the smallest head whose probability reaches p
 *   min_p        keep tokens with p ≥ M · p_max
 * Default order = HF's (penalties, temperature, top_k, top_p, min_p); llama.cpp's
 * default puts temperature LAST. Then the draw u picks the token whose interval of
 * the final distribution holds it. Greedy (or T = 0) is a separate mode: penalties
 * (if in the order), then argmax.
 * It does not draw random numbers (the caller passes u; rng.h's rng_dice gives the
 * session's dice) and never allocates per call. Many draws and the χ² test:
 * sampler_draws.h.
 *
 * Usage:
 *     Sampler s = {0};
 *     if (sampler_init(&s, V, &err)) ...;            // scratch sized for the vocab
 *     SamplerSettings set = sampler_settings_default();
 *     set.temperature = 0.8f; set.top_k = 40; set.top_p = 0.95f;
 *     SamplerRecord rec;
 *     double u = rng_dice(seed, pos, 0);             // once per generated token
 *     if (sampler_run(&s, &set, logits, ids, n_ids, u, 20, &rec, &err)) ...;
 *     next_token = rec.chosen.id;
 *     sampler_free(&s);
 *
 * Order of tokens: by the logit the cuts see (after the penalties), descending; equal
 * logits by ascending id. Every rank, cut and cumulative sum uses this order, so the
 * same inputs give the same token on every machine. (Only when penalties come AFTER a
 * cut does the order change mid-chain: the survivors are re-ranked; see rank below.) */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "settings.h"

/* Most rows a SamplerRecord can show (the caller asks for top_n <= this). */
#define SAMPLER_MAX_SHOW 64

/* The stages (SamplerStage), the settings (SamplerSettings), their defaults,
 * validation and the order as text: settings.h, the table every reader walks. */

/* Bit (1 << stage) for every stage whose setting would change something but that is
 * not in the order (so it is silently off, as in llama.cpp): a caller can warn. */
unsigned sampler_settings_ignored(const SamplerSettings *set);

/* 1 if the stage's setting changes something (T != 1, k > 0, p < 1, min_p > 0, any
 * penalty not neutral); 0 otherwise. */
int sampler_stage_active(const SamplerSettings *set, SamplerStage stage);

/* One token's numbers at every stage. All probabilities are of the whole vocabulary. */
typedef struct SamplerRow {
    int id;          /* token id */
    int rank;        /* 0-based position in the record's token order (0 = first); every
                        rank shown to a user is rank + 1 (1 = most likely), as in
                        token_stats.h. Without penalties this is the model's own rank. */
    float logit;     /* the input logit */
    double penalty;  /* change of its logit by the penalties stage (0: not penalised) */
    double p_raw;    /* softmax(logits) at T = 1, the model's own distribution */
    double p_temp;   /* softmax(logits after penalties / T) over the FULL vocabulary,
                        before any cut; T is not applied when greedy */
    double p_cut;    /* p_temp if the token survived every stage, else 0 */
    double p_final;  /* the renormalised distribution u is drawn against */
    double cum_lo;   /* the token's interval [cum_lo, cum_hi) of the final distribution: */
    double cum_hi;   /*   u in it picks the token. Cut tokens have cum_lo == cum_hi. */
    int kept;        /* 1 if the token survived every stage */
    int cut_by;      /* index into SamplerRecord.stages of the stage that cut it, -1 kept */
} SamplerRow;

/* What one stage did, in the order the stages ran. */
typedef struct SamplerStageRecord {
    uint8_t stage;     /* SamplerStage */
    uint8_t active;    /* 0: its setting is neutral and it changed nothing */
    int kept;          /* tokens left after it */
    double mass_kept;  /* probability mass (of the distribution it received) that the
                          survivors held: 1 for penalties and temperature */
    double p[SAMPLER_MAX_SHOW]; /* rows[i]'s probability after this stage, renormalised
                          over this stage's survivors; 0 once the row is cut */
    double other;      /* the same for every token not in rows[], summed directly */
} SamplerStageRecord;

/* One penalised token: a token of the penalty window, with its change. */
typedef struct SamplerPenalty {
    int id;
    int count;         /* occurrences in the penalty window */
    double before;     /* its logit entering the penalties stage */
    double after;      /* and leaving it (after - before = the row's penalty) */
} SamplerPenalty;
#define SAMPLER_MAX_PENALISED 1024 /* GPT-2's longest context: every distinct token fits */

typedef struct SamplerRecord {
    SamplerSettings settings; /* the settings as given */
    int greedy;               /* 1 if argmax was used (settings.greedy or T == 0) */
    int vocab_size;           /* V: number of logits */

    int n;                              /* rows shown: min(top_n, SAMPLER_MAX_SHOW, V) */
    SamplerRow rows[SAMPLER_MAX_SHOW];  /* rows[i] is the token of rank i, i < n */

    /* The chain, in the order it ran: what each stage kept and every shown row's
     * probability after it. A panel draws stages[0..n_stages) after the p_raw column.
     * Greedy: the penalties stage (if in the order), then a GREEDY stage keeping 1. */
    int n_stages;
    SamplerStageRecord stages[SAMPLER_N_STAGES + 1];

    /* Mass of every token NOT in rows[0..n) at each stage, summed directly (not as
     * 1 - shown), so shown + other = 1 up to rounding is a real check. */
    double other_raw, other_temp, other_cut, other_final;

    int n_kept;        /* tokens left after the whole chain (>= 1): the draw's support */
    int kept_after_k;  /* tokens left after the top-k stage (V when it is not in the
                          order; 1 when greedy) */
    int kept_after_p;  /* tokens left after the top-p stage (kept_after_k when it is not
                          in the order; 1 when greedy); = n_kept when min-p is off */
    double kept_mass;  /* sum of p_temp over the kept tokens */
    double logsumexp;  /* log sum_i exp(logit_i): p_raw = exp(logit - logsumexp) */

    /* Penalties: the window is context[window_start .. n_context); penalised[] lists its
     * distinct tokens by ascending id (n_penalised of n_penalised_total if more than
     * SAMPLER_MAX_PENALISED), so the token strip can mark every earlier position whose
     * token was penalised (sampler_record_penalty). Empty when the stage did not run. */
    int n_context, window_start;
    int n_penalised, n_penalised_total;
    SamplerPenalty penalised[SAMPLER_MAX_PENALISED];

    double u;          /* the draw, in [0, 1); unused when greedy */
    SamplerRow chosen; /* the chosen token (a copy of its row, even if rank >= n) */
    uint64_t run;      /* which sampler_run of its Sampler filled it (see sampler_draws.h) */
} SamplerRecord;

/* The penalty entry of token id, or NULL if the token was not penalised. */
const SamplerPenalty *sampler_record_penalty(const SamplerRecord *rec, int id);

/* Scratch memory for one vocabulary size, allocated once by sampler_init. "By rank"
 * arrays follow the record's token order (order[r] is the id at rank r); the survivors
 * of the last run are ranks [0, n_final). Valid until the next sampler_run.
 * sampler_run ranks only the head it needs (the shown rows, the cuts, the draw: a greedy
 * or peaked step never sorts all 50,257 tokens; a flat one, whose draw lands past any
 * short head, sorts them all at once), so order, p_final and cum are known for ranks
 * [0, n_ranked); sampler_rank_all ranks the rest, and sampler_draw_many calls it. */
typedef struct Sampler {
    int vocab_size;       /* V */
    uint64_t runs;        /* successful sampler_run calls so far */
    int n_final;          /* survivors of the last run */
    int n_ranked;         /* ranks [0, n_ranked) of them are known (see above) */
    int final_buf;        /* e[] and sum of the last run's final distribution */
    double final_S;
    int *order;           /* (V) token id at each rank (ranks [0, n_ranked) of the survivors;
                             the rest of them follow in id order until sampler_rank_all) */
    int *order_tmp;       /* (V) radix-sort ping-pong buffer */
    uint64_t *keys;       /* (V) sort keys (see sampler.c) */
    uint64_t *keys_tmp;   /* (V) radix-sort ping-pong buffer */
    double *cur;          /* (V, by id) the current logit numerator (logit / T applied) */
    int cur_is_input;     /* 1 while cur holds the input logits unchanged (no penalty
                             changed one): each is then a float, and the ranking sorts
                             the float's 32-bit key with the id beside it in one uint64 */
    double *e[4];         /* (V, by id) unnormalised probabilities: raw, after the first
                             and the second logit-changing stage, full-vocab p_temp */
    uint8_t *cut_at;      /* (V, by id) index of the stage that cut the token, 255 = kept */
    int *counts;          /* (V, by id) occurrences in the penalty window (0 between runs) */
    int *pen_ids;         /* (V) distinct ids of the penalty window, ascending */
    double *pen_before;   /* (V) logit of pen_ids[i] entering the penalties stage */
    double *pen_after;    /* (V) and leaving it */
    int n_pen;            /* entries of pen_ids (their counts are reset by the next run) */
    double *p_final;      /* (V, by rank) the final distribution over ranks [0, n_ranked) */
    double *cum;          /* (V, by rank) running sum of p_final: rank r owns [cum[r-1], cum[r]) */
    int *draw_counts;     /* (V, by rank) sampler_draw_many's tally */
    uint64_t drawn_run;   /* the run whose distribution draw_counts tallies (0: none) */
} Sampler;

/* Allocates scratch for vocab_size tokens (>= 1). On error s is left freeable. */
int sampler_init(Sampler *s, int vocab_size, ErrorMsg *err);

/* Frees the scratch; safe on a zeroed or half-built Sampler, and twice. */
void sampler_free(Sampler *s);

/* The whole chain on logits (V floats, any order, not modified). context[0..n_context)
 * are the token ids so far (prompt and generated; NULL when n_context == 0), read by
 * the penalties only. u in [0, 1) is the draw; top_n >= 0 rows are recorded (clamped
 * to SAMPLER_MAX_SHOW). Fills rec and returns 0; on bad settings, bad u, a context id
 * outside [0, V), a NaN or +inf logit, or all logits -inf, returns -1 with one line in
 * err (rec is then unspecified). -inf logits are allowed: tokens with probability
 * exactly 0, never chosen. The same inputs and u always give the same token. */
int sampler_run(Sampler *s, const SamplerSettings *set, const float *logits,
                const int *context, size_t n_context, double u, int top_n,
                SamplerRecord *rec, ErrorMsg *err);

/* Ranks the last run's survivors beyond n_ranked, with their p_final and cum (the same
 * values, bit for bit, as if sampler_run had ranked them all). */
void sampler_rank_all(Sampler *s);

/* ---- The stages, public so tests and lessons can call them one at a time. ---- */

/* probs[i] = softmax(logits / temperature)[i] for i < n (any order), in double:
 * subtract the max logit before exp (softmax is shift-invariant, and exp of a value
 * <= 0 never overflows), sum in double. temperature > 0, n >= 1, the max must be
 * finite. Returns log sum_i exp(logits_i / temperature), the log of the normaliser. */
double sampler_apply_temperature(const float *logits, size_t n, float temperature,
                                 double *probs);

/* The penalised logit of a token that occurs `count` times in the window (count 0:
 * unchanged): repetition θ first (CTRL, Keskar et al. 2019, as HF's
 * RepetitionPenaltyLogitsProcessor: x / θ if x > 0, x · θ otherwise), then
 * x − count·F − P (OpenAI; llama.cpp applies both in this order). */
double sampler_penalise(double x, int count, const SamplerSettings *set);

/* How many tokens top-k keeps out of n ranked ones: min(k, n), or n when k == 0. */
size_t sampler_apply_top_k(size_t n, int top_k);

/* How many of the first n (ranked, descending) probabilities top-p keeps: the
 * smallest m >= 1 with probs[0] + ... + probs[m-1] >= top_p (summed in double, in
 * rank order); n if the sum never gets there; n when top_p >= 1 (off). The chain
 * passes the survivors' renormalised distribution. */
size_t sampler_apply_top_p(const double *probs, size_t n, float top_p);

/* How many of the first n (ranked, descending) probabilities min-p keeps: the tokens
 * with probs[i] >= min_p * probs[0], at least 1; n when min_p <= 0 (off). */
size_t sampler_apply_min_p(const double *probs, size_t n, float min_p);

/* out[i] = probs[i] / sum(probs[0..n)) for i < n. Returns that sum (the kept mass). */
double sampler_renormalise(const double *probs, size_t n, double *out);

/* The rank whose interval [c_{i-1}, c_i) of the running sum c_i = p[0] + ... + p[i]
 * holds u (p sums to 1; zero-probability tokens have empty intervals and are never
 * picked). If rounding leaves u >= the total, the last token with p > 0 is taken. */
size_t sampler_pick(const double *probs, size_t n, double u);

/* The same choice from the running sums themselves (cum[i] = p[0] + ... + p[i], as
 * Sampler.cum holds them), by bisection: O(log n), for many draws. */
size_t sampler_pick_cum(const double *cum, size_t n, double u);

/* 1 when the record's chain is "temperature, then the cuts top-k / top-p" on the raw
 * logits (the case a token without a bar can be reasoned about from the temperature
 * softmax alone, and the bars' summary can name the one cut); 0 when penalties or
 * min-p acted, or temperature ran after a cut. */
int sampler_chain_is_plain(const SamplerRecord *r);

#endif
