/* gpt2_weights_check.h — "is every weight a finite number?" for a loaded model, and if
 * not, which tensor and where: "tensor 'h.0.mlp.c_fc.weight' holds NaN at [12, 40]".
 * A damaged or badly converted checkpoint otherwise shows up only as NaN logits and a
 * puzzling refusal much later. One pass over all weights (memory bandwidth: ~0.1 s for
 * GPT-2 124M), so callers run it when a diagnosis is needed (inferscope info, or after
 * a forward pass produced non-finite logits), not on every load. Not the loader. */
#ifndef GPT2_WEIGHTS_CHECK_H
#define GPT2_WEIGHTS_CHECK_H

#include "error.h"
#include "gpt2_model.h"

/* 0 when every weight of m is finite; else -1 with err = "DIR/model.safetensors: tensor
 * 'NAME' holds NaN (or +Inf/-Inf) at [i, j]" naming the first bad element found (in the
 * file's tensor order: wte, wpe, h.0..., ln_f, lm_head). */
int gpt2_weights_check_finite(const Gpt2Model *m, ErrorMsg *err);

#endif
