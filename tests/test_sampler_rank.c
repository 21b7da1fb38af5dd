/* test_sampler_rank.c — how sampler_run ranks the vocabulary, bit for bit: a draw that
 * lands beyond any short head ranks all 50,257 at once (sampler.c, rank_for_draw), a head
 * that ends inside a run of equal logits keeps its ties and leaves the ranks after it in
 * id order, and the record's sums run over the ranks in that order. Each case is checked
 * against sums written out here in the order the contract (sampler.h) states, compared
 * with ==, not a tolerance: a different order of the same terms changes the last bits.
 * Also the ranking itself on awkward floats (-0 and +0, -inf, subnormals, both signs),
 * through the float-key sort (input logits) and the double-key one (after penalties). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "sampler.h"

#define V 50257

static float g_logits[V];
static double g_z[V]; /* the logits the ranking sees, for the comparator */

static int by_z_desc(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (g_z[x] != g_z[y]) return g_z[x] > g_z[y] ? -1 : 1;
    return (x > y) - (x < y); /* equal logits (-0 == +0): the lower id first */
}

/* What a run with T = 1 and no cut must give: e = exp(z - max) summed by id, the
 * survivors ranked (head: the first `head` ranks; the rest in ascending id), p_final and
 * its running sum, and the record's sums over ranks [n, V) in that order. */
typedef struct Want {
    int order[V];
    double e[V], S, p_final[V], cum[V];
    double other_raw, other_final, kept_mass;
} Want;

static void want_fill(Want *w, size_t head, size_t n) {
    double mx = -INFINITY;
    for (size_t i = 0; i < V; i++)
        if (g_z[i] > mx) mx = g_z[i];
    w->S = 0.0;
    for (size_t i = 0; i < V; i++) {
        w->e[i] = exp((g_z[i] - mx) / 1.0);
        w->S += w->e[i];
    }
    for (int i = 0; i < V; i++) w->order[i] = i;
    qsort(w->order, V, sizeof *w->order, by_z_desc);
    if (head < V) { /* the rest back in id order */
        static char in_head[V];
        memset(in_head, 0, sizeof in_head);
        for (size_t r = 0; r < head; r++) in_head[w->order[r]] = 1;
        for (size_t id = 0, t = head; id < V; id++)
            if (!in_head[id]) w->order[t++] = (int)id;
    }
    double run = 0.0;
    for (size_t r = 0; r < V; r++) {
        w->p_final[r] = w->e[w->order[r]] / w->S;
        run += w->p_final[r];
        w->cum[r] = run;
    }
    double o_raw = 0.0, o_final = 0.0;
    for (size_t r = n; r < V; r++) {
        o_raw += w->e[w->order[r]];
        o_final += w->p_final[r];
    }
    w->other_raw = o_raw / w->S;
    w->other_final = o_final;
    w->kept_mass = 0.0;
    for (size_t r = 0; r < V; r++) w->kept_mass += w->p_final[r];
}

/* Runs the default chain with draw u and compares the record and the sampler's ranks
 * [0, head) with want_fill(head); n_ranked must be head. */
static void check_run(Sampler *s, double u, size_t head, const char *what) {
    static Want w;
    static SamplerRecord rec;
    const int top_n = 20;
    ErrorMsg err = {{0}};
    SamplerSettings set = sampler_settings_default();
    for (int i = 0; i < V; i++) g_z[i] = g_logits[i];
    if (sampler_run(s, &set, g_logits, NULL, 0, u, top_n, &rec, &err)) {
        CHECK(0, "%s: %s", what, err.text);
        return;
    }
    want_fill(&w, head, top_n);
    CHECK(s->n_ranked == (int)head && s->n_final == V, "%s: ranked %d of %d, want %zu of %d", what,
          s->n_ranked, s->n_final, head, V);
    size_t bad = 0, first_bad = 0;
    for (size_t r = 0; r < head && r < (size_t)s->n_ranked; r++)
        if (s->order[r] != w.order[r] || s->p_final[r] != w.p_final[r] || s->cum[r] != w.cum[r])
            if (bad++ == 0) first_bad = r;
    CHECK(bad == 0, "%s: %zu ranks differ, the first rank %zu (id %d, want %d)", what, bad, first_bad,
          s->order[first_bad], w.order[first_bad]);
    size_t pick = 0;
    while (pick + 1 < V && !(u < w.cum[pick])) pick++;
    CHECK(rec.chosen.id == w.order[pick] && rec.chosen.rank == (int)pick, "%s: chose %d at rank %d, want %d at %zu",
          what, rec.chosen.id, rec.chosen.rank, w.order[pick], pick);
    CHECK(rec.chosen.cum_hi == w.cum[pick] && rec.chosen.cum_lo == (pick ? w.cum[pick - 1] : 0.0),
          "%s: chosen interval [%.17g, %.17g) want [%.17g, %.17g)", what, rec.chosen.cum_lo, rec.chosen.cum_hi,
          pick ? w.cum[pick - 1] : 0.0, w.cum[pick]);
    CHECK(rec.other_raw == w.other_raw && rec.other_final == w.other_final && rec.other_temp == w.other_final &&
              rec.kept_mass == w.kept_mass,
          "%s: other raw %.17g final %.17g temp %.17g kept %.17g, want %.17g %.17g %.17g %.17g", what,
          rec.other_raw, rec.other_final, rec.other_temp, rec.kept_mass, w.other_raw, w.other_final,
          w.other_final, w.kept_mass);
    for (int j = 0; j < rec.n_stages; j++) /* the default chain changes nothing: the raw sums */
        CHECK(rec.stages[j].other == w.other_raw, "%s: stage %d other %.17g want %.17g", what, j,
              rec.stages[j].other, w.other_raw);
    /* the rest ranked afterwards: the same values as one pass over every rank */
    sampler_rank_all(s);
    want_fill(&w, V, top_n);
    bad = 0;
    for (size_t r = 0; r < V; r++)
        if (s->order[r] != w.order[r] || s->p_final[r] != w.p_final[r] || s->cum[r] != w.cum[r]) bad++;
    CHECK(bad == 0, "%s: after sampler_rank_all %zu ranks differ", what, bad);
}

/* Flat logits (random weights give these): the draw lands past any short head, so every
 * rank is known after the run, and all sums follow the full ranking. */
static void test_flat(Sampler *s) {
    Rng rng;
    rng_seed(&rng, 7);
    for (int i = 0; i < V; i++) g_logits[i] = (float)(2.0 * rng_uniform(&rng) - 1.0);
    const double us[] = {0.05, 0.5, 0.999};
    for (size_t k = 0; k < sizeof us / sizeof us[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "flat, u %g", us[k]);
        check_run(s, us[k], V, what);
    }
}

/* 300 tokens share the top logit (the rest close below, so the order of the sums shows): the head of 256 the record needs ends inside them, so
 * the head is all 300. A draw inside those 300 (but past what 256 of them hold) leaves
 * the rest unranked, in id order; a draw past them ranks everything. */
static void test_tied_head(Sampler *s) {
    Rng rng;
    rng_seed(&rng, 11);
    for (int i = 0; i < V; i++) g_logits[i] = (float)(rng_uniform(&rng) - 1.0);
    for (int i = 0; i < 300; i++) g_logits[i * 167 + 5] = 0.5f;
    for (int i = 0; i < V; i++) g_z[i] = g_logits[i];
    double S = 0.0;
    for (int i = 0; i < V; i++) S += exp(g_z[i] - 0.5);
    double tied = 300.0 / S; /* the mass of the tied head */
    CHECK(256.0 / S < tied && tied < 0.99, "tied head: 256 of them hold %g, all 300 %g", 256.0 / S, tied);
    check_run(s, 0.5 * (256.0 / S + tied), 300, "a draw inside a tied head past 256");
    check_run(s, 0.5 * 256.0 / S, 300, "a draw inside the first 256 of a tied head");
    check_run(s, tied + 0.5 * (1.0 - tied), V, "a draw past a tied head");
}

/* The head of 256 is found by a radix select over the keys (sampler.c, select_kth): here
 * the logits share their sign, exponent and top mantissa bits (all in [1, 1 + 2^-10)),
 * so the select narrows through several digits, and in the second case they take 40
 * values only, so the 256th ends inside a run of ties that the head keeps whole. The head
 * is the tokens at or above the 256th largest logit, counted here by a plain sort. */
static size_t head_of(size_t want) {
    static int order[V];
    for (int i = 0; i < V; i++) {
        g_z[i] = g_logits[i];
        order[i] = i;
    }
    qsort(order, V, sizeof *order, by_z_desc);
    size_t h = want;
    while (h < V && g_z[order[h]] == g_z[order[want - 1]]) h++;
    return h;
}

static void test_narrow_head(Sampler *s) {
    Rng rng;
    rng_seed(&rng, 19);
    for (int i = 0; i < V; i++) g_logits[i] = 1.0f + (float)ldexp(rng_uniform(&rng), -10);
    g_logits[777] = 8.0f; /* peaked, so that a draw at u 0.01 lands in the head */
    size_t h = head_of(256); /* floats near 1 are 2^-23 apart: a few ties, not many */
    check_run(s, 0.01, h, "a head selected among logits sharing their top bits");
    for (int i = 0; i < V; i++) g_logits[i] = 1.0f + (float)ldexp((double)(rng_next_u32(&rng) % 40), -12);
    g_logits[777] = 8.0f;
    h = head_of(256);
    CHECK(h > 256, "40 distinct logits: the head of 256 has %zu tokens (a tie run past it wanted)", h);
    check_run(s, 0.01, h, "a head selected inside a run of ties among 40 values");
}

/* The ranking on awkward values: -0 and +0 are equal (the lower id first), -inf ranks last,
 * subnormals and both signs in order; through the float keys (input logits) and, with a
 * repetition penalty that changes a few logits, the double keys. */
static void test_awkward_values(Sampler *s) {
    Rng rng;
    rng_seed(&rng, 3);
    const float special[] = {0.0f, -0.0f, -INFINITY, 1e-40f, -1e-40f, 1.0f, -1.0f, 3.4e38f, -3.4e38f};
    for (int i = 0; i < V; i++) {
        double x = rng_uniform(&rng);
        g_logits[i] = x < 0.3 ? special[(size_t)(rng_uniform(&rng) * 9) % 9] : (float)(4.0 * x - 2.0);
    }
    int ctx[40];
    for (int i = 0; i < 40; i++) ctx[i] = (i * 1259) % V;
    for (int pen = 0; pen < 2; pen++) {
        SamplerSettings set = sampler_settings_default();
        if (pen) set.repetition_penalty = 1.5f;
        static SamplerRecord rec;
        ErrorMsg err = {{0}};
        int ok = sampler_run(s, &set, g_logits, ctx, 40, 0.7, 10, &rec, &err) == 0;
        CHECK(ok, "awkward values: %s", err.text);
        if (!ok) continue;
        sampler_rank_all(s);
        for (int i = 0; i < V; i++) g_z[i] = g_logits[i];
        for (int i = 0; pen && i < rec.n_penalised; i++) g_z[rec.penalised[i].id] = rec.penalised[i].after;
        static int want[V];
        for (int i = 0; i < V; i++) want[i] = i;
        qsort(want, V, sizeof *want, by_z_desc);
        /* -inf tokens have probability 0 but are survivors of the default chain */
        CHECK(s->n_final == V, "awkward values: %d survivors", s->n_final);
        int bad = 0;
        for (int r = 0; r < V && r < s->n_final; r++) bad += s->order[r] != want[r];
        CHECK(bad == 0, "awkward values%s: %d ranks differ from the reference order", pen ? ", penalised" : "",
              bad);
    }
}

int main(void) {
    static Sampler s;
    ErrorMsg err = {{0}};
    if (sampler_init(&s, V, &err)) {
        CHECK(0, "sampler_init: %s", err.text);
        return check_summary("test_sampler_rank");
    }
    test_flat(&s);
    test_tied_head(&s);
    test_narrow_head(&s);
    test_awkward_values(&s);
    sampler_free(&s);
    return check_summary("test_sampler_rank");
}
