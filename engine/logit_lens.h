/* logit_lens.h — "what would the model say if it stopped here?": each residual stream
 * (resid_pre of block 0, then resid_post of every block) at one position is pushed
 * through the final LayerNorm and the unembedding, giving a next-token distribution
 * per depth (nostalgebraist 2020, "interpreting GPT: the logit lens").
 * Reads a trace captured with GPT2_CAP_RESID; never writes it. Not the forward pass.
 * Each depth costs one (V, C) matvec (~20 ms for 124M); memory is allocated once at init. */
#ifndef LOGIT_LENS_H
#define LOGIT_LENS_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"

typedef struct LogitLens {
    size_t C, V;      /* sizes it was made for */
    float *ln;        /* (C) ln_final of the chosen residual */
    float *logits;    /* (V) its logits */
} LogitLens;

/* Allocates the scratch for a model of this config. -1 with err on out of memory. */
int logit_lens_init(LogitLens *lens, const Gpt2Config *cfg, ErrorMsg *err);

/* Safe on a zeroed struct; leaves it zeroed. */
void logit_lens_free(LogitLens *lens);

/* Top-k tokens of softmax(ln_final(resid) @ wte^T) for the residual stream at depth
 * `depth` (0 = blocks.0.hook_resid_pre, d = blocks.{d-1}.hook_resid_post, so depth L is
 * the model's own output) and position `pos` < tr->n_pos. Writes min(k, V) ids and
 * probabilities (descending; temperature 1) and returns how many, or -1 with err when the
 * trace lacks GPT2_CAP_RESID, depth/pos are out of range, or the sizes do not match. */
int logit_lens_topk(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int depth, int pos,
                    size_t k, int *ids, float *probs, ErrorMsg *err);

#endif
