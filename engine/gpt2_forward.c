/* gpt2_forward.c — the forward pass of GPT-2 over a chunk of consecutive positions,
 * writing each activation straight into the trace (or into scratch when the trace does
 * not keep it), so capturing costs no copies. Prefill runs chunks of up to
 * GPT2_TRACE_CHUNK rows; a decode step is a chunk of one row. Same code, same math.
 * Not the kernels (kernels.c) and not the bookkeeping of names (gpt2_trace.c). */
#include "gpt2_forward.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "gelu_erf.h"
#include "gpt2_lean.h"
#include "kernels.h"

/* Where one activation of one layer lives for rows [t0, t0+R): the trace's buffer when
 * captured (layer block of max_pos rows of `width` floats), else the scratch. */
static float *slot(float *cap, float *scratch, size_t layer, size_t max_pos, size_t width, size_t t0) {
    return cap ? cap + (layer * max_pos + t0) * width : scratch;
}

/* 1 when the attention of rows t0..t0+R-1 is worth a parallel region: it reads about
 * R * C * (t0 + R) floats of keys and values; below 2^16 (a decode step of 124M before
 * position 85) one thread does it faster than two can start. */
static int gpt2_attention_parallel(size_t C, size_t t0, size_t R) { return R * C * (t0 + R) >= ((size_t)1 << 16); }

/* Causal self-attention of layer l for queries t0..t0+R-1 against keys 0..t (per query t).
 * q comes from the qkv rows; k and v of all earlier positions (and of this chunk) are
 * already in the cache. Writes pattern (always), scores (if kept) and z (R, C). */
static void attention(Gpt2Trace *tr, size_t l, const float *qkv, float *z, size_t t0, size_t R) {
    const size_t NH = (size_t)tr->cfg.n_head, C = (size_t)tr->cfg.n_embd, HS = C / NH;
    const size_t T = (size_t)tr->max_pos, P = gpt2_tri_row(T);
    const long items = (long)(R * NH);
    /* one (query row, head) pair per item; interleaved so long and short rows of the
     * causal triangle are spread over the threads. Threads only for enough work: a decode
     * step at a short context reads ~C * t keys and values, a few microseconds, less
     * than waking a second thread (gpt2_attention_parallel). */
#pragma omp parallel for schedule(static, 1) if (items > 1 && gpt2_attention_parallel(C, t0, R))
    for (long it = 0; it < items; it++) {
        size_t r = (size_t)it / NH, h = (size_t)it % NH, t = t0 + r;
        const float *q = qkv + r * 3 * C + h * HS;
        const float *K = tr->k + ((l * NH + h) * T) * HS; /* (T, HS) keys of head h */
        const float *Vv = tr->v + ((l * NH + h) * T) * HS;
        float *p = tr->pattern + (l * NH + h) * P + gpt2_tri_row(t); /* row t: t+1 entries */
        /* keys j > t are masked: they are simply not part of the row, so the softmax runs
         * over 0..t and the pattern's upper triangle is exactly zero by construction */
        gpt2_pattern_row(p, tr->attn_scores ? tr->attn_scores + (l * NH + h) * P + gpt2_tri_row(t) : NULL, q, K, t,
                         HS);
        /* z = pattern @ v, written into head h's slice of the concatenated output */
        kern_attn_mix(z + r * C + h * HS, p, Vv, t + 1, HS);
    }
}

/* The same attention in a lean trace: each row lives in a per-thread scratch row long
 * enough to mix z, fold into the head's block maxima and, when layer l's patterns are
 * materialised, be copied there. One head per item (its rows in order: the block maxima
 * of a head are updated by one thread). */
static void attention_lean(Gpt2Trace *tr, size_t l, const float *qkv, float *z, size_t t0, size_t R) {
    const size_t NH = (size_t)tr->cfg.n_head, C = (size_t)tr->cfg.n_embd, HS = C / NH;
    const size_t T = (size_t)tr->max_pos, P = gpt2_tri_row(T);
    Gpt2Lean *ln = tr->lean;
    float *cached = gpt2_lean_cached(ln, (int)l);
#pragma omp parallel for schedule(static) num_threads(gpt2_lean_threads()) if (gpt2_attention_parallel(C, t0, R))
    for (long hl = 0; hl < (long)NH; hl++) {
        const size_t h = (size_t)hl, hid = l * NH + h;
        float *p = ln->rows + (size_t)omp_get_thread_num() * T;
        const float *K = tr->k + hid * T * HS, *Vv = tr->v + hid * T * HS;
        for (size_t r = 0; r < R; r++) {
            size_t t = t0 + r;
            gpt2_pattern_row(p, tr->attn_scores ? tr->attn_scores + hid * P + gpt2_tri_row(t) : NULL,
                             qkv + r * 3 * C + h * HS, K, t, HS);
            kern_attn_mix(z + r * C + h * HS, p, Vv, t + 1, HS);
            gpt2_lean_summarise(ln, hid, p, t);
            if (cached) memcpy(cached + h * P + gpt2_tri_row(t), p, (t + 1) * sizeof *p);
        }
    }
}

/* THE logits of one position from its final residual row x: ln_f, then the unembedding
 * of one row (a decode step's path). Every logits row a session shows comes from here,
 * so recomputing one later gives the same bits. ln: C floats of scratch. */
static void logits_row(const Gpt2Model *m, const float *x, float *ln, float *out) {
    const Gpt2Weights *w = &m->w;
    const size_t C = (size_t)m->config.n_embd, V = (size_t)m->config.vocab_size;
    kern_layernorm(ln, x, w->lnf_w, w->lnf_b, m->config.ln_eps, 1, C);
    kern_matmul_wt_dt(out, ln, gpt2_mat(w, w->lm_head, w->lm_head_h), w->dtype, 1, C, V);
}

/* Without per-position logits: the cache row that will hold position pos (its own if
 * cached, else a free or the least recently used one). */
static float *logits_slot(Gpt2Trace *tr, int pos) {
    int slot = 0;
    for (int i = 0; i < GPT2_LOGITS_CACHE; i++) {
        if (tr->logits_tag[i] == pos) {
            slot = i;
            break;
        }
        if (tr->logits_tag[i] < 0) {
            if (tr->logits_tag[slot] >= 0) slot = i;
        } else if (tr->logits_tag[slot] >= 0 && tr->logits_use[i] < tr->logits_use[slot]) {
            slot = i;
        }
    }
    tr->logits_tag[slot] = pos;
    tr->logits_use[slot] = ++tr->logits_clock;
    return tr->logits + (size_t)slot * (size_t)tr->cfg.vocab_size;
}

/* Forward of positions t0..t0+R-1 (tokens already in tr->ids). want_logits: compute the
 * logits of the last row even when the trace does not keep all of them. */
static void forward_chunk(const Gpt2Model *m, Gpt2Trace *tr, size_t t0, size_t R, int want_logits) {
    const Gpt2Config *cfg = &m->config;
    const Gpt2Weights *w = &m->w;
    const size_t L = (size_t)cfg->n_layer, C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size;
    const size_t NH = (size_t)cfg->n_head, HS = C / NH, T = (size_t)tr->max_pos;
    const float eps = cfg->ln_eps;

    /* embeddings: resid_pre of block 0 = wte[token] + wpe[position]; a 16-bit wte row is
     * widened first (into hook_embed when kept, else into the LayerNorm scratch, which
     * is free until the first block) */
    float *x = slot(tr->resid, tr->s_x, 0, T, C, t0);
    const KernDtype dt = w->dtype;
    for (size_t r = 0; r < R; r++) {
        const size_t id = (size_t)tr->ids[t0 + r];
        const float *pe = w->wpe + (t0 + r) * C, *te = w->wte ? w->wte + id * C : NULL;
        float *row = tr->embed ? tr->embed + (t0 + r) * C : tr->s_ln + r * C;
        if (dt != KERN_F32) {
            kern_widen(row, w->wte_h + id * C, dt, C);
            te = row;
        } else if (tr->embed) {
            memcpy(row, te, C * sizeof(float));
        }
        kern_add(x + r * C, te, pe, C);
        if (tr->embed) memcpy(tr->pos_embed + (t0 + r) * C, pe, C * sizeof(float));
    }

    for (size_t l = 0; l < L; l++) {
        const Gpt2LayerWeights *lw = &w->layers[l];
        /* without the RESID capture the stream lives in s_x and is updated in place:
         * resid_post overwrites resid_pre, which is no longer needed by then */
        float *xin = slot(tr->resid, tr->s_x, l, T, C, t0);
        float *xout = slot(tr->resid, tr->s_x, l + 1, T, C, t0);

        /* --- attention sub-block: resid_mid = resid_pre + c_proj(attn(ln_1(resid_pre))) --- */
        float *ln1 = slot(tr->ln1, tr->s_ln, l, T, C, t0);
        kern_layernorm(ln1, xin, lw->ln1_w, lw->ln1_b, eps, R, C);
        float *qkv = tr->s_qkv; /* (R, 3C): q | k | v, each C wide, head h at h*HS */
        kern_matmul_dt(qkv, ln1, gpt2_mat(w, lw->qkv_w, lw->qkv_h), dt, lw->qkv_b, R, C, 3 * C);
        /* split into heads: the cache is (NH, T, HS) per layer so that decode reads one
         * head's keys as one contiguous run */
        for (size_t r = 0; r < R; r++) {
            const float *row = qkv + r * 3 * C;
            for (size_t h = 0; h < NH; h++) {
                size_t dst = ((l * NH + h) * T + t0 + r) * HS;
                memcpy(tr->k + dst, row + C + h * HS, HS * sizeof(float));
                memcpy(tr->v + dst, row + 2 * C + h * HS, HS * sizeof(float));
                if (tr->q) memcpy(tr->q + dst, row + h * HS, HS * sizeof(float));
            }
        }
        float *z = slot(tr->z, tr->s_z, l, T, C, t0);
        if (tr->lean) attention_lean(tr, l, qkv, z, t0, R);
        else attention(tr, l, qkv, z, t0, R);
        gpt2_ablation_apply_z(&tr->ablation, l, z, R, C); /* knocked-out heads (gpt2_ablation.h) */
        float *attn_out = slot(tr->attn_out, tr->s_proj, l, T, C, t0);
        kern_matmul_dt(attn_out, z, gpt2_mat(w, lw->attn_proj_w, lw->attn_proj_h), dt, lw->attn_proj_b, R, C, C);
        gpt2_ablation_apply_out(&tr->ablation, GPT2_ABL_ATTN, l, attn_out, R, C);
        float *mid = slot(tr->resid_mid, tr->s_mid, l, T, C, t0);
        kern_add(mid, xin, attn_out, R * C);

        /* --- MLP sub-block: resid_post = resid_mid + c_proj(gelu(c_fc(ln_2(resid_mid)))) --- */
        float *ln2 = slot(tr->ln2, tr->s_ln, l, T, C, t0);
        kern_layernorm(ln2, mid, lw->ln2_w, lw->ln2_b, eps, R, C);
        float *pre = slot(tr->mlp_pre, tr->s_fc, l, T, 4 * C, t0);
        kern_matmul_dt(pre, ln2, gpt2_mat(w, lw->fc_w, lw->fc_h), dt, lw->fc_b, R, C, 4 * C);
        float *post = slot(tr->mlp_post, tr->s_gelu, l, T, 4 * C, t0);
        if (cfg->gelu_exact) gelu_erf(post, pre, R * 4 * C); /* config "gelu" (nanoGPT) */
        else kern_gelu(post, pre, R * 4 * C);
        float *mlp_out = slot(tr->mlp_out, tr->s_proj, l, T, C, t0);
        kern_matmul_dt(mlp_out, post, gpt2_mat(w, lw->fc_proj_w, lw->fc_proj_h), dt, lw->fc_proj_b, R, 4 * C, C);
        gpt2_ablation_apply_out(&tr->ablation, GPT2_ABL_MLP, l, mlp_out, R, C);
        kern_add(xout, mid, mlp_out, R * C);
    }

    /* --- final LayerNorm and unembedding: logits = ln_f(x) @ wte^T --- */
    const float *xf = slot(tr->resid, tr->s_x, L, T, C, t0);
    float *lnf = tr->ln_final ? tr->ln_final + t0 * C : tr->s_ln;
    const size_t last = t0 + R - 1;
    if (tr->x_final && !tr->resid) memcpy(tr->x_final + t0 * C, xf, R * C * sizeof *xf);
    if (tr->ln_final || ((tr->capture & GPT2_CAP_LOGITS) && R > 1))
        kern_layernorm(lnf, xf, w->lnf_w, w->lnf_b, eps, R, C);
    if (tr->capture & GPT2_CAP_LOGITS) {
        /* every row as one product, then the newest again as one row: the logits shown
         * next are those of logits_row whichever way the trace keeps them */
        if (R > 1) kern_matmul_wt_dt(tr->logits + t0 * V, lnf, gpt2_mat(w, w->lm_head, w->lm_head_h), dt, R, C, V);
        logits_row(m, xf + (R - 1) * C, tr->s_ln, tr->logits + last * V);
        tr->logits_pos = (int)last;
        return;
    }
    /* Only the newest row's logits are computed: the other rows of a prompt would cost a
     * (R, V) product (as much as the rest of the model at T=256) for nothing;
     * gpt2_logits_at recomputes any of them from x_final. */
    if (!want_logits) return;
    logits_row(m, xf + (R - 1) * C, tr->s_ln, logits_slot(tr, (int)last));
    tr->logits_pos = (int)last;
}

static int check_inputs(const Gpt2Model *m, const Gpt2Trace *tr, size_t start, const int *ids, size_t n,
                        ErrorMsg *err) {
    const Gpt2Config *a = &m->config, *b = &tr->cfg;
    if (!tr->mem) return error_set(err, "forward: the trace is not initialised (gpt2_trace_init)");
    if (!gpt2_mat(&m->w, m->w.wte, m->w.wte_h) || !m->w.layers) return error_set(err, "forward: the model has no weights loaded");
    if (a->n_layer != b->n_layer || a->n_head != b->n_head || a->n_embd != b->n_embd ||
        a->vocab_size != b->vocab_size || a->n_positions != b->n_positions)
        return error_set(err, "forward: the trace was sized for another model (L=%d C=%d, model L=%d C=%d)",
                         b->n_layer, b->n_embd, a->n_layer, a->n_embd);
    if (n == 0) return error_set(err, "forward: the prompt is empty (need at least one token)");
    size_t total = start + n;
    if (total > (size_t)a->n_positions)
        return error_set(err, "prompt of %zu tokens exceeds the model's context of %d", total, a->n_positions);
    if (total > (size_t)tr->max_pos)
        return error_set(err, "prompt of %zu tokens exceeds the trace's capacity of %d positions", total,
                         tr->max_pos);
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= a->vocab_size)
            return error_set(err, "forward: token id %d at position %zu is outside the vocabulary 0..%d", ids[i],
                             start + i, a->vocab_size - 1);
    return 0;
}

int gpt2_extend(const Gpt2Model *m, Gpt2Trace *tr, const int *ids, size_t n, ErrorMsg *err) {
    size_t start = tr->mem ? (size_t)tr->n_pos : 0;
    if (check_inputs(m, tr, start, ids, n, err)) return -1;
    memcpy(tr->ids + start, ids, n * sizeof *ids);
    size_t chunk = (size_t)tr->chunk;
    for (size_t done = 0; done < n; done += chunk) {
        size_t R = n - done < chunk ? n - done : chunk;
        forward_chunk(m, tr, start + done, R, done + R == n);
    }
    tr->n_pos = (int)(start + n);
    return 0;
}

int gpt2_prefill(const Gpt2Model *m, Gpt2Trace *tr, const int *ids, size_t n, ErrorMsg *err) {
    if (check_inputs(m, tr, 0, ids, n, err)) {
        if (tr->mem) gpt2_trace_truncate(tr, 0);
        return -1;
    }
    gpt2_trace_truncate(tr, 0);
    return gpt2_extend(m, tr, ids, n, err);
}

int gpt2_step(const Gpt2Model *m, Gpt2Trace *tr, int id, ErrorMsg *err) {
    return gpt2_extend(m, tr, &id, 1, err);
}

const float *gpt2_logits_at(const Gpt2Model *m, Gpt2Trace *tr, int pos, ErrorMsg *err) {
    if (!tr->mem) {
        error_set(err, "logits: the trace is not initialised (gpt2_trace_init)");
        return NULL;
    }
    if (pos < 0 || pos >= tr->n_pos) {
        error_set(err, "logits: position %d is not computed (the trace holds 0..%d)", pos, tr->n_pos - 1);
        return NULL;
    }
    const float *kept = gpt2_trace_logits(tr, pos);
    if (kept) return kept;
    const Gpt2Config *a = &m->config, *b = &tr->cfg;
    if (a->n_embd != b->n_embd || a->vocab_size != b->vocab_size || a->n_layer != b->n_layer) {
        error_set(err, "logits: the trace was sized for another model");
        return NULL;
    }
    float *dst = logits_slot(tr, pos);
    logits_row(m, tr->x_final + (size_t)pos * (size_t)b->n_embd, tr->s_ln, dst);
    return dst;
}
