/* test_probs_stages.c — the probability bars show the sampler's chain in the order it
 * ran (viz/panel_probs_layout.c: probs_stage_cells, probs_stage_text, probs_chain_text):
 * for llama.cpp's order (temperature last) with a repetition penalty, top-k, top-p and
 * min-p on, every row's stage list (names, kept counts, probabilities, where it was cut)
 * equals a chain computed here in double from the definitions, by id, sharing no code
 * with the sampler; the "all other" row sums what the rows do not show. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "panel_probs_layout.h"
#include "sampler.h"

#define V 16

/* The reference chain: survivors and the softmax over them after each stage. */
typedef struct RefChain {
    double z[V];
    int alive[V];
    int n;          /* stages that ran */
    int stage[8];
    int kept[8];
    double p[8][V]; /* by id, 0 once cut */
} RefChain;

static void ref_softmax(const RefChain *r, double *p) {
    double mx = -INFINITY, s = 0.0;
    for (int i = 0; i < V; i++)
        if (r->alive[i] && r->z[i] > mx) mx = r->z[i];
    for (int i = 0; i < V; i++) s += r->alive[i] ? exp(r->z[i] - mx) : 0.0;
    for (int i = 0; i < V; i++) p[i] = r->alive[i] ? exp(r->z[i] - mx) / s : 0.0;
}

/* Alive ids by z descending (ties: lower id first; the logits here have none). */
static int ref_ranked(const RefChain *r, int *idx) {
    int m = 0;
    for (int i = 0; i < V; i++)
        if (r->alive[i]) idx[m++] = i;
    for (int a = 1; a < m; a++)
        for (int b = a; b > 0 && r->z[idx[b]] > r->z[idx[b - 1]]; b--) {
            int t = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = t;
        }
    return m;
}

static void ref_run(RefChain *r, const float *logits, const int *ctx, int n_ctx, double theta, double T,
                    int k, double top_p, double min_p, const int *order, int n_order) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < V; i++) r->z[i] = logits[i], r->alive[i] = 1;
    for (int s = 0; s < n_order; s++) {
        int idx[V], m = ref_ranked(r, idx);
        double p[V];
        ref_softmax(r, p);
        if (order[s] == SAMPLER_STAGE_PENALTIES) {
            int seen[V] = {0};
            for (int i = 0; i < n_ctx; i++) seen[ctx[i]] = 1;
            for (int i = 0; i < V; i++) /* HF: score < 0 ? score * θ : score / θ */
                if (seen[i]) r->z[i] = r->z[i] < 0 ? r->z[i] * theta : r->z[i] / theta;
        } else if (order[s] == SAMPLER_STAGE_TEMPERATURE) {
            for (int i = 0; i < V; i++) r->z[i] /= T;
        } else if (order[s] == SAMPLER_STAGE_TOP_K) {
            for (int j = k; j < m; j++) r->alive[idx[j]] = 0;
        } else if (order[s] == SAMPLER_STAGE_TOP_P) {
            double c = 0.0;
            int j = 0;
            while (j < m && c < top_p) c += p[idx[j++]];
            for (; j < m; j++) r->alive[idx[j]] = 0;
        } else if (order[s] == SAMPLER_STAGE_MIN_P) {
            for (int j = 0; j < m; j++)
                if (p[idx[j]] < min_p * p[idx[0]]) r->alive[idx[j]] = 0;
        }
        r->stage[r->n] = order[s];
        ref_softmax(r, r->p[r->n]);
        for (int i = 0; i < V; i++) r->kept[r->n] += r->alive[i];
        r->n++;
    }
}

int main(void) {
    float logits[V];
    for (int i = 0; i < V; i++) logits[i] = (float)(2.5 - 0.41 * i + 0.13 * sin(1.7 * i));
    int ctx[] = {3, 0, 3, 7}; /* ids 0, 3, 7 in the context: penalised */
    SamplerSettings set = sampler_settings_default();
    set.repetition_penalty = 1.8f;
    set.temperature = 1.7f;
    set.top_k = 12;
    set.top_p = 0.9f;
    set.min_p = 0.2f;
    ErrorMsg err = {0};
    CHECK(sampler_order_parse("penalties,top_k,top_p,min_p,temperature", &set, &err) == 0, "order: %s", err.text);
    Sampler s = {0};
    CHECK(sampler_init(&s, V, &err) == 0, "init: %s", err.text);
    SamplerRecord *rec = calloc(1, sizeof *rec);
    CHECK(sampler_run(&s, &set, logits, ctx, 4, 0.5, 10, rec, &err) == 0, "run: %s", err.text);

    RefChain ref;
    int order[] = {SAMPLER_STAGE_PENALTIES, SAMPLER_STAGE_TOP_K, SAMPLER_STAGE_TOP_P, SAMPLER_STAGE_MIN_P,
                   SAMPLER_STAGE_TEMPERATURE};
    /* the settings are floats: the reference takes the same values (1.8f, not 1.8) */
    ref_run(&ref, logits, ctx, 4, (double)set.repetition_penalty, (double)set.temperature, 12, (double)set.top_p,
            (double)set.min_p, order, 5);
    /* the case is not trivial: each cut removes something, temperature runs last */
    CHECK(ref.kept[1] == 12 && ref.kept[2] < 12 && ref.kept[3] < ref.kept[2] && ref.kept[4] == ref.kept[3],
          "reference kept %d %d %d %d", ref.kept[1], ref.kept[2], ref.kept[3], ref.kept[4]);

    static const char *const want_name[] = {"penalties", "top-k 12", "top-p 0.9", "min-p 0.2", "T=1.7"};
    int rows_cut = 0;
    for (int i = 0; i < rec->n; i++) {
        int id = rec->rows[i].id;
        ProbsStageCell c[SAMPLER_N_STAGES + 1];
        int n = probs_stage_cells(rec, i, 0, c, SAMPLER_N_STAGES + 1);
        /* the list ends where the reference cuts the token */
        int want_n = 5;
        for (int j = 0; j < 5; j++)
            if (ref.p[j][id] == 0.0) {
                want_n = j + 1;
                break;
            }
        CHECK(n == want_n, "row %d (id %d): %d stages shown, reference %d", i, id, n, want_n);
        for (int j = 0; j < n && j < 5; j++) {
            CHECK(strcmp(c[j].name, want_name[j]) == 0, "row %d stage %d: '%s', want '%s'", i, j, c[j].name,
                  want_name[j]);
            CHECK(c[j].stage == ref.stage[j], "row %d stage %d kind", i, j);
            CHECK(c[j].kept == ref.kept[j], "row %d stage %d kept %d, reference %d", i, j, c[j].kept, ref.kept[j]);
            CHECK_CLOSE(c[j].p, ref.p[j][id], 1e-12, 1e-9, "stage p");
            CHECK(c[j].cut == (j == n - 1 && ref.p[j][id] == 0.0), "row %d stage %d cut flag", i, j);
        }
        if (n < 5) rows_cut++;
    }
    CHECK(rows_cut >= 2, "some shown rows are cut by a stage (%d)", rows_cut);

    /* "all other" beyond 3 shown rows: the reference's sum over every other token */
    int shown = 3;
    ProbsStageCell o[SAMPLER_N_STAGES + 1];
    int no = probs_stage_cells(rec, -1, shown, o, SAMPLER_N_STAGES + 1);
    CHECK(no == 5, "all other: %d stages", no);
    for (int j = 0; j < no && j < 5; j++) {
        double want = 1.0;
        for (int i = 0; i < shown; i++) want -= ref.p[j][rec->rows[i].id];
        CHECK_CLOSE(o[j].p, want, 1e-9, 0, "all other stage p");
    }

    /* the words the bars print, in chain order */
    char buf[256];
    probs_chain_text(rec, buf, sizeof buf);
    char want_chain[256];
    snprintf(want_chain, sizeof want_chain, "penalties 16 \xE2\x86\x92 top-k 12 12 \xE2\x86\x92 top-p 0.9 %d \xE2\x86\x92 min-p 0.2 %d \xE2\x86\x92 T=1.7 %d",
             ref.kept[2], ref.kept[3], ref.kept[4]);
    CHECK(strcmp(buf, want_chain) == 0, "chain text '%s', want '%s'", buf, want_chain);
    probs_stage_text(rec, 0, 0, buf, sizeof buf);
    const char *pt = strstr(buf, "top-p"), *pm = strstr(buf, "min-p"), *pT = strstr(buf, "T=1.7");
    CHECK(strncmp(buf, "T=1 ", 4) == 0 && pt && pm && pT && pt < pm && pm < pT, "row 0 text in chain order: '%s'", buf);

    free(rec);
    sampler_free(&s);
    return check_summary("test_probs_stages");
}
