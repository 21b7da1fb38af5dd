/* gpt2_lean.h — private to the engine (gpt2_trace.c, gpt2_forward.c): the attention
 * patterns of a lean trace (GPT2_CAP_LEAN, gpt2_trace.h). The one function that turns a
 * query row and the K cache into a pattern row lives here, so the forward pass and
 * every recomputation make exactly the same kernel calls on the same floats and get
 * bit-identical rows. Not the trace layout (gpt2_trace.c) and not the budget
 * (gpt2_trace_plan.h). */
#ifndef GPT2_LEAN_H
#define GPT2_LEAN_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "gpt2_trace.h"
#include "kernels.h"

/* Threads that get a scratch row of max_pos floats (more are not used for lean work). */
#define GPT2_LEAN_THREADS 64

typedef struct Gpt2Lean {
    int nb;                                /* summary blocks per side at max_pos */
    float *blk;                            /* (L*NH, tri(nb)) block maxima (gpt2_trace_head_blocks) */
    float *sinkless;                       /* (L*NH, nb) block (I, 0) without key 0 */
    float *layer[GPT2_LEAN_LAYERS];        /* (NH, P) materialised patterns of one layer each */
    int layer_id[GPT2_LEAN_LAYERS];        /* which layer (-1: none) */
    unsigned layer_use[GPT2_LEAN_LAYERS];  /* last use stamps (the oldest is reused) */
    unsigned clock;
    float *rows;                           /* (GPT2_LEAN_THREADS, max_pos) scratch rows */
} Gpt2Lean;

/* Scaled dot-product attention's 1/sqrt(HS) (Vaswani et al. 2017, eq. 1). */
static inline float gpt2_attn_scale(size_t hs) { return (float)(1.0 / sqrt((double)hs)); }

/* Pattern row t of one head: p[j] = softmax_j(q . K[j] / sqrt(HS)) for j <= t (keys
 * after t are masked: simply not part of the row). scores (may be NULL) receives the
 * pre-softmax row. THE definition used by the forward pass and every recompute. */
static inline void gpt2_pattern_row(float *p, float *scores, const float *q, const float *K, size_t t, size_t hs) {
    kern_attn_scores(p, q, K, t + 1, hs, gpt2_attn_scale(hs));
    if (scores) memcpy(scores, p, (t + 1) * sizeof *p);
    kern_softmax(p, t + 1);
}

/* Threads for lean work: at most GPT2_LEAN_THREADS (one scratch row each). */
int gpt2_lean_threads(void);

/* Folds pattern row t of head index hid (= layer*NH + head) into its block maxima
 * (rows must arrive in order within a block row; the block row's first row resets it). */
void gpt2_lean_summarise(Gpt2Lean *ln, size_t hid, const float *p, size_t t);

/* The materialised patterns of layer l if cached (NULL otherwise); the forward pass
 * writes new rows into it. */
float *gpt2_lean_cached(const Gpt2Lean *ln, int l);

/* Layer l's patterns (NH, P) for rows [0, n_pos), computed from hook_q and K into the
 * least recently used slot when not cached. */
const float *gpt2_lean_layer(const Gpt2Trace *tr, int l);

/* After truncation to n positions: rebuilds the summaries of the partial block row
 * (rows n - n % B .. n-1) of every head from q and K. */
void gpt2_lean_truncate(const Gpt2Trace *tr, int n);

#endif
