/* gpt2_trace.h — every activation of a GPT-2 forward pass, kept per position so the
 * viewer can show any of them and step back in time for free. Caller-owned; written
 * only by gpt2_forward.c, read by the viewer, the dump command and the logit lens.
 * This is also the run state: the KV cache (hook_k, hook_v) and the forward's scratch
 * live here, so the forward pass itself never allocates.
 * Not the math (gpt2_forward.c) and not the weights (gpt2_model.h).
 *
 * USAGE
 *     Gpt2Trace tr = {0};
 *     if (gpt2_trace_init(&tr, &model.config, 1024, GPT2_CAP_DEFAULT, &err)) fail(err.text);
 *     gpt2_prefill(&model, &tr, ids, n, &err);          // positions 0..n-1
 *     gpt2_step(&model, &tr, next_id, &err);            // position n (uses the KV cache)
 *     gpt2_trace_truncate(&tr, 3);                      // step back: positions 0..2 stay valid
 *     Gpt2TraceView v;
 *     gpt2_trace_get(&tr, GPT2_T_PATTERN, 3, &v, &err);  // = "blocks.3.attn.hook_pattern"
 *     float p = gpt2_view_at(&v, head, query_pos, key_pos);
 *     gpt2_trace_free(&tr);
 *
 * NAMES — TransformerLens hook names, the one scheme used by the trace, dump and viewer.
 * i = layer 0..L-1; T = tr->n_pos (positions computed so far). Shapes as returned by
 * gpt2_trace_find:
 *     hook_embed                      (T, C)     wte[token]                     [EMBED]
 *     hook_pos_embed                  (T, C)     wpe[pos]                       [EMBED]
 *     blocks.{i}.hook_resid_pre       (T, C)     input of block i               [RESID]
 *     blocks.{i}.ln1.hook_normalized  (T, C)     ln_1 output                    [LN]
 *     blocks.{i}.attn.hook_q          (NH, T, HS)                               [Q]
 *     blocks.{i}.attn.hook_k          (NH, T, HS)  always (the KV cache)
 *     blocks.{i}.attn.hook_v          (NH, T, HS)  always (the KV cache)
 *     blocks.{i}.attn.hook_attn_scores (NH, T, T) q.k/sqrt(HS), -inf above diag [SCORES]
 *     blocks.{i}.attn.hook_pattern    (NH, T, T) softmax rows, 0 above diag      always
 *     blocks.{i}.attn.hook_z          (T, C)     heads concatenated (z[t, h*HS+d]) [Z]
 *     blocks.{i}.hook_attn_out        (T, C)     z @ c_proj + b                 [ATTN_OUT]
 *     blocks.{i}.hook_resid_mid       (T, C)     resid_pre + attn_out           [RESID_MID]
 *     blocks.{i}.ln2.hook_normalized  (T, C)                                    [LN]
 *     blocks.{i}.mlp.hook_pre         (T, 4C)    ln2 @ c_fc + b                 [MLP]
 *     blocks.{i}.mlp.hook_post        (T, 4C)    gelu(mlp.hook_pre)             [MLP]
 *     blocks.{i}.hook_mlp_out         (T, C)                                    [MLP_OUT]
 *     blocks.{i}.hook_resid_post      (T, C)     resid_mid + mlp_out            [RESID]
 *     ln_final.hook_normalized        (T, C)                                    [LN]
 *     logits                          (T, V)     all positions with [LOGITS];
 *                                     (1, V) = the newest position only, otherwise
 * As a convenience the lookup also accepts the names without the "hook_" prefix of the
 * last component ("blocks.3.attn.pattern", "blocks.0.resid_post", "embed").
 * gpt2_trace_name() enumerates the canonical names.
 *
 * MEMORY (float32). Attention patterns are kept for every layer, head and position
 * as PACKED LOWER TRIANGLES: row t of a (T,T) pattern holds t+1 floats at offset
 * t(t+1)/2; the entries above the diagonal are not stored and read as exactly 0
 * (scores: -inf) through gpt2_view_at / gpt2_trace_copy_pattern. This halves the cost
 * of the full square. For GPT-2 124M (L=12 NH=12 C=768 V=50257) at max_pos=1024:
 *     always:   patterns 12*12*1024*1025/2*4 B = 302 MB; K+V cache 75.5 MB;
 *               forward scratch for a 256-row chunk ~14 MB    -> capture 0: 391 MB
 *     DEFAULT adds  LOGITS (1024*50257*4 B) = 206 MB, RESID (13 streams) = 40.9 MB
 *                                                          -> DEFAULT: 637 MB
 *               (use a smaller max_pos to pay less: patterns grow with max_pos^2,
 *               everything else linearly)
 *     optional: SCORES 302 MB; MLP (pre+post) 302 MB; Q, Z, ATTN_OUT, MLP_OUT,
 *               RESID_MID 37.7 MB each; LN 78.6 MB; EMBED 6.3 MB -> ALL: 1515 MB.
 * The block is reserved with mmap, so pages of positions never reached cost no RAM.
 * gpt2_trace_bytes() gives the exact figure for any model and mask.
 *
 * LEAN PATTERNS (GPT2_CAP_LEAN, chosen by a trace budget: gpt2_trace_plan.h). For
 * GPT-2 XL at 1024 positions the patterns alone are 2.5 GB. A lean trace keeps hook_q
 * instead (L*T*C floats: 315 MB for XL) and recomputes any head's pattern EXACTLY from
 * q and the K cache, with the same two kernel calls the forward pass makes
 * (gpt2_lean.h), so the numbers are bit-identical to what the forward computed:
 *   - gpt2_trace_find("blocks.L.attn.hook_pattern") materialises layer L's heads into
 *     a cache of GPT2_LEAN_LAYERS layers (the views' layers), which the forward pass
 *     then keeps current; the view is valid until a find of another layer evicts it;
 *   - every head's pattern is also summarised as the maxima of 8x8 position blocks
 *     (gpt2_trace_head_blocks), enough for the all-heads thumbnails.
 * LOGITS WITHOUT GPT2_CAP_LOGITS: the last few positions' logits stay in a small cache
 * and any other position's are recomputed from its final residual row
 * (gpt2_logits_at, gpt2_forward.h) by the same code as a decode step: stepping back
 * gives bit-identical numbers. */
#ifndef GPT2_TRACE_H
#define GPT2_TRACE_H

#include <stddef.h>

#include "error.h"
#include "gpt2_ablation.h"
#include "gpt2_model.h"

/* Capture mask: which optional activations are kept for every position. */
enum {
    GPT2_CAP_EMBED = 1u << 0,     /* hook_embed, hook_pos_embed */
    GPT2_CAP_RESID = 1u << 1,     /* hook_resid_pre / hook_resid_post (the logit lens needs these) */
    GPT2_CAP_LN = 1u << 2,        /* ln1, ln2, ln_final normalized outputs */
    GPT2_CAP_Q = 1u << 3,         /* attn.hook_q */
    GPT2_CAP_SCORES = 1u << 4,    /* attn.hook_attn_scores (pre-softmax, packed like patterns) */
    GPT2_CAP_Z = 1u << 5,         /* attn.hook_z */
    GPT2_CAP_ATTN_OUT = 1u << 6,  /* hook_attn_out */
    GPT2_CAP_RESID_MID = 1u << 7, /* hook_resid_mid */
    GPT2_CAP_MLP = 1u << 8,       /* mlp.hook_pre and mlp.hook_post (4C wide) */
    GPT2_CAP_MLP_OUT = 1u << 9,   /* hook_mlp_out */
    GPT2_CAP_LOGITS = 1u << 10,   /* logits at every position (else only the newest) */
    GPT2_CAP_ALL = (1u << 11) - 1,
    /* not an activation: keep hook_q and recompute patterns per layer on demand instead
     * of keeping every head's (see LEAN PATTERNS); implies GPT2_CAP_Q */
    GPT2_CAP_LEAN = 1u << 11,
    /* what the viewer needs to step back and branch without recomputing: the next-token
     * distribution at every position and the residual streams for the logit lens */
    GPT2_CAP_DEFAULT = GPT2_CAP_RESID | GPT2_CAP_LOGITS,
};

/* Rows the forward pass processes at once during prefill (bounds the scratch size). */
#define GPT2_TRACE_CHUNK 256
/* Lean traces: layers of materialised patterns kept, the side of a summary block
 * (positions), and the logits rows cached when GPT2_CAP_LOGITS is off. */
#define GPT2_LEAN_LAYERS 2
#define GPT2_PATTERN_BLOCK 8
#define GPT2_LOGITS_CACHE 4

struct Gpt2Lean; /* private state of a lean trace (gpt2_lean.h) */

typedef struct Gpt2Trace {
    Gpt2Config cfg;     /* copy of the blueprint it was sized for */
    int max_pos;        /* positions allocated, <= cfg.n_positions */
    unsigned capture;   /* GPT2_CAP_* bits kept */
    int n_pos;          /* positions computed and valid: rows [0, n_pos) of everything */
    int *ids;           /* (max_pos) token at each position */
    int logits_pos;     /* newest position whose logits were computed (-1: none) */
    Gpt2Ablation ablation; /* owned copy: the parts every position here was computed without
                            * (empty = the model as trained); set by gpt2_trace_set_ablation */

    /* Always kept. P = max_pos*(max_pos+1)/2 (packed lower triangle, row t at t(t+1)/2). */
    float *k, *v;       /* (L, NH, max_pos, HS) the KV cache: decode reads each head's keys contiguously */
    float *pattern;     /* (L, NH, P) post-softmax attention */

    /* Optional: NULL unless the bit is in `capture`. Row t of each is position t. */
    float *embed, *pos_embed;    /* (max_pos, C) */
    float *resid;                /* (L+1, max_pos, C): [0] = resid_pre of block 0, [i+1] = resid_post of block i */
    float *resid_mid;            /* (L, max_pos, C) */
    float *ln1, *ln2;            /* (L, max_pos, C) */
    float *ln_final;             /* (max_pos, C) */
    float *q;                    /* (L, NH, max_pos, HS) */
    float *attn_scores;          /* (L, NH, P) */
    float *z;                    /* (L, max_pos, C) */
    float *attn_out, *mlp_out;   /* (L, max_pos, C) */
    float *mlp_pre, *mlp_post;   /* (L, max_pos, 4C) */
    float *logits;               /* (max_pos, V) with LOGITS, else (GPT2_LOGITS_CACHE, V): a cache */
    int logits_tag[GPT2_LOGITS_CACHE];      /* without LOGITS: position of each cached row, -1 = free */
    unsigned logits_use[GPT2_LOGITS_CACHE]; /* last use stamps (the oldest is reused) */
    unsigned logits_clock;
    float *x_final;              /* without LOGITS: (max_pos, C) final residual rows (into resid
                                  * when RESID is kept), what gpt2_logits_at recomputes from */
    struct Gpt2Lean *lean;       /* with GPT2_CAP_LEAN (else NULL); a cache, so a const trace
                                  * may still fill it (gpt2_trace_find of a pattern) */

    /* Scratch of the forward pass for up to `chunk` rows (private). */
    int chunk;
    float *s_x, *s_mid, *s_ln, *s_qkv, *s_z, *s_proj, *s_fc, *s_gelu; /* (chunk, C|3C|4C) */

    /* storage (private): one allocation holds everything above */
    void *mem;
    size_t mem_bytes;
} Gpt2Trace;

/* A read-only view of one named activation, valid until the next forward call,
 * truncate or free. Element (i, j, k) of a plain tensor is
 * data[i*stride[0] + j*stride[1] + k*stride[2]]. When `tri` is set the last two dims
 * are a causal (T, T) matrix stored as packed rows: (i, j, k) with k <= j is at
 * data[i*stride[0] + j*(j+1)/2 + k]; k > j is not stored and reads as `fill`. */
typedef struct Gpt2TraceView {
    const float *data;
    int ndim;           /* 2 or 3 */
    size_t shape[3];
    size_t stride[3];   /* in floats */
    int tri;            /* 1: packed causal rows (patterns, scores) */
    float fill;         /* value above the diagonal: 0 (pattern) or -INFINITY (scores) */
} Gpt2TraceView;

/* Bytes gpt2_trace_init would allocate for this model, context and mask. */
size_t gpt2_trace_bytes(const Gpt2Config *cfg, int max_pos, unsigned capture);

/* Allocates a trace for up to max_pos positions (1..cfg->n_positions) keeping what
 * `capture` asks for (plus patterns and the KV cache). Large blocks are requested as
 * transparent huge pages. Returns -1 (tr zeroed, err set) when out of memory or the
 * arguments are invalid. */
int gpt2_trace_init(Gpt2Trace *tr, const Gpt2Config *cfg, int max_pos, unsigned capture, ErrorMsg *err);

/* Releases everything; safe on a zeroed or half-built trace; leaves it zeroed. */
void gpt2_trace_free(Gpt2Trace *tr);

/* Step back / branch: forget positions >= n_pos (n_pos <= tr->n_pos). Rows [0, n_pos)
 * of every tensor stay valid, the next gpt2_step writes position n_pos. Costs nothing,
 * except in a lean trace: the pattern summaries of the last partial block of positions
 * are rebuilt from q and K (< GPT2_PATTERN_BLOCK rows of every head). */
void gpt2_trace_truncate(Gpt2Trace *tr, int n_pos);

/* Makes later forward passes zero the parts in *ab (NULL or an empty mask = none; see
 * gpt2_ablation.h). Every position held was computed under the old mask, so when the
 * mask changes the trace forgets them all (n_pos = 0: run the tokens again with
 * gpt2_prefill); the same mask keeps them. -1 with err (trace unchanged) when the mask
 * was sized for another model or memory runs out. */
int gpt2_trace_set_ablation(Gpt2Trace *tr, const Gpt2Ablation *ab, ErrorMsg *err);

/* Undo a truncate: rows [tr->n_pos, n_pos) become valid again (n_pos <= max_pos).
 * Only correct when nothing has written those rows since they were computed for the
 * tokens still in tr->ids; the caller keeps track of that (src/session/session.c). Needs
 * per-position logits (GPT2_CAP_LOGITS): returns -1 without them or out of range. */
int gpt2_trace_regrow(Gpt2Trace *tr, int n_pos);

/* Logits (V floats) predicting the token after position `pos`, or NULL when not kept
 * (pos >= n_pos, or LOGITS is off and pos is not in the cache: gpt2_logits_at
 * recomputes it). */
const float *gpt2_trace_logits(const Gpt2Trace *tr, int pos);

/* The activations by kind, in forward order: the TransformerLens names of NAMES without
 * the "blocks.{i}." prefix. Per layer: GPT2_T_RESID_PRE .. GPT2_T_RESID_POST. */
typedef enum Gpt2Tensor {
    GPT2_T_EMBED,        /* hook_embed */
    GPT2_T_POS_EMBED,    /* hook_pos_embed */
    GPT2_T_RESID_PRE,    /* blocks.{i}.hook_resid_pre */
    GPT2_T_LN1,          /* blocks.{i}.ln1.hook_normalized */
    GPT2_T_Q,            /* blocks.{i}.attn.hook_q */
    GPT2_T_K,            /* blocks.{i}.attn.hook_k */
    GPT2_T_V,            /* blocks.{i}.attn.hook_v */
    GPT2_T_ATTN_SCORES,  /* blocks.{i}.attn.hook_attn_scores */
    GPT2_T_PATTERN,      /* blocks.{i}.attn.hook_pattern */
    GPT2_T_Z,            /* blocks.{i}.attn.hook_z */
    GPT2_T_ATTN_OUT,     /* blocks.{i}.hook_attn_out */
    GPT2_T_RESID_MID,    /* blocks.{i}.hook_resid_mid */
    GPT2_T_LN2,          /* blocks.{i}.ln2.hook_normalized */
    GPT2_T_MLP_PRE,      /* blocks.{i}.mlp.hook_pre */
    GPT2_T_MLP_POST,     /* blocks.{i}.mlp.hook_post */
    GPT2_T_MLP_OUT,      /* blocks.{i}.hook_mlp_out */
    GPT2_T_RESID_POST,   /* blocks.{i}.hook_resid_post */
    GPT2_T_LN_FINAL,     /* ln_final.hook_normalized */
    GPT2_T_LOGITS,       /* logits */
    GPT2_T_COUNT
} Gpt2Tensor;

/* Looks an activation up by kind and layer (ignored for the kinds outside blocks), with
 * no string work: what the viewer calls every frame (the heatmap, up to 144 thumbnails).
 * Returns 0 and fills *view, or -1 with err (may be NULL) naming the problem: layer out
 * of range, or not captured. */
int gpt2_trace_get(const Gpt2Trace *tr, Gpt2Tensor kind, int layer, Gpt2TraceView *view, ErrorMsg *err);

/* Looks an activation up by name (see NAMES): parses the name, then gpt2_trace_get.
 * Returns 0 and fills *view, or -1 with err naming the problem: unknown name, layer
 * out of range, or not captured. */
int gpt2_trace_find(const Gpt2Trace *tr, const char *name, Gpt2TraceView *view, ErrorMsg *err);

/* The canonical name of (kind, layer) in buf ("blocks.3.attn.hook_pattern"); -1 for a bad
 * kind or a per-layer kind with layer < 0. */
int gpt2_tensor_name(Gpt2Tensor kind, int layer, char *buf, size_t cap);
/* 1 for the kinds that exist once per block (GPT2_T_RESID_PRE .. GPT2_T_RESID_POST). */
int gpt2_tensor_is_per_layer(Gpt2Tensor kind);

/* Writes the idx-th canonical name into buf (hook_embed first, logits last) and returns
 * 0, or -1 when idx is past the end. Lists every name, captured or not. */
int gpt2_trace_name(const Gpt2Trace *tr, size_t idx, char *buf, size_t bufsize);

/* Attention of one head as a full (n_pos, n_pos) row-major square with explicit zeros
 * above the diagonal (for dumps and heatmaps). dst holds n_pos*n_pos floats. */
void gpt2_trace_copy_pattern(const Gpt2Trace *tr, int layer, int head, float *dst);

/* Layer l's patterns (NH, P), packed like tr->pattern: the kept ones, or in a lean trace
 * materialised from q and K (valid until a pattern of another layer evicts it). */
const float *gpt2_trace_layer_patterns(const Gpt2Trace *tr, size_t l);

/* 1 when patterns are recomputed on demand (GPT2_CAP_LEAN), 0 when all are kept. */
static inline int gpt2_trace_is_lean(const Gpt2Trace *tr) { return tr->lean != NULL; }

/* A lean trace's summary of one head: the maximum of its pattern over each block of
 * GPT2_PATTERN_BLOCK query rows x GPT2_PATTERN_BLOCK keys (only entries at or below the
 * diagonal), packed like a pattern: block row I (positions I*B..I*B+B-1) holds I+1
 * values at gpt2_tri_row(I). sinkless[I] is block (I, 0) without key 0 (the attention
 * sink), for colour scales that leave it out. n_blocks = ceil(n_pos / B). Returns -1
 * for a trace that keeps full patterns (read those) or a layer/head out of range. */
typedef struct Gpt2HeadBlocks {
    const float *max;
    const float *sinkless;
    int n_blocks;
    int block;  /* GPT2_PATTERN_BLOCK */
} Gpt2HeadBlocks;
int gpt2_trace_head_blocks(const Gpt2Trace *tr, int layer, int head, Gpt2HeadBlocks *out);

/* Element (i, j, k) of a view; for a 2-D (rows, cols) view use (row, col, 0). */
static inline float gpt2_view_at(const Gpt2TraceView *v, size_t i, size_t j, size_t k) {
    if (v->tri) return k > j ? v->fill : v->data[i * v->stride[0] + j * (j + 1) / 2 + k];
    return v->data[i * v->stride[0] + j * v->stride[1] + k * v->stride[2]];
}

/* Offset of row t in a packed causal matrix. */
static inline size_t gpt2_tri_row(size_t t) { return t * (t + 1) / 2; }

#endif
