/* test_sampler.c — the RNG and the sampler: known PCG32 outputs, greedy and its
 * equivalents, top-k / top-p boundaries built from exact binary fractions, temperature
 * extremes on a GPT-2-sized vocabulary, the record's bookkeeping, a chi-square test of
 * the draws against the final distribution, bad settings, and the reference vectors'
 * top-10 / temperature 0.7 / top-k=5 probabilities from the real tiny-model logits. */
#include <math.h>
#include <string.h>

#include <cJSON.h>

#include "check.h"
#include "cli.h"
#include "rng.h"
#include "safetensors.h"
#include "sampler.h"

#define GPT2_V 50257

/* Logits with a GPT-2-like spread (uniform in [lo, hi)), from our own RNG so the test
 * is the same everywhere. */
static void random_logits(float *l, size_t n, uint64_t seed, double lo, double hi) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) l[i] = (float)(lo + (hi - lo) * rng_uniform(&r));
}

static SamplerSettings settings(float t, int k, float p) {
    SamplerSettings s = sampler_settings_default();
    s.temperature = t;
    s.top_k = k;
    s.top_p = p;
    return s;
}

/* ---- RNG ---------------------------------------------------------------------- */

static void test_rng(void) {
    /* Known answer: the pcg32 demo (pcg-c-basic, pcg32_srandom_r(&rng, 42, 54)) prints
     * these; they are published, not produced by this code. */
    static const uint32_t pcg_demo[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                         0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    Rng r;
    rng_seed(&r, 42);
    for (int i = 0; i < 6; i++) {
        uint32_t got = rng_next_u32(&r);
        CHECK(got == pcg_demo[i], "pcg32 seed 42 output %d: got 0x%08x want 0x%08x", i, got,
              pcg_demo[i]);
    }
    /* First three u for seed 42, hard-coded after computing them once. */
    static const double u42[3] = {0.63031022052317076, 0.72700805601546015,
                                  0.74860336161139207};
    rng_seed(&r, 42);
    for (int i = 0; i < 3; i++) {
        double u = rng_uniform(&r);
        CHECK(u == u42[i], "seed 42 u[%d] = %.17g want %.17g", i, u, u42[i]);
    }

    /* Property (independent of the numbers above): u is the top 53 of the 64 bits of
     * two consecutive 32-bit draws, high word first. */
    Rng a, b;
    rng_seed(&a, 123456789u);
    rng_seed(&b, 123456789u);
    int bad_bits = 0, finer_than_32 = 0, out_of_range = 0;
    double mean = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        uint64_t hi = rng_next_u32(&b), lo = rng_next_u32(&b);
        double want = (double)(((hi << 32) | lo) >> 11) / 9007199254740992.0;
        double u = rng_uniform(&a);
        if (u != want) bad_bits++;
        if (!(u >= 0.0 && u < 1.0)) out_of_range++;
        if (u * 4294967296.0 != floor(u * 4294967296.0)) finer_than_32++;
        mean += u;
    }
    mean /= n;
    CHECK(bad_bits == 0, "%d draws differ from (64 bits >> 11) * 2^-53", bad_bits);
    CHECK(out_of_range == 0, "%d draws outside [0, 1)", out_of_range);
    CHECK(finer_than_32 > n / 2, "only %d of %d draws use more than 32 bits", finer_than_32, n);
    /* mean of U(0,1) is 1/2 with sd sqrt(1/12/n) = 0.00091: 5 sd */
    CHECK(fabs(mean - 0.5) < 0.0046, "mean of %d draws %.5f", n, mean);

    /* Same seed -> same sequence; a different seed -> a different one. */
    Rng c, d, e;
    rng_seed(&c, 7);
    rng_seed(&d, 7);
    rng_seed(&e, 8);
    int same = 1, differs = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t x = rng_next_u32(&c);
        if (x != rng_next_u32(&d)) same = 0;
        if (x != rng_next_u32(&e)) differs++;
    }
    CHECK(same, "seed 7 twice gave different sequences");
    CHECK(differs > 990, "seeds 7 and 8 agree on %d of 1000 outputs", 1000 - differs);
}

/* ---- Settings and input validation --------------------------------------------- */

static void expect_bad_settings(SamplerSettings s, const char *name, const char *value) {
    ErrorMsg err = {{0}};
    CHECK(sampler_settings_validate(&s, &err) == -1, "%s %s accepted", name, value);
    CHECK(strstr(err.text, name) && strstr(err.text, value),
          "message should name %s and %s: '%s'", name, value, err.text);
}

static void test_validation(void) {
    ErrorMsg err = {{0}};
    SamplerSettings ok = sampler_settings_default();
    CHECK(sampler_settings_validate(&ok, &err) == 0, "defaults rejected: %s", err.text);
    ok = settings(0.0f, 0, 0.0f); /* T = 0 (greedy) and p = 0 are legal edges */
    CHECK(sampler_settings_validate(&ok, &err) == 0, "T=0 p=0 rejected: %s", err.text);

    expect_bad_settings(settings(-0.5f, 0, 1.0f), "temperature", "-0.5");
    expect_bad_settings(settings(NAN, 0, 1.0f), "temperature", "nan");
    expect_bad_settings(settings(INFINITY, 0, 1.0f), "temperature", "inf");
    expect_bad_settings(settings(1.0f, -3, 1.0f), "top_k", "-3");
    expect_bad_settings(settings(1.0f, 0, 1.5f), "top_p", "1.5");
    expect_bad_settings(settings(1.0f, 0, -0.25f), "top_p", "-0.25");
    expect_bad_settings(settings(1.0f, 0, NAN), "top_p", "nan");
    expect_bad_settings(settings(1.0f, 0, -INFINITY), "top_p", "-inf");

    Sampler zero = {0};
    sampler_free(&zero); /* safe on a zeroed struct */
    CHECK(sampler_init(&zero, 0, &err) == -1 && strstr(err.text, "0"), "V=0: '%s'", err.text);
    sampler_free(&zero);

    Sampler s = {0};
    CHECK(sampler_init(&s, 4, &err) == 0, "init: %s", err.text);
    float l[4] = {1, 2, 3, 4};
    SamplerRecord rec;
    SamplerSettings bad = settings(1.0f, 0, 2.0f), def = sampler_settings_default();
    CHECK(sampler_run(&s, &bad, l, NULL, 0, 0.5, 4, &rec, &err) == -1 && strstr(err.text, "top_p"),
          "run with bad settings: '%s'", err.text);
    CHECK(sampler_run(&s, &def, l, NULL, 0, 1.0, 4, &rec, &err) == -1 && strstr(err.text, "u 1"),
          "u = 1 must be refused: '%s'", err.text);
    CHECK(sampler_run(&s, &def, l, NULL, 0, -0.1, 4, &rec, &err) == -1, "u < 0 refused");
    CHECK(sampler_run(&s, &def, l, NULL, 0, NAN, 4, &rec, &err) == -1, "u NaN refused");
    CHECK(sampler_run(&s, &def, l, NULL, 0, 0.5, -1, &rec, &err) == -1 && strstr(err.text, "top_n"),
          "top_n < 0: '%s'", err.text);
    l[2] = NAN;
    CHECK(sampler_run(&s, &def, l, NULL, 0, 0.5, 4, &rec, &err) == -1 && strstr(err.text, "logits[2]"),
          "NaN logit must be named: '%s'", err.text);
    l[2] = INFINITY;
    CHECK(sampler_run(&s, &def, l, NULL, 0, 0.5, 4, &rec, &err) == -1 && strstr(err.text, "+inf"),
          "+inf logit: '%s'", err.text);
    for (int i = 0; i < 4; i++) l[i] = -INFINITY;
    CHECK(sampler_run(&s, &def, l, NULL, 0, 0.5, 4, &rec, &err) == -1 && strstr(err.text, "-inf"),
          "all -inf: '%s'", err.text);
    sampler_free(&s);
    sampler_free(&s); /* twice is fine */
    CHECK(sampler_run(&s, &def, l, NULL, 0, 0.5, 4, &rec, &err) == -1, "run after free refused");
}

/* ---- Greedy ----------------------------------------------------------------------- */

static void test_greedy(Sampler *s, const float *logits) {
    ErrorMsg err = {{0}};
    SamplerRecord rec;
    size_t argmax = 0;
    for (size_t i = 1; i < GPT2_V; i++)
        if (logits[i] > logits[argmax]) argmax = i;

    SamplerSettings g = settings(0.8f, 40, 0.9f);
    g.greedy = 1;
    SamplerSettings t0 = settings(0.0f, 0, 1.0f), k1 = settings(1.3f, 1, 1.0f);
    const double us[3] = {0.0, 0.5, 0.9999999999};
    for (int i = 0; i < 3; i++) {
        CHECK(sampler_run(s, &g, logits, NULL, 0, us[i], 5, &rec, &err) == 0, "greedy: %s", err.text);
        CHECK(rec.greedy && rec.chosen.id == (int)argmax && rec.chosen.rank == 0,
              "greedy u=%g chose %d want argmax %zu", us[i], rec.chosen.id, argmax);
        CHECK(rec.kept_after_p == 1 && rec.chosen.p_final == 1.0, "greedy keeps one token");
        CHECK(rec.rows[0].p_temp == rec.rows[0].p_raw, "greedy does not apply T");
        CHECK(sampler_run(s, &t0, logits, NULL, 0, us[i], 5, &rec, &err) == 0, "T=0: %s", err.text);
        CHECK(rec.greedy && rec.chosen.id == (int)argmax, "T=0 chose %d", rec.chosen.id);
        CHECK(sampler_run(s, &k1, logits, NULL, 0, us[i], 5, &rec, &err) == 0, "k=1: %s", err.text);
        CHECK(!rec.greedy && rec.chosen.id == (int)argmax && rec.kept_after_k == 1,
              "top-k=1 chose %d", rec.chosen.id);
    }

    /* A tie for the maximum goes to the lower id. */
    /* -0 and +0 are one value: they tie too (ids 0 and 5) */
    float tie[6] = {-0.0f, 3.0f, 2.0f, 3.0f, 3.0f, 0.0f};
    Sampler small = {0};
    CHECK(sampler_init(&small, 6, &err) == 0, "init 6");
    CHECK(sampler_run(&small, &t0, tie, NULL, 0, 0.7, 6, &rec, &err) == 0, "tie run");
    const int want_order[6] = {1, 3, 4, 2, 0, 5};
    for (int i = 0; i < 6; i++)
        CHECK(rec.rows[i].id == want_order[i], "tie order rank %d: id %d want %d", i,
              rec.rows[i].id, want_order[i]);
    CHECK(rec.chosen.id == 1, "tied argmax -> lower id, got %d", rec.chosen.id);
    sampler_free(&small);
}

/* ---- Top-k / top-p boundaries ------------------------------------------------------ */

static void test_top_p_boundaries(Sampler *s, const float *logits) {
    ErrorMsg err = {{0}};
    SamplerRecord rec;
    SamplerSettings p0 = settings(1.0f, 0, 0.0f), p1 = settings(0.01f, 0, 1.0f);
    CHECK(sampler_run(s, &p0, logits, NULL, 0, 0.99, 3, &rec, &err) == 0, "p=0: %s", err.text);
    CHECK(rec.kept_after_p == 1 && rec.chosen.rank == 0, "p=0 keeps %d", rec.kept_after_p);
    /* p = 1 keeps every token, even the thousands whose probability underflowed to 0 at
     * T = 0.01 (they are kept but have empty intervals). */
    CHECK(sampler_run(s, &p1, logits, NULL, 0, 0.99, 3, &rec, &err) == 0, "p=1: %s", err.text);
    CHECK(rec.kept_after_p == GPT2_V && rec.kept_after_k == GPT2_V, "p=1 keeps %d",
          rec.kept_after_p);

    /* Eight equal logits: every probability is exactly 1/8, every partial sum an exact
     * binary fraction, so ">= p" is tested at the boundary itself. */
    Sampler e = {0};
    CHECK(sampler_init(&e, 8, &err) == 0, "init 8");
    float flat[8];
    for (int i = 0; i < 8; i++) flat[i] = 0.75f;
    struct { float t, p; int k, want_k, want_p; } cases[] = {
        {1.0f, 0.375f, 0, 8, 3},                        /* sum of 3 == p: stops at 3 */
        {1.0f, 0.0f, 0, 8, 1},                          /* p = 0: one token */
        {0.7f, 0.125f, 0, 8, 1},                        /* exactly the first */
        {1.0f, 0x1.800002p-2f, 0, 8, 4},                /* next float above 0.375: 4 */
        {1.0f, 1.0f, 0, 8, 8},                          /* off */
        {2.0f, 0.375f, 2, 2, 1},                        /* k cut first: 1/2 each >= p */
        {1.0f, 0.25f, 5, 5, 2},                         /* 1/5 < p <= 2/5 */
        {1.0f, 0.5f, 4, 4, 2},                          /* 2/4 == p exactly: stops at 2 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        SamplerSettings st = settings(cases[c].t, cases[c].k, cases[c].p);
        CHECK(sampler_run(&e, &st, flat, NULL, 0, 0.5, 8, &rec, &err) == 0, "flat: %s", err.text);
        CHECK(rec.kept_after_k == cases[c].want_k && rec.kept_after_p == cases[c].want_p,
              "flat case %zu (T=%g k=%d p=%.9g): kept %d/%d want %d/%d", c,
              (double)cases[c].t, cases[c].k, (double)cases[c].p, rec.kept_after_k,
              rec.kept_after_p, cases[c].want_k, cases[c].want_p);
        for (int i = 0; i < 8; i++)
            CHECK(rec.rows[i].id == i && rec.rows[i].p_temp == 0.125,
                  "flat row %d: id %d p %.17g", i, rec.rows[i].id, rec.rows[i].p_temp);
    }
    /* Keep 3 → final p = 1/3 each; intervals [0,1/3) [1/3,2/3) [2/3,1). */
    SamplerSettings st = settings(1.0f, 0, 0.375f);
    const double us[4] = {0.0, 0.3333, 0.5, 0.9999};
    const int want_id[4] = {0, 0, 1, 2};
    for (int i = 0; i < 4; i++) {
        CHECK(sampler_run(&e, &st, flat, NULL, 0, us[i], 8, &rec, &err) == 0, "flat pick");
        CHECK(rec.chosen.id == want_id[i], "u=%g chose %d want %d", us[i], rec.chosen.id,
              want_id[i]);
    }

    /* Masked tokens (-inf) are exact zeros: 4 of 8 live tokens at 1/4 each. */
    float masked[8] = {-INFINITY, 2.0f, -INFINITY, 2.0f, 2.0f, -INFINITY, 2.0f, -INFINITY};
    SamplerSettings half = settings(1.0f, 0, 0.5f), all = sampler_settings_default();
    CHECK(sampler_run(&e, &half, masked, NULL, 0, 0.75, 8, &rec, &err) == 0, "masked: %s", err.text);
    CHECK(rec.kept_after_p == 2 && rec.rows[0].id == 1 && rec.rows[1].id == 3 &&
              rec.rows[0].p_raw == 0.25 && rec.chosen.id == 3,
          "masked p=0.5: kept %d rows %d %d chose %d", rec.kept_after_p, rec.rows[0].id,
          rec.rows[1].id, rec.chosen.id);
    CHECK(sampler_run(&e, &all, masked, NULL, 0, 0.9999999, 8, &rec, &err) == 0, "masked all");
    CHECK(rec.kept_after_p == 8 && rec.chosen.id == 6 && rec.rows[7].p_raw == 0.0,
          "masked p=1: kept %d chose %d (a -inf token must never be chosen)",
          rec.kept_after_p, rec.chosen.id);
    sampler_free(&e);

    /* The stage functions on their own. */
    const double pr[5] = {0.5, 0.25, 0.125, 0.0625, 0.0625};
    CHECK(sampler_apply_top_p(pr, 5, 0.75f) == 2, "top_p 0.75 of halves");
    CHECK(sampler_apply_top_p(pr, 5, 0.0f) == 1, "top_p 0");
    CHECK(sampler_apply_top_p(pr, 5, 0.9375f) == 4, "top_p 15/16");
    CHECK(sampler_apply_top_p(pr, 5, 1.0f) == 5, "top_p 1");
    CHECK(sampler_apply_top_k(50257, 0) == 50257 && sampler_apply_top_k(10, 3) == 3 &&
              sampler_apply_top_k(10, 11) == 10, "top_k");
    CHECK(sampler_pick(pr, 5, 0.5) == 1 && sampler_pick(pr, 5, 0.4999) == 0 &&
              sampler_pick(pr, 5, 0.9375) == 4, "pick at interval edges");
    /* a total a hair short of 1 (rounding): u past it takes the last token with p > 0 */
    const double short_total[4] = {0.5, 0.25, 0.0, 0.0};
    CHECK(sampler_pick(short_total, 4, 0.9) == 1, "pick past the total: %zu",
          sampler_pick(short_total, 4, 0.9));
}

/* ---- Temperature extremes and the record's bookkeeping ------------------------------ */

/* Everything a viewer relies on, for one record of a run over `logits`. */
static void check_record(const Sampler *s, const SamplerRecord *rec, const float *logits,
                         const char *what) {
    double shown[4] = {0, 0, 0, 0};
    int bad_rows = 0;
    for (int i = 0; i < rec->n; i++) {
        const SamplerRow *r = &rec->rows[i];
        shown[0] += r->p_raw;
        shown[1] += r->p_temp;
        shown[2] += r->p_cut;
        shown[3] += r->p_final;
        int ok = r->rank == i && r->logit == logits[r->id] &&
                 r->kept == (i < rec->kept_after_p) &&
                 r->p_cut == (r->kept ? r->p_temp : 0.0) &&
                 fabs(r->p_final - r->p_cut / rec->kept_mass) <= 1e-15 &&
                 fabs(r->p_raw - exp((double)r->logit - rec->logsumexp)) <= 1e-10 * r->p_raw &&
                 r->cum_hi == r->cum_lo + (r->kept ? r->p_final : 0.0) && isfinite(r->p_temp);
        if (i > 0) /* ranked: logits non-increasing, ties by id, intervals contiguous */
            ok = ok && r->cum_lo == r[-1].cum_hi &&
                 (r->logit < r[-1].logit || (r->logit == r[-1].logit && r->id > r[-1].id));
        if (!ok && bad_rows++ < 3)
            fprintf(stderr, "  %s row %d: id %d logit %g p_raw %g p_temp %g p_final %g\n", what,
                    i, r->id, (double)r->logit, r->p_raw, r->p_temp, r->p_final);
    }
    CHECK(bad_rows == 0, "%s: %d inconsistent rows", what, bad_rows);
    CHECK_CLOSE(shown[0] + rec->other_raw, 1.0, 1e-12, 0, "raw: shown + other");
    CHECK_CLOSE(shown[1] + rec->other_temp, 1.0, 1e-12, 0, "temp: shown + other");
    CHECK_CLOSE(shown[2] + rec->other_cut, rec->kept_mass, 1e-12, 0, "cut: shown + other");
    CHECK_CLOSE(shown[3] + rec->other_final, 1.0, 1e-12, 0, "final: shown + other");
    CHECK(rec->kept_after_p >= 1 && rec->kept_after_p <= rec->kept_after_k &&
              rec->kept_after_k <= rec->vocab_size, "%s: kept %d <= %d", what,
          rec->kept_after_p, rec->kept_after_k);
    const SamplerRow *c = &rec->chosen;
    CHECK(c->kept && c->p_final > 0 && c->cum_lo <= rec->u && rec->u < c->cum_hi &&
              c->id == s->order[c->rank] && c->logit == logits[c->id],
          "%s: chosen id %d rank %d interval [%.17g, %.17g) u %.17g", what, c->id, c->rank,
          c->cum_lo, c->cum_hi, rec->u);
    if (c->rank < rec->n)
        CHECK(memcmp(c, &rec->rows[c->rank], sizeof *c) == 0, "%s: chosen == its row", what);
}

static void test_temperature_extremes(Sampler *s, const float *logits) {
    ErrorMsg err = {{0}};
    SamplerRecord rec;
    const float temps[4] = {0.01f, 5.0f, 0.7f, 1.0f};
    for (int t = 0; t < 4; t++) {
        SamplerSettings st = settings(temps[t], 0, 1.0f);
        CHECK(sampler_run(s, &st, logits, NULL, 0, 0.3, 20, &rec, &err) == 0, "T=%g: %s",
              (double)temps[t], err.text);
        /* the full distribution over all 50257 ranks: finite, in [0,1], sums to 1 */
        /* no cuts: the final distribution is the temperature softmax over every rank
         * (sampler_run ranks only the head it needs; the rest on request) */
        sampler_rank_all(s);
        CHECK(s->n_final == GPT2_V, "T=%g alone keeps %d", (double)temps[t], s->n_final);
        const double *p = s->p_final;
        double sum = 0.0;
        int bad = 0;
        for (size_t i = 0; i < GPT2_V; i++) {
            if (!(p[i] >= 0.0 && p[i] <= 1.0)) bad++;
            sum += p[i];
        }
        CHECK(bad == 0, "T=%g: %d probabilities not finite in [0,1]", (double)temps[t], bad);
        CHECK_CLOSE(sum, 1.0, 1e-6, 0, "sum of probabilities");
        /* independent: p_temp of a few ranks straight from the definition, long double */
        long double z = 0.0L;
        float m = logits[s->order[0]];
        for (size_t i = 0; i < GPT2_V; i++)
            z += expl(((long double)logits[i] - m) / (long double)temps[t]);
        for (int i = 0; i < rec.n; i += 7) {
            long double want = expl(((long double)rec.rows[i].logit - m) / temps[t]) / z;
            CHECK_CLOSE(rec.rows[i].p_temp, (double)want, 0, 1e-12, "p_temp vs definition");
        }
        check_record(s, &rec, logits, "extreme T");
        if (temps[t] == 0.01f)
            CHECK(rec.rows[0].p_temp > 50 * rec.rows[0].p_raw && rec.other_temp < 0.8 &&
                      rec.other_raw > 0.99,
                  "T=0.01 sharpens: p0 %g (raw %g), other %g", rec.rows[0].p_temp,
                  rec.rows[0].p_raw, rec.other_temp);
        if (temps[t] == 5.0f)
            CHECK(rec.rows[0].p_temp < 0.5 * rec.rows[0].p_raw &&
                      rec.rows[0].p_temp > 1.0 / GPT2_V,
                  "T=5 flattens: %g vs raw %g", rec.rows[0].p_temp, rec.rows[0].p_raw);
    }
}

static void test_record(Sampler *s, const float *logits) {
    ErrorMsg err = {{0}};
    SamplerRecord rec, wide;
    SamplerSettings st = settings(0.8f, 50, 0.9f);
    Rng r;
    rng_seed(&r, 99);
    for (int step = 0; step < 20; step++) {
        double u = rng_uniform(&r);
        CHECK(sampler_run(s, &st, logits, NULL, 0, u, 20, &rec, &err) == 0, "record: %s", err.text);
        check_record(s, &rec, logits, "k=50 p=0.9");
    }
    /* A peaked 300-token vocabulary where top-p bites inside the shown rows, so the
     * minimality of the kept set can be checked from the record alone. */
    Sampler small = {0};
    float pk[300];
    random_logits(pk, 300, 5, -6.0, 6.0);
    CHECK(sampler_init(&small, 300, &err) == 0, "init 300");
    st = settings(0.6f, 0, 0.8f);
    CHECK(sampler_run(&small, &st, pk, NULL, 0, 0.999, SAMPLER_MAX_SHOW, &wide, &err) == 0, "peaked");
    check_record(&small, &wide, pk, "peaked");
    int m = wide.kept_after_p;
    double below = 0.0;
    for (int i = 0; i < m - 1; i++) below += wide.rows[i].p_temp;
    CHECK(m > 2 && m < 40 && below < 0.8 && below + wide.rows[m - 1].p_temp >= (double)0.8f,
          "top-p set is the smallest reaching p: m=%d mass before last %.6f", m, below);
    /* The chosen token far below the shown rows is still fully described. */
    CHECK(sampler_run(&small, &st, pk, NULL, 0, 0.999, 2, &rec, &err) == 0, "narrow");
    check_record(&small, &rec, pk, "narrow");
    CHECK(rec.n == 2 && rec.chosen.rank >= 2 &&
              memcmp(&rec.chosen, &wide.rows[rec.chosen.rank], sizeof rec.chosen) == 0,
          "chosen rank %d outside the 2 shown rows matches the wide record", rec.chosen.rank);
    /* top_n beyond the limit is clamped, 0 shows nothing but still chooses */
    CHECK(sampler_run(&small, &st, pk, NULL, 0, 0.5, 1000, &rec, &err) == 0 &&
              rec.n == SAMPLER_MAX_SHOW, "clamped n %d", rec.n);
    CHECK(sampler_run(&small, &st, pk, NULL, 0, 0.5, 0, &rec, &err) == 0 && rec.n == 0 &&
              fabs(rec.other_final - 1.0) < 1e-12 && rec.chosen.kept, "n=0");
    sampler_free(&small);
}

/* ---- Draws match the final distribution ------------------------------------------- */

/* chi-square critical values at significance 0.001 for 1..9 degrees of freedom */
static const double CHI2_CRIT_001[10] = {0,      10.828, 13.816, 16.266, 18.467,
                                         20.515, 22.458, 24.322, 26.124, 27.877};

static void test_frequencies(void) {
    ErrorMsg err = {{0}};
    const float l[10] = {2.0f, 1.5f, 1.2f, 1.0f, 0.7f, 0.5f, 0.1f, -0.3f, -1.0f, -2.0f};
    Sampler s = {0};
    CHECK(sampler_init(&s, 10, &err) == 0, "init 10");
    SamplerSettings st = settings(0.9f, 7, 0.85f);
    SamplerRecord rec;
    CHECK(sampler_run(&s, &st, l, NULL, 0, 0.5, 10, &rec, &err) == 0, "freq: %s", err.text);
    int kept = rec.kept_after_p;
    CHECK(rec.kept_after_k == 7 && kept >= 3 && kept < 7, "both cuts active: %d then %d",
          rec.kept_after_k, kept);
    double p_final[10], p_temp[10];
    for (int i = 0; i < 10; i++) {
        p_final[rec.rows[i].id] = rec.rows[i].p_final;
        p_temp[rec.rows[i].id] = rec.rows[i].p_temp;
    }
    long count[10] = {0};
    const long N = 100000;
    Rng r;
    rng_seed(&r, 2024);
    for (long i = 0; i < N; i++) {
        if (sampler_run(&s, &st, l, NULL, 0, rng_uniform(&r), 0, &rec, &err)) break;
        count[rec.chosen.id]++;
    }
    double chi2 = 0.0, chi2_wrong = 0.0;
    long cut_drawn = 0;
    for (int id = 0; id < 10; id++) {
        if (p_final[id] == 0.0) {
            cut_drawn += count[id];
            continue;
        }
        double e = N * p_final[id], w = N * p_temp[id]; /* w: forgot to renormalise */
        chi2 += (count[id] - e) * (count[id] - e) / e;
        chi2_wrong += (count[id] - w) * (count[id] - w) / w;
    }
    int df = kept - 1;
    CHECK(cut_drawn == 0, "%ld draws of cut tokens", cut_drawn);
    CHECK(df >= 1 && df <= 9 && chi2 < CHI2_CRIT_001[df], "chi2 %.2f >= %.3f (df %d)", chi2,
          CHI2_CRIT_001[df], df);
    /* the same statistic rejects the un-renormalised distribution: the test has power */
    CHECK(df >= 1 && chi2_wrong > CHI2_CRIT_001[df], "chi2 vs p_temp only %.2f", chi2_wrong);
    sampler_free(&s);
}

/* ---- Reproducibility ------------------------------------------------------------- */

static void test_reproducible(Sampler *s, const float *logits) {
    ErrorMsg err = {{0}};
    SamplerRecord rec;
    const SamplerSettings sets[3] = {settings(1.0f, 0, 1.0f), settings(0.7f, 40, 0.95f),
                                     settings(1.2f, 0, 0.5f)};
    int ids[2][12];
    for (int pass = 0; pass < 2; pass++) {
        Rng r;
        rng_seed(&r, 42);
        for (int i = 0; i < 12; i++) {
            CHECK(sampler_run(s, &sets[i % 3], logits, NULL, 0, rng_uniform(&r), 3, &rec, &err) == 0,
                  "repro: %s", err.text);
            ids[pass][i] = rec.chosen.id;
        }
    }
    CHECK(memcmp(ids[0], ids[1], sizeof ids[0]) == 0, "seed 42 twice: different tokens");
    /* hard-coded after computing once: the same on every machine. Tokens 1 and 4 (top-k
     * 40, then top-p 0.95 over the 40 survivors renormalised, as HF and llama.cpp do)
     * were 742 and 48186 before issue 19, when top-p summed the unrenormalised mass and
     * so never cut inside the top-k set; test_sampler_chain.c checks that chain against
     * an independent computation. */
    const int want[6] = {40375, 15564, 20179, 17945, 1150, 28665};
    for (int i = 0; i < 6; i++)
        CHECK(ids[0][i] == want[i], "seed 42 token %d: %d want %d", i, ids[0][i], want[i]);

    /* The same dice: changing settings and coming back gives the first answer again. */
    SamplerSettings a = settings(0.9f, 0, 0.9f), b = settings(2.0f, 5, 1.0f);
    int first, again;
    CHECK(sampler_run(s, &a, logits, NULL, 0, 0.61, 3, &rec, &err) == 0, "a");
    first = rec.chosen.id;
    CHECK(sampler_run(s, &b, logits, NULL, 0, 0.61, 3, &rec, &err) == 0, "b");
    CHECK(rec.chosen.rank < 5, "top-k=5 chose rank %d", rec.chosen.rank);
    CHECK(sampler_run(s, &a, logits, NULL, 0, 0.61, 3, &rec, &err) == 0, "a again");
    again = rec.chosen.id;
    CHECK(first == again, "same settings and u: %d then %d", first, again);
}

/* ---- Reference vectors ------------------------------------------------------------ */

/* Reads a JSON array of numbers into out[0..n); returns how many were read. */
static int json_numbers(const cJSON *obj, const char *key, double *out, int n) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) {
        if (k < n && cJSON_IsNumber(x)) out[k++] = x->valuedouble;
    }
    return k;
}

static void compare_rows(const SamplerRecord *rec, const cJSON *v, const char *ids_key,
                         const char *probs_key, int stage, int n, const char *what) {
    double want_ids[10], want_p[10];
    CHECK(json_numbers(v, ids_key, want_ids, 10) == n &&
              json_numbers(v, probs_key, want_p, 10) == n,
          "%s: index.json lacks %d %s/%s", what, n, ids_key, probs_key);
    for (int i = 0; i < n && i < rec->n; i++) {
        const SamplerRow *r = &rec->rows[i];
        double got = stage == 0 ? r->p_raw : stage == 1 ? r->p_temp : r->p_final;
        CHECK(r->id == (int)want_ids[i], "%s rank %d: id %d want %d", what, i, r->id,
              (int)want_ids[i]);
        /* the reference is float64 softmax of the same float32 logits (then stored
         * as float32 in places): only the storage rounding separates us */
        CHECK_CLOSE(got, want_p[i], 1e-12, 1e-6, what);
    }
}

static void test_reference(void) {
    char path[1024];
    ErrorMsg err = {{0}};
    check_ref_file("vectors/index.json", path, sizeof path);
    CliBytes text = {0};
    if (cli_read_file(path, &text, &err)) {
        CHECK(0, "reference: %s", err.text);
        return;
    }
    cJSON *index = cJSON_ParseWithLength((const char *)text.data, text.len);
    cli_bytes_free(&text);
    const cJSON *vectors = cJSON_GetObjectItemCaseSensitive(index, "vectors");
    CHECK(cJSON_IsObject(vectors), "%s: no \"vectors\" object", path);
    int n_files = 0, n_skipped = 0;
    Sampler s = {0};
    CHECK(sampler_init(&s, GPT2_V, &err) == 0, "init: %s", err.text);
    float *last = malloc(GPT2_V * sizeof *last);
    const cJSON *v;
    cJSON_ArrayForEach(v, vectors) {
        char rel[256];
        snprintf(rel, sizeof rel, "vectors/%s.safetensors", v->string);
        if (!check_ref_file(rel, path, sizeof path)) {
            CHECK_SKIP("test_sampler/reference-rows", "%s not found", path);
            n_skipped++;
            continue;
        }
        SafeFile f;
        if (safe_open(&f, path, &err)) {
            CHECK(0, "reference: %s", err.text);
            continue;
        }
        const SafeTensor *lg = safe_find(&f, "logits"), *lse = safe_find(&f, "last.logsumexp");
        if (!lg || lg->dtype != SAFE_F32 || lg->ndim != 2 || lg->shape[0] < 1 ||
            lg->shape[1] != GPT2_V || !lse || lse->nbytes < sizeof(float) ||
            lse->dtype != SAFE_F32 || !last) {
            CHECK(0, "%s: no F32 logits [T, %d] / last.logsumexp", path, GPT2_V);
            safe_close(&f);
            continue;
        }
        /* the last position's row; memcpy because the mapping need not be aligned */
        size_t T = (size_t)lg->shape[0];
        memcpy(last, lg->data + (T - 1) * GPT2_V * sizeof(float), GPT2_V * sizeof(float));
        float want_lse;
        memcpy(&want_lse, lse->data, sizeof want_lse);
        safe_close(&f);

        SamplerRecord rec;
        SamplerSettings t1 = settings(1.0f, 0, 1.0f), t07 = settings(0.7f, 0, 1.0f),
                        k5 = settings(1.0f, 5, 1.0f);
        CHECK(sampler_run(&s, &t1, last, NULL, 0, 0.5, 10, &rec, &err) == 0, "T=1: %s", err.text);
        compare_rows(&rec, v, "last_top10_ids", "last_top10_probs", 0, 10, v->string);
        CHECK_CLOSE(rec.logsumexp, want_lse, 1e-5, 0, "logsumexp");
        check_record(&s, &rec, last, v->string);
        CHECK(sampler_run(&s, &t07, last, NULL, 0, 0.5, 10, &rec, &err) == 0, "T=0.7: %s", err.text);
        compare_rows(&rec, v, "last_temp0.7_top10_ids", "last_temp0.7_top10_probs", 1, 10,
                     v->string);
        CHECK(sampler_run(&s, &k5, last, NULL, 0, 0.5, 10, &rec, &err) == 0, "k=5: %s", err.text);
        compare_rows(&rec, v, "last_topk5_ids", "last_topk5_probs_renormalized_temp1", 2, 5,
                     v->string);
        CHECK(rec.kept_after_k == 5 && rec.rows[5].p_final == 0.0 && rec.chosen.rank < 5,
              "%s top-k=5: kept %d", v->string, rec.kept_after_k);
        n_files++;
    }
    /* tiny_s4 and tiny_s30 are vendored: at least those two always run */
    CHECK(n_files >= 2 && n_files + n_skipped >= 3, "reference: %d vector files checked", n_files);
    free(last);
    sampler_free(&s);
    cJSON_Delete(index);
}

int main(void) {
    test_rng();
    test_validation();
    test_frequencies();
    test_reference();

    ErrorMsg err = {{0}};
    Sampler s = {0};
    float *logits = malloc(GPT2_V * sizeof *logits);
    if (!logits || sampler_init(&s, GPT2_V, &err)) {
        CHECK(0, "setup: %s", err.text);
        free(logits);
        return check_summary("test_sampler");
    }
    random_logits(logits, GPT2_V, 1234, -5.0, 5.0);
    test_greedy(&s, logits);
    test_top_p_boundaries(&s, logits);
    test_temperature_extremes(&s, logits);
    test_record(&s, logits);
    test_reproducible(&s, logits);
    sampler_free(&s);
    free(logits);
    return check_summary("test_sampler");
}
