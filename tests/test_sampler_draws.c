/* test_sampler_draws.c — many rolls of the dice: the χ² survival function against
 * closed forms and published table values; 10,000 rolls on the bundled model pass a χ²
 * test at α = 0.001 against the final probabilities (computed independently here) and
 * fail it against the wrong ones; the same seed gives the same counts, roll k is the
 * token sampler_run picks with u = rng_dice(seed, pos, salt + k); greedy, stale records
 * and bad counts. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "check_session.h"
#include "chi2.h"
#include "rng.h"
#include "sampler.h"
#include "sampler_draws.h"
#include "session.h"

static void test_chi2_survival(void) {
    /* dof 2: P(X >= x) = exp(-x/2); dof 1: erfc(sqrt(x/2)); even dof 2k:
     * exp(-x/2) Σ_{i<k} (x/2)^i / i! — closed forms, independent of the code */
    const double xs[7] = {0.001, 0.5, 1.0, 3.0, 10.0, 40.0, 150.0};
    for (int i = 0; i < 7; i++) {
        double x = xs[i];
        CHECK_CLOSE(chi2_survival(x, 2), exp(-x / 2), 1e-300, 1e-12, "chi2 dof 2");
        CHECK_CLOSE(chi2_survival(x, 1), erfc(sqrt(x / 2)), 1e-300, 1e-10, "chi2 dof 1");
        const int dofs[4] = {4, 10, 50, 200};
        for (int d = 0; d < 4; d++) {
            long double term = 1.0L, sum = 0.0L, h = x / 2.0L;
            for (int k = 0; k < dofs[d] / 2; k++) {
                sum += term;
                term *= h / (k + 1);
            }
            double want = (double)(expl(-h) * sum);
            CHECK_CLOSE(chi2_survival(x, dofs[d]), want, 1e-300, 1e-10, "chi2 even dof");
        }
    }
    /* the 0.05 critical values of the usual tables */
    CHECK_CLOSE(chi2_survival(3.841458820694124, 1), 0.05, 1e-12, 0, "chi2(1) 0.95 quantile");
    CHECK_CLOSE(chi2_survival(18.307038053275146, 10), 0.05, 1e-12, 0, "chi2(10) 0.95 quantile");
    CHECK_CLOSE(chi2_survival(124.34211340400407, 100), 0.05, 1e-11, 0, "chi2(100) 0.95 quantile");
    /* 3-decimal table entries (0.001 and 0.01 columns): the rounding moves the tail by
     * at most density x 5e-4, under the tolerances */
    CHECK_CLOSE(chi2_survival(27.877, 9), 0.001, 2e-6, 0, "chi2(9) 0.999 quantile (3 decimals)");
    CHECK_CLOSE(chi2_survival(10.828, 1), 0.001, 1e-6, 0, "chi2(1) 0.999 quantile (3 decimals)");
    CHECK_CLOSE(chi2_survival(149.449, 100), 0.001, 1e-6, 0, "chi2(100) 0.999 quantile (3 decimals)");
    CHECK_CLOSE(chi2_survival(6.635, 1), 0.01, 2e-6, 0, "chi2(1) 0.99 quantile (3 decimals)");
    CHECK_CLOSE(chi2_survival(23.209, 10), 0.01, 2e-6, 0, "chi2(10) 0.99 quantile (3 decimals)");
    CHECK(chi2_survival(5.0, 0) == 1.0 && isnan(chi2_survival(-1.0, 3)) && isnan(chi2_survival(1.0, -1)) &&
              isnan(chi2_survival(NAN, 3)) && chi2_survival(0.0, 7) == 1.0 && chi2_survival(INFINITY, 3) == 0.0,
          "chi2 edges");
}

/* Pearson's χ² of the tally in s against probabilities want[id], pooled as the
 * header says (a second, plain implementation by id). */
static double pearson_against(const Sampler *s, const double *want, int n, int *dof) {
    double chi2 = 0.0, tail_o = 0.0, tail_e = 0.0, last_o = 0, last_e = 0;
    int bins = 0;
    for (int r = 0; r < s->n_final; r++) {
        double e = n * want[s->order[r]], o = s->draw_counts[r];
        if (e >= 5.0) {
            if (bins++) chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
            last_o = o, last_e = e;
        } else {
            tail_o += o, tail_e += e;
        }
    }
    if (tail_e >= 5.0 || (bins == 0 && tail_e > 0)) {
        if (bins++) chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
        last_o = tail_o, last_e = tail_e;
    } else {
        last_o += tail_o, last_e += tail_e;
    }
    chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
    *dof = bins - 1;
    return bins > 1 ? chi2 : 0.0;
}

/* softmax(logits / T) over the k best logits (all when k = 0), in long double, by id.
 * The k best are chosen here by counting, not from the sampler's ranking: a token is
 * kept when fewer than k logits beat it (ties at the boundary would keep more; the
 * caller checks there are none). */
static size_t reference_probs(const float *logits, size_t V, double T, int k, double *out) {
    float mx = logits[0];
    for (size_t i = 1; i < V; i++) mx = logits[i] > mx ? logits[i] : mx;
    float cut = -INFINITY; /* the k-th largest logit */
    if (k > 0) {
        float prev = INFINITY;
        for (int j = 0; j < k; j++) { /* the j-th largest below prev, k passes */
            float best = -INFINITY;
            for (size_t i = 0; i < V; i++)
                if (logits[i] < prev && logits[i] > best) best = logits[i];
            cut = prev = best;
        }
    }
    long double z = 0.0L;
    size_t kept = 0;
    for (size_t i = 0; i < V; i++) {
        out[i] = 0.0;
        if (logits[i] >= cut) z += expl(((long double)logits[i] - mx) / T), kept++;
    }
    for (size_t i = 0; i < V; i++)
        if (logits[i] >= cut) out[i] = (double)(expl(((long double)logits[i] - mx) / T) / z);
    return kept;
}

static void test_draws_bundled(void) {
    Session sess;
    ErrorMsg err = {{0}};
    if (check_open_bundled(&sess)) return;
    /* "Once upon a time there was a little": girl 69 %, boy 19 %, a long tail */
    const int ids[8] = {7454, 2402, 257, 640, 612, 373, 257, 1310};
    CHECK(session_set_prompt_ids(&sess, ids, 8, &err) == 0, "prompt: %s", err.text);
    const float *logits = gpt2_trace_logits(&sess.trace, 7);
    size_t V = (size_t)sess.model.config.vocab_size;
    Sampler *s = &sess.sampler;
    static double want[50257], wrong[50257];
    const uint64_t seed = 2024;
    const int pos = 8, N = SAMPLER_MAX_DRAWS;
    struct { float T; int k; } cases[2] = {{1.0f, 0}, {0.8f, 5}};
    for (int c = 0; c < 2; c++) {
        SamplerSettings set = sampler_settings_default();
        set.temperature = cases[c].T;
        set.top_k = cases[c].k;
        SamplerRecord rec;
        CHECK(sampler_run(s, &set, logits, ids, 8, rng_dice(seed, pos, 0), 20, &rec, &err) == 0, "run: %s",
              err.text);
        SamplerDraws d, again;
        CHECK(sampler_draw_many(s, &rec, seed, pos, 0, N, &d, &err) == 0, "draws: %s", err.text);
        size_t kept = reference_probs(logits, V, cases[c].T, cases[c].k, want);
        CHECK(kept == (cases[c].k ? (size_t)cases[c].k : V) && (size_t)s->n_final == kept,
              "kept %zu, sampler %d (no ties at the cut)", kept, s->n_final);
        double worst = 0.0;
        for (int r = 0; r < s->n_final; r++) worst = fmax(worst, fabs(s->p_final[r] - want[s->order[r]]));
        CHECK(worst < 1e-6, "final probabilities vs the reference: worst %.3g", worst);
        int dof;
        double chi2 = pearson_against(s, want, N, &dof);
        CHECK_CLOSE(d.chi2, chi2, 1e-9, 1e-9, "chi2 vs the independent probabilities");
        CHECK(d.dof == dof && dof >= 4, "dof %d want %d", d.dof, dof);
        CHECK(d.p_value > 0.001, "T=%g k=%d: %d rolls fail the chi2 test: chi2 %.2f dof %d p %.3g",
              (double)cases[c].T, cases[c].k, N, d.chi2, d.dof, d.p_value);
        /* power: the same counts against the wrong distribution are rejected (T = 1.3
         * instead of 1; for top-k 5 at T = 0.8, the top 5 at T = 1) */
        reference_probs(logits, V, cases[c].k ? 1.0 : 1.3, cases[c].k, wrong);
        double chi2_wrong = pearson_against(s, wrong, N, &dof);
        CHECK(chi2_survival(chi2_wrong, dof) < 0.001, "wrong distribution not rejected: chi2 %.1f dof %d",
              chi2_wrong, dof);
        /* the top token's share: within 4 sd of its probability, and it loses most rolls */
        double p0 = rec.rows[0].p_final, sd = sqrt(p0 * (1 - p0) / N);
        CHECK(fabs((double)d.row_counts[0] / N - p0) < 4 * sd, "top token: %d of %d rolls, p %.4f",
              d.row_counts[0], N, p0);
        int sum = d.other_count;
        for (int i = 0; i < rec.n; i++) sum += d.row_counts[i];
        CHECK(sum == N && d.first_rank == rec.chosen.rank, "counts add up; roll 0 is the pending draw");
        /* the same seed: the same counts; another salt: others */
        static int first[50257];
        memcpy(first, s->draw_counts, (size_t)s->n_final * sizeof *first);
        CHECK(sampler_draw_many(s, &rec, seed, pos, 0, N, &again, &err) == 0 &&
                  memcmp(first, s->draw_counts, (size_t)s->n_final * sizeof *first) == 0 && again.chi2 == d.chi2,
              "same seed, same counts");
        CHECK(sampler_draw_many(s, &rec, seed + 1, pos, 0, N, &again, &err) == 0 &&
                  memcmp(first, s->draw_counts, (size_t)s->n_final * sizeof *first) != 0,
              "another seed, other counts");
        /* salt + 1 shifts the rolls by one: roll 0 drops out, roll N comes in */
        CHECK(sampler_draw_many(s, &rec, seed, pos, 1, N, &again, &err) == 0, "salt 1");
        size_t r_out = sampler_pick_cum(s->cum, (size_t)s->n_final, rng_dice(seed, pos, 0));
        size_t r_in = sampler_pick_cum(s->cum, (size_t)s->n_final, rng_dice(seed, pos, (uint32_t)N));
        first[r_out]--;
        first[r_in]++;
        CHECK(memcmp(first, s->draw_counts, (size_t)s->n_final * sizeof *first) == 0,
              "salt 1 = salt 0 without roll 0, with roll N");
        /* TV distance and the list, checked by id */
        CHECK(sampler_draw_many(s, &rec, seed, pos, 0, N, &d, &err) == 0, "redraw");
        static SamplerDrawCount list[SAMPLER_MAX_DRAWS];
        int n_list = sampler_draws_list(s, list, SAMPLER_MAX_DRAWS), total = 0;
        double tv = 0.0;
        static int by_id[50257];
        memset(by_id, 0, sizeof by_id);
        for (int i = 0; i < n_list; i++) by_id[list[i].id] = list[i].count, total += list[i].count;
        for (size_t i = 0; i < V; i++) tv += fabs((double)by_id[i] / N - want[i]);
        CHECK(n_list == d.n_distinct && total == N && fabs(d.tv - tv / 2) < 1e-9, "list and TV: %d, %.4f vs %.4f",
              n_list, d.tv, tv / 2);
    }
    /* roll k is exactly sampler_run's pick with u = rng_dice(seed, pos, salt + k) */
    SamplerSettings set = sampler_settings_default();
    set.temperature = 1.2f;
    set.top_p = 0.9f;
    SamplerRecord rec, one;
    int tally[64] = {0}, ids_k[40];
    for (int k = 0; k < 40; k++) {
        CHECK(sampler_run(s, &set, logits, ids, 8, rng_dice(seed, pos, 7u + (uint32_t)k), 64, &one, &err) == 0, "one");
        ids_k[k] = one.chosen.id;
    }
    CHECK(sampler_run(s, &set, logits, ids, 8, 0.5, 64, &rec, &err) == 0, "run");
    SamplerDraws d;
    CHECK(sampler_draw_many(s, &rec, seed, pos, 7, 40, &d, &err) == 0, "40 rolls");
    for (int k = 0; k < 40; k++)
        for (int i = 0; i < rec.n; i++) tally[i] += rec.rows[i].id == ids_k[k];
    CHECK(memcmp(tally, d.row_counts, sizeof tally) == 0, "40 rolls = 40 single runs with the same dice");
    /* a stale record; bad counts */
    SamplerRecord other;
    CHECK(sampler_run(s, &set, logits, ids, 8, 0.5, 5, &other, &err) == 0, "other run");
    CHECK(sampler_draw_many(s, &rec, seed, pos, 0, 10, &d, &err) == -1 && strstr(err.text, "last run"),
          "stale record refused: '%s'", err.text);
    CHECK(sampler_draw_many(s, &other, seed, pos, 0, 0, &d, &err) == -1 && strstr(err.text, "[1, 10000]"),
          "0 rolls: '%s'", err.text);
    CHECK(sampler_draw_many(s, &other, seed, pos, 0, SAMPLER_MAX_DRAWS + 1, &d, &err) == -1, "10001 rolls");
    CHECK(sampler_draws_list(s, NULL, 0) == 0, "no draws since the run: empty list");
    /* greedy: every roll is the argmax, nothing can vary */
    set.greedy = 1;
    CHECK(sampler_run(s, &set, logits, ids, 8, 0.5, 5, &rec, &err) == 0 &&
              sampler_draw_many(s, &rec, seed, pos, 0, 500, &d, &err) == 0, "greedy draws");
    CHECK(d.row_counts[0] == 500 && d.n_distinct == 1 && d.dof == 0 && d.p_value == 1.0 && d.chi2 == 0.0,
          "greedy: 500 of 500 on the argmax");
    session_free(&sess);
}

int main(void) {
    test_chi2_survival();
    test_draws_bundled();
    return check_summary("test_sampler_draws");
}
