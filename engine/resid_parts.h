/* resid_parts.h — the residual stream at ONE position split into the pieces that were
 * added into it: the embeddings (wte + wpe), each block's attention output (and the z
 * that fed it, head by head), each block's MLP output. By construction
 *     resid_post[l] = embed + sum_{i <= l} (attn_out[i] + mlp_out[i]).
 * Read from the trace where it captured them, else recomputed from what it always keeps:
 * z = pattern @ v (the stored pattern row and V cache, the same kernel as the forward, so
 * bit for bit), attn_out = z @ attn.c_proj + b, mlp_out = resid_post - resid_mid. The
 * trace's ablation mask is honoured (zeroed heads / sublayers read as zeros). Needs
 * GPT2_CAP_RESID. Cost per position: L*NH*(pos+1)*HS + L*C*C multiply-adds, no extra
 * trace memory (GPT2_CAP_Z would cost L*max_pos*C floats: 37.7 MB for 124M at 1024).
 * Used by the attribution and the journey; writes nothing into the trace. */
#ifndef RESID_PARTS_H
#define RESID_PARTS_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"

typedef struct ResidParts {
    size_t L, NH, C;    /* sizes it was made for */
    int pos;            /* position the arrays hold (-1: none yet) */
    float *resid;       /* (L+1, C) [0] = embed = blocks.0.hook_resid_pre, [l+1] = blocks.l.hook_resid_post */
    float *z;           /* (L, C) blocks.l.attn.hook_z: head h at [h*HS, (h+1)*HS) */
    float *attn_out;    /* (L, C) blocks.l.hook_attn_out (c_proj bias included unless ablated) */
    float *resid_mid;   /* (L, C) blocks.l.hook_resid_mid = resid[l] + attn_out[l] */
    float *mlp_out;     /* (L, C) blocks.l.hook_mlp_out = resid[l+1] - resid_mid[l] */
} ResidParts;

/* Allocates the arrays for a model of this config. -1 with err on out of memory. */
int resid_parts_init(ResidParts *rp, const Gpt2Config *cfg, ErrorMsg *err);
/* Safe on a zeroed struct; leaves it zeroed. */
void resid_parts_free(ResidParts *rp);

/* Fills rp for position pos of the trace. -1 with err when the trace has no residual
 * streams, pos is outside 0..n_pos-1, or the sizes differ. */
int resid_parts_at(ResidParts *rp, const Gpt2Model *m, const Gpt2Trace *tr, int pos, ErrorMsg *err);

#endif
