/* test_sampler_chain.c — the sampler's chain against an INDEPENDENT reference written
 * here in double from the published definitions (HF transformers' warpers, llama.cpp's
 * chain, the CTRL and OpenAI penalties): every stage alone and several orders, on random
 * logits with a repetitive context, compared stage by stage (kept counts exact, every
 * shown row's probability, the full final distribution, the chosen token); the issue's
 * case on the bundled model (T=5, top-k 50, top-p 0.95 -> 47 kept); penalties' record;
 * greedy with penalties; order parsing and validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_session.h"
#include "rng.h"
#include "sampler.h"
#include "session.h"

#define MAX_V 50257

/* ---- The reference: straight from the definitions, by id, no shared code ---------- */

typedef struct Ref {
    size_t V;
    double z[MAX_V];       /* current logit */
    int alive[MAX_V];
    int n_stages;
    int kept[8];           /* survivors after each stage */
    double p[8][MAX_V];    /* softmax over the survivors after each stage (0 if cut) */
    double pen_delta[MAX_V];
} Ref;

static const double *g_key; /* for the qsort comparator below */
static int by_key_desc(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (g_key[x] != g_key[y]) return g_key[x] > g_key[y] ? -1 : 1;
    return (x > y) - (x < y); /* equal logits: the lower id first */
}

/* Survivors sorted by z desc (ties by id) into idx; returns how many. */
static size_t ref_sorted(Ref *r, int *idx) {
    size_t m = 0;
    for (size_t i = 0; i < r->V; i++)
        if (r->alive[i]) idx[m++] = (int)i;
    g_key = r->z;
    qsort(idx, m, sizeof *idx, by_key_desc);
    return m;
}

/* p = softmax(z) over the survivors, computed in long double. */
static void ref_softmax(const Ref *r, double *p) {
    long double mx = -INFINITY, sum = 0.0L;
    for (size_t i = 0; i < r->V; i++)
        if (r->alive[i] && r->z[i] > mx) mx = r->z[i];
    for (size_t i = 0; i < r->V; i++)
        if (r->alive[i]) sum += expl((long double)r->z[i] - mx);
    for (size_t i = 0; i < r->V; i++)
        p[i] = r->alive[i] ? (double)(expl((long double)r->z[i] - mx) / sum) : 0.0;
}

static void ref_stage(Ref *r, SamplerStage st, const SamplerSettings *set, const int *ctx,
                      size_t n_ctx) {
    static int idx[MAX_V];
    static double p[MAX_V];
    size_t m = ref_sorted(r, idx), keep = m;
    ref_softmax(r, p);
    if (st == SAMPLER_STAGE_PENALTIES) {
        size_t start = set->penalty_window > 0 && (size_t)set->penalty_window < n_ctx
                           ? n_ctx - (size_t)set->penalty_window : 0;
        static int count[MAX_V];
        memset(count, 0, sizeof count);
        for (size_t i = start; i < n_ctx; i++) count[ctx[i]]++;
        for (size_t i = 0; i < r->V; i++) {
            if (!count[i]) continue;
            double x = r->z[i], th = set->repetition_penalty;
            x = x < 0 ? x * th : x / th; /* HF: torch.where(score < 0, score*p, score/p) */
            x = x - count[i] * (double)set->frequency_penalty - (double)set->presence_penalty;
            r->pen_delta[i] = x - r->z[i];
            r->z[i] = x;
        }
    } else if (st == SAMPLER_STAGE_TEMPERATURE) {
        for (size_t i = 0; i < r->V; i++) r->z[i] /= set->temperature;
    } else if (st == SAMPLER_STAGE_TOP_K) {
        if (set->top_k > 0 && (size_t)set->top_k < m) keep = (size_t)set->top_k;
    } else if (st == SAMPLER_STAGE_TOP_P) {
        if (set->top_p < 1.0f) { /* smallest head with cumulative probability >= p */
            double c = 0.0;
            for (keep = 0; keep < m;) {
                c += p[idx[keep++]];
                if (c >= (double)set->top_p) break;
            }
        }
    } else if (st == SAMPLER_STAGE_MIN_P) {
        if (set->min_p > 0.0f) { /* HF: remove probs < min_p * max */
            double bar = (double)set->min_p * p[idx[0]];
            keep = 0;
            for (size_t k = 0; k < m; k++) keep += p[idx[k]] >= bar || k == 0;
        }
    }
    for (size_t k = keep; k < m; k++) r->alive[idx[k]] = 0;
    ref_softmax(r, r->p[r->n_stages]);
    r->kept[r->n_stages++] = (int)keep;
}

static void ref_run(Ref *r, const float *logits, size_t V, const SamplerSettings *set,
                    const int *ctx, size_t n_ctx) {
    memset(r, 0, sizeof *r);
    r->V = V;
    for (size_t i = 0; i < V; i++) {
        r->z[i] = logits[i];
        r->alive[i] = 1;
    }
    for (int i = 0; i < SAMPLER_N_STAGES && set->order[i]; i++)
        ref_stage(r, (SamplerStage)set->order[i], set, ctx, n_ctx);
}

/* ---- Comparing a run with the reference -------------------------------------------- */

static void compare(Sampler *s, const float *logits, size_t V, const SamplerSettings *set,
                    const int *ctx, size_t n_ctx, double u, const char *what) {
    static Ref ref;
    ErrorMsg err = {{0}};
    SamplerRecord rec;
    if (sampler_run(s, set, logits, ctx, n_ctx, u, SAMPLER_MAX_SHOW, &rec, &err)) {
        CHECK(0, "%s: %s", what, err.text);
        return;
    }
    ref_run(&ref, logits, V, set, ctx, n_ctx);
    CHECK(rec.n_stages == ref.n_stages, "%s: %d stages want %d", what, rec.n_stages, ref.n_stages);
    int bad = 0;
    for (int j = 0; j < rec.n_stages && j < ref.n_stages; j++) {
        const SamplerStageRecord *st = &rec.stages[j];
        CHECK(st->stage == set->order[j] && st->kept == ref.kept[j], "%s stage %d (%s): kept %d want %d",
              what, j, sampler_stage_name((SamplerStage)st->stage), st->kept, ref.kept[j]);
        double shown = 0.0;
        for (int i = 0; i < rec.n; i++) {
            double want = ref.p[j][rec.rows[i].id];
            shown += want;
            if (fabs(st->p[i] - want) > 1e-9 && bad++ < 3)
                fprintf(stderr, "  %s stage %d row %d (id %d): p %.17g want %.17g\n", what, j, i,
                        rec.rows[i].id, st->p[i], want);
        }
        CHECK_CLOSE(st->other, 1.0 - shown, 1e-9, 0, "stage other mass");
    }
    CHECK(bad == 0, "%s: %d stage probabilities off by > 1e-9", what, bad);
    /* the whole final distribution, rank by rank, and the order it is ranked in */
    const double *pf = ref.p[ref.n_stages - 1];
    int n_alive = 0, bad_final = 0;
    for (size_t i = 0; i < V; i++) n_alive += ref.alive[i];
    CHECK(rec.n_kept == n_alive && s->n_final == n_alive, "%s: kept %d want %d", what, rec.n_kept,
          n_alive);
    double cum = 0.0;
    int want_pick = -1;
    sampler_rank_all(s); /* the run ranked a head; the rest now, for the rank-by-rank check */
    for (int r = 0; r < s->n_final; r++) {
        int id = s->order[r];
        if (!ref.alive[id] || fabs(s->p_final[r] - pf[id]) > 1e-12) bad_final++;
        if (r > 0 && ref.z[id] > ref.z[s->order[r - 1]]) bad_final++; /* ranked by the final logit */
        if (r > 0 && ref.z[id] == ref.z[s->order[r - 1]] && id < s->order[r - 1]) bad_final++; /* ties: lower id first */
        cum += pf[id];
        if (want_pick < 0 && u < cum) want_pick = id;
    }
    CHECK(bad_final == 0, "%s: %d final probabilities/ranks differ", what, bad_final);
    CHECK(want_pick < 0 || rec.chosen.id == want_pick, "%s: chose %d, the reference %d", what,
          rec.chosen.id, want_pick);
    CHECK(rec.chosen.kept && rec.chosen.cum_lo <= u && u < rec.chosen.cum_hi, "%s: u in the chosen interval",
          what);
}

static SamplerSettings with_order(SamplerSettings set, const char *order) {
    ErrorMsg err = {{0}};
    if (sampler_order_parse(order, &set, &err)) CHECK(0, "order '%s': %s", order, err.text);
    return set;
}

/* Logits for test_orders: uniform in [-5, 3), which is flat (the draw and the cuts go
 * past any short head); LOGITS_TIES: rounded to quarters, so every value is shared by
 * ~1,600 of 50,257 tokens and a ranked head ends inside a run of equal logits (the lower
 * id first); LOGITS_MASKED: every third token -inf, as a mask would; LOGITS_PEAKED: 30
 * tokens 12 higher, so top-p and min-p cut inside a short head. */
enum { LOGITS_FLAT, LOGITS_TIES, LOGITS_MASKED, LOGITS_PEAKED };
static const char *const LOGITS_NAME[] = {"flat", "ties", "masked", "peaked"};

/* Several orders on V tokens: V = 3000 ranks all survivors every time; a vocabulary's
 * 50,257 makes the sampler rank only a head (sampler.c) and the rest when a cut or the
 * draw goes past it: the same numbers either way. */
static void test_orders(size_t V, int kind) {
    static float logits[MAX_V];
    Rng rng;
    rng_seed(&rng, 19);
    for (size_t i = 0; i < V; i++) {
        double x = 8.0 * rng_uniform(&rng) - 5.0;
        logits[i] = (float)(kind == LOGITS_TIES ? floor(4.0 * x) / 4.0 : x);
        if (kind == LOGITS_MASKED && i % 3 == 1) logits[i] = -INFINITY;
        if (kind == LOGITS_PEAKED && i % (V / 30) == 7) logits[i] += 12.0f;
    }
    /* a repetitive context: a few ids many times, some with negative logits (masked:
     * only ids the mask keeps, multiples of 3) */
    int ctx[200];
    for (int i = 0; i < 200; i++) {
        ctx[i] = (int)(rng_uniform(&rng) * (i < 100 ? 12 : 3000));
        if (kind == LOGITS_MASKED) ctx[i] = ctx[i] / 3 * 3;
    }
    logits[ctx[0]] = -1.5f; /* a negative logit in the context: θ multiplies it */
    Sampler s = {0};
    ErrorMsg err = {{0}};
    if (sampler_init(&s, (int)V, &err)) {
        CHECK(0, "init: %s", err.text);
        return;
    }
    SamplerSettings base = sampler_settings_default();
    base.temperature = 0.7f;
    base.top_k = 400;
    base.top_p = 0.9f;
    base.min_p = 0.05f;
    base.repetition_penalty = 1.3f;
    base.frequency_penalty = 0.4f;
    base.presence_penalty = 0.6f;
    static const char *orders[] = {
        "penalties,temperature,top_k,top_p,min_p", /* HF */
        "penalties,top_k,top_p,min_p,temperature", /* llama.cpp: temperature last */
        "top_k,temperature,top_p",
        "top_k,penalties,temperature,top_p,min_p", /* penalties re-rank the survivors */
        "min_p,top_p,top_k,temperature,penalties",
        "temperature,penalties,min_p",             /* penalties on logits / T */
        "top_p", "min_p", "top_k", "temperature", "penalties",
    };
    const double us[3] = {0.01, 0.5, 0.97};
    char what[160];
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (int k = 0; k < 3; k++) {
            SamplerSettings set = with_order(base, orders[o]);
            snprintf(what, sizeof what, "V %zu %s: %s", V, LOGITS_NAME[kind], orders[o]);
            compare(&s, logits, V, &set, ctx, 200, us[k], what);
        }
    /* the window: only the last 30 context tokens count */
    SamplerSettings win = with_order(base, "penalties,top_p");
    win.penalty_window = 30;
    compare(&s, logits, V, &win, ctx, 200, 0.3, "window 30");
    /* HF's order with a hot temperature and top-k then top-p, where the renormalised
     * top-p cuts inside the top-k set */
    SamplerSettings hot = sampler_settings_default();
    hot.temperature = 5.0f;
    hot.top_k = 50;
    hot.top_p = 0.95f;
    memset(hot.order, 0, sizeof hot.order); /* all zero = the default order */
    SamplerSettings hot_explicit = with_order(hot, "penalties,temperature,top_k,top_p,min_p");
    compare(&s, logits, V, &hot_explicit, NULL, 0, 0.4, "hot k=50 p=0.95");
    SamplerRecord a, b;
    CHECK(sampler_run(&s, &hot, logits, NULL, 0, 0.4, 20, &a, &err) == 0 &&
              sampler_run(&s, &hot_explicit, logits, NULL, 0, 0.4, 20, &b, &err) == 0 &&
              a.n_kept == b.n_kept && a.chosen.id == b.chosen.id && a.n_stages == 5,
          "an all-zero order is the default order");
    sampler_free(&s);
}

/* ---- The issue's case on the bundled model ---------------------------------------- */

static void test_issue_case(void) {
    Session sess;
    ErrorMsg err = {{0}};
    if (check_open_bundled(&sess)) return;
    const int ids[3] = {7454, 2402, 257};
    CHECK(session_set_prompt_ids(&sess, ids, 3, &err) == 0, "prompt: %s", err.text);
    const float *logits = gpt2_trace_logits(&sess.trace, 2);
    size_t V = (size_t)sess.model.config.vocab_size;
    SamplerSettings set = sampler_settings_default();
    set.temperature = 5.0f;
    set.top_k = 50;
    set.top_p = 0.95f;
    SamplerRecord rec;
    CHECK(sampler_run(&sess.sampler, &set, logits, ids, 3, 0.5, 20, &rec, &err) == 0, "run: %s", err.text);
    CHECK(rec.kept_after_k == 50 && rec.kept_after_p == 47 && rec.n_kept == 47,
          "T=5 k=50 p=0.95 keeps %d then %d (HF: 50 then 47)", rec.kept_after_k, rec.kept_after_p);
    /* independently: the 50 best logits, softmax(l / 5) over them, smallest head >= 0.95 */
    static int idx[50257];
    static double key[50257];
    for (size_t i = 0; i < V; i++) {
        idx[i] = (int)i;
        key[i] = logits[i];
    }
    g_key = key;
    qsort(idx, V, sizeof *idx, by_key_desc);
    long double z = 0.0L, c = 0.0L;
    for (int k = 0; k < 50; k++) z += expl(((long double)logits[idx[k]] - logits[idx[0]]) / 5.0L);
    int m = 0;
    while (m < 50) {
        c += expl(((long double)logits[idx[m]] - logits[idx[0]]) / 5.0L) / z;
        m++;
        if (c >= 0.95L) break;
    }
    CHECK(m == 47, "independent HF top-p over the renormalised top-50 keeps %d", m);
    /* the old chain's answer, for the record: top-p on the un-renormalised mass of the
     * top 50 never reached 0.95, so it kept all 50 */
    long double all = 0.0L, head = 0.0L;
    for (size_t i = 0; i < V; i++) all += expl(((long double)logits[i] - logits[idx[0]]) / 5.0L);
    for (int k = 0; k < 50; k++) head += expl(((long double)logits[idx[k]] - logits[idx[0]]) / 5.0L);
    CHECK(head / all < 0.95L && fabs(rec.stages[2].mass_kept - (double)(head / all)) < 1e-9,
          "the top-50 set holds %.4Lf of the T=5 mass (< 0.95)", head / all);
    session_free(&sess);
}

/* ---- Penalties: the record, greedy, the formulas --------------------------------- */

static void test_penalties(void) {
    ErrorMsg err = {{0}};
    Sampler s = {0};
    CHECK(sampler_init(&s, 6, &err) == 0, "init 6");
    const float l[6] = {3.0f, 2.5f, -1.0f, 0.0f, 1.0f, 2.9f};
    const int ctx[7] = {0, 2, 0, 3, 4, 0, 5};
    SamplerSettings set = sampler_settings_default();
    set.repetition_penalty = 2.0f;
    set.frequency_penalty = 0.25f;
    set.presence_penalty = 0.5f;
    set.greedy = 1;
    SamplerRecord rec;
    CHECK(sampler_run(&s, &set, l, ctx, 7, 0.5, 6, &rec, &err) == 0, "greedy+pen: %s", err.text);
    /* by hand: id 0: 3/2 - 3*0.25 - 0.5 = 0.25; id 2: -1*2 - 0.75 = -2.75; id 3: 0 - 0.75;
     * id 4: 0.5 - 0.75 = -0.25; id 5: 1.45 - 0.75 = 0.7; id 1 (not in context) 2.5 wins */
    CHECK(rec.chosen.id == 1 && rec.greedy && rec.n_stages == 2 &&
              rec.stages[0].stage == SAMPLER_STAGE_PENALTIES && rec.stages[1].stage == SAMPLER_STAGE_GREEDY &&
              rec.stages[1].kept == 1, "greedy with penalties: argmax of the penalised logits");
    CHECK(rec.n_penalised == 5 && rec.n_penalised_total == 5 && rec.window_start == 0 && rec.n_context == 7,
          "5 distinct context tokens penalised (%d)", rec.n_penalised);
    const double want_after[6] = {0.25, 2.5, -2.75, -0.75, -0.25, (double)2.9f / 2 - 0.75};
    const int want_count[6] = {3, 0, 1, 1, 1, 1};
    for (int id = 0; id < 6; id++) {
        const SamplerPenalty *p = sampler_record_penalty(&rec, id);
        if (want_count[id] == 0) {
            CHECK(p == NULL, "id %d not penalised", id);
            continue;
        }
        CHECK(p && p->count == want_count[id] && p->before == l[id] && fabs(p->after - want_after[id]) < 1e-12,
              "id %d: count %d after %g", id, p ? p->count : -1, p ? p->after : 0.0);
    }
    for (int i = 0; i < rec.n; i++) {
        const SamplerRow *r = &rec.rows[i];
        CHECK(fabs(r->penalty - (want_after[r->id] - l[r->id])) < 1e-12, "row %d penalty", i);
    }
    CHECK(rec.rows[0].id == 1 && rec.rows[1].id == 5 && rec.rows[2].id == 0, "ranked by penalised logit");
    /* the window: the last 2 tokens (0, 5) only, so id 0 counts once, not 3 times:
     * 3/2 - 0.25 - 0.5 = 0.75; without the window's cut of id 4, 1.0 ranks above it */
    set.penalty_window = 2;
    CHECK(sampler_run(&s, &set, l, ctx, 7, 0.5, 6, &rec, &err) == 0 && rec.window_start == 5 &&
              rec.n_penalised == 2 && rec.penalised[0].id == 0 && rec.penalised[0].count == 1 &&
              fabs(rec.penalised[0].after - 0.75) < 1e-12 && rec.penalised[1].id == 5 &&
              rec.chosen.id == 1 && rec.rows[1].id == 4 && rec.rows[2].id == 0,
          "window 2: ids 0 (once) and 5 penalised (start %d, %d penalised, chose %d)",
          rec.window_start, rec.n_penalised, rec.chosen.id);
    /* penalties not in the order: nothing counted, the model's own argmax */
    SamplerSettings off = set;
    CHECK(sampler_order_parse("temperature,top_k", &off, &err) == 0, "parse");
    CHECK(sampler_run(&s, &off, l, ctx, 7, 0.5, 6, &rec, &err) == 0 && rec.n_penalised == 0 &&
              rec.chosen.id == 0 && rec.n_stages == 1, "no penalties stage: argmax 0");
    CHECK(sampler_settings_ignored(&off) == (1u << SAMPLER_STAGE_PENALTIES), "ignored: the penalties");
    /* a bad context id is refused, naming it */
    const int bad_ctx[2] = {1, 6};
    CHECK(sampler_run(&s, &set, l, bad_ctx, 2, 0.5, 6, &rec, &err) == -1 && strstr(err.text, "context[1] = 6"),
          "context id out of range: '%s'", err.text);
    CHECK(sampler_penalise(2.0, 0, &set) == 2.0 && sampler_penalise(0.0, 1, &set) == -0.75,
          "count 0 unchanged; 0 / θ = 0");
    sampler_free(&s);
}

/* ---- Settings: order text, validation --------------------------------------------- */

static void test_order_text(void) {
    ErrorMsg err = {{0}};
    SamplerSettings set = sampler_settings_default();
    char buf[128];
    sampler_order_format(&set, buf, sizeof buf);
    CHECK(strcmp(buf, "penalties,temperature,top_k,top_p,min_p") == 0, "default order: %s", buf);
    CHECK(sampler_order_parse(" top-k , top_p,min-p,temp ", &set, &err) == 0, "aliases: %s", err.text);
    sampler_order_format(&set, buf, sizeof buf);
    CHECK(strcmp(buf, "top_k,top_p,min_p,temperature") == 0, "parsed: %s", buf);
    CHECK(sampler_order_format(&set, buf, 4) == 29 && strlen(buf) == 3, "truncated format");
    SamplerSettings keep = set;
    const char *bad[4][2] = {{"", "empty"}, {"top_k,,top_p", "empty entry"},
                             {"top_k,nucleus", "unknown stage 'nucleus'"}, {"top_p,top-p", "top_p appears twice"}};
    for (int i = 0; i < 4; i++) {
        CHECK(sampler_order_parse(bad[i][0], &set, &err) == -1 && strstr(err.text, bad[i][1]) &&
                  memcmp(set.order, keep.order, sizeof keep.order) == 0,
              "'%s': '%s'", bad[i][0], err.text);
    }
    SamplerSettings v = sampler_settings_default();
    v.order[1] = SAMPLER_STAGE_PENALTIES;
    CHECK(sampler_settings_validate(&v, &err) == -1 && strstr(err.text, "twice"), "dup: %s", err.text);
    v = sampler_settings_default();
    v.order[2] = SAMPLER_STAGE_END;
    CHECK(sampler_settings_validate(&v, &err) == -1 && strstr(err.text, "after the end"), "gap: %s", err.text);
    v = sampler_settings_default();
    v.order[0] = SAMPLER_STAGE_GREEDY;
    CHECK(sampler_settings_validate(&v, &err) == -1 && strstr(err.text, "not a stage"), "greedy: %s", err.text);
    struct { float *f; float x; const char *name; } cases[] = {
        {&v.min_p, 1.5f, "min_p"}, {&v.min_p, NAN, "min_p"}, {&v.repetition_penalty, 0.0f, "repetition_penalty"},
        {&v.repetition_penalty, -1.0f, "repetition_penalty"}, {&v.repetition_penalty, INFINITY, "repetition_penalty"},
        {&v.frequency_penalty, NAN, "frequency_penalty"}, {&v.presence_penalty, -INFINITY, "presence_penalty"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v = sampler_settings_default();
        *cases[i].f = cases[i].x; /* points into v, which was just reset */
        CHECK(sampler_settings_validate(&v, &err) == -1 && strstr(err.text, cases[i].name), "%s %g: '%s'",
              cases[i].name, (double)cases[i].x, err.text);
    }
    v = sampler_settings_default();
    v.penalty_window = -1;
    CHECK(sampler_settings_validate(&v, &err) == -1 && strstr(err.text, "penalty_window"), "window -1");
    v = sampler_settings_default();
    v.frequency_penalty = -0.5f; /* OpenAI allows negative penalties (they reward repeats) */
    CHECK(sampler_settings_validate(&v, &err) == 0, "negative frequency penalty is legal");
}

int main(void) {
    test_orders(3000, LOGITS_FLAT);
    for (int kind = LOGITS_FLAT; kind <= LOGITS_PEAKED; kind++) test_orders(MAX_V, kind);
    test_issue_case();
    test_penalties();
    test_order_text();
    return check_summary("test_sampler_chain");
}
