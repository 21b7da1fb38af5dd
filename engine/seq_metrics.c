/* seq_metrics.c — see seq_metrics.h. Distinct n-grams by sorting: each n-gram packed
 * into one uint64 (21 bits per id), sorted, and runs of equal keys counted — O(len log
 * len), no hash table to size. */
#include "seq_metrics.h"

#include <stdint.h>
#include <stdlib.h>

#include "token_stats.h"

#define SEQ_ID_BITS 21

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int seq_ngrams(const int *ids, size_t len, int n, SeqNgrams *out, ErrorMsg *err) {
    if (n < 1 || n > SEQ_MAX_NGRAM)
        return error_set(err, "n-grams: order %d is outside [1, %d]", n, SEQ_MAX_NGRAM);
    for (size_t i = 0; i < len; i++)
        if (ids[i] < 0 || ids[i] >= (1 << SEQ_ID_BITS))
            return error_set(err, "n-grams: token %d at position %zu is outside [0, %d)", ids[i],
                             i, 1 << SEQ_ID_BITS);
    SeqNgrams r = {.order = n};
    r.total = len >= (size_t)n ? len - (size_t)n + 1 : 0;
    if (r.total > 0) {
        uint64_t *keys = malloc(r.total * sizeof *keys);
        if (!keys) return error_set(err, "n-grams: out of memory for %zu n-grams", r.total);
        for (size_t i = 0; i < r.total; i++) {
            uint64_t k = 0;
            for (int j = 0; j < n; j++) k = (k << SEQ_ID_BITS) | (uint64_t)ids[i + (size_t)j];
            keys[i] = k;
        }
        qsort(keys, r.total, sizeof *keys, cmp_u64);
        for (size_t i = 0; i < r.total;) {
            size_t j = i + 1;
            while (j < r.total && keys[j] == keys[i]) j++;
            r.distinct++;
            r.repeated_types += j - i > 1;
            i = j;
        }
        free(keys);
        r.repeated = r.total - r.distinct;
        r.distinct_ratio = (double)r.distinct / (double)r.total;
    }
    *out = r;
    return 0;
}

long seq_first_divergence(const int *a, size_t na, const int *b, size_t nb) {
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return (long)i;
    return na == nb ? -1 : (long)n;
}

int seq_mean_surprisal(const float *logits, size_t V, const int *ids, size_t len,
                       double *mean_bits, ErrorMsg *err) {
    if (len == 0) return error_set(err, "surprisal: no tokens");
    double sum = 0.0;
    for (size_t i = 0; i < len; i++) {
        TokenStat st;
        if (token_stat(logits + i * V, V, ids[i], &st))
            return error_set(err, "surprisal: position %zu: token %d or its logits row is not "
                             "usable (id outside [0, %zu), NaN, +inf or all -inf)", i, ids[i], V);
        sum += st.surprisal_bits;
    }
    *mean_bits = sum / (double)len;
    return 0;
}
