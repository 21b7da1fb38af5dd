/* test_token_stats.c — per-token p, surprisal, entropy and rank (engine/token_stats.h)
 * against an independent long-double computation written here from the definitions
 * (softmax, -sum p log2 p, rank by sorting), on the reference logits of the tiny model
 * (tiny_s30: nanoGPT's own logits at every position); the mean -ln p over the sequence
 * must equal nanoGPT's own `loss` in the same file. Then the edge cases: -inf logits,
 * ties, NaN / +inf / out-of-range ids refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "safetensors.h"
#include "token_stats.h"

/* The definitions, term by term, in long double with no shortcuts. */
static void reference_stat(const float *l, size_t V, int id, long double *p, long double *h, int *rank) {
    long double m = -INFINITY, z = 0;
    for (size_t i = 0; i < V; i++)
        if (l[i] > m) m = l[i];
    for (size_t i = 0; i < V; i++) z += expl((long double)l[i] - m);
    long double ent = 0;
    for (size_t i = 0; i < V; i++) {
        long double pi = expl((long double)l[i] - m) / z;
        if (pi > 0) ent -= pi * log2l(pi);
    }
    *p = expl((long double)l[id] - m) / z;
    *h = ent;
    int r = 1;
    for (size_t i = 0; i < V; i++)
        if (l[i] > l[id] || (l[i] == l[id] && (int)i < id)) r++;
    *rank = r;
}

static void test_reference_vectors(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/tiny_s30.safetensors", check_ref_dir());
    SafeFile f;
    ErrorMsg err;
    if (safe_open(&f, path, &err)) {
        CHECK(0, "%s", err.text);
        return;
    }
    const SafeTensor *tl = safe_find(&f, "logits"), *ti = safe_find(&f, "input_ids"), *tloss = safe_find(&f, "loss");
    CHECK(tl && ti && tloss && tl->dtype == SAFE_F32 && ti->dtype == SAFE_I32 && tl->ndim == 2,
          "%s: logits/input_ids/loss", path);
    if (!(tl && ti && tloss && tl->ndim == 2)) {
        safe_close(&f);
        return;
    }
    size_t T = (size_t)tl->shape[0], V = (size_t)tl->shape[1];
    float *logits = malloc(tl->nbytes);
    int *ids = malloc(ti->nbytes);
    float loss_ref;
    memcpy(logits, tl->data, tl->nbytes);
    memcpy(ids, ti->data, ti->nbytes);
    memcpy(&loss_ref, tloss->data, sizeof loss_ref);
    double sum_nll = 0;
    int worst_rank_ok = 1;
    double max_dp = 0, max_dh = 0;
    for (size_t t = 0; t + 1 < T; t++) {
        TokenStat st;
        int rc = token_stat(logits + t * V, V, ids[t + 1], &st);
        CHECK(rc == 0, "token_stat at position %zu", t);
        long double p, h;
        int rank;
        reference_stat(logits + t * V, V, ids[t + 1], &p, &h, &rank);
        double dp = fabs(st.p - (double)p) / (double)p, dh = fabs(st.entropy_bits - (double)h);
        if (dp > max_dp) max_dp = dp;
        if (dh > max_dh) max_dh = dh;
        if (st.rank != rank) worst_rank_ok = 0;
        CHECK_CLOSE(st.surprisal_bits, -log2((double)p), 1e-9, 1e-12, "surprisal_bits");
        CHECK_CLOSE(st.nll, st.surprisal_bits * M_LN2, 1e-12, 1e-12, "nll = surprisal * ln 2");
        CHECK(st.id == ids[t + 1], "id recorded");
        sum_nll += st.nll;
        /* the lens's float-vector variant: same rank, p and entropy within its 1e-6 */
        TokenStat fs;
        CHECK(token_stat_fast(logits + t * V, V, ids[t + 1], &fs) == 0 && fs.rank == st.rank &&
                  fabs(fs.p - st.p) <= 1e-6 * st.p && fabs(fs.entropy_bits - st.entropy_bits) <= 1e-6 &&
                  fabs(fs.logsumexp - st.logsumexp) <= 1e-6,
              "token_stat_fast at %zu: p %.9g vs %.9g, H %.9g vs %.9g", t, fs.p, st.p, fs.entropy_bits,
              st.entropy_bits);
    }
    CHECK(max_dp < 1e-12, "p vs long-double softmax: max relative diff %.3g", max_dp);
    CHECK(max_dh < 1e-9, "entropy vs long-double -sum p log2 p: max diff %.3g bits", max_dh);
    CHECK(worst_rank_ok, "ranks equal the counted order");
    /* nanoGPT's cross-entropy over positions 0..T-2 (float32 in torch) */
    CHECK_CLOSE(sum_nll / (double)(T - 1), loss_ref, 2e-6, 0, "mean nll vs the reference loss");
    /* a nearly uniform random model (logit std about 0.5): for small Gaussian logits
     * H is about log2 V - var/(2 ln 2) = log2 V - 0.18 bits, never above log2 V */
    TokenStat st;
    token_stat(logits, V, ids[1], &st);
    CHECK(st.entropy_bits > log2((double)V) - 0.5 && st.entropy_bits <= log2((double)V) + 1e-9,
          "tiny's entropy %.4f bits vs log2 V = %.4f", st.entropy_bits, log2((double)V));
    free(logits);
    free(ids);
    safe_close(&f);
}

static void test_edges(void) {
    TokenStat st;
    /* two equal logits and one -inf: p = 1/2 each, entropy exactly 1 bit, the -inf token has
     * p = 0 and infinite surprisal; ranks: equal logits by lower id first */
    float l[4] = {1.0f, -INFINITY, 1.0f, -3.0f};
    l[3] = -INFINITY;
    CHECK(token_stat(l, 4, 2, &st) == 0, "ok");
    CHECK_CLOSE(st.p, 0.5, 1e-15, 0, "p of a tie");
    CHECK_CLOSE(st.entropy_bits, 1.0, 1e-12, 0, "entropy of a fair coin");
    CHECK(st.rank == 2, "tie goes to the lower id first: rank %d", st.rank);
    CHECK(token_stat(l, 4, 0, &st) == 0 && st.rank == 1, "lower id of the tie is rank 1");
    CHECK(token_stat(l, 4, 1, &st) == 0 && st.p == 0 && isinf(st.surprisal_bits) && st.rank == 3,
          "a -inf token: p 0, infinite surprisal, rank after the finite ones (%d)", st.rank);
    TokenStat f;
    CHECK(token_stat_fast(l, 4, 2, &f) == 0 && fabs(f.p - 0.5) < 1e-7 && fabs(f.entropy_bits - 1.0) < 1e-6 &&
              f.rank == 2 && token_stat_fast(l, 4, 1, &f) == 0 && f.p == 0 && f.rank == 3,
          "fast: the tie and the -inf token (p %.9g, rank %d)", f.p, f.rank);
    /* a certain token: p 1, 0 bits either way */
    float c[3] = {0.0f, -INFINITY, -INFINITY};
    CHECK(token_stat(c, 3, 0, &st) == 0 && st.p == 1.0 && st.surprisal_bits == 0 && st.entropy_bits == 0,
          "certain token");
    /* shift invariance far from 0 (no overflow: the max is subtracted) */
    float big[3] = {1000.0f, 999.0f, 998.0f}, small[3] = {2.0f, 1.0f, 0.0f};
    TokenStat a, b;
    CHECK(token_stat(big, 3, 1, &a) == 0 && token_stat(small, 3, 1, &b) == 0, "ok");
    CHECK_CLOSE(a.p, b.p, 1e-12, 0, "softmax is shift-invariant");
    CHECK_CLOSE(a.entropy_bits, b.entropy_bits, 1e-12, 0, "entropy is shift-invariant");
    /* refusals */
    float bad[2] = {0.0f, NAN};
    CHECK(token_stat_fast(bad, 2, 0, &st) == -1, "fast: NaN refused");
    CHECK(token_stat(bad, 2, 0, &st) == -1, "NaN logit refused");
    bad[1] = INFINITY;
    CHECK(token_stat(bad, 2, 0, &st) == -1, "+inf logit refused");
    float none[2] = {-INFINITY, -INFINITY};
    CHECK(token_stat(none, 2, 0, &st) == -1, "all -inf refused");
    CHECK(token_stat(small, 3, 3, &st) == -1 && token_stat(small, 3, -1, &st) == -1, "id out of range refused");
    CHECK(token_stat(small, 0, 0, &st) == -1, "empty vocabulary refused");
}

int main(void) {
    test_reference_vectors();
    test_edges();
    return check_summary("test_token_stats");
}
