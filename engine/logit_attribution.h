/* logit_attribution.h — direct logit attribution: how much the embeddings, every head,
 * every MLP and the biases each add to the logit of one token (or to the difference of
 * two: "why ' time' and not ' day'") at one position, with the final LayerNorm's scale
 * frozen at its actual value there. Then the model is linear in its residual stream:
 *     logit_t = g.(x - mean x) / s . u_t + b.u_t,   s = sqrt(var(x) + eps) (frozen),
 * and x is the sum of its parts (resid_parts.h), the centring is linear, so with
 * w = (g * u) - mean(g * u) every part c contributes (c . w) / s, and
 *     embed + sum of heads + sum of MLPs + bias  ==  the logit (difference)
 * exactly, up to float rounding. A head's part is its slice of z times its HS rows of
 * attn.c_proj's weight. As TransformerLens's get_full_resid_decomposition: each MLP's part
 * is its hook_mlp_out (its c_proj bias included); "bias" = every block's attn.c_proj
 * bias (through the frozen norm) plus the ln_final bias term b.u. Honours the trace's
 * ablation (a switched-off part contributes 0). Plain arrays for the panel; no drawing.
 * Cost per call: resid_parts_at + one (C, C) matvec per block; no trace memory. */
#ifndef LOGIT_ATTRIBUTION_H
#define LOGIT_ATTRIBUTION_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "resid_parts.h"

typedef enum AttrKind { ATTR_EMBED, ATTR_HEAD, ATTR_MLP, ATTR_BIAS } AttrKind;

typedef struct AttrComponent {
    AttrKind kind;
    int layer;          /* block, 0-based (-1 for embed and bias) */
    int head;           /* head within the block (-1 unless kind == ATTR_HEAD) */
    char name[32];      /* "embed", "L3H2", "L3.mlp", "bias" */
    double value;       /* its share of the logit (difference), in logits */
} AttrComponent;

typedef struct Attribution {
    int pos, target, vs;    /* position, token, the other token (-1: the logit of target alone) */
    double total;           /* the model's own logit[target] (- logit[vs]) at pos */
    int total_from_logits;  /* 1: total read from the trace's logits; 0: computed here in double */
    double sum;             /* sum of the components' values (== total up to float rounding) */
    double inv_scale;       /* 1 / sqrt(var(x) + eps): ln_final's frozen scale at pos */
    double ln_bias;         /* ln_final's bias term b . (u_target - u_vs) (inside "bias") */
    double *attn_bias;      /* (L) each block's attn.c_proj bias term (inside "bias"; 0 if ablated) */
    int n;                  /* components: 1 + L * (NH + 1) + 1 */
    AttrComponent *comp;    /* (n) embed, L0H0 .. L0H{NH-1}, L0.mlp, L1H0, ..., bias */
    int *order;             /* (n) indices into comp by decreasing |value| (ties: model order) */
    /* scratch (private) */
    void *keys;             /* (n) sort keys */
    float *w, *r;           /* (C) the frozen read-out direction; (C) c_proj @ w of one block */
    ResidParts parts;
} Attribution;

/* Sizes everything for a model of this config. -1 with err on out of memory. */
int attribution_init(Attribution *a, const Gpt2Config *cfg, ErrorMsg *err);
/* Safe on a zeroed struct; leaves it zeroed. */
void attribution_free(Attribution *a);

/* Index into comp[] of head h of block l, and of block l's MLP. */
static inline int attribution_head_index(int n_head, int l, int h) { return 1 + l * (n_head + 1) + h; }
static inline int attribution_mlp_index(int n_head, int l) { return 1 + l * (n_head + 1) + n_head; }

/* Attributes logit[target] (minus logit[vs] when vs >= 0) at position pos of the trace
 * (GPT2_CAP_RESID needed). -1 with err when pos or a token is out of range, vs == target,
 * or the trace lacks the residual streams. */
int attribution_run(Attribution *a, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int target, int vs,
                    ErrorMsg *err);

#endif
