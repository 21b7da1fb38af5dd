/* attn_explain.c — fills an AttnExplain from a trace (see attn_explain.h): copies what the
 * trace holds, computes in double what no hook holds (raw dots, exps, weighted values, the
 * per-head projection), and writes each stage's shape with this model's sizes. */
#include "attn_explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* ---- storage ---------------------------------------------------------------------- */

/* Hands out every array of ex from base (NULL: only measures); returns floats used. */
static size_t explain_plan(AttnExplain *ex, float *base) {
    const size_t T = (size_t)ex->cap_pos, HS = (size_t)ex->HS, C = (size_t)ex->C, NH = (size_t)ex->NH;
    size_t off = 0;
#define TAKE(field, n)                                                                                          \
    do {                                                                                                        \
        ex->field = base ? base + off : NULL;                                                                   \
        off += (n);                                                                                             \
    } while (0)
    TAKE(q, HS);
    TAKE(k, T * HS);
    TAKE(v, T * HS);
    TAKE(dot, T);
    TAKE(scaled, T);
    TAKE(masked, T);
    TAKE(exps, T);
    TAKE(pattern, T);
    TAKE(sharper, T);
    TAKE(softer, T);
    TAKE(weighted, T * HS);
    TAKE(z, HS);
    TAKE(z_concat, C);
    TAKE(head_out, C);
    TAKE(head_out_norm, NH);
    TAKE(attn_out, C);
    TAKE(ln1, C);
#undef TAKE
    return off;
}

int attn_explain_init(AttnExplain *ex, const Gpt2Config *cfg, int cap_pos, ErrorMsg *err) {
    memset(ex, 0, sizeof *ex);
    if (cfg->n_head <= 0 || cfg->n_embd <= 0 || cfg->n_embd % cfg->n_head != 0)
        return error_set(err, "attention explain: invalid model config (NH=%d C=%d)", cfg->n_head, cfg->n_embd);
    if (cap_pos < 1 || cap_pos > cfg->n_positions)
        return error_set(err, "attention explain: %d keys is outside 1..%d (the model's context)", cap_pos,
                         cfg->n_positions);
    ex->cap_pos = cap_pos;
    ex->NH = cfg->n_head;
    ex->C = cfg->n_embd;
    ex->HS = cfg->n_embd / cfg->n_head;
    size_t n = explain_plan(ex, NULL);
    float *mem = calloc(n, sizeof *mem);
    if (!mem) {
        memset(ex, 0, sizeof *ex);
        return error_set(err, "attention explain: out of memory (%zu floats)", n);
    }
    ex->mem = mem;
    explain_plan(ex, mem);
    ex->layer = ex->head = ex->query = -1;
    return 0;
}

void attn_explain_free(AttnExplain *ex) {
    if (!ex) return;
    free(ex->mem);
    memset(ex, 0, sizeof *ex);
}

/* ---- the stages -------------------------------------------------------------------- */

/* dst[j] = softmax(factor * src)_j over j <= i (0 beyond), in double. */
static void softmax_scaled(float *dst, const float *src, int i, int T, double factor) {
    double mx = -INFINITY, sum = 0.0;
    for (int j = 0; j <= i; j++) mx = fmax(mx, factor * src[j]);
    for (int j = 0; j <= i; j++) sum += exp(factor * src[j] - mx);
    for (int j = 0; j < T; j++) dst[j] = j <= i ? (float)(exp(factor * src[j] - mx) / sum) : 0.0f;
}

/* out (C) = zh (HS) @ W[h*HS .. h*HS+HS, :] — one head's rows of c_proj (C, C), double sums. */
static void project_head(float *out, const float *zh, const Gpt2Weights *w, const Gpt2LayerWeights *lw, size_t h,
                         size_t HS, size_t C) {
    for (size_t c = 0; c < C; c++) {
        double s = 0.0;
        for (size_t d = 0; d < HS; d++)
            s += (double)zh[d] * gpt2_mat_at(w, lw->attn_proj_w, lw->attn_proj_h, (h * HS + d) * C + c);
        out[c] = (float)s;
    }
}

/* q_i of head h: the trace's hook_q, or ln_1(resid_pre_i) @ c_attn[:, h*HS ..] + b — the
 * forward's q columns (gpt2_forward.c), recomputed for one row. */
static void fill_q(AttnExplain *ex, const Gpt2Model *m, const Gpt2Trace *tr, size_t l, size_t h, int i) {
    const size_t HS = (size_t)ex->HS, NH = (size_t)ex->NH, C = (size_t)ex->C, T = (size_t)tr->max_pos;
    if (tr->q) {
        memcpy(ex->q, tr->q + ((l * NH + h) * T + (size_t)i) * HS, HS * sizeof(float));
        ex->traced |= ATTN_TRACED_Q;
        return;
    }
    const Gpt2LayerWeights *lw = &m->w.layers[l];
    kern_layernorm(ex->ln1, tr->resid + (l * T + (size_t)i) * C, lw->ln1_w, lw->ln1_b, m->config.ln_eps, 1, C);
    for (size_t d = 0; d < HS; d++) {
        size_t col = h * HS + d; /* q occupies columns [0, C) of the (C, 3C) c_attn */
        double s = lw->qkv_b ? lw->qkv_b[col] : 0.0;
        for (size_t c = 0; c < C; c++) s += (double)ex->ln1[c] * gpt2_mat_at(&m->w, lw->qkv_w, lw->qkv_h, c * 3 * C + col);
        ex->q[d] = (float)s;
    }
}

/* The scores stage: dot, scaled for every key; masked = the trace's hook_attn_scores or
 * the forward's kernel on the same operands; exps and the max. */
static void fill_scores(AttnExplain *ex, const Gpt2Trace *tr, size_t l, size_t h, int i, int T) {
    const size_t HS = (size_t)ex->HS, NH = (size_t)ex->NH, P = gpt2_tri_row((size_t)tr->max_pos);
    for (int j = 0; j < T; j++) {
        double s = 0.0;
        for (size_t d = 0; d < HS; d++) s += (double)ex->q[d] * ex->k[(size_t)j * HS + d];
        ex->dot[j] = (float)s;
        ex->scaled[j] = (float)(s / (double)ex->sqrt_hs);
    }
    if (tr->attn_scores) {
        memcpy(ex->masked, tr->attn_scores + (l * NH + h) * P + gpt2_tri_row((size_t)i),
               (size_t)(i + 1) * sizeof(float));
        ex->traced |= ATTN_TRACED_SCORES;
    } else {
        kern_attn_scores(ex->masked, ex->q, ex->k, (size_t)i + 1, HS, ex->scale);
    }
    /* the causal mask: a query never sees later positions; -inf makes exp() exactly 0 */
    for (int j = i + 1; j < T; j++) ex->masked[j] = -INFINITY;
    float mx = ex->masked[0];
    for (int j = 1; j <= i; j++) mx = ex->masked[j] > mx ? ex->masked[j] : mx;
    ex->max_score = mx;
    ex->exp_sum = 0.0;
    for (int j = 0; j < T; j++) {
        double e = j <= i ? exp((double)ex->masked[j] - mx) : 0.0;
        ex->exps[j] = (float)e;
        ex->exp_sum += e;
    }
}

/* z of every head at query i: the trace's hook_z row, or the forward's kernel on pattern
 * and values (the same operations as the forward). */
static void fill_z(AttnExplain *ex, const Gpt2Trace *tr, size_t l, int i) {
    const size_t HS = (size_t)ex->HS, NH = (size_t)ex->NH, C = (size_t)ex->C;
    const size_t T = (size_t)tr->max_pos, P = gpt2_tri_row(T);
    if (tr->z) {
        memcpy(ex->z_concat, tr->z + (l * T + (size_t)i) * C, C * sizeof(float));
        ex->traced |= ATTN_TRACED_Z;
        return;
    }
    for (size_t h = 0; h < NH; h++)
        kern_attn_mix(ex->z_concat + h * HS, gpt2_trace_layer_patterns(tr, l) + h * P + gpt2_tri_row((size_t)i),
                      tr->v + (l * NH + h) * T * HS, (size_t)i + 1, HS);
}

/* The output stage: this head's projection, every head's loudness, attn_out. */
static void fill_output(AttnExplain *ex, const Gpt2Model *m, const Gpt2Trace *tr, size_t l, size_t hsel, int i) {
    const size_t HS = (size_t)ex->HS, NH = (size_t)ex->NH, C = (size_t)ex->C, T = (size_t)tr->max_pos;
    const Gpt2LayerWeights *lw = &m->w.layers[l];
    /* every head's loudness first (head_out as scratch), then the selected head's row */
    for (size_t h = 0; h < NH; h++) {
        project_head(ex->head_out, ex->z_concat + h * HS, &m->w, lw, h, HS, C);
        double n2 = 0.0;
        for (size_t c = 0; c < C; c++) n2 += (double)ex->head_out[c] * ex->head_out[c];
        ex->head_out_norm[h] = (float)sqrt(n2);
    }
    project_head(ex->head_out, ex->z_concat + hsel * HS, &m->w, lw, hsel, HS, C);
    if (tr->attn_out) {
        memcpy(ex->attn_out, tr->attn_out + (l * T + (size_t)i) * C, C * sizeof(float));
        ex->traced |= ATTN_TRACED_ATTN_OUT;
    } else {
        /* attn_out = concat(z_h) @ c_proj + b: the same as summing the heads' projections */
        for (size_t c = 0; c < C; c++) {
            double s = lw->attn_proj_b ? lw->attn_proj_b[c] : 0.0;
            for (size_t r = 0; r < C; r++) s += (double)ex->z_concat[r] * gpt2_mat_at(&m->w, lw->attn_proj_w, lw->attn_proj_h, r * C + c);
            ex->attn_out[c] = (float)s;
        }
    }
}

static void fill_shapes(AttnExplain *ex, int T) {
    const int HS = ex->HS, C = ex->C, NH = ex->NH;
    static const char *const labels[ATTN_STAGE_COUNT] = {
        "query q_i", "keys k_j", "q . k_j", "/ sqrt(d_head)", "causal mask", "softmax = pattern",
        "values v_j", "p_ij v_j", "z_i = sum_j p_ij v_j", "heads concatenated", "this head through c_proj",
        "attn_out = z @ c_proj + b",
    };
    AttnStageInfo *s = ex->stage;
    for (int k = 0; k < ATTN_STAGE_COUNT; k++) s[k].label = labels[k];
    snprintf(s[ATTN_STAGE_Q].shape, sizeof s[0].shape, "(%d)", HS);
    snprintf(s[ATTN_STAGE_K].shape, sizeof s[0].shape, "(%d, %d)", T, HS);
    snprintf(s[ATTN_STAGE_DOT].shape, sizeof s[0].shape, "(%d) . (%d, %d)^T -> (%d)", HS, T, HS, T);
    snprintf(s[ATTN_STAGE_SCALE].shape, sizeof s[0].shape, "(%d) / sqrt(%d) = / %.4g", T, HS, (double)ex->sqrt_hs);
    snprintf(s[ATTN_STAGE_MASK].shape, sizeof s[0].shape, "(%d), keys %d..%d = -inf", T, ex->query + 1, T - 1);
    if (ex->query + 1 >= T) snprintf(s[ATTN_STAGE_MASK].shape, sizeof s[0].shape, "(%d), no later keys", T);
    snprintf(s[ATTN_STAGE_SOFTMAX].shape, sizeof s[0].shape, "(%d), sum %.6f", T, ex->pattern_sum);
    snprintf(s[ATTN_STAGE_V].shape, sizeof s[0].shape, "(%d, %d)", T, HS);
    snprintf(s[ATTN_STAGE_WEIGHTED].shape, sizeof s[0].shape, "(%d, 1) * (%d, %d) -> (%d, %d)", T, T, HS, T, HS);
    snprintf(s[ATTN_STAGE_Z].shape, sizeof s[0].shape, "(%d) . (%d, %d) -> (%d)", T, T, HS, HS);
    snprintf(s[ATTN_STAGE_CONCAT].shape, sizeof s[0].shape, "%d heads x (%d) -> (%d)", NH, HS, C);
    snprintf(s[ATTN_STAGE_HEAD_OUT].shape, sizeof s[0].shape, "(%d) @ rows %d..%d of (%d, %d) -> (%d)", HS,
             ex->head * HS, ex->head * HS + HS - 1, C, C, C);
    snprintf(s[ATTN_STAGE_OUT].shape, sizeof s[0].shape, "(%d) @ (%d, %d) + (%d) -> (%d)", C, C, C, C, C);
}

int attn_explain_compute(AttnExplain *ex, const Gpt2Model *m, const Gpt2Trace *tr, int layer, int head,
                         int query, ErrorMsg *err) {
    const Gpt2Config *cfg = &m->config;
    if (!ex->mem) return error_set(err, "attention explain: not initialised (attn_explain_init)");
    if (!tr->mem || tr->cfg.n_embd != ex->C || tr->cfg.n_head != ex->NH || cfg->n_embd != ex->C ||
        cfg->n_head != ex->NH || tr->cfg.n_layer != cfg->n_layer || !m->w.layers)
        return error_set(err, "attention explain: the trace or model does not match (C=%d NH=%d)", ex->C, ex->NH);
    if (layer < 0 || layer >= cfg->n_layer)
        return error_set(err, "attention explain: layer %d out of range 0..%d", layer, cfg->n_layer - 1);
    if (head < 0 || head >= cfg->n_head)
        return error_set(err, "attention explain: head %d out of range 0..%d", head, cfg->n_head - 1);
    if (query < 0 || query >= tr->n_pos)
        return error_set(err, "attention explain: query position %d out of range 0..%d", query, tr->n_pos - 1);
    if (tr->n_pos > ex->cap_pos)
        return error_set(err, "attention explain: %d positions exceed the %d it was sized for", tr->n_pos,
                         ex->cap_pos);
    if (!tr->q && !tr->resid)
        return error_set(err, "attention explain: the trace has neither queries nor residual streams "
                         "(capture GPT2_CAP_Q, or ATTN_EXPLAIN_CAPTURE for all of it)");
    const size_t HS = (size_t)ex->HS, NH = (size_t)ex->NH, T = (size_t)tr->max_pos;
    const size_t l = (size_t)layer, h = (size_t)head, P = gpt2_tri_row(T);
    const int n = tr->n_pos, i = query;
    ex->layer = layer;
    ex->head = head;
    ex->query = query;
    ex->n_keys = n;
    ex->traced = 0;
    /* the same float the forward multiplies by (gpt2_forward.c): 1/sqrt(HS) */
    ex->scale = (float)(1.0 / sqrt((double)HS));
    ex->sqrt_hs = (float)sqrt((double)HS);
    const size_t head_base = (l * NH + h) * T * HS; /* (max_pos, HS) rows of this head */
    fill_q(ex, m, tr, l, h, i);
    memcpy(ex->k, tr->k + head_base, (size_t)n * HS * sizeof(float));
    memcpy(ex->v, tr->v + head_base, (size_t)n * HS * sizeof(float));
    fill_scores(ex, tr, l, h, i, n);
    const float *prow = gpt2_trace_layer_patterns(tr, l) + h * P + gpt2_tri_row((size_t)i);
    ex->pattern_sum = 0.0;
    for (int j = 0; j < n; j++) {
        ex->pattern[j] = j <= i ? prow[j] : 0.0f;
        ex->pattern_sum += ex->pattern[j];
        for (size_t d = 0; d < HS; d++)
            ex->weighted[(size_t)j * HS + d] = ex->pattern[j] * ex->v[(size_t)j * HS + d];
    }
    softmax_scaled(ex->sharper, ex->masked, i, n, 2.0);
    softmax_scaled(ex->softer, ex->masked, i, n, 0.5);
    fill_z(ex, tr, l, i);
    memcpy(ex->z, ex->z_concat + h * HS, HS * sizeof(float));
    fill_output(ex, m, tr, l, h, i);
    fill_shapes(ex, n);
    return 0;
}
