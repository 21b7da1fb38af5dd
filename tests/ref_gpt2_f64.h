/* ref_gpt2_f64.h — an independent float64 GPT-2 forward for tests, written from the
 * published architecture (Radford et al. 2019; HF Conv1D layout, tanh GELU, pre-LN,
 * eps inside the sqrt, tied unembedding), with zero ablation given as plain flag arrays
 * (not our parser or mask), the float64 logit lens / logit read-out and the direct logit
 * attribution (attribution64: the decomposition in the engine's component order). It keeps every
 * stream per layer so the lens, the attribution and the journey can be checked against
 * it. Reads only the weights of a loaded Gpt2Model. Slow and simple on purpose: loops,
 * no kernels, no shared code with engine/. Include in one .c per test program. */
#ifndef REF_GPT2_F64_H
#define REF_GPT2_F64_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2_model.h"
#include "free_all.h"

typedef struct Ref64 {
    int L, NH, C, V, T;
    double *resid;      /* (L+1, T, C) [0] = wte + wpe, [l+1] = after block l */
    double *resid_mid;  /* (L, T, C) */
    double *z;          /* (L, T, C) heads concatenated, after ablation */
    double *attn_out;   /* (L, T, C) */
    double *mlp_out;    /* (L, T, C) */
    double *logits;     /* (V) of the last position */
} Ref64;

/* Which parts are zeroed: head_off[l*NH + h], attn_off[l], mlp_off[l] (NULL = none). */
typedef struct Ref64Ablation {
    const unsigned char *head_off, *attn_off, *mlp_off;
} Ref64Ablation;

static void ref64_free(Ref64 *r) {
    FREE_ALL(r->resid, r->resid_mid, r->z, r->attn_out, r->mlp_out, r->logits);
    memset(r, 0, sizeof *r);
}

/* y = LayerNorm(x) * g + b over C (biased variance, eps inside the sqrt). */
static void ref64_layernorm(double *y, const double *x, const float *g, const float *b, double eps, int C) {
    double mean = 0, var = 0;
    for (int i = 0; i < C; i++) mean += x[i];
    mean /= C;
    for (int i = 0; i < C; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= C;
    double rs = 1.0 / sqrt(var + eps);
    for (int i = 0; i < C; i++) y[i] = (x[i] - mean) * rs * g[i] + b[i];
}

/* y (out) = x (in) @ W (in, out) + b (Conv1D layout). */
static void ref64_linear(double *y, const double *x, const float *W, const float *b, int in, int out) {
    for (int j = 0; j < out; j++) y[j] = b ? b[j] : 0.0;
    for (int i = 0; i < in; i++) {
        const float *row = W + (size_t)i * (size_t)out;
        for (int j = 0; j < out; j++) y[j] += x[i] * row[j];
    }
}

/* logits[v] = ln_f(x) . lm_head[v], in double. */
static void ref64_unembed(const Gpt2Model *m, const double *x, double *logits) {
    const int C = m->config.n_embd, V = m->config.vocab_size;
    double *ln = malloc((size_t)C * sizeof *ln);
    if (!ln) return;
    ref64_layernorm(ln, x, m->w.lnf_w, m->w.lnf_b, m->config.ln_eps, C);
    for (int v = 0; v < V; v++) {
        const float *u = m->w.lm_head + (size_t)v * (size_t)C;
        double s = 0;
        for (int i = 0; i < C; i++) s += ln[i] * u[i];
        logits[v] = s;
    }
    free(ln);
}

/* softmax(logits)[id] and the 1-based rank bounds of id allowing logit errors up to tol:
 * *rank_lo = 1 + #(l > l_id + tol), *rank_hi = 1 + #(l > l_id - tol). */
static double ref64_prob(const double *logits, int V, int id, double tol, int *rank_lo, int *rank_hi) {
    double mx = -INFINITY, s = 0;
    for (int v = 0; v < V; v++) mx = logits[v] > mx ? logits[v] : mx;
    int lo = 1, hi = 1;
    for (int v = 0; v < V; v++) {
        s += exp(logits[v] - mx);
        lo += logits[v] > logits[id] + tol;
        hi += logits[v] > logits[id] - tol;
    }
    if (rank_lo) *rank_lo = lo;
    if (rank_hi) *rank_hi = hi;
    return exp(logits[id] - mx) / s;
}

/* The whole forward of ids[0..T) in float64. Returns 0, or -1 on out of memory. */
static int ref64_forward(const Gpt2Model *m, const int *ids, int T, const Ref64Ablation *ab, Ref64 *r) {
    const int L = m->config.n_layer, NH = m->config.n_head, C = m->config.n_embd, V = m->config.vocab_size;
    const int HS = C / NH;
    const double eps = m->config.ln_eps;
    memset(r, 0, sizeof *r);
    r->L = L, r->NH = NH, r->C = C, r->V = V, r->T = T;
    const size_t TC = (size_t)T * (size_t)C;
    r->resid = malloc((size_t)(L + 1) * TC * sizeof(double));
    r->resid_mid = malloc((size_t)L * TC * sizeof(double));
    r->z = malloc((size_t)L * TC * sizeof(double));
    r->attn_out = malloc((size_t)L * TC * sizeof(double));
    r->mlp_out = malloc((size_t)L * TC * sizeof(double));
    r->logits = malloc((size_t)V * sizeof(double));
    double *ln = malloc((size_t)C * sizeof(double)), *qkv = malloc(TC * 3 * sizeof(double));
    double *h4 = malloc((size_t)C * 4 * sizeof(double)), *att = malloc((size_t)T * sizeof(double));
    if (!r->resid || !r->resid_mid || !r->z || !r->attn_out || !r->mlp_out || !r->logits || !ln || !qkv || !h4 ||
        !att) {
        free(ln), free(qkv), free(h4), free(att);
        ref64_free(r);
        return -1;
    }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < C; i++)
            r->resid[(size_t)t * C + i] = (double)m->w.wte[(size_t)ids[t] * C + i] + m->w.wpe[(size_t)t * C + i];
    for (int l = 0; l < L; l++) {
        const Gpt2LayerWeights *w = &m->w.layers[l];
        const double *x = r->resid + (size_t)l * TC;
        double *mid = r->resid_mid + (size_t)l * TC, *z = r->z + (size_t)l * TC;
        double *ao = r->attn_out + (size_t)l * TC, *mo = r->mlp_out + (size_t)l * TC;
        double *out = r->resid + (size_t)(l + 1) * TC;
        for (int t = 0; t < T; t++) {
            ref64_layernorm(ln, x + (size_t)t * C, w->ln1_w, w->ln1_b, eps, C);
            ref64_linear(qkv + (size_t)t * 3 * C, ln, w->qkv_w, w->qkv_b, C, 3 * C);
        }
        for (int t = 0; t < T; t++) {
            for (int h = 0; h < NH; h++) {
                const double *q = qkv + (size_t)t * 3 * C + h * HS;
                double mx = -INFINITY, s = 0;
                for (int j = 0; j <= t; j++) { /* causal: keys 0..t */
                    const double *k = qkv + (size_t)j * 3 * C + C + h * HS;
                    double d = 0;
                    for (int e = 0; e < HS; e++) d += q[e] * k[e];
                    att[j] = d / sqrt((double)HS);
                    mx = att[j] > mx ? att[j] : mx;
                }
                for (int j = 0; j <= t; j++) s += (att[j] = exp(att[j] - mx));
                int off = ab && ab->head_off && ab->head_off[l * NH + h];
                for (int e = 0; e < HS; e++) {
                    double acc = 0;
                    for (int j = 0; j <= t; j++) acc += att[j] / s * qkv[(size_t)j * 3 * C + 2 * C + h * HS + e];
                    z[(size_t)t * C + h * HS + e] = off ? 0.0 : acc;
                }
            }
            ref64_linear(ao + (size_t)t * C, z + (size_t)t * C, w->attn_proj_w, w->attn_proj_b, C, C);
            if (ab && ab->attn_off && ab->attn_off[l])
                for (int i = 0; i < C; i++) ao[(size_t)t * C + i] = 0.0;
            for (int i = 0; i < C; i++) mid[(size_t)t * C + i] = x[(size_t)t * C + i] + ao[(size_t)t * C + i];
            ref64_layernorm(ln, mid + (size_t)t * C, w->ln2_w, w->ln2_b, eps, C);
            ref64_linear(h4, ln, w->fc_w, w->fc_b, C, 4 * C);
            for (int i = 0; i < 4 * C; i++) { /* GPT-2's tanh GELU */
                double v = h4[i];
                h4[i] = 0.5 * v * (1.0 + tanh(sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
            }
            ref64_linear(mo + (size_t)t * C, h4, w->fc_proj_w, w->fc_proj_b, 4 * C, C);
            if (ab && ab->mlp_off && ab->mlp_off[l])
                for (int i = 0; i < C; i++) mo[(size_t)t * C + i] = 0.0;
            for (int i = 0; i < C; i++) out[(size_t)t * C + i] = mid[(size_t)t * C + i] + mo[(size_t)t * C + i];
        }
    }
    ref64_unembed(m, r->resid + (size_t)L * TC + (size_t)(T - 1) * C, r->logits);
    free(ln), free(qkv), free(h4), free(att);
    return 0;
}

static inline double dot64(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* The float64 decomposition of logit[target] - logit[vs] at pos, component by component
 * in the engine's order, from the float64 forward's own streams. Returns the logit diff. */
static inline double attribution64(const Gpt2Model *m, const Ref64 *r, const unsigned char *attn_off, int pos, int target,
                            int vs, double *comp) {
    const int L = r->L, NH = r->NH, C = r->C, HS = C / NH, T = r->T;
    const size_t TC = (size_t)T * (size_t)C;
    const double *x = r->resid + (size_t)L * TC + (size_t)pos * C;
    double mean = 0, var = 0, u[4096], w[4096], c[4096], mw = 0, bu = 0;
    for (int i = 0; i < C; i++) mean += x[i];
    mean /= C;
    for (int i = 0; i < C; i++) var += (x[i] - mean) * (x[i] - mean);
    double inv = 1.0 / sqrt(var / C + m->config.ln_eps);
    for (int i = 0; i < C; i++) {
        u[i] = (double)m->w.lm_head[(size_t)target * C + i] - (vs >= 0 ? m->w.lm_head[(size_t)vs * C + i] : 0.0);
        w[i] = m->w.lnf_w[i] * u[i];
        mw += w[i] / C;
        bu += m->w.lnf_b[i] * u[i];
    }
    for (int i = 0; i < C; i++) w[i] -= mw; /* the centring, applied to the read-out */
    int k = 0;
    comp[k++] = inv * dot64(r->resid + (size_t)pos * C, w, C);
    double bias = bu;
    for (int l = 0; l < L; l++) {
        const Gpt2LayerWeights *lw = &m->w.layers[l];
        const double *z = r->z + (size_t)l * TC + (size_t)pos * C;
        for (int h = 0; h < NH; h++) {
            for (int j = 0; j < C; j++) c[j] = 0;
            for (int e = 0; e < HS; e++) /* this head's z times its rows of c_proj */
                for (int j = 0; j < C; j++) c[j] += z[h * HS + e] * lw->attn_proj_w[(size_t)(h * HS + e) * C + j];
            comp[k++] = attn_off && attn_off[l] ? 0.0 : inv * dot64(c, w, C);
        }
        if (!(attn_off && attn_off[l]))
            for (int j = 0; j < C; j++) bias += inv * lw->attn_proj_b[j] * w[j];
        comp[k++] = inv * dot64(r->mlp_out + (size_t)l * TC + (size_t)pos * C, w, C);
    }
    comp[k] = bias;
    /* the logit difference itself, read from the float64 stream */
    double *lg = malloc((size_t)m->config.vocab_size * sizeof *lg);
    ref64_unembed(m, x, lg);
    double d = lg[target] - (vs >= 0 ? lg[vs] : 0.0);
    free(lg);
    return d;
}

#endif
