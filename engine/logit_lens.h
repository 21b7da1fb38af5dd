/* logit_lens.h — "what would the model say if it stopped here?": the residual stream at
 * one position, after the embeddings and after every block (optionally also after each
 * block's attention half), pushed through the final LayerNorm and the unembedding,
 * giving a next-token distribution per depth (nostalgebraist 2020, "interpreting GPT:
 * the logit lens"). Reads a trace captured with GPT2_CAP_RESID (+ GPT2_CAP_RESID_MID for
 * the halves); never writes it. Not the forward pass and not drawing: the panels read the
 * plain arrays below (LensRow, LensGrid) and do no math.
 *
 * DEPTHS ("rows"), in forward order: row 0 = the embeddings (blocks.0.hook_resid_pre),
 * then per block b = 0..L-1 [blocks.b.hook_resid_mid if with_mid] blocks.b.hook_resid_post.
 * `layer` numbers them as the lens figure does: 0 = embeddings, l = inside/after block l-1
 * (so layer L is the model's own output); `block` is TransformerLens's 0-based index.
 *
 * COST: all depths of one position share ONE pass over the unembedding (unembed_many.h):
 * each row of wte is read once and dotted with every depth's normalised residual while in
 * cache, so a column of D depths costs D (V, C) matvecs of arithmetic but one (V, C) read;
 * the last depth is the model's own logits (read from the trace when kept: bit for bit
 * the forward's output, one depth less to compute).
 * VOCABULARY: the lens ranks the first n_vocab rows of wte only, the tokens that exist
 * (a padded checkpoint's extra rows, nanoGPT's 50,304 - 50,257, are no tokens: the
 * sampler never sees them either, so the lens's last layer is the distribution drawn from).
 * Memory: (2L+1) x (C + n_vocab) floats of scratch, allocated once at init. */
#ifndef LOGIT_LENS_H
#define LOGIT_LENS_H

#include <stdatomic.h>
#include <stddef.h>

#include "error.h"
#include "gpt2_ablation.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "token_stats.h"

/* Most top tokens a LensRow holds; the rows of the last column keep at least
 * LENS_KEEP_TOP so the grid, the rows and the journey share one computation. */
#define LENS_MAX_TOP 32
#define LENS_KEEP_TOP 10

typedef enum LensWhere { LENS_EMBED, LENS_RESID_MID, LENS_RESID_POST } LensWhere;

typedef struct LensRow LensRow;

typedef struct LogitLens {
    size_t C, V;            /* sizes it was made for: V = n_vocab ranked tokens (<= wte rows) */
    int max_rows;           /* 2L + 1 */
    float *x;               /* (max_rows, C) ln_final of each depth's residual */
    float *logits;          /* (max_rows, V) their logits, row-major */
    float *pack;            /* unembed_many's scratch for max_rows vectors */
    /* the last column computed, so a second look at the same position (the grid, then the
     * rows, then the journey of the newest token) costs nothing */
    int col_pos, col_rows;  /* position, rows (-1, 0: none) */
    unsigned long long col_key; /* hash of model, trace, tokens 0..pos and ablation it was for */
    unsigned long n_columns;    /* columns actually computed since init (for tests and the bench) */
    LensRow *rows;          /* (max_rows) the last column's rows, for rows_target (-1: none) */
    int rows_target, rows_top; /* the token they rank, how many top tokens they hold */
} LogitLens;

/* One depth of the lens at one position. */
struct LensRow {
    int layer;              /* 0 = embeddings; l >= 1 = inside/after block l-1 */
    int block;              /* 0-based block of the stream (-1 for the embeddings) */
    LensWhere where;        /* embed, resid_mid (block's attention half done), resid_post */
    int n_top;              /* entries of top_id / top_p */
    int top_id[LENS_MAX_TOP];  /* most likely next tokens at this depth, descending */
    float top_p[LENS_MAX_TOP]; /* their probabilities (softmax over the whole vocabulary, T = 1) */
    TokenStat target;       /* the target token at this depth: p, 1-based rank, entropy */
};

/* Allocates the scratch for a model of this config ranking tokens [0, n_vocab), where
 * 0 < n_vocab <= cfg->vocab_size (the session's n_vocab; cfg->vocab_size for a plain
 * GPT-2). -1 with err on a bad n_vocab or out of memory. */
int logit_lens_init(LogitLens *lens, const Gpt2Config *cfg, int n_vocab, ErrorMsg *err);

/* Safe on a zeroed struct; leaves it zeroed. */
void logit_lens_free(LogitLens *lens);

/* Depths per position: L + 1, or 2L + 1 with the attention halves. */
int logit_lens_n_rows(const Gpt2Config *cfg, int with_mid);

/* Identity of depth row k (0 <= k < logit_lens_n_rows): fills layer, block, where. */
void logit_lens_row_id(int k, int with_mid, int *layer, int *block, LensWhere *where);

/* "embed", "resid_mid", "resid_post". */
const char *logit_lens_where_name(LensWhere w);

/* The trace name of a row's stream ("blocks.0.hook_resid_pre", "blocks.3.hook_resid_mid"). */
void logit_lens_row_hook(const LensRow *row, char *buf, size_t cap);

/* The token the lens ranks at position pos by default ("final"): the next token of the
 * text when pos < tr->n_pos - 1, else the model's own most likely next token among
 * [0, n_vocab) (argmax of its logits; ties to the lower id). -1 when pos is out of range
 * or the newest logits are not kept. */
int logit_lens_final_token(const Gpt2Trace *tr, int pos, int n_vocab);

/* The lens at position pos: fills rows[0 .. logit_lens_n_rows) (room for that many) with
 * the top min(top_n, LENS_MAX_TOP) tokens of every depth and the target token's p / rank
 * (target < 0: logit_lens_final_token). Returns the number of rows, or -1 with err when
 * the trace lacks the residual streams (or the halves for with_mid), pos is out of range,
 * the target is not a token, or the sizes do not match. */
int logit_lens_at(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int target, int with_mid,
                  size_t top_n, LensRow *rows, ErrorMsg *err);

/* Top-k tokens of softmax(ln_final(resid) @ wte^T) for the residual stream at depth
 * `depth` (0 = blocks.0.hook_resid_pre, d = blocks.{d-1}.hook_resid_post) and position
 * `pos` < tr->n_pos. Writes min(k, V) ids and probabilities (descending) and returns how
 * many, or -1 with err as logit_lens_at. One depth only: logit_lens_at does all at once. */
int logit_lens_topk(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int depth, int pos,
                    size_t k, int *ids, float *probs, ErrorMsg *err);

/* ---- the layers x positions grid (the lens panel) --------------------------------------
 * Cell (pos, row) lives at [pos * n_rows + row]. A column never changes once computed
 * (causality) unless its token, a token before it, or the ablation changes, so the grid
 * is brought up to date incrementally: one column per new position. */
typedef struct LensGrid {
    int n_rows;             /* depths per column (logit_lens_n_rows) */
    int with_mid;           /* 1: the attention halves are rows too */
    int cap;                /* columns allocated */
    int n_pos;              /* columns valid: positions [0, n_pos) */
    int *ids;               /* (cap) token at each computed position (to notice a branch) */
    int *final_id;          /* (cap) the token whose rank the column shows (logit_lens_final_token) */
    int *top_id;            /* (cap, n_rows) top-1 token of the cell */
    float *top_p;           /* (cap, n_rows) its probability */
    int *final_rank;        /* (cap, n_rows) 1-based rank of final_id[pos] in the cell */
    float *final_p;         /* (cap, n_rows) its probability */
    Gpt2Ablation ablation;  /* the mask the columns were computed under */
    int from;               /* asked by the caller: columns before it need not be computed (a
                             * long text shows only its newest columns; each costs a pass over
                             * the unembedding per depth); 0 = every column */
    int from_done;          /* columns [0, from_done) are placeholders: ids set, top_id -1,
                             * final_id -1, ranks 0; columns [from_done, n_pos) are computed */
    const atomic_int *cancel; /* optional, borrowed (NULL = never): nonzero stops the update
                             * between two columns (another thread asks; n_pos then says how
                             * far it got and the next update goes on from there) */
} LensGrid;

/* Sizes a grid for up to max_pos positions. -1 with err on out of memory. */
int logit_lens_grid_init(LensGrid *g, const Gpt2Config *cfg, int max_pos, int with_mid, ErrorMsg *err);

/* Safe on a zeroed struct; leaves it zeroed. */
void logit_lens_grid_free(LensGrid *g);

/* Brings the grid up to the trace: columns from the first position whose token (or the
 * ablation) differs up to tr->n_pos - 1 are computed; the column that was the newest gets
 * its final token (until then the model's top-1) replaced by the token that followed,
 * reusing its logits when the lens still holds that column. Columns before g->from are left
 * as placeholders (g->from_done says up to where; a smaller `from` than the placeholders
 * recomputes from there). Returns how many columns were fully
 * computed (0 when up to date), or -1 with err as logit_lens_at. */
int logit_lens_grid_update(LogitLens *lens, LensGrid *g, const Gpt2Model *m, const Gpt2Trace *tr, ErrorMsg *err);

#endif
