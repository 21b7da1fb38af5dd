/* gpt2_lean.c — the patterns of a lean trace (gpt2_lean.h): block-max summaries of
 * every head, a small cache of materialised layers, and their exact recomputation from
 * hook_q and the K cache with gpt2_pattern_row, the forward pass's own definition. */
#include "gpt2_lean.h"

#include <omp.h>

int gpt2_lean_threads(void) {
    int n = omp_get_max_threads();
    return n < 1 ? 1 : n > GPT2_LEAN_THREADS ? GPT2_LEAN_THREADS : n;
}

void gpt2_lean_summarise(Gpt2Lean *ln, size_t hid, const float *p, size_t t) {
    const size_t B = GPT2_PATTERN_BLOCK, I = t / B;
    float *row = ln->blk + hid * gpt2_tri_row((size_t)ln->nb) + gpt2_tri_row(I);
    float *sl = ln->sinkless + hid * (size_t)ln->nb + I;
    const int first = t % B == 0; /* the block row starts afresh with its first row */
    for (size_t J = 0; J <= I; J++) {
        size_t k0 = J * B, k1 = k0 + B < t + 1 ? k0 + B : t + 1;
        float m = p[k0];
        for (size_t k = k0 + 1; k < k1; k++)
            if (p[k] > m) m = p[k];
        if (first || m > row[J]) row[J] = m;
    }
    float s = 0.0f; /* pattern entries are >= 0: 0 stands for "no key but the sink" */
    for (size_t k = 1; k < B && k <= t; k++)
        if (p[k] > s) s = p[k];
    if (first || s > *sl) *sl = s;
}

float *gpt2_lean_cached(const Gpt2Lean *ln, int l) {
    for (int s = 0; s < GPT2_LEAN_LAYERS; s++)
        if (ln->layer_id[s] == l) return ln->layer[s];
    return NULL;
}

const float *gpt2_lean_layer(const Gpt2Trace *tr, int l) {
    Gpt2Lean *ln = tr->lean;
    ln->clock++;
    int slot = 0;
    for (int s = 0; s < GPT2_LEAN_LAYERS; s++) {
        if (ln->layer_id[s] == l) {
            ln->layer_use[s] = ln->clock;
            return ln->layer[s];
        }
        if (ln->layer_use[s] < ln->layer_use[slot]) slot = s;
    }
    const size_t NH = (size_t)tr->cfg.n_head, HS = (size_t)(tr->cfg.n_embd / tr->cfg.n_head);
    const size_t T = (size_t)tr->max_pos, P = gpt2_tri_row(T), L = (size_t)l;
    float *dst = ln->layer[slot];
    const long items = (long)((size_t)tr->n_pos * NH);
    /* one (row, head) pair per item, interleaved so long and short rows share the threads */
#pragma omp parallel for schedule(static, 1) if (items > 1)
    for (long it = 0; it < items; it++) {
        size_t t = (size_t)it / NH, h = (size_t)it % NH;
        const float *q = tr->q + ((L * NH + h) * T + t) * HS, *K = tr->k + (L * NH + h) * T * HS;
        gpt2_pattern_row(dst + h * P + gpt2_tri_row(t), NULL, q, K, t, HS);
    }
    ln->layer_id[slot] = l;
    ln->layer_use[slot] = ln->clock;
    return dst;
}

void gpt2_lean_truncate(const Gpt2Trace *tr, int n) {
    const size_t B = GPT2_PATTERN_BLOCK, t0 = (size_t)n / B * B;
    if (t0 == (size_t)n) return; /* no partial block row: the next row starts one afresh */
    Gpt2Lean *ln = tr->lean;
    const size_t NH = (size_t)tr->cfg.n_head, HS = (size_t)(tr->cfg.n_embd / tr->cfg.n_head);
    const size_t T = (size_t)tr->max_pos;
    const long heads = (long)((size_t)tr->cfg.n_layer * NH);
#pragma omp parallel for schedule(static) num_threads(gpt2_lean_threads())
    for (long hid = 0; hid < heads; hid++) {
        float *p = ln->rows + (size_t)omp_get_thread_num() * T;
        const float *K = tr->k + (size_t)hid * T * HS;
        for (size_t t = t0; t < (size_t)n; t++) {
            gpt2_pattern_row(p, NULL, tr->q + ((size_t)hid * T + t) * HS, K, t, HS);
            gpt2_lean_summarise(ln, (size_t)hid, p, t);
        }
    }
}
