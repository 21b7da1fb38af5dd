/* seq_metrics.h — numbers that compare continuations of one prompt side by side
 * (greedy vs T=0.7 vs top-k=40 ...), computed on token-id sequences: distinct-n and
 * repeated n-grams (how repetitive), mean surprisal under the model (how expected), and
 * where two sequences first part ways. Not the sampler, not the text: ids only; the
 * logits come from the caller's trace. */
#ifndef SEQ_METRICS_H
#define SEQ_METRICS_H

#include <stddef.h>

#include "error.h"

#define SEQ_MAX_NGRAM 3  /* n-gram orders 1..3 (distinct-1/2/3) */

typedef struct SeqNgrams {
    int order;             /* n */
    size_t total;          /* n-grams in the sequence: len - n + 1 (0 if shorter) */
    size_t distinct;       /* different n-grams among them */
    size_t repeated;       /* occurrences that repeat an earlier n-gram: total - distinct */
    size_t repeated_types; /* different n-grams that occur more than once */
    double distinct_ratio; /* distinct-n (Li et al. 2016) = distinct / total; 0 if total 0 */
} SeqNgrams;

/* The n-gram counts of ids[0..len) for order n in 1..SEQ_MAX_NGRAM. Ids must be in
 * [0, 2^21) (n-grams are packed into 64 bits). Allocates len words of scratch and frees
 * them. Returns 0, or -1 with err on a bad order, a bad id or no memory. */
int seq_ngrams(const int *ids, size_t len, int n, SeqNgrams *out, ErrorMsg *err);

/* The first position where a[0..na) and b[0..nb) differ; if one is a prefix of the
 * other, the shorter length; -1 if they are identical. */
long seq_first_divergence(const int *a, size_t na, const int *b, size_t nb);

/* Mean surprisal in bits, (1/len) Σ -log2 p(ids[i]), where row i of logits (len rows of
 * V floats, contiguous) is the distribution ids[i] was drawn from: the model's own
 * distribution at T = 1 (token_stats.h), whatever sampler settings chose the tokens.
 * A token of probability 0 makes it +inf. len >= 1. Returns 0, or -1 with err naming
 * the position of a bad id or bad logits row. */
int seq_mean_surprisal(const float *logits, size_t V, const int *ids, size_t len,
                       double *mean_bits, ErrorMsg *err);

#endif
