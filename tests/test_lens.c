/* test_lens.c — the logit lens, the lens grid, direct logit attribution and the token
 * journey against independent float64 numbers: the lens against the reference vectors'
 * residual streams of tiny_s30 (emb, h.i.res_attn, h.i.res_mlp pushed through ln_f and
 * wte in float64 here), also through `inferscope lens --json`; the grid incrementally vs
 * from scratch (step, step back, branch, ablation); the attribution and the journey
 * against the float64 forward of ref_gpt2_f64.h (components within 1e-4, the sum equal
 * to the model's logit within 1e-3), on the tiny and the bundled model, with ablation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "check_model.h"
#include "check_run.h"
#include "gpt2_forward.h"
#include "half.h"
#include "kernels.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "kernels.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "ref_gpt2_f64.h"
#include "safetensors.h"
#include "token_journey.h"
#include "unembed_many.h"

static const int S30[30] = {7454, 2402, 257, 640, 11, 612, 373, 257, 1310, 2576, 3706, 20037, 13, 1375, 6151,
                            284, 711, 2354, 287, 262, 34488, 13, 1881, 1110, 11, 673, 2497, 257, 1263, 11};
static char g_path[1024], g_bin[1024];

static const char *ref_path(const char *rel) {
    snprintf(g_path, sizeof g_path, "%s/%s", check_ref_dir(), rel);
    return g_path;
}

/* Row pos (C floats) of reference tensor `name` (T, C) as doubles, or 0 when missing. */
static int ref_row(const SafeFile *f, const char *name, int pos, int C, double *out) {
    const SafeTensor *t = safe_find(f, name);
    CHECK(t && t->dtype == SAFE_F32 && t->ndim == 2 && (int)t->shape[1] == C, "reference %s missing", name);
    if (!t || t->dtype != SAFE_F32 || t->ndim != 2 || (int)t->shape[1] != C) return 0;
    for (int i = 0; i < C; i++) {
        float v;
        memcpy(&v, (const char *)t->data + ((size_t)pos * (size_t)C + (size_t)i) * sizeof v, sizeof v);
        out[i] = v;
    }
    return 1;
}

/* The reference name of lens row k (with the attention halves). */
static void ref_name(int k, char *buf, size_t cap) {
    int layer, block;
    LensWhere where;
    logit_lens_row_id(k, 1, &layer, &block, &where);
    if (where == LENS_EMBED) snprintf(buf, cap, "emb");
    else snprintf(buf, cap, "h.%d.%s", block, where == LENS_RESID_MID ? "res_attn" : "res_mlp");
}

/* One lens row (top ids/probs, the final token's p and rank) against float64 logits. */
static void check_row(const char *what, const double *lg, int V, const int *top_id, const float *top_p, int n_top,
                      int final, double final_p, int final_rank) {
    int lo, hi;
    double mx = -INFINITY;
    for (int v = 0; v < V; v++) mx = fmax(mx, lg[v]);
    for (int i = 0; i < n_top; i++) {
        double q = ref64_prob(lg, V, top_id[i], 0, NULL, NULL);
        CHECK(fabs(top_p[i] - q) <= 1e-5 && fabs(top_p[i] - q) <= 1e-4 * q + 1e-12, "%s: top %d p %.9g vs float64 %.9g",
              what, i, (double)top_p[i], q);
    }
    CHECK(n_top == 0 || lg[top_id[0]] >= mx - 1e-4, "%s: top id %d is not the float64 argmax", what, top_id[0]);
    double q = ref64_prob(lg, V, final, 1e-4, &lo, &hi);
    CHECK(fabs(final_p - q) <= 1e-5 && fabs(final_p - q) <= 1e-4 * q + 1e-12, "%s: final p %.9g vs float64 %.9g",
          what, final_p, q);
    CHECK(final_rank >= lo && final_rank <= hi, "%s: final rank %d outside float64's %d..%d", what, final_rank, lo, hi);
}

/* float64 lens logits of a reference stream row. */
static void lens64(const Gpt2Model *m, const double *x, double *lg) { ref64_unembed(m, x, lg); }

static void test_lens_vs_reference(const Gpt2Model *m) {
    SafeFile f;
    ErrorMsg err = {{0}};
    if (check_open_ref(&f, "vectors/tiny_s30.safetensors")) return;
    const int C = m->config.n_embd, V = m->config.vocab_size, T = 30, D = logit_lens_n_rows(&m->config, 1);
    Gpt2Trace tr = {0};
    LogitLens lens = {0};
    LensRow *rows = calloc((size_t)D, sizeof *rows);
    double *x = malloc((size_t)C * sizeof *x), *lg = malloc((size_t)V * sizeof *lg);
    if (!rows || !x || !lg || gpt2_trace_init(&tr, &m->config, T, GPT2_CAP_RESID | GPT2_CAP_RESID_MID, &err) ||
        gpt2_prefill(m, &tr, S30, T, &err) || logit_lens_init(&lens, &m->config, m->config.vocab_size, &err)) {
        CHECK(0, "lens setup: %s", err.text);
        goto done;
    }
    CHECK(D == 5, "tiny: 5 depths with the halves (%d)", D);
    const int positions[3] = {0, 17, 29};
    for (int pi = 0; pi < 3; pi++) {
        int pos = positions[pi];
        int n = logit_lens_at(&lens, m, &tr, pos, -1, 1, 10, rows, &err);
        CHECK(n == D, "lens at %d: %s", pos, err.text);
        if (n != D) continue;
        /* the final token: the next one of the text, or at the end the model's argmax */
        int want_final = pos + 1 < T ? S30[pos + 1] : -1;
        if (want_final < 0) {
            ref_row(&f, "h.1.res_mlp", pos, C, x);
            lens64(m, x, lg);
            want_final = 0;
            for (int v = 1; v < V; v++) want_final = lg[v] > lg[want_final] ? v : want_final;
        }
        CHECK(rows[0].target.id == want_final, "pos %d: final token %d, want %d", pos, rows[0].target.id, want_final);
        for (int k = 0; k < D; k++) {
            char name[32], what[64];
            ref_name(k, name, sizeof name);
            if (!ref_row(&f, name, pos, C, x)) continue;
            lens64(m, x, lg);
            snprintf(what, sizeof what, "lens pos %d %s", pos, name);
            check_row(what, lg, V, rows[k].top_id, rows[k].top_p, rows[k].n_top, rows[k].target.id, rows[k].target.p,
                      rows[k].target.rank);
            CHECK(rows[k].n_top == 10 && rows[k].layer == (k + 1) / 2, "%s: 10 tokens, layer %d", what, rows[k].layer);
        }
    }
    /* refusals */
    Gpt2Trace bare = {0};
    gpt2_trace_init(&bare, &m->config, 4, 0, &err);
    gpt2_prefill(m, &bare, S30, 4, &err);
    CHECK(logit_lens_at(&lens, m, &bare, 0, -1, 0, 5, rows, &err) == -1 && strstr(err.text, "GPT2_CAP_RESID"),
          "no residuals refused: %s", err.text);
    gpt2_trace_free(&bare);
    gpt2_trace_init(&bare, &m->config, 4, GPT2_CAP_RESID, &err);
    gpt2_prefill(m, &bare, S30, 4, &err);
    CHECK(logit_lens_at(&lens, m, &bare, 0, -1, 1, 5, rows, &err) == -1 && strstr(err.text, "RESID_MID"),
          "halves without RESID_MID refused: %s", err.text);
    CHECK(logit_lens_at(&lens, m, &bare, 4, -1, 0, 5, rows, &err) == -1, "position past the end refused");
    CHECK(logit_lens_at(&lens, m, &bare, 0, V, 0, 5, rows, &err) == -1, "target outside the vocabulary refused");
    gpt2_trace_free(&bare);
done:
    free(rows);
    free(x);
    free(lg);
    logit_lens_free(&lens);
    gpt2_trace_free(&tr);
    safe_close(&f);
}

/* ---- the CLI ------------------------------------------------------------------------ */

static void ids_arg(char *buf, size_t cap, int n) {
    size_t len = 0;
    for (int i = 0; i < n; i++) len += (size_t)snprintf(buf + len, cap - len, i ? ",%d" : "%d", S30[i]);
}

static void test_cli_lens(const Gpt2Model *m, const char *model_dir) {
    SafeFile f;
    ErrorMsg err = {{0}};
    if (safe_open(&f, ref_path("vectors/tiny_s30.safetensors"), &err)) return;
    if (access(g_bin, X_OK) != 0) { /* an engine-only build (test-wasm) has no CLI beside it */
        printf("SKIPPED: lens --json: no inferscope binary at '%s'\n", g_bin);
        safe_close(&f);
        return;
    }
    const int C = m->config.n_embd, V = m->config.vocab_size;
    char cmd[4096], ids[512];
    ids_arg(ids, sizeof ids, 30);
    snprintf(cmd, sizeof cmd, "%s lens --model %s --ids %s --pos 17 --top 4 --mid --json", g_bin, model_dir, ids);
    int st = -1;
    char *out = check_run(cmd, &st);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CHECK(st == 0 && j, "lens --json ran and printed JSON (status %d)", st);
    double *x = malloc((size_t)C * sizeof *x), *lg = malloc((size_t)V * sizeof *lg);
    if (j && x && lg) {
        CHECK(cJSON_GetObjectItem(j, "pos")->valueint == 17, "pos 17");
        const cJSON *fin = cJSON_GetObjectItem(j, "final");
        int final = cJSON_GetObjectItem(fin, "id")->valueint;
        CHECK(final == S30[18] && strcmp(cJSON_GetObjectItem(j, "final_is")->valuestring, "next_token") == 0,
              "final = the next token of the text");
        int k = 0;
        static const char *const where[5] = {"embed", "resid_mid", "resid_post", "resid_mid", "resid_post"};
        for (const cJSON *r = cJSON_GetObjectItem(j, "layers")->child; r; r = r->next, k++) {
            if (k >= 5) break;
            char name[32], what[64];
            ref_name(k, name, sizeof name);
            snprintf(what, sizeof what, "lens --json %s", name);
            CHECK(cJSON_GetObjectItem(r, "layer")->valueint == (k + 1) / 2 &&
                      strcmp(cJSON_GetObjectItem(r, "where")->valuestring, where[k]) == 0,
                  "%s: layer and where", what);
            int tid[4];
            float tp[4];
            int n = 0;
            for (const cJSON *t = cJSON_GetObjectItem(r, "top")->child; t && n < 4; t = t->next, n++) {
                tid[n] = cJSON_GetObjectItem(t, "id")->valueint;
                tp[n] = (float)cJSON_GetObjectItem(t, "p")->valuedouble;
            }
            if (!ref_row(&f, name, 17, C, x)) continue;
            lens64(m, x, lg);
            check_row(what, lg, V, tid, tp, n, final, cJSON_GetObjectItem(r, "final_p")->valuedouble,
                      cJSON_GetObjectItem(r, "final_rank")->valueint);
        }
        CHECK(k == 5, "5 rows (%d)", k);
    }
    cJSON_Delete(j);
    free(out);
    free(x);
    free(lg);
    safe_close(&f);
}

/* ---- the grid ----------------------------------------------------------------------- */

/* Every valid column of g equals a fresh logit_lens_at of the trace. */
static void check_grid(const char *what, LogitLens *lens, const LensGrid *g, const Gpt2Model *m,
                       const Gpt2Trace *tr) {
    LensRow rows[5];
    int bad = 0;
    CHECK(g->n_pos == tr->n_pos, "%s: %d columns for %d positions", what, g->n_pos, tr->n_pos);
    for (int p = 0; p < g->n_pos; p++) {
        ErrorMsg err;
        if (logit_lens_at(lens, m, tr, p, -1, 0, 1, rows, &err) != g->n_rows) {
            bad++;
            continue;
        }
        for (int k = 0; k < g->n_rows; k++) {
            size_t c = (size_t)p * (size_t)g->n_rows + (size_t)k;
            bad += g->top_id[c] != rows[k].top_id[0] || g->top_p[c] != rows[k].top_p[0] ||
                   g->final_rank[c] != rows[k].target.rank ||
                   fabs(g->final_p[c] - rows[k].target.p) > 1e-6 * rows[k].target.p ||
                   g->final_id[p] != rows[k].target.id;
        }
    }
    CHECK(bad == 0, "%s: %d cells differ from a fresh lens", what, bad);
}

static int rows_equal(const LensRow *a, const LensRow *b, int n) {
    for (int k = 0; k < n; k++) {
        if (a[k].n_top != b[k].n_top || a[k].target.rank != b[k].target.rank || a[k].target.p != b[k].target.p)
            return 0;
        for (int i = 0; i < a[k].n_top; i++)
            if (a[k].top_id[i] != b[k].top_id[i] || a[k].top_p[i] != b[k].top_p[i]) return 0;
    }
    return 1;
}

static void test_grid(const Gpt2Model *m) {
    Gpt2Trace tr = {0};
    LogitLens lens = {0}, check_lens = {0};
    LensGrid g = {0};
    ErrorMsg err = {{0}};
    const int V = m->config.vocab_size;
    if (gpt2_trace_init(&tr, &m->config, 30, GPT2_CAP_DEFAULT, &err) || logit_lens_init(&lens, &m->config, V, &err) ||
        logit_lens_init(&check_lens, &m->config, V, &err) || logit_lens_grid_init(&g, &m->config, 30, 0, &err) ||
        gpt2_prefill(m, &tr, S30, 20, &err)) {
        CHECK(0, "grid setup: %s", err.text);
        goto done;
    }
    CHECK(logit_lens_grid_update(&lens, &g, m, &tr, &err) == 20, "20 columns computed: %s", err.text);
    check_grid("after the prompt", &check_lens, &g, m, &tr);
    CHECK(logit_lens_grid_update(&lens, &g, m, &tr, &err) == 0, "up to date: nothing computed");
    int newest_final = g.final_id[19];
    gpt2_step(m, &tr, S30[20], &err);
    CHECK(logit_lens_grid_update(&lens, &g, m, &tr, &err) == 1, "one step: one column (the old newest reuses logits)");
    CHECK(g.final_id[19] == S30[20] && (newest_final == S30[20] || g.final_id[19] != newest_final),
          "the old newest column now ranks the token that came");
    check_grid("after a step", &check_lens, &g, m, &tr);
    gpt2_trace_truncate(&tr, 15);
    CHECK(logit_lens_grid_update(&lens, &g, m, &tr, &err) == 1 && g.n_pos == 15,
          "step back: column 14 becomes the newest again (recomputed: its logits are gone)");
    check_grid("after stepping back", &check_lens, &g, m, &tr);
    gpt2_step(m, &tr, 1110, &err); /* a branch: another token at 15 */
    int got = logit_lens_grid_update(&lens, &g, m, &tr, &err);
    CHECK(got == 1 || got == 2, "branch: the new column (+ column 14 unless its logits were reused): %d", got);
    check_grid("after a branch", &check_lens, &g, m, &tr);
    /* the lens remembers its last column: a second look is free, another token is not */
    LensRow r1[3], r2[3], r3[3], r4[3];
    logit_lens_at(&lens, m, &tr, 15, -1, 0, 3, r1, &err);
    unsigned long before = lens.n_columns;
    logit_lens_at(&lens, m, &tr, 15, -1, 0, 3, r2, &err);
    CHECK(lens.n_columns == before, "the second look computed nothing");
    gpt2_trace_truncate(&tr, 15);
    gpt2_step(m, &tr, 262, &err);
    logit_lens_at(&lens, m, &tr, 15, -1, 0, 3, r3, &err);
    logit_lens_at(&check_lens, m, &tr, 15, -1, 0, 3, r4, &err);
    CHECK(rows_equal(r1, r2, 3), "a second look at the same column gives the same rows");
    CHECK(rows_equal(r3, r4, 3) && !rows_equal(r1, r3, 3),
          "another token at the position: recomputed (as a fresh lens), not the cached column");
    Gpt2Ablation ab = {0};
    gpt2_ablation_parse(&ab, &m->config, "0.1", &err);
    gpt2_trace_set_ablation(&tr, &ab, &err);
    gpt2_prefill(m, &tr, S30, 16, &err);
    CHECK(logit_lens_grid_update(&lens, &g, m, &tr, &err) == 16, "another ablation: every column again");
    check_grid("ablated", &check_lens, &g, m, &tr);
    gpt2_ablation_free(&ab);
done:
    logit_lens_grid_free(&g);
    logit_lens_grid_free(&g);
    logit_lens_free(&lens);
    logit_lens_free(&check_lens);
    gpt2_trace_free(&tr);
}

/* ---- attribution and journey vs float64 ---------------------------------------------- */

static void check_attribution(const Gpt2Model *m, const int *ids, int T, const char *spec, const char *what) {
    const int L = m->config.n_layer, NH = m->config.n_head;
    unsigned char head[4096] = {0}, attn[64] = {0}, mlp[64] = {0};
    Gpt2Ablation ab = {0};
    ErrorMsg err = {{0}};
    if (spec && gpt2_ablation_parse(&ab, &m->config, spec, &err) == 0)
        for (int l = 0; l < L; l++) {
            for (int h = 0; h < NH; h++) head[l * NH + h] = (unsigned char)gpt2_ablation_is_off(&ab, GPT2_ABL_HEAD, l, h);
            attn[l] = (unsigned char)gpt2_ablation_is_off(&ab, GPT2_ABL_ATTN, l, 0);
            mlp[l] = (unsigned char)gpt2_ablation_is_off(&ab, GPT2_ABL_MLP, l, 0);
        }
    Ref64Ablation rab = {head, attn, mlp};
    Ref64 r;
    Gpt2Trace tr = {0};
    Attribution at = {0};
    TokenJourney jy = {0};
    LogitLens lens = {0};
    double *comp = malloc(((size_t)L * (NH + 1) + 2) * sizeof *comp);
    if (!comp || ref64_forward(m, ids, T, &rab, &r) || gpt2_trace_init(&tr, &m->config, T, GPT2_CAP_DEFAULT, &err) ||
        gpt2_trace_set_ablation(&tr, &ab, &err) || gpt2_prefill(m, &tr, ids, (size_t)T, &err) ||
        attribution_init(&at, &m->config, &err) || token_journey_init(&jy, &m->config, &err) ||
        logit_lens_init(&lens, &m->config, m->config.vocab_size, &err)) {
        CHECK(0, "%s: setup: %s", what, err.text);
        free(comp);
        goto done;
    }
    const int cases[3][3] = {{T - 1, ids[1], -1}, {T - 1, ids[2], ids[3]}, {T / 2, ids[T / 2 + 1], ids[0]}};
    for (int c = 0; c < 3; c++) {
        int pos = cases[c][0], target = cases[c][1], vs = cases[c][2];
        if (attribution_run(&at, m, &tr, pos, target, vs, &err)) {
            CHECK(0, "%s: %s", what, err.text);
            continue;
        }
        double d64 = attribution64(m, &r, attn, pos, target, vs, comp), worst = 0;
        int wi = 0;
        for (int i = 0; i < at.n; i++)
            if (fabs(at.comp[i].value - comp[i]) > worst) worst = fabs(at.comp[i].value - comp[i]), wi = i;
        CHECK(worst <= 1e-4, "%s case %d: component %s %.9g vs float64 %.9g", what, c, at.comp[wi].name,
              at.comp[wi].value, comp[wi]);
        CHECK(fabs(at.sum - at.total) <= 1e-3 && at.total_from_logits, "%s case %d: sum %.9g vs the model's logit %.9g",
              what, c, at.sum, at.total);
        CHECK(fabs(at.total - d64) <= 1e-3, "%s case %d: total %.9g vs float64 %.9g", what, c, at.total, d64);
        double mag = 0;
        for (int i = 0; i < at.n; i++) mag = fmax(mag, fabs(comp[i]));
        CHECK(mag > 1e-3, "%s case %d: components are not all ~0 (max %.3g): the test bites", what, c, mag);
        CHECK(fabs(at.comp[at.order[0]].value) >= fabs(at.comp[at.order[at.n - 1]].value), "%s: order by |value|", what);
        for (int l = 0; l < L; l++)
            for (int h = 0; h < NH; h++)
                if (head[l * NH + h] || attn[l])
                    CHECK(at.comp[attribution_head_index(NH, l, h)].value == 0.0, "%s: switched-off L%dH%d adds 0", what,
                          l, h);
    }
    /* the journey of the newest position: norms vs the float64 streams */
    if (token_journey_at(&jy, &lens, m, &tr, T - 1, &err) == 0) {
        const size_t TC = (size_t)T * (size_t)r.C;
        double worst = 0;
        for (int k = 0; k <= L; k++) {
            const double *x = r.resid + (size_t)k * TC + (size_t)(T - 1) * r.C;
            double n64 = sqrt(dot64(x, x, r.C));
            worst = fmax(worst, fabs(jy.stage[k].norm - n64) / n64);
            if (k == 0) continue;
            const double *ao = r.attn_out + (size_t)(k - 1) * TC + (size_t)(T - 1) * r.C;
            const double *mo = r.mlp_out + (size_t)(k - 1) * TC + (size_t)(T - 1) * r.C;
            double a64 = sqrt(dot64(ao, ao, r.C)), m64 = sqrt(dot64(mo, mo, r.C));
            worst = fmax(worst, fabs(jy.stage[k].attn_norm - a64) / fmax(a64, 1e-3));
            worst = fmax(worst, fabs(jy.stage[k].mlp_norm - m64) / fmax(m64, 1e-3));
        }
        CHECK(worst <= 1e-4, "%s: journey norms vs float64, worst relative error %.3g", what, worst);
        CHECK(jy.n_stages == L + 3 && jy.stage[L + 2].kind == JOURNEY_LOGITS && jy.stage[L + 1].kind == JOURNEY_LN_FINAL,
              "%s: embed, %d blocks, ln_final, logits", what, L);
        float v;
        int top;
        kern_topk(&top, &v, gpt2_trace_logits(&tr, T - 1), (size_t)m->config.vocab_size, 1);
        CHECK(jy.stage[L + 2].top_id[0] == top && jy.stage[L].top_id[0] == top, "%s: journey ends at the model's top-1",
              what);
    } else {
        CHECK(0, "%s: journey: %s", what, err.text);
    }
    free(comp);
done:
    ref64_free(&r);
    gpt2_ablation_free(&ab);
    attribution_free(&at);
    attribution_free(&at);
    token_journey_free(&jy);
    logit_lens_free(&lens);
    gpt2_trace_free(&tr);
}

static void test_journey_shapes(const Gpt2Model *m) {
    TokenJourney j = {0};
    ErrorMsg err = {{0}};
    if (token_journey_init(&j, &m->config, &err)) {
        CHECK(0, "journey init: %s", err.text);
        return;
    }
    const JourneyStage *b = &j.stage[2]; /* block 1 */
    int found = 0;
    for (int i = 0; i < b->n_tensors; i++) {
        found += strcmp(b->tensors[i].name, "blocks.1.attn.hook_pattern") == 0 && strcmp(b->tensors[i].shape, "[4, T, T]") == 0;
        found += strcmp(b->tensors[i].name, "blocks.1.attn.hook_q") == 0 && strcmp(b->tensors[i].shape, "[4, T, 16]") == 0;
        found += strcmp(b->tensors[i].name, "blocks.1.mlp.hook_post") == 0 && strcmp(b->tensors[i].shape, "[T, 256]") == 0;
        found += strcmp(b->tensors[i].name, "blocks.1.mlp.c_fc.weight") == 0 && strcmp(b->tensors[i].shape, "[64, 256]") == 0;
    }
    CHECK(found == 4 && strcmp(b->label, "block 1") == 0 && strcmp(b->out_shape, "[T, 64]") == 0,
          "block shapes from the config (%d of 4)", found);
    CHECK(strcmp(j.stage[4].out_shape, "[T, 50257]") == 0 && strcmp(j.stage[4].label, "logits") == 0, "logits shape");
    CHECK(strcmp(j.stage[0].tensors[0].shape, "[50257, 64]") == 0, "wte shape");
    token_journey_free(&j);
    token_journey_free(&j);
}

/* The blocked kernel on every edge (D past one and two blocks of 6 or 12 vectors, V odd,
 * C not a multiple of 16) and every weight dtype, against float64 sums of the weights as
 * the dtype holds them. */
static void test_unembed_many(void) {
    enum { DMAX = 26 };
    float x[DMAX * 40], w[13 * 40], wf[13 * 40], y[DMAX * 16], scratch[(DMAX + UNEMBED_MAX_BLOCK) * 40];
    CHECK(unembed_many_scratch(DMAX, 40) <= sizeof scratch / sizeof scratch[0] &&
              unembed_many_scratch(13, 768) == 24 * 768 && unembed_many_scratch(12, 768) == 12 * 768,
          "scratch sizes");
    uint16_t wh[13 * 40];
    for (int i = 0; i < DMAX * 40; i++) x[i] = (float)((i * 37) % 23) / 11.0f - 1.0f;
    for (int i = 0; i < 13 * 40; i++) w[i] = (float)((i * 53) % 29) / 14.0f - 1.0f;
    for (int dt = 0; dt < KERN_DTYPE_COUNT; dt++) {
        const void *wp = w;
        for (int i = 0; i < 13 * 40; i++) wf[i] = w[i];
        if (dt != KERN_F32) { /* the weights as F16 / BF16 store them, and what they read back as */
            for (int i = 0; i < 13 * 40; i++) {
                wh[i] = dt == KERN_F16 ? half_f32_to_f16(w[i]) : half_f32_to_bf16(w[i]);
                wf[i] = dt == KERN_F16 ? half_f16_to_f32(wh[i]) : half_bf16_to_f32(wh[i]);
            }
            wp = wh;
        }
        int bad = 0, cases = 0;
        for (size_t D = 1; D <= DMAX; D++)
            for (size_t V = 1; V <= 13; V += 3)
                for (size_t C = 1; C <= 40; C += 13) {
                    for (size_t i = 0; i < DMAX * 16; i++) y[i] = -99.0f;
                    unembed_many(y, 16, x, D, wp, (KernDtype)dt, V, C, scratch);
                    cases++;
                    for (size_t k = 0; k < DMAX; k++)
                        for (size_t v = 0; v < 16; v++) {
                            if (k >= D || v >= V) { /* nothing written outside */
                                bad += y[k * 16 + v] != -99.0f;
                                continue;
                            }
                            double want = 0;
                            for (size_t i = 0; i < C; i++) want += (double)x[k * C + i] * wf[v * C + i];
                            bad += fabs(y[k * 16 + v] - want) > 1e-5 * (1 + fabs(want));
                        }
                }
        CHECK(bad == 0, "unembed_many %s: %d wrong entries over %d shapes", kern_dtype_name((KernDtype)dt), bad, cases);
    }
}

int main(void) {
    test_unembed_many();
    ErrorMsg err = {{0}};
    char model_dir[600];
    check_cli_bin(g_bin, sizeof g_bin);
    Gpt2Model m;
    int rc = check_load_tiny(&m, model_dir, sizeof model_dir);
    if (rc == 0) {
        test_lens_vs_reference(&m);
        test_cli_lens(&m, model_dir);
        test_grid(&m);
        test_journey_shapes(&m);
        check_attribution(&m, S30, 30, NULL, "tiny");
        check_attribution(&m, S30, 30, "0.2,1.attn,0.mlp", "tiny ablated");
    }
    gpt2_model_free(&m);
    rc = gpt2_model_load(&m, "assets/models/stories16m", &err);
    CHECK(rc == 0, "load bundled: %s", err.text);
    if (rc == 0) {
        check_attribution(&m, S30, 14, NULL, "bundled");
        check_attribution(&m, S30, 14, "1.2,3.mlp", "bundled ablated");
    }
    gpt2_model_free(&m);
    return check_summary("test_lens");
}
