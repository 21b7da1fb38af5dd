/* gpt2_forward.h — the instrumented GPT-2 forward pass: token ids in, every activation
 * written into a Gpt2Trace (gpt2_trace.h), next-token logits out. Exactly GPT-2:
 *     x = wte[id] + wpe[pos]
 *     per block (pre-LN):  x += attn(ln_1(x));  x += mlp(ln_2(x))
 *         attn: causal multi-head, softmax(q k^T / sqrt(HS)), heads concatenated, c_proj
 *         mlp:  c_proj(gelu_tanh(c_fc(x)))
 *     logits = ln_f(x) @ wte^T
 * float32 throughout, no fast-math. Not the sampler (what to do with the logits) and not
 * the loader (gpt2_model.h).
 *
 * Two entry points fill the same trace: gpt2_prefill (a whole prompt at once, as
 * matrix-matrix products) and gpt2_step (one token, reading keys/values of earlier
 * positions from the KV cache in the trace). Both give the same numbers to float
 * rounding. To step back or branch, gpt2_trace_truncate() and continue with gpt2_step:
 * the model is not run again (what a trace budget dropped is recomputed exactly, see
 * gpt2_logits_at and LEAN PATTERNS in gpt2_trace.h). Nothing is allocated here; all
 * memory is in the trace.
 * Threads: kern_set_threads() (kernels.h). */
#ifndef GPT2_FORWARD_H
#define GPT2_FORWARD_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"

/* Runs the prompt ids[0..n) from position 0 (forgetting whatever the trace held).
 * Afterwards tr->n_pos == n and gpt2_trace_logits(tr, n-1) is the next-token
 * distribution's logits. Logits of earlier positions are computed only when the trace
 * captures GPT2_CAP_LOGITS. Returns -1 (trace emptied) with err set when the prompt is
 * empty, holds an id outside [0, V), is longer than the context ("prompt of N tokens
 * exceeds the model's context of NP"), or the trace was sized for another model. */
int gpt2_prefill(const Gpt2Model *m, Gpt2Trace *tr, const int *ids, size_t n, ErrorMsg *err);

/* Appends ids[0..n) at positions tr->n_pos.. (prefill-style, reusing the KV cache of
 * the positions already there): for a branch that adds several tokens at once. On error
 * the trace is left as it was before the call. */
int gpt2_extend(const Gpt2Model *m, Gpt2Trace *tr, const int *ids, size_t n, ErrorMsg *err);

/* One decode step: the token `id` at position tr->n_pos, attending over the cache.
 * Afterwards gpt2_trace_logits(tr, tr->n_pos - 1) holds its logits. Errors as above;
 * on error the trace is unchanged. */
int gpt2_step(const Gpt2Model *m, Gpt2Trace *tr, int id, ErrorMsg *err);

/* Logits (V floats) predicting the token after position pos (0 <= pos < tr->n_pos):
 * the kept row with GPT2_CAP_LOGITS, else a cached one, else recomputed from the final
 * residual row into the cache (ln_f and one unembedding row: ~V*C multiply-adds). The
 * newest row of every forward call and every recomputed row come from the same code,
 * so stepping back shows the very bits shown before. Without GPT2_CAP_LOGITS the
 * pointer is valid until GPT2_LOGITS_CACHE - 1 other positions were asked for, or the
 * next forward call or truncate. NULL with err set when pos is out of range. */
const float *gpt2_logits_at(const Gpt2Model *m, Gpt2Trace *tr, int pos, ErrorMsg *err);

#endif
