/* logit_attribution.c — direct logit attribution (see logit_attribution.h for the math).
 * Dot products are summed in double; the read-out direction w and c_proj @ w are float
 * (one SIMD matvec per block), which keeps each value within ~1e-6 relative of float64. */
#include "logit_attribution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2_ablation.h"
#include "kernels.h"
#include "free_all.h"

typedef struct OrderKey {
    double mag;
    int idx;
} OrderKey;

static int cmp_key(const void *pa, const void *pb) {
    const OrderKey *x = pa, *y = pb;
    if (x->mag != y->mag) return x->mag > y->mag ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* a->order = indices of comp by decreasing |value|. */
static void sort_order(Attribution *a) {
    OrderKey *k = a->keys;
    for (int i = 0; i < a->n; i++) k[i] = (OrderKey){fabs(a->comp[i].value), i};
    qsort(k, (size_t)a->n, sizeof *k, cmp_key);
    for (int i = 0; i < a->n; i++) a->order[i] = k[i].idx;
}

int attribution_init(Attribution *a, const Gpt2Config *cfg, ErrorMsg *err) {
    memset(a, 0, sizeof *a);
    if (resid_parts_init(&a->parts, cfg, err)) return -1;
    const int L = cfg->n_layer, NH = cfg->n_head;
    a->n = 1 + L * (NH + 1) + 1;
    a->comp = calloc((size_t)a->n, sizeof *a->comp);
    a->attn_bias = calloc((size_t)L, sizeof *a->attn_bias);
    a->w = malloc((size_t)cfg->n_embd * sizeof *a->w);
    a->r = malloc((size_t)cfg->n_embd * sizeof *a->r);
    a->order = malloc((size_t)a->n * sizeof *a->order);
    a->keys = malloc((size_t)a->n * sizeof(OrderKey));
    if (!a->comp || !a->attn_bias || !a->w || !a->r || !a->order || !a->keys) {
        attribution_free(a);
        return error_set(err, "attribution: out of memory");
    }
    AttrComponent *c = a->comp;
    *c++ = (AttrComponent){ATTR_EMBED, -1, -1, "embed", 0.0};
    for (int l = 0; l < L; l++) {
        for (int h = 0; h < NH; h++, c++) {
            *c = (AttrComponent){ATTR_HEAD, l, h, "", 0.0};
            snprintf(c->name, sizeof c->name, "L%dH%d", l, h);
        }
        *c = (AttrComponent){ATTR_MLP, l, -1, "", 0.0};
        snprintf(c->name, sizeof c->name, "L%d.mlp", l);
        c++;
    }
    *c = (AttrComponent){ATTR_BIAS, -1, -1, "bias", 0.0};
    a->pos = a->target = a->vs = -1;
    return 0;
}

void attribution_free(Attribution *a) {
    if (!a) return;
    resid_parts_free(&a->parts);
    FREE_ALL(a->comp, a->attn_bias, a->w, a->r, a->order, a->keys);
    memset(a, 0, sizeof *a);
}

static double dot_d(const float *x, const float *y, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * (double)y[i];
    return s;
}

/* a->w = g * u - mean(g * u), u = wte[target] - wte[vs]; returns b_f . u. Also freezes
 * the scale: a->inv_scale from the final residual x (mean and variance in double, as
 * kern_layernorm computes them). */
static double read_out_direction(Attribution *a, const Gpt2Model *m, const float *x, int target, int vs) {
    const size_t C = a->parts.C;
    const float *hf = m->w.lm_head;
    const uint16_t *hh = m->w.lm_head_h;
    const size_t ut = (size_t)target * C, uv = vs >= 0 ? (size_t)vs * C : 0;
    double mean_w = 0.0, ln_bias = 0.0;
    for (size_t i = 0; i < C; i++) {
        double u = (double)gpt2_mat_at(&m->w, hf, hh, ut + i) - (vs >= 0 ? (double)gpt2_mat_at(&m->w, hf, hh, uv + i) : 0.0);
        double w = (double)m->w.lnf_w[i] * u;
        a->w[i] = (float)w;
        mean_w += w;
        ln_bias += (double)m->w.lnf_b[i] * u;
    }
    mean_w /= (double)C;
    for (size_t i = 0; i < C; i++) a->w[i] = (float)((double)a->w[i] - mean_w);
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < C; i++) mean += x[i];
    mean /= (double)C;
    for (size_t i = 0; i < C; i++) ss += ((double)x[i] - mean) * ((double)x[i] - mean);
    a->inv_scale = 1.0 / sqrt(ss / (double)C + (double)m->config.ln_eps);
    return ln_bias;
}

int attribution_run(Attribution *a, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int target, int vs,
                    ErrorMsg *err) {
    const int V = m->config.vocab_size, L = m->config.n_layer, NH = m->config.n_head;
    if (!a->comp || a->n != 1 + L * (NH + 1) + 1) return error_set(err, "attribution: not sized for this model");
    if (target < 0 || target >= V) return error_set(err, "attribution: token %d is outside 0..%d", target, V - 1);
    if (vs >= V) return error_set(err, "attribution: token %d is outside 0..%d", vs, V - 1);
    if (vs == target) return error_set(err, "attribution: the two tokens are the same (%d)", target);
    if (resid_parts_at(&a->parts, m, tr, pos, err)) return -1;
    const ResidParts *rp = &a->parts;
    const size_t C = rp->C, HS = C / (size_t)NH;
    a->ln_bias = read_out_direction(a, m, rp->resid + (size_t)L * C, target, vs);
    const double s = a->inv_scale;
    a->comp[0].value = s * dot_d(rp->resid, a->w, C); /* wte[token] + wpe[pos] */
    double bias = a->ln_bias;
    for (int l = 0; l < L; l++) {
        const Gpt2LayerWeights *lw = &m->w.layers[l];
        const int attn_off = gpt2_ablation_is_off(&tr->ablation, GPT2_ABL_ATTN, l, 0);
        /* r = attn.c_proj.weight @ w: head h's part of the logit is z_h . r[h*HS, (h+1)*HS) */
        kern_matmul_wt_dt(a->r, a->w, gpt2_mat(&m->w, lw->attn_proj_w, lw->attn_proj_h), m->w.dtype, 1, C, C);
        for (int h = 0; h < NH; h++) {
            const size_t o = (size_t)h * HS;
            a->comp[attribution_head_index(NH, l, h)].value =
                attn_off ? 0.0 : s * dot_d(rp->z + (size_t)l * C + o, a->r + o, HS);
        }
        a->attn_bias[l] = attn_off ? 0.0 : s * dot_d(lw->attn_proj_b, a->w, C);
        bias += a->attn_bias[l];
        a->comp[attribution_mlp_index(NH, l)].value = s * dot_d(rp->mlp_out + (size_t)l * C, a->w, C);
    }
    a->comp[a->n - 1].value = bias;
    a->sum = 0.0;
    for (int i = 0; i < a->n; i++) a->sum += a->comp[i].value;
    /* the model's own number: its logits at pos when the trace kept them */
    const float *lg = gpt2_trace_logits(tr, pos);
    a->total_from_logits = lg != NULL;
    if (lg) {
        a->total = (double)lg[target] - (vs >= 0 ? (double)lg[vs] : 0.0);
    } else { /* ln_final(x) . u in double */
        const float *x = rp->resid + (size_t)L * C;
        double mean = 0.0, t = a->ln_bias;
        for (size_t i = 0; i < C; i++) mean += x[i];
        mean /= (double)C;
        for (size_t i = 0; i < C; i++) t += s * ((double)x[i] - mean) * (double)a->w[i];
        a->total = t; /* sum_i (x_i - mean) w_i == x . w since w has mean 0 */
    }
    sort_order(a);
    a->pos = pos;
    a->target = target;
    a->vs = vs;
    return 0;
}

