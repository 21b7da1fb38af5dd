/* attn_explain.h — the attention computation of ONE query, stage by stage, as plain
 * arrays a panel can draw without doing any math: q_i, the keys k_j, the raw dot
 * products q.k_j, the scaled scores q.k_j / sqrt(HS), the causal mask (-inf for j > i,
 * kept, not hidden), the softmax (= the traced pattern row) and its sum, the values v_j,
 * the weighted values p_ij v_j and their sum z_i, and how z_i becomes part of attn_out
 * (this head's slice of z through its rows of c_proj; the heads concatenated).
 * Reads a Gpt2Trace, never writes it. Not the forward pass and not a panel.
 *
 * EVERY NUMBER EQUALS THE TRACE where the trace has it:
 *     q        = blocks.L.attn.hook_q[H, i]          with GPT2_CAP_Q, else recomputed from
 *                hook_resid_pre (GPT2_CAP_RESID, in GPT2_CAP_DEFAULT): ln_1, then the head's
 *                columns of c_attn (double sums; ~1e-6 off the forward's own q)
 *     k, v     = blocks.L.attn.hook_k / hook_v[H, j] always (the KV cache)
 *     masked   = blocks.L.attn.hook_attn_scores[H, i] with GPT2_CAP_SCORES, else the
 *                forward's own kernel (kern_attn_scores) on q and the cached k: with a
 *                traced q the same float operations, so the same numbers
 *     pattern  = blocks.L.attn.hook_pattern[H, i]    always
 *     z        = blocks.L.attn.hook_z[i, H*HS ..]    with GPT2_CAP_Z, else kern_attn_mix
 *     attn_out = blocks.L.hook_attn_out[i]           with GPT2_CAP_ATTN_OUT, else z @ c_proj + b
 * `traced` says which came from the trace. The values no hook holds (the raw dot, the
 * exps, the weighted values, the per-head projection, the sharper/softer rows) are
 * computed here in double and stored as float.
 *
 * WHAT THE PANEL ASKS THE TRACE FOR: nothing beyond GPT2_CAP_DEFAULT to work at all;
 * ATTN_EXPLAIN_CAPTURE (Q | Z | ATTN_OUT) so that every traced number is read from the
 * trace — per position three C-wide rows per layer: GPT-2 124M at 1024 positions
 * 3 x 37.7 MB, 1.5B (L48 C1600) 3 x 315 MB, the bundled model (L4 C256) at 256 positions
 * 3 x 1.05 MB. SCORES is optional (as large as the patterns: 302 MB for 124M at 1024,
 * 2.1 MB for the bundled model): with a traced q the recomputed scores are the forward's.
 *
 * USAGE
 *     AttnExplain ex = {0};
 *     attn_explain_init(&ex, &model.config, trace.max_pos, &err);  // sizes once
 *     attn_explain_compute(&ex, &model, &trace, layer, head, query, &err);
 *     ... draw ex.q, ex.dot[0..ex.n_keys), ex.pattern, ex.z, ex.stage[s].shape ...
 *     attn_explain_free(&ex); */
#ifndef ATTN_EXPLAIN_H
#define ATTN_EXPLAIN_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"

/* The trace captures that make every traced number come from the trace itself. */
#define ATTN_EXPLAIN_CAPTURE (GPT2_CAP_Q | GPT2_CAP_Z | GPT2_CAP_ATTN_OUT)

/* Which arrays were read from the trace (bits of AttnExplain.traced). */
enum {
    ATTN_TRACED_SCORES = 1u << 0,   /* masked <- hook_attn_scores */
    ATTN_TRACED_Z = 1u << 1,        /* z, z_concat <- hook_z */
    ATTN_TRACED_ATTN_OUT = 1u << 2, /* attn_out <- hook_attn_out */
    ATTN_TRACED_Q = 1u << 3,        /* q <- hook_q (else recomputed from hook_resid_pre) */
};

/* The stages in the order the computation runs; each has a label and its shape. */
typedef enum AttnStage {
    ATTN_STAGE_Q,        /* q_i                               (HS) */
    ATTN_STAGE_K,        /* k_0..k_{T-1}                      (T, HS) */
    ATTN_STAGE_DOT,      /* q.k_j                             (T) */
    ATTN_STAGE_SCALE,    /* / sqrt(HS)                        (T) */
    ATTN_STAGE_MASK,     /* -inf for j > i                    (T) */
    ATTN_STAGE_SOFTMAX,  /* the pattern row, sums to 1        (T) */
    ATTN_STAGE_V,        /* v_0..v_{T-1}                      (T, HS) */
    ATTN_STAGE_WEIGHTED, /* p_ij v_j                          (T, HS) */
    ATTN_STAGE_Z,        /* z_i = sum_j p_ij v_j              (HS) */
    ATTN_STAGE_CONCAT,   /* the NH heads' z side by side      (C) */
    ATTN_STAGE_HEAD_OUT, /* z_i,H @ c_proj rows of head H     (C) */
    ATTN_STAGE_OUT,      /* z @ c_proj + b = attn_out         (C) */
    ATTN_STAGE_COUNT
} AttnStage;

typedef struct AttnStageInfo {
    const char *label;   /* e.g. "q . k_j" (static text) */
    char shape[96];      /* e.g. "(64) . (64, 9) -> (9)" with this model's sizes */
} AttnStageInfo;

typedef struct AttnExplain {
    /* sizes it was made for (attn_explain_init) */
    int cap_pos;          /* keys it has room for */
    int HS, C, NH;

    /* what attn_explain_compute filled */
    int layer, head;      /* L, H */
    int query;            /* i: the query position */
    int n_keys;           /* T = trace positions: keys 0..T-1 are listed, j > i are masked */
    float scale;          /* 1 / sqrt(HS), as the forward uses it */
    float sqrt_hs;        /* sqrt(HS), the divisor shown */
    unsigned traced;      /* ATTN_TRACED_* bits */

    float *q;             /* (HS) the query */
    float *k;             /* (cap_pos, HS) rows 0..n_keys-1: key j (future keys too) */
    float *v;             /* (cap_pos, HS) value j */
    float *dot;           /* (cap_pos) q.k_j for every j, future keys too (computed, double) */
    float *scaled;        /* (cap_pos) q.k_j / sqrt(HS) for every j (the product before masking) */
    float *masked;        /* (cap_pos) scaled for j <= i, -INFINITY for j > i (= hook_attn_scores) */
    float *exps;          /* (cap_pos) exp(masked_j - max_j masked), 0 for j > i (double) */
    double exp_sum;       /* sum of exps: pattern_j = exps_j / exp_sum */
    float max_score;      /* max over j <= i of masked */
    float *pattern;       /* (cap_pos) softmax row = hook_pattern[i], exactly 0 for j > i */
    double pattern_sum;   /* sum of the row in double (1 to ~1e-7) */
    float *sharper;       /* (cap_pos) softmax(2 * masked): score gaps doubled — peakier */
    float *softer;        /* (cap_pos) softmax(masked / 2): gaps halved — flatter */
    float *weighted;      /* (cap_pos, HS) p_ij * v_j (zero rows for j > i) */
    float *z;             /* (HS) z_i of this head = sum_j weighted_j (= hook_z slice) */
    float *z_concat;      /* (C) every head's z at query i, head h at h*HS (= hook_z row) */
    float *head_out;      /* (C) z_i,H @ c_proj[H*HS .. H*HS+HS, :]: this head's share of attn_out */
    float *head_out_norm; /* (NH) |z_i,h @ c_proj rows of h| for every head h (how loud each head is) */
    float *attn_out;      /* (C) z_concat @ c_proj + b (= hook_attn_out row) */
    float *ln1;           /* (C) scratch: ln_1 of resid_pre when q is recomputed */
    AttnStageInfo stage[ATTN_STAGE_COUNT];

    void *mem;            /* storage (private): one allocation */
} AttnExplain;

/* Allocates room for queries over up to cap_pos keys of a model of this config.
 * -1 with err on bad sizes or out of memory (ex zeroed). */
int attn_explain_init(AttnExplain *ex, const Gpt2Config *cfg, int cap_pos, ErrorMsg *err);

/* Safe on a zeroed struct; leaves it zeroed. */
void attn_explain_free(AttnExplain *ex);

/* Fills every array for layer L, head H and query position i (< tr->n_pos) from the
 * trace (see the top of this file). No allocation. Returns -1 with err when
 * layer/head/query are out of range, the trace has neither GPT2_CAP_Q nor GPT2_CAP_RESID,
 * it holds more positions than cap_pos, or the sizes do not match the model. */
int attn_explain_compute(AttnExplain *ex, const Gpt2Model *m, const Gpt2Trace *tr, int layer, int head,
                         int query, ErrorMsg *err);

#endif
