/* token_stats.h — how expected one token was: from one row of logits and the token that
 * actually came next, its probability p, its surprisal -log2 p (bits), the entropy of
 * the distribution it was drawn from (bits) and its rank (1-based, the sampler's order:
 * higher logit first, equal logits by lower id). Used by `eval --per-token`, `novelty`
 * and the Text panel's surprisal colouring (which reads precomputed values: viz/ never
 * does this math). Not the sampler (no temperature, no cuts: this is the model's own
 * distribution at T = 1) and not a loss over a file (src/cli/cmd_eval.c adds these up). */
#ifndef TOKEN_STATS_H
#define TOKEN_STATS_H

#include <stddef.h>

typedef struct TokenStat {
    int id;               /* the token that came next */
    double p;             /* softmax(logits)[id] */
    double nll;           /* -ln p in nats (what `eval` averages into the loss) */
    double surprisal_bits;/* -log2 p = nll / ln 2 */
    double entropy_bits;  /* H = -sum_i p_i log2 p_i of the whole distribution */
    int rank;             /* 1 = the most likely token */
    double logsumexp;     /* ln sum_i exp(l_i): any token's p is exp(l_j - logsumexp) */
} TokenStat;

/* Fills *out for token `id` (0 <= id < V) under logits[0..V). All sums in double after
 * subtracting the max logit, so nothing overflows; -inf logits are tokens of probability
 * exactly 0 (they add nothing to the entropy). Returns 0, or -1 when V == 0, id is out
 * of range, a logit is NaN or +inf, or every logit is -inf. */
int token_stat(const float *logits, size_t V, int id, TokenStat *out);

/* The rank of token `id` (0 <= id < V) under logits[0..V): 1 + the tokens with a higher
 * logit, or the same logit and a lower id (the sampler's order); logits without NaN. */
int token_rank(const float *logits, size_t V, int id);

/* The same statistics with exp in float vectors (kern_exp_sums): p within about 1e-6
 * relative of token_stat, at a fraction of the time. For the logit lens, which needs 13
 * to 97 rows of 50,257 per step; not for losses. */
int token_stat_fast(const float *logits, size_t V, int id, TokenStat *out);

#endif
