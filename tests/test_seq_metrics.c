/* test_seq_metrics.c — the compare-view numbers: distinct-n and repeated n-grams on a
 * hand-counted sequence and against a brute-force count on random ones, first
 * divergence, mean surprisal against softmax written out here, and the errors. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "seq_metrics.h"

static void test_hand_counted(void) {
    ErrorMsg err = {{0}};
    const int seq[8] = {1, 2, 3, 1, 2, 3, 1, 2};
    SeqNgrams g;
    /* bigrams 12 23 31 12 23 31 12: 7, of them 3 different, each seen more than once */
    CHECK(seq_ngrams(seq, 8, 2, &g, &err) == 0 && g.total == 7 && g.distinct == 3 && g.repeated == 4 &&
              g.repeated_types == 3 && fabs(g.distinct_ratio - 3.0 / 7.0) < 1e-15,
          "distinct-2: %zu/%zu", g.distinct, g.total);
    CHECK(seq_ngrams(seq, 8, 3, &g, &err) == 0 && g.total == 6 && g.distinct == 3 && g.repeated == 3,
          "distinct-3: %zu/%zu", g.distinct, g.total);
    CHECK(seq_ngrams(seq, 8, 1, &g, &err) == 0 && g.total == 8 && g.distinct == 3, "distinct-1");
    const int fresh[4] = {5, 6, 7, 8};
    CHECK(seq_ngrams(fresh, 4, 2, &g, &err) == 0 && g.distinct_ratio == 1.0 && g.repeated == 0, "no repeats");
    CHECK(seq_ngrams(fresh, 2, 3, &g, &err) == 0 && g.total == 0 && g.distinct_ratio == 0.0,
          "shorter than n: no n-grams");
    /* the largest id packs without overlapping its neighbour: (M,0) (0,1) (1,0) (0,M) (M,0) */
    const int big[6] = {(1 << 21) - 1, 0, 1, 0, (1 << 21) - 1, 0};
    CHECK(seq_ngrams(big, 6, 2, &g, &err) == 0 && g.distinct == 4 && g.repeated == 1, "large ids keep apart: %zu", g.distinct);
    const int bad[2] = {1, 1 << 21};
    CHECK(seq_ngrams(bad, 2, 2, &g, &err) == -1 && strstr(err.text, "position 1"), "id too big: %s", err.text);
    const int neg[1] = {-1};
    CHECK(seq_ngrams(neg, 1, 1, &g, &err) == -1, "negative id");
    CHECK(seq_ngrams(seq, 8, 0, &g, &err) == -1 && seq_ngrams(seq, 8, 4, &g, &err) == -1 &&
              strstr(err.text, "[1, 3]"), "order outside 1..3: %s", err.text);
}

static void test_against_brute_force(void) {
    ErrorMsg err = {{0}};
    Rng r;
    rng_seed(&r, 3);
    int seq[300];
    for (int trial = 0; trial < 20; trial++) {
        int len = 1 + (int)(rng_uniform(&r) * 299), alphabet = 2 + trial * 3;
        for (int i = 0; i < len; i++) seq[i] = (int)(rng_uniform(&r) * alphabet) * 977;
        for (int n = 1; n <= 3; n++) {
            size_t total = len >= n ? (size_t)(len - n + 1) : 0, distinct = 0, types = 0;
            for (size_t i = 0; i < total; i++) {
                int seen_before = 0, later = 0;
                for (size_t j = 0; j < total; j++) {
                    if (j == i || memcmp(seq + i, seq + j, (size_t)n * sizeof *seq)) continue;
                    if (j < i) seen_before = 1;
                    else later = 1;
                }
                distinct += !seen_before;
                types += !seen_before && later;
            }
            SeqNgrams g;
            CHECK(seq_ngrams(seq, (size_t)len, n, &g, &err) == 0 && g.total == total && g.distinct == distinct &&
                      g.repeated_types == types && g.repeated == total - distinct,
                  "trial %d n=%d: %zu/%zu/%zu want %zu/%zu/%zu", trial, n, g.distinct, g.total, g.repeated_types,
                  distinct, total, types);
        }
    }
}

static void test_divergence(void) {
    const int a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 9, 5};
    CHECK(seq_first_divergence(a, 5, a, 5) == -1, "identical");
    CHECK(seq_first_divergence(a, 5, b, 5) == 3, "differ at 3");
    CHECK(seq_first_divergence(a, 3, a, 5) == 3 && seq_first_divergence(a, 5, a, 2) == 2, "prefix");
    CHECK(seq_first_divergence(a, 0, b, 5) == 0 && seq_first_divergence(a, 0, b, 0) == -1, "empty");
}

static void test_surprisal(void) {
    ErrorMsg err = {{0}};
    const float logits[3][4] = {{2, 1, 0, -1}, {0, 0, 0, 0}, {5, -INFINITY, 1, 1}};
    const int ids[3] = {1, 3, 2};
    long double want = 0.0L;
    for (int i = 0; i < 3; i++) {
        long double z = 0.0L;
        for (int v = 0; v < 4; v++) z += expl((long double)logits[i][v]);
        want += -log2l(expl((long double)logits[i][ids[i]]) / z);
    }
    double got;
    CHECK(seq_mean_surprisal(&logits[0][0], 4, ids, 3, &got, &err) == 0, "surprisal: %s", err.text);
    CHECK_CLOSE(got, (double)(want / 3), 1e-12, 0, "mean surprisal");
    CHECK(seq_mean_surprisal(&logits[1][0], 4, ids + 1, 1, &got, &err) == 0 && fabs(got - 2.0) < 1e-12,
          "uniform over 4: 2 bits");
    const int never[1] = {1};
    CHECK(seq_mean_surprisal(&logits[2][0], 4, never, 1, &got, &err) == 0 && isinf(got), "p = 0: +inf");
    const int bad[2] = {1, 4};
    CHECK(seq_mean_surprisal(&logits[0][0], 4, bad, 2, &got, &err) == -1 && strstr(err.text, "position 1"),
          "bad id named: %s", err.text);
    CHECK(seq_mean_surprisal(&logits[0][0], 4, ids, 0, &got, &err) == -1, "no tokens");
}

int main(void) {
    test_hand_counted();
    test_against_brute_force();
    test_divergence();
    test_surprisal();
    return check_summary("test_seq_metrics");
}
