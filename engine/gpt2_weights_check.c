/* gpt2_weights_check.c — the finiteness scan of gpt2_weights_check.h. The weights are
 * visited through the same Gpt2Weights pointers the forward pass reads, each with its
 * HF name and shape, so the message names what a user can look up in the file. */
#include "gpt2_weights_check.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* Index of the first non-finite value of p[0..n), or n. */
static size_t first_nonfinite(const float *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(p[i])) return i;
    return n;
}

/* Checks one tensor; on a bad value fills err and returns -1. */
static int check_one(const Gpt2Model *m, const char *name, const float *p, size_t rows, size_t cols,
                     ErrorMsg *err) {
    if (!p) return 0;
    size_t n = rows * cols, i = first_nonfinite(p, n);
    if (i == n) return 0;
    float v = p[i];
    const char *what = isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
    const char *dir = m->dir[0] ? m->dir : m->name;
    if (cols > 1)
        return error_set(err, "%s/model.safetensors: tensor '%s' holds %s at [%zu, %zu]", dir, name, what, i / cols,
                         i % cols);
    return error_set(err, "%s/model.safetensors: tensor '%s' holds %s at [%zu]", dir, name, what, i);
}

int gpt2_weights_check_finite(const Gpt2Model *m, ErrorMsg *err) {
    const Gpt2Config *c = &m->config;
    const size_t C = (size_t)c->n_embd, V = (size_t)c->vocab_size, NP = (size_t)c->n_positions;
    if (check_one(m, "wte.weight", m->w.wte, V, C, err) || check_one(m, "wpe.weight", m->w.wpe, NP, C, err))
        return -1;
    for (int l = 0; l < c->n_layer && m->w.layers; l++) {
        const Gpt2LayerWeights *w = &m->w.layers[l];
        const struct {
            const char *suffix;
            const float *p;
            size_t rows, cols;
        } t[] = {
            {"ln_1.weight", w->ln1_w, C, 1},           {"ln_1.bias", w->ln1_b, C, 1},
            {"attn.c_attn.weight", w->qkv_w, C, 3 * C}, {"attn.c_attn.bias", w->qkv_b, 3 * C, 1},
            {"attn.c_proj.weight", w->attn_proj_w, C, C}, {"attn.c_proj.bias", w->attn_proj_b, C, 1},
            {"ln_2.weight", w->ln2_w, C, 1},           {"ln_2.bias", w->ln2_b, C, 1},
            {"mlp.c_fc.weight", w->fc_w, C, 4 * C},    {"mlp.c_fc.bias", w->fc_b, 4 * C, 1},
            {"mlp.c_proj.weight", w->fc_proj_w, 4 * C, C}, {"mlp.c_proj.bias", w->fc_proj_b, C, 1},
        };
        for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
            char name[96];
            snprintf(name, sizeof name, "h.%d.%s", l, t[k].suffix);
            if (check_one(m, name, t[k].p, t[k].rows, t[k].cols, err)) return -1;
        }
    }
    if (check_one(m, "ln_f.weight", m->w.lnf_w, C, 1, err) || check_one(m, "ln_f.bias", m->w.lnf_b, C, 1, err))
        return -1;
    if (!m->tied && check_one(m, "lm_head.weight", m->w.lm_head, V, C, err)) return -1;
    return 0;
}
