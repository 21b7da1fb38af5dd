/* logit_lens.c — the logit lens over a captured trace (see logit_lens.h): the same final
 * LayerNorm and unembedding as the model's last step, applied to intermediate residuals. */
#include "logit_lens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

int logit_lens_init(LogitLens *lens, const Gpt2Config *cfg, ErrorMsg *err) {
    memset(lens, 0, sizeof *lens);
    if (cfg->n_embd <= 0 || cfg->vocab_size <= 0) return error_set(err, "logit lens: invalid model config");
    lens->C = (size_t)cfg->n_embd;
    lens->V = (size_t)cfg->vocab_size;
    lens->ln = malloc(lens->C * sizeof(float));
    lens->logits = malloc(lens->V * sizeof(float));
    if (!lens->ln || !lens->logits) {
        logit_lens_free(lens);
        return error_set(err, "logit lens: out of memory");
    }
    return 0;
}

void logit_lens_free(LogitLens *lens) {
    if (!lens) return;
    free(lens->ln);
    free(lens->logits);
    memset(lens, 0, sizeof *lens);
}

int logit_lens_topk(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int depth, int pos,
                    size_t k, int *ids, float *probs, ErrorMsg *err) {
    const size_t C = (size_t)m->config.n_embd, V = (size_t)m->config.vocab_size;
    if (!lens->ln || lens->C != C || lens->V != V || tr->cfg.n_embd != m->config.n_embd)
        return error_set(err, "logit lens: sizes do not match the model (C=%zu V=%zu)", C, V);
    if (!tr->resid)
        return error_set(err, "logit lens: the trace has no residual streams (capture GPT2_CAP_RESID)");
    if (depth < 0 || depth > m->config.n_layer)
        return error_set(err, "logit lens: depth %d out of range 0..%d", depth, m->config.n_layer);
    if (pos < 0 || pos >= tr->n_pos)
        return error_set(err, "logit lens: position %d out of range 0..%d", pos, tr->n_pos - 1);
    const float *x = tr->resid + ((size_t)depth * (size_t)tr->max_pos + (size_t)pos) * C;
    kern_layernorm(lens->ln, x, m->w.lnf_w, m->w.lnf_b, m->config.ln_eps, 1, C);
    kern_matmul_wt_dt(lens->logits, lens->ln, gpt2_mat(&m->w, m->w.lm_head, m->w.lm_head_h), m->w.dtype, 1, C, V);
    size_t got = kern_topk(ids, probs, lens->logits, V, k);
    if (got == 0) return 0;
    /* softmax over the whole vocabulary: p_i = exp(l_i - max) / sum_j exp(l_j - max),
     * the sum in double so 50257 small terms lose nothing */
    float mx = probs[0];
    double sum = 0.0;
    for (size_t i = 0; i < V; i++) sum += exp((double)lens->logits[i] - mx);
    for (size_t i = 0; i < got; i++) probs[i] = (float)(exp((double)probs[i] - mx) / sum);
    return (int)got;
}
