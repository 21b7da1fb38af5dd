/* test_attn_explain.c — the attention computation of one query (engine/attn_explain.h)
 * on the tiny reference model and the s30 sequence, for every layer, head and query:
 * each stage against the trace (capture ALL: read from hooks; capture Q only: recomputed
 * by the forward's kernels) and against a float64 computation written here from
 * nanoGPT's own vectors (h.{l}.attn.q/k/v/probs/y/out in tiny_s30.safetensors) and the
 * c_proj weights of the model file: q.k / sqrt(d), the mask, softmax, p v, z, the heads'
 * projection. Plus the shape strings and the refusals, and the lines view's selection
 * (engine/attn_lines.h) against a brute-force sort of every pattern row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_explain.h"
#include "attn_lines.h"
#include "check.h"
#include "check_model.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "safetensors.h"

/* Max |got[i] - want[i]| over n values (NaN counts as infinite); want is float64 (wd) or
 * float32 (wf), whichever is not NULL. */
static double maxdiff(const float *got, const double *wd, const float *wf, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (wd ? wd[i] : (double)wf[i]));
        if (!(d <= m)) m = d != d ? INFINITY : d;
    }
    return m;
}

static double maxdiff_fd(const float *got, const double *want, size_t n) { return maxdiff(got, want, NULL, n); }
static double maxdiff_ff(const float *got, const float *want, size_t n) { return maxdiff(got, NULL, want, n); }

/* The reference tensors of one layer. */
typedef struct RefLayer {
    double *q, *k, *v; /* (NH, T, HS) */
    double *probs;     /* (NH, T, T) */
    double *y, *out;   /* (T, C) */
    double *proj_w;    /* (C, C) c_proj weight from the model file, proj_b (C) */
    double *proj_b;
} RefLayer;

static void ref_layer_free(RefLayer *r) {
    free(r->q), free(r->k), free(r->v), free(r->probs), free(r->y), free(r->out), free(r->proj_w), free(r->proj_b);
    memset(r, 0, sizeof *r);
}

/* Stats gathered over every (layer, head, query): the worst difference per stage. */
typedef struct Worst {
    double q_ref, k_ref, v_ref, scaled_ref, dot_ref, pattern_ref, pattern_f64, z_ref, z_f64, weighted,
        head_out, attn_out_ref, sharper, exps, trace_scores, trace_pattern, trace_z, trace_out, sum;
    int mask_bad;
} Worst;

#define UPD(field, val)                                                                                         \
    do {                                                                                                        \
        double v_ = (val);                                                                                      \
        if (!(v_ <= w->field)) w->field = v_ != v_ ? INFINITY : v_;                                             \
    } while (0)

/* One (layer, head, query) against the float64 reference and the trace. */
static void check_one(Worst *w, const AttnExplain *ex, const RefLayer *r, const Gpt2Trace *tr, int l, int h,
                      int i) {
    const int T = tr->n_pos, HS = ex->HS, C = ex->C, NH = ex->NH;
    const double *q = r->q + ((size_t)h * T + i) * HS, *K = r->k + (size_t)h * T * HS, *V = r->v + (size_t)h * T * HS;
    UPD(q_ref, maxdiff_fd(ex->q, q, (size_t)HS));
    UPD(k_ref, maxdiff_fd(ex->k, K, (size_t)T * HS));
    UPD(v_ref, maxdiff_fd(ex->v, V, (size_t)T * HS));
    /* float64: s_j = q.k_j / sqrt(d), softmax over j <= i (Vaswani et al. eq. 1) */
    double s[128], p[128], p2[128], mx = -INFINITY, sum = 0.0, mx2 = -INFINITY, sum2 = 0.0;
    for (int j = 0; j < T; j++) {
        double d = 0.0;
        for (int c = 0; c < HS; c++) d += q[c] * K[(size_t)j * HS + c];
        UPD(dot_ref, fabs(ex->dot[j] - d));
        s[j] = d / sqrt((double)HS);
        if (j <= i) mx = fmax(mx, s[j]), mx2 = fmax(mx2, 2 * s[j]);
    }
    for (int j = 0; j <= i; j++) sum += exp(s[j] - mx), sum2 += exp(2 * s[j] - mx2);
    for (int j = 0; j < T; j++) {
        p[j] = j <= i ? exp(s[j] - mx) / sum : 0.0;
        p2[j] = j <= i ? exp(2 * s[j] - mx2) / sum2 : 0.0;
        UPD(scaled_ref, fabs(ex->scaled[j] - s[j]));
        if (j <= i) UPD(scaled_ref, fabs(ex->masked[j] - s[j]));
        else w->mask_bad += !(isinf(ex->masked[j]) && ex->masked[j] < 0) || ex->pattern[j] != 0.0f ||
                            ex->exps[j] != 0.0f;
        UPD(exps, fabs(ex->exps[j] / ex->exp_sum - ex->pattern[j]));
    }
    UPD(pattern_f64, maxdiff_fd(ex->pattern, p, (size_t)T));
    UPD(pattern_ref, maxdiff_fd(ex->pattern, r->probs + ((size_t)h * T + i) * T, (size_t)T));
    UPD(sharper, maxdiff_fd(ex->sharper, p2, (size_t)T));
    UPD(sum, fabs(ex->pattern_sum - 1.0));
    /* weighted values and z from nanoGPT's probs and v, in float64 */
    const double *pr = r->probs + ((size_t)h * T + i) * T;
    for (int j = 0; j < T; j++)
        for (int c = 0; c < HS; c++) UPD(weighted, fabs(ex->weighted[(size_t)j * HS + c] - pr[j] * V[(size_t)j * HS + c]));
    for (int c = 0; c < HS; c++) {
        double z = 0.0;
        for (int j = 0; j <= i; j++) z += pr[j] * V[(size_t)j * HS + c];
        UPD(z_f64, fabs(ex->z[c] - z));
    }
    UPD(z_ref, maxdiff_fd(ex->z_concat, r->y + (size_t)i * C, (size_t)C));
    /* this head's projection: y[i, h*HS..] @ c_proj rows; all heads + b = attn.out */
    for (int c = 0; c < C; c++) {
        double o = 0.0;
        for (int d = 0; d < HS; d++) o += r->y[(size_t)i * C + h * HS + d] * r->proj_w[(size_t)(h * HS + d) * C + c];
        UPD(head_out, fabs(ex->head_out[c] - o));
    }
    UPD(attn_out_ref, maxdiff_fd(ex->attn_out, r->out + (size_t)i * C, (size_t)C));
    /* the trace itself: hook_attn_scores row (when captured), pattern row, z slice, attn_out row */
    const size_t P = gpt2_tri_row((size_t)tr->max_pos), TT = (size_t)tr->max_pos;
    const size_t row = ((size_t)l * NH + h) * P + gpt2_tri_row((size_t)i);
    if (tr->attn_scores) UPD(trace_scores, maxdiff_ff(ex->masked, tr->attn_scores + row, (size_t)i + 1));
    UPD(trace_pattern, maxdiff_ff(ex->pattern, tr->pattern + row, (size_t)i + 1));
    if (tr->z) UPD(trace_z, maxdiff_ff(ex->z, tr->z + ((size_t)l * TT + i) * C + (size_t)h * HS, (size_t)HS));
    if (tr->attn_out) UPD(trace_out, maxdiff_ff(ex->attn_out, tr->attn_out + ((size_t)l * TT + i) * C, (size_t)C));
}

static void report(const Worst *w, const char *what) {
    const double tol = 1e-5;
    printf("%s: worst |diff| q %.2g k %.2g v %.2g dot %.2g scaled %.2g pattern(f64) %.2g pattern(ref) %.2g "
           "z %.2g head_out %.2g attn_out %.2g\n",
           what, w->q_ref, w->k_ref, w->v_ref, w->dot_ref, w->scaled_ref, w->pattern_f64, w->pattern_ref, w->z_ref,
           w->head_out, w->attn_out_ref);
    CHECK(w->q_ref <= tol && w->k_ref <= tol && w->v_ref <= tol, "%s: q/k/v vs reference %.3g %.3g %.3g", what,
          w->q_ref, w->k_ref, w->v_ref);
    CHECK(w->dot_ref <= tol, "%s: q.k vs float64 from reference q, k: %.3g", what, w->dot_ref);
    CHECK(w->scaled_ref <= tol, "%s: q.k/sqrt(d) vs float64: %.3g", what, w->scaled_ref);
    CHECK(w->mask_bad == 0, "%s: %d future keys not -inf / 0", what, w->mask_bad);
    CHECK(w->pattern_f64 <= tol, "%s: pattern vs float64 softmax of reference scores: %.3g", what, w->pattern_f64);
    CHECK(w->pattern_ref <= tol, "%s: pattern vs reference probs: %.3g", what, w->pattern_ref);
    CHECK(w->sum <= 1e-6, "%s: pattern row sum off 1 by %.3g", what, w->sum);
    CHECK(w->exps <= 1e-6, "%s: exps / exp_sum vs pattern %.3g", what, w->exps);
    CHECK(w->sharper <= tol, "%s: softmax(2 s) vs float64 %.3g", what, w->sharper);
    CHECK(w->weighted <= tol, "%s: p v vs float64 %.3g", what, w->weighted);
    CHECK(w->z_f64 <= tol && w->z_ref <= tol, "%s: z vs float64 %.3g, vs reference y %.3g", what, w->z_f64, w->z_ref);
    CHECK(w->head_out <= tol, "%s: head's c_proj share vs float64 %.3g", what, w->head_out);
    CHECK(w->attn_out_ref <= tol, "%s: attn_out vs reference attn.out %.3g", what, w->attn_out_ref);
    CHECK(w->trace_scores <= 1e-6 && w->trace_pattern == 0.0 && w->trace_z <= 1e-6 && w->trace_out <= 1e-6,
          "%s: vs the trace: scores %.3g pattern %.3g z %.3g attn_out %.3g", what, w->trace_scores,
          w->trace_pattern, w->trace_z, w->trace_out);
}

static int load_ref(RefLayer *r, const SafeFile *vec, const SafeFile *mf, int l, size_t T, size_t C, size_t NH) {
    char n[96];
    memset(r, 0, sizeof *r);
#define GET(field, fmt, file, numel) (snprintf(n, sizeof n, fmt, l), r->field = check_ref_f64(file, n, numel))
    GET(q, "h.%d.attn.q", vec, T * C), GET(k, "h.%d.attn.k", vec, T * C), GET(v, "h.%d.attn.v", vec, T * C);
    GET(probs, "h.%d.attn.probs", vec, NH * T * T), GET(y, "h.%d.attn.y", vec, T * C);
    GET(out, "h.%d.attn.out", vec, T * C);
    GET(proj_w, "h.%d.attn.c_proj.weight", mf, C * C), GET(proj_b, "h.%d.attn.c_proj.bias", mf, C);
#undef GET
    return r->q && r->k && r->v && r->probs && r->y && r->out && r->proj_w && r->proj_b ? 0 : -1;
}

/* Every layer, head and query of s30 with a trace of the given capture. */
static void run_all(const Gpt2Model *m, const SafeFile *vec, const SafeFile *mf, const int *ids, size_t T,
                    unsigned capture, const char *what) {
    ErrorMsg err = {{0}};
    Gpt2Trace tr = {0};
    AttnExplain ex = {0};
    int rc = gpt2_trace_init(&tr, &m->config, (int)T, capture, &err);
    if (!rc) rc = gpt2_prefill(m, &tr, ids, T, &err);
    if (!rc) rc = attn_explain_init(&ex, &m->config, (int)T, &err);
    CHECK(rc == 0, "%s: %s", what, err.text);
    Worst w = {0};
    const size_t C = (size_t)m->config.n_embd, NH = (size_t)m->config.n_head;
    unsigned traced_all = ~0u;
    for (int l = 0; rc == 0 && l < m->config.n_layer; l++) {
        RefLayer r;
        if (load_ref(&r, vec, mf, l, T, C, NH)) {
            ref_layer_free(&r);
            break;
        }
        for (int h = 0; h < (int)NH; h++)
            for (int i = 0; i < (int)T; i++) {
                rc = attn_explain_compute(&ex, m, &tr, l, h, i, &err);
                CHECK(rc == 0, "%s L%d H%d q%d: %s", what, l, h, i, err.text);
                if (rc) break;
                traced_all &= ex.traced;
                check_one(&w, &ex, &r, &tr, l, h, i);
            }
        ref_layer_free(&r);
    }
    report(&w, what);
    unsigned want = (capture & GPT2_CAP_Q ? ATTN_TRACED_Q : 0) | (capture & GPT2_CAP_SCORES ? ATTN_TRACED_SCORES : 0) | (capture & GPT2_CAP_Z ? ATTN_TRACED_Z : 0) |
                    (capture & GPT2_CAP_ATTN_OUT ? ATTN_TRACED_ATTN_OUT : 0);
    CHECK(traced_all == want, "%s: traced bits %#x want %#x", what, traced_all, want);
    attn_explain_free(&ex);
    gpt2_trace_free(&tr);
}

/* Shapes, the fields of one query, the refusals. */
static void test_shapes_and_errors(const Gpt2Model *m, const int *ids, size_t T) {
    ErrorMsg err = {{0}};
    Gpt2Trace tr = {0}, bare = {0};
    AttnExplain ex = {0}, zero = {0};
    attn_explain_free(&zero); /* safe on a zeroed struct */
    int rc = gpt2_trace_init(&tr, &m->config, (int)T, ATTN_EXPLAIN_CAPTURE, &err) ||
             gpt2_prefill(m, &tr, ids, T, &err) || attn_explain_init(&ex, &m->config, (int)T, &err) ||
             attn_explain_compute(&ex, m, &tr, 1, 2, 7, &err);
    CHECK(rc == 0, "setup: %s", err.text);
    if (rc) goto done;
    CHECK(ex.layer == 1 && ex.head == 2 && ex.query == 7 && ex.n_keys == (int)T && ex.HS == 16,
          "fields L%d H%d q%d T%d HS%d", ex.layer, ex.head, ex.query, ex.n_keys, ex.HS);
    CHECK(ex.sqrt_hs == 4.0f && ex.scale == 0.25f, "sqrt %g scale %g", ex.sqrt_hs, ex.scale);
    const struct {
        AttnStage s;
        const char *want;
    } shapes[] = {
        {ATTN_STAGE_Q, "(16)"},
        {ATTN_STAGE_K, "(30, 16)"},
        {ATTN_STAGE_DOT, "(16) . (30, 16)^T -> (30)"},
        {ATTN_STAGE_SCALE, "(30) / sqrt(16) = / 4"},
        {ATTN_STAGE_MASK, "(30), keys 8..29 = -inf"},
        {ATTN_STAGE_SOFTMAX, "(30), sum 1.000000"},
        {ATTN_STAGE_Z, "(30) . (30, 16) -> (16)"},
        {ATTN_STAGE_CONCAT, "4 heads x (16) -> (64)"},
        {ATTN_STAGE_HEAD_OUT, "(16) @ rows 32..47 of (64, 64) -> (64)"},
        {ATTN_STAGE_OUT, "(64) @ (64, 64) + (64) -> (64)"},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        CHECK(strcmp(ex.stage[shapes[k].s].shape, shapes[k].want) == 0 && ex.stage[shapes[k].s].label,
              "stage %d shape '%s' want '%s'", (int)shapes[k].s, ex.stage[shapes[k].s].shape, shapes[k].want);
    /* the newest query has no future keys */
    attn_explain_compute(&ex, m, &tr, 0, 0, (int)T - 1, &err);
    CHECK(strcmp(ex.stage[ATTN_STAGE_MASK].shape, "(30), no later keys") == 0, "mask '%s'",
          ex.stage[ATTN_STAGE_MASK].shape);
    /* the heads' loudness: head_out_norm[h] = |head_out| of that head */
    double n2 = 0.0;
    for (int c = 0; c < ex.C; c++) n2 += (double)ex.head_out[c] * ex.head_out[c];
    CHECK_CLOSE(ex.head_out_norm[0], sqrt(n2), 1e-6, 1e-6, "head_out_norm of the selected head");
    /* refusals: one line naming the problem */
    CHECK(attn_explain_compute(&ex, m, &tr, 2, 0, 0, &err) == -1 && strstr(err.text, "layer 2"), "layer: %s", err.text);
    CHECK(attn_explain_compute(&ex, m, &tr, 0, 4, 0, &err) == -1 && strstr(err.text, "head 4"), "head: %s", err.text);
    CHECK(attn_explain_compute(&ex, m, &tr, 0, 0, (int)T, &err) == -1 && strstr(err.text, "query position 30"),
          "query: %s", err.text);
    CHECK(attn_explain_compute(&ex, m, &tr, 0, 0, -1, &err) == -1, "negative query");
    rc = gpt2_trace_init(&bare, &m->config, (int)T, GPT2_CAP_LOGITS, &err) || gpt2_prefill(m, &bare, ids, T, &err);
    CHECK(rc == 0, "bare trace: %s", err.text);
    CHECK(attn_explain_compute(&ex, m, &bare, 0, 0, 0, &err) == -1 && strstr(err.text, "GPT2_CAP_Q"),
          "no Q: %s", err.text);
    CHECK(attn_explain_compute(&zero, m, &tr, 0, 0, 0, &err) == -1 && strstr(err.text, "not initialised"),
          "zeroed: %s", err.text);
    AttnExplain small = {0};
    CHECK(attn_explain_init(&small, &m->config, 4, &err) == 0, "init 4: %s", err.text);
    CHECK(attn_explain_compute(&small, m, &tr, 0, 0, 0, &err) == -1 && strstr(err.text, "30 positions"),
          "too small: %s", err.text);
    attn_explain_free(&small);
    CHECK(attn_explain_init(&small, &m->config, 0, &err) == -1 && small.mem == NULL, "init 0 refused");
done:
    attn_explain_free(&ex);
    CHECK(ex.mem == NULL && ex.q == NULL, "free leaves it zeroed");
    gpt2_trace_free(&tr);
    gpt2_trace_free(&bare);
}


/* ---- the lines view's selection ------------------------------------------------------ */

/* Brute force for one (head, query) row: the keys passing the filters, best first
 * (ties: lower key), at most k; returns how many and their weight sum. */
static int brute_row(const Gpt2Trace *tr, const AttnLinesSelect *sel, int h, int q, int *keys, double *mass) {
    Gpt2TraceView v;
    char name[64];
    snprintf(name, sizeof name, "blocks.%d.attn.hook_pattern", sel->layer);
    if (gpt2_trace_find(tr, name, &v, NULL)) return 0;
    int n = 0;
    for (int j = 0; j <= q; j++) {
        float w = gpt2_view_at(&v, (size_t)h, (size_t)q, (size_t)j);
        if ((sel->skip_key0 && j == 0) || (sel->only_key >= 0 && j != sel->only_key) || !(w >= sel->min_weight)) continue;
        keys[n++] = j;
    }
    for (int a = 1; a < n; a++) /* insertion sort: weight descending, key ascending */
        for (int b = a; b > 0; b--) {
            float wb = gpt2_view_at(&v, (size_t)h, (size_t)q, (size_t)keys[b]);
            float wa = gpt2_view_at(&v, (size_t)h, (size_t)q, (size_t)keys[b - 1]);
            if (!(wb > wa)) break;
            int t = keys[b];
            keys[b] = keys[b - 1];
            keys[b - 1] = t;
        }
    if (n > sel->top_k) n = sel->top_k;
    *mass = 0.0;
    for (int a = 0; a < n; a++) *mass += gpt2_view_at(&v, (size_t)h, (size_t)q, (size_t)keys[a]);
    return n;
}

/* Every line of the selection is in the brute-force set and vice versa; sorted ascending. */
static void check_lines(const Gpt2Trace *tr, const AttnLinesSelect *sel, const char *what) {
    ErrorMsg err = {{0}};
    const int NH = tr->cfg.n_head, T = tr->n_pos;
    size_t cap = attn_lines_capacity(NH, T, sel->top_k);
    AttnLine *lines = malloc(cap * sizeof *lines);
    AttnLinesResult res;
    int rc = lines ? attn_lines_select(lines, cap, tr, sel, &res, &err) : -1;
    CHECK(rc == 0, "%s: %s", what, err.text);
    if (rc) {
        free(lines);
        return;
    }
    size_t want_n = 0, rows = 0, found = 0;
    double mass = 0.0;
    for (int h = 0; h < NH; h++) {
        if (!((sel->head_mask >> h) & 1u)) continue;
        for (int q = 0; q < T; q++) {
            if (sel->only_query >= 0 && q != sel->only_query) continue;
            int keys[128];
            double m = 0.0;
            int n = brute_row(tr, sel, h, q, keys, &m);
            rows++;
            mass += m;
            want_n += (size_t)n;
            for (int a = 0; a < n; a++)
                for (size_t i = 0; i < res.n; i++)
                    if (lines[i].head == h && lines[i].query == q && lines[i].key == keys[a]) {
                        found++;
                        break;
                    }
        }
    }
    int sorted = 1;
    for (size_t i = 1; i < res.n; i++) sorted &= lines[i - 1].weight <= lines[i].weight;
    CHECK(res.n == want_n && found == want_n, "%s: %zu lines, brute force %zu, matched %zu", what, res.n, want_n, found);
    CHECK(sorted, "%s: lines not sorted weakest first", what);
    CHECK_CLOSE(res.mass_shown, rows ? mass / (double)rows : 0.0, 1e-9, 0, what);
    free(lines);
}

/* The lines against float64 from nanoGPT's own q and k (tiny_s30 h.{l}.attn.q/k), not
 * the engine's pattern: p_ij = softmax_j<=i(q_i.k_j / sqrt(d)) (Vaswani et al. eq. 1).
 * Every drawn line's weight within 1e-5 of it; the caption's share of the weight within
 * 1e-5 of the float64 share; no key left out of a (head, query) row beats a drawn one of
 * that row by more than 1e-5 (top-k holds on the reference weights too). */
static void check_lines_f64(const Gpt2Trace *tr, const SafeFile *vec, const AttnLinesSelect *sel, const char *what) {
    const int NH = tr->cfg.n_head, T = tr->n_pos, HS = tr->cfg.n_embd / NH;
    const size_t C = (size_t)tr->cfg.n_embd;
    CHECK(T <= 128, "%s: the test holds 128 positions, not %d", what, T);
    if (T > 128) return;
    char n[64];
    snprintf(n, sizeof n, "h.%d.attn.q", sel->layer);
    double *q = check_ref_f64(vec, n, (size_t)T * C);
    snprintf(n, sizeof n, "h.%d.attn.k", sel->layer);
    double *k = check_ref_f64(vec, n, (size_t)T * C);
    size_t cap = attn_lines_capacity(NH, T, sel->top_k);
    AttnLine *lines = malloc(cap * sizeof *lines);
    double *p = malloc((size_t)NH * (size_t)T * (size_t)T * sizeof *p);
    AttnLinesResult res;
    ErrorMsg err = {{0}};
    int rc = q && k && lines && p ? attn_lines_select(lines, cap, tr, sel, &res, &err) : -1;
    CHECK(rc == 0, "%s: %s", what, err.text);
    for (int h = 0; rc == 0 && h < NH; h++) /* (NH, T, HS) layout, as the reference stores it */
        for (int i = 0; i < T; i++) {
            const double *qi = q + ((size_t)h * T + i) * HS;
            double *row = p + ((size_t)h * T + i) * T, mx = -INFINITY, z = 0.0;
            for (int j = 0; j <= i; j++) {
                double d = 0.0;
                for (int c = 0; c < HS; c++) d += qi[c] * k[((size_t)h * T + j) * HS + c];
                row[j] = d / sqrt((double)HS);
                mx = fmax(mx, row[j]);
            }
            for (int j = 0; j <= i; j++) z += row[j] = exp(row[j] - mx);
            for (int j = 0; j <= i; j++) row[j] /= z;
        }
    double worst = 0.0, shown = 0.0, beaten = 0.0;
    size_t rows = 0;
    for (size_t a = 0; rc == 0 && a < res.n; a++) {
        const AttnLine *ln = &lines[a];
        double want = p[((size_t)ln->head * T + ln->query) * T + ln->key];
        worst = fmax(worst, fabs(ln->weight - want));
        shown += want;
    }
    for (int h = 0; rc == 0 && h < NH; h++) {
        if (!((sel->head_mask >> h) & 1u)) continue;
        for (int i = 0; i < T; i++) {
            if (sel->only_query >= 0 && i != sel->only_query) continue;
            rows++;
            const double *row = p + ((size_t)h * T + i) * T;
            double weakest_drawn = INFINITY;
            int drawn[128] = {0}, n_drawn = 0;
            for (size_t a = 0; a < res.n; a++)
                if (lines[a].head == h && lines[a].query == i) {
                    drawn[lines[a].key] = 1, n_drawn++;
                    weakest_drawn = fmin(weakest_drawn, row[lines[a].key]);
                }
            /* a full row: no left-out key beats its weakest line; a short one: the
             * threshold, not k, left the others out */
            double bar = n_drawn < sel->top_k ? (double)sel->min_weight : weakest_drawn;
            for (int j = sel->skip_key0 ? 1 : 0; j <= i; j++)
                if (!drawn[j] && (sel->only_key < 0 || j == sel->only_key)) beaten = fmax(beaten, row[j] - bar);
        }
    }
    printf("%s: lines vs float64 from reference q, k: worst weight %.2g, share %.6f (f64 %.6f), left-out beats "
           "drawn by %.2g\n", what, worst, rc ? 0.0 : res.mass_shown, rows ? shown / (double)rows : 0.0, beaten);
    CHECK(rc == 0 && res.n > 0 && worst <= 1e-5, "%s: %zu line weights vs float64: worst %.3g", what, res.n, worst);
    CHECK(rc == 0 && rows > 0 && fabs(res.mass_shown - shown / (double)rows) <= 1e-5, "%s: share %.9f vs float64 %.9f",
          what, res.mass_shown, rows ? shown / (double)rows : 0.0);
    CHECK(beaten <= 1e-5, "%s: a left-out key outweighs a drawn one by %.3g", what, beaten);
    free(q), free(k), free(lines), free(p);
}

static void test_lines(const Gpt2Model *m, const int *ids, size_t T, const SafeFile *vec) {
    ErrorMsg err = {{0}};
    Gpt2Trace tr = {0};
    int rc = gpt2_trace_init(&tr, &m->config, (int)T, 0, &err) || gpt2_prefill(m, &tr, ids, T, &err);
    CHECK(rc == 0, "lines setup: %s", err.text);
    if (rc) return;
    AttnLinesSelect all = {1, 0xF, 3, 0.0f, -1, -1, 0};
    check_lines(&tr, &all, "all heads, top 3");
    AttnLinesSelect one = {0, 1u << 2, 2, 0.1f, -1, -1, 1};
    check_lines(&tr, &one, "head 2, top 2, >= 0.1, no sink");
    AttnLinesSelect iso = {1, 0xF, 30, 0.0f, 17, -1, 0};
    check_lines(&tr, &iso, "query 17 isolated, every key");
    AttnLinesSelect into = {0, 0x5, 5, 0.0f, -1, 3, 0};
    check_lines(&tr, &into, "lines into key 3");
    check_lines_f64(&tr, vec, &all, "all heads of L1, top 3");
    check_lines_f64(&tr, vec, &one, "L0 head 2, top 2, >= 0.1, no sink");
    check_lines_f64(&tr, vec, &iso, "L1 query 17 isolated");
    AttnLinesSelect top1 = {0, 0xF, 1, 0.0f, -1, -1, 1};
    check_lines_f64(&tr, vec, &top1, "L0 all heads, strongest non-sink key");
    /* every key of every row: the lines carry all the weight */
    AttnLine *lines = malloc(attn_lines_capacity(4, 30, 30) * sizeof *lines);
    AttnLinesResult res;
    AttnLinesSelect full = {0, 0xF, 30, 0.0f, -1, -1, 0};
    rc = attn_lines_select(lines, attn_lines_capacity(4, 30, 30), &tr, &full, &res, &err);
    CHECK(rc == 0 && res.n == 4 * 30 * 31 / 2 && fabs(res.mass_shown - 1.0) < 1e-6 && res.n_candidates == res.n,
          "all keys: %zu lines, mass %.9f", res.n, res.mass_shown);
    /* refusals */
    AttnLinesSelect bad = full;
    bad.layer = 2;
    CHECK(attn_lines_select(lines, 10000, &tr, &bad, &res, &err) == -1 && strstr(err.text, "layer 2"), "%s", err.text);
    bad = full, bad.head_mask = 0;
    CHECK(attn_lines_select(lines, 10000, &tr, &bad, &res, &err) == -1 && strstr(err.text, "no head"), "%s", err.text);
    bad = full, bad.top_k = 0;
    CHECK(attn_lines_select(lines, 10000, &tr, &bad, &res, &err) == -1 && strstr(err.text, "top-k"), "%s", err.text);
    bad = full, bad.only_query = 30;
    CHECK(attn_lines_select(lines, 10000, &tr, &bad, &res, &err) == -1 && strstr(err.text, "position 30"), "%s",
          err.text);
    CHECK(attn_lines_select(lines, 10, &tr, &full, &res, &err) == -1 && strstr(err.text, "room for 10"), "%s", err.text);
    free(lines);
    gpt2_trace_free(&tr);
}

int main(void) {
    char mdir[1100], vpath[1100], mpath[1200];
    snprintf(mdir, sizeof mdir, "%s/models/tiny", check_ref_dir());
    snprintf(vpath, sizeof vpath, "%s/vectors/tiny_s30.safetensors", check_ref_dir());
    snprintf(mpath, sizeof mpath, "%s/model.safetensors", mdir);
    ErrorMsg err = {{0}};
    Gpt2Model m = {0};
    SafeFile vec, mf;
    memset(&vec, 0, sizeof vec);
    memset(&mf, 0, sizeof mf);
    int rc = gpt2_model_load(&m, mdir, &err) || safe_open(&vec, vpath, &err) || safe_open(&mf, mpath, &err);
    CHECK(rc == 0, "%s", err.text);
    const SafeTensor *t = rc ? NULL : safe_find(&vec, "input_ids");
    CHECK(t && t->dtype == SAFE_I32 && t->ndim == 1 && t->shape[0] == 30, "input_ids of s30");
    if (t && t->dtype == SAFE_I32 && t->shape[0] == 30) {
        int ids[30];
        memcpy(ids, t->data, sizeof ids);
        run_all(&m, &vec, &mf, ids, 30, GPT2_CAP_ALL, "capture ALL (read from the hooks)");
        run_all(&m, &vec, &mf, ids, 30, GPT2_CAP_Q, "capture Q only (recomputed by the forward's kernels)");
        run_all(&m, &vec, &mf, ids, 30, ATTN_EXPLAIN_CAPTURE, "ATTN_EXPLAIN_CAPTURE");
        run_all(&m, &vec, &mf, ids, 30, GPT2_CAP_DEFAULT, "capture DEFAULT (q recomputed from resid_pre)");
        test_shapes_and_errors(&m, ids, 30);
        test_lines(&m, ids, 30, &vec);
    }
    safe_close(&vec);
    safe_close(&mf);
    gpt2_model_free(&m);
    return check_summary("test_attn_explain");
}
