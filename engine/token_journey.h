/* token_journey.h — the journey of one token through the network, as data for the
 * self-study panel: for one position (the newest, usually), stage by stage
 *     embedding -> block 0 -> ... -> block L-1 -> final norm -> logits
 * the L2 norm of the vector leaving the stage, its logit-lens top-3, each block's
 * attention and MLP contributions (the norms of hook_attn_out and hook_mlp_out at that
 * position, for arrows of proportional size) and the shape of every tensor of the stage
 * ("[T, 768]", "[12, T, T]"; T = positions so far, the rest from the config), formatted
 * here so the panel prints strings and computes nothing. Reads the trace (GPT2_CAP_RESID)
 * through resid_parts.h and logit_lens.h. Not drawing. */
#ifndef TOKEN_JOURNEY_H
#define TOKEN_JOURNEY_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "logit_lens.h"
#include "resid_parts.h"

#define JOURNEY_TOP 3
#define JOURNEY_MAX_TENSORS 20

typedef enum JourneyKind { JOURNEY_EMBED, JOURNEY_BLOCK, JOURNEY_LN_FINAL, JOURNEY_LOGITS } JourneyKind;

/* One tensor of a stage: its trace (or weight) name and its shape. */
typedef struct JourneyTensor {
    char name[48];       /* "blocks.3.attn.hook_pattern", or a weight: "blocks.3.attn.c_proj.weight" */
    char shape[32];      /* "[12, T, T]" */
    int is_weight;       /* 1 for parameters (the same at every position), 0 for activations */
} JourneyTensor;

typedef struct JourneyStage {
    JourneyKind kind;
    int block;           /* JOURNEY_BLOCK: 0-based block; else -1 */
    char label[24];      /* "embed", "block 3", "ln_final", "logits" */
    char out_name[48];   /* the vector leaving the stage: "blocks.3.hook_resid_post", ... */
    char out_shape[32];  /* its shape, "[T, 768]" ("[T, 50257]" for the logits) */
    double norm;         /* ||out[pos]||_2 */
    double attn_norm;    /* JOURNEY_BLOCK: ||hook_attn_out[pos]||_2 (0 when switched off) */
    double mlp_norm;     /* JOURNEY_BLOCK: ||hook_mlp_out[pos]||_2 */
    int n_top;           /* JOURNEY_TOP */
    int top_id[JOURNEY_TOP];   /* lens top-3 of out (ln_final and logits: the model's own) */
    float top_p[JOURNEY_TOP];
    int n_tensors;
    JourneyTensor tensors[JOURNEY_MAX_TENSORS]; /* forward order */
} JourneyStage;

typedef struct TokenJourney {
    int pos;             /* the position (-1: none yet) */
    int token;           /* the token at pos */
    int n_pos;           /* T: positions in the trace when it was made (the T of the shapes) */
    int n_stages;        /* L + 3 */
    JourneyStage *stage; /* (n_stages) */
    ResidParts parts;    /* private */
    LensRow *rows;       /* private: (L + 1) lens rows */
} TokenJourney;

/* Sizes it for a model of this config (shapes are filled here, once). -1 with err. */
int token_journey_init(TokenJourney *j, const Gpt2Config *cfg, ErrorMsg *err);
/* Safe on a zeroed struct; leaves it zeroed. */
void token_journey_free(TokenJourney *j);

/* Fills the journey of position pos (lens is scratch, see logit_lens.h). -1 with err
 * when pos is out of range or the trace lacks the residual streams. */
int token_journey_at(TokenJourney *j, LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos,
                     ErrorMsg *err);

#endif
