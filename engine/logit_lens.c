/* logit_lens.c — the logit lens over a captured trace (see logit_lens.h): the same final
 * LayerNorm and unembedding as the model's last step, applied to intermediate residuals,
 * every depth of a position in one pass over wte. */
#include "logit_lens.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2_config.h"
#include "kernels.h"
#include "unembed_many.h"
#include "free_all.h"

int logit_lens_init(LogitLens *lens, const Gpt2Config *cfg, int n_vocab, ErrorMsg *err) {
    memset(lens, 0, sizeof *lens);
    if (cfg->n_embd <= 0 || cfg->vocab_size <= 0 || cfg->n_layer <= 0)
        return error_set(err, "logit lens: invalid model config");
    if (n_vocab <= 0 || n_vocab > cfg->vocab_size)
        return error_set(err, "logit lens: %d tokens for a model of %d rows", n_vocab, cfg->vocab_size);
    lens->C = (size_t)cfg->n_embd;
    lens->V = (size_t)n_vocab;
    lens->max_rows = 2 * cfg->n_layer + 1;
    lens->x = malloc((size_t)lens->max_rows * lens->C * sizeof(float));
    lens->logits = malloc((size_t)lens->max_rows * lens->V * sizeof(float));
    lens->rows = calloc((size_t)lens->max_rows, sizeof *lens->rows);
    lens->pack = malloc(unembed_many_scratch((size_t)lens->max_rows, lens->C) * sizeof(float));
    lens->col_pos = -1;
    lens->rows_target = -1;
    if (!lens->x || !lens->logits || !lens->rows || !lens->pack) {
        logit_lens_free(lens);
        return error_set(err, "logit lens: out of memory");
    }
    return 0;
}

void logit_lens_free(LogitLens *lens) {
    if (!lens) return;
    FREE_ALL(lens->x, lens->logits, lens->rows, lens->pack);
    memset(lens, 0, sizeof *lens);
}

int logit_lens_n_rows(const Gpt2Config *cfg, int with_mid) { return (with_mid ? 2 : 1) * cfg->n_layer + 1; }

void logit_lens_row_id(int k, int with_mid, int *layer, int *block, LensWhere *where) {
    if (k <= 0) {
        *layer = 0, *block = -1, *where = LENS_EMBED;
    } else if (!with_mid) {
        *layer = k, *block = k - 1, *where = LENS_RESID_POST;
    } else { /* 1 = mid of block 0, 2 = post of block 0, 3 = mid of block 1, ... */
        *block = (k - 1) / 2, *layer = *block + 1;
        *where = (k - 1) % 2 ? LENS_RESID_POST : LENS_RESID_MID;
    }
}

const char *logit_lens_where_name(LensWhere w) {
    return w == LENS_EMBED ? "embed" : w == LENS_RESID_MID ? "resid_mid" : "resid_post";
}

void logit_lens_row_hook(const LensRow *row, char *buf, size_t cap) {
    if (row->where == LENS_EMBED) snprintf(buf, cap, "blocks.0.hook_resid_pre");
    else snprintf(buf, cap, "blocks.%d.hook_%s", row->block, logit_lens_where_name(row->where));
}

/* Argmax of logits[0..V) (ties: lower id), -1 for NULL. */
static int argmax(const float *logits, size_t V) {
    if (!logits) return -1;
    int id;
    float v;
    return kern_topk(&id, &v, logits, V, 1) == 1 ? id : -1;
}

int logit_lens_final_token(const Gpt2Trace *tr, int pos, int n_vocab) {
    if (pos < 0 || pos >= tr->n_pos || n_vocab <= 0 || n_vocab > tr->cfg.vocab_size) return -1;
    if (pos + 1 < tr->n_pos) return tr->ids[pos + 1];
    return argmax(gpt2_trace_logits(tr, pos), (size_t)n_vocab);
}

static int check_args(const LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int with_mid,
                      ErrorMsg *err) {
    const size_t C = (size_t)m->config.n_embd, V = (size_t)m->config.vocab_size;
    if (!lens->x || lens->C != C || lens->V > V || lens->max_rows < logit_lens_n_rows(&m->config, 1) ||
        tr->cfg.n_embd != m->config.n_embd || tr->cfg.n_layer != m->config.n_layer)
        return error_set(err, "logit lens: sizes do not match the model (C=%zu, %zu rows)", C, V);
    if (!tr->resid)
        return error_set(err, "logit lens: the trace has no residual streams (capture GPT2_CAP_RESID)");
    if (with_mid && !tr->resid_mid)
        return error_set(err, "logit lens: the trace has no resid_mid streams (capture GPT2_CAP_RESID_MID)");
    if (pos < 0 || pos >= tr->n_pos)
        return error_set(err, "logit lens: position %d out of range 0..%d", pos, tr->n_pos - 1);
    return 0;
}

/* Row k's residual stream at pos (see the DEPTHS order in logit_lens.h). */
static const float *row_stream(const Gpt2Trace *tr, int k, int with_mid, int pos) {
    const size_t C = (size_t)tr->cfg.n_embd, T = (size_t)tr->max_pos;
    int layer, block;
    LensWhere where;
    logit_lens_row_id(k, with_mid, &layer, &block, &where);
    if (where == LENS_RESID_MID) return tr->resid_mid + ((size_t)block * T + (size_t)pos) * C;
    return tr->resid + ((size_t)layer * T + (size_t)pos) * C; /* resid[l] = after l blocks */
}

/* lens->logits rows [0, D) = ln_final(streams[k]) @ wte^T, every row of wte read from
 * memory once for all D depths (unembed_many.h). `own` (may be NULL): the model's own
 * logits at this position; when given they ARE the last row (the stream after the last
 * block through ln_final and wte is exactly what the forward computed), which saves a
 * depth of arithmetic and makes the lens's last layer the model's output bit for bit. */
static void unembed(LogitLens *lens, const Gpt2Model *m, const float *const *streams, int D, int pos,
                    const float *own) {
    const size_t C = lens->C, V = lens->V;
    for (int k = 0; k < D; k++)
        kern_layernorm(lens->x + (size_t)k * C, streams[k], m->w.lnf_w, m->w.lnf_b, m->config.ln_eps, 1, C);
    const int computed = own ? D - 1 : D;
    unembed_many(lens->logits, V, lens->x, (size_t)computed, gpt2_mat(&m->w, m->w.lm_head, m->w.lm_head_h),
                 m->w.dtype, V, C, lens->pack);
    if (own) memcpy(lens->logits + (size_t)(D - 1) * V, own, V * sizeof(float));
    lens->col_pos = pos;
    lens->col_rows = D;
    lens->rows_target = -1; /* the rows were of the old column */
}

/* FNV-1a over what a column depends on: the model, the trace, its tokens 0..pos and its
 * ablation mask (causality: nothing after pos matters), and which depths. */
static unsigned long long column_key(const Gpt2Model *m, const Gpt2Trace *tr, int pos, int with_mid) {
    unsigned long long h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (unsigned long long)(v)) * 1099511628211ULL)
    MIX((uintptr_t)gpt2_mat(&m->w, m->w.lm_head, m->w.lm_head_h));
    MIX((uintptr_t)tr->mem);
    MIX(with_mid);
    for (int p = 0; p <= pos; p++) MIX((unsigned)tr->ids[p]);
    const Gpt2Ablation *ab = &tr->ablation;
    MIX(ab->n_off);
    if (ab->n_off)
        for (size_t i = 0; i < (size_t)ab->n_layer * ((size_t)ab->n_head + 2); i++) MIX(ab->off[i]);
#undef MIX
    return h;
}

/* All depths of position pos into lens->logits; returns 0 when the lens already held
 * exactly that column (nothing computed), 1 otherwise. */
static int unembed_column(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int with_mid) {
    const float *streams[2 * GPT2_MAX_LAYERS + 1];
    int D = logit_lens_n_rows(&m->config, with_mid);
    unsigned long long key = column_key(m, tr, pos, with_mid);
    if (lens->col_pos == pos && lens->col_rows == D && lens->col_key == key) return 0;
    for (int k = 0; k < D; k++) streams[k] = row_stream(tr, k, with_mid, pos);
    unembed(lens, m, streams, D, pos, gpt2_trace_logits(tr, pos));
    lens->col_key = key;
    lens->n_columns++;
    return 1;
}

/* The top tokens and the target's statistics of one row of logits. -1 on NaN / +inf. */
static int row_stats(const float *lg, size_t V, int target, size_t top_n, int *top_id, float *top_p, TokenStat *st) {
    if (token_stat_fast(lg, V, target, st)) return -1;
    size_t n = kern_topk(top_id, top_p, lg, V, top_n);
    for (size_t i = 0; i < n; i++) top_p[i] = (float)exp((double)top_p[i] - st->logsumexp);
    return (int)n;
}

/* lens->rows for the current column ranking `target`, with at least top_n top tokens.
 * Reuses what is there: the same target and enough tokens cost nothing; another target
 * of the same column costs one comparison pass per row (the distribution, its
 * logsumexp and entropy stay). -1 on non-finite logits. */
static int column_rows(LogitLens *lens, int with_mid, int target, size_t top_n) {
    const int D = lens->col_rows;
    const size_t V = lens->V;
    if (lens->rows_target >= 0 && (size_t)lens->rows_top >= top_n) {
        if (lens->rows_target == target) return 0;
#pragma omp parallel for schedule(static) if (D > 1)
        for (int k = 0; k < D; k++) {
            const float *lg = lens->logits + (size_t)k * V;
            TokenStat *st = &lens->rows[k].target;
            const float lt = lg[target];
            st->id = target;
            st->rank = token_rank(lg, V, target);
            st->nll = st->logsumexp - (double)lt;
            st->p = exp(-st->nll);
            st->surprisal_bits = st->nll / M_LN2;
        }
        lens->rows_target = target;
        return 0;
    }
    if (top_n < LENS_KEEP_TOP) top_n = LENS_KEEP_TOP;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (D > 1)
    for (int k = 0; k < D; k++) {
        LensRow *r = &lens->rows[k];
        logit_lens_row_id(k, with_mid, &r->layer, &r->block, &r->where);
        r->n_top = row_stats(lens->logits + (size_t)k * V, V, target, top_n, r->top_id, r->top_p, &r->target);
        bad |= r->n_top < 0;
    }
    if (bad) return -1;
    lens->rows_target = target;
    lens->rows_top = (int)top_n;
    return 0;
}

int logit_lens_at(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos, int target, int with_mid,
                  size_t top_n, LensRow *rows, ErrorMsg *err) {
    if (check_args(lens, m, tr, pos, with_mid, err)) return -1;
    const int D = logit_lens_n_rows(&m->config, with_mid);
    const size_t V = lens->V;
    if (target >= (int)V) return error_set(err, "logit lens: token %d is outside the vocabulary 0..%zu", target, V - 1);
    if (top_n > LENS_MAX_TOP) top_n = LENS_MAX_TOP;
    unembed_column(lens, m, tr, pos, with_mid);
    if (target < 0) target = logit_lens_final_token(tr, pos, (int)V);
    if (target < 0) target = argmax(lens->logits + (size_t)(D - 1) * V, V); /* the model's own output row */
    if (column_rows(lens, with_mid, target, top_n))
        return error_set(err, "logit lens: the logits at position %d are not finite (NaN or +inf)", pos);
    for (int k = 0; k < D; k++) {
        rows[k] = lens->rows[k];
        if ((size_t)rows[k].n_top > top_n) rows[k].n_top = (int)top_n;
    }
    return D;
}

int logit_lens_topk(LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int depth, int pos,
                    size_t k, int *ids, float *probs, ErrorMsg *err) {
    if (check_args(lens, m, tr, pos, 0, err)) return -1;
    if (depth < 0 || depth > m->config.n_layer)
        return error_set(err, "logit lens: depth %d out of range 0..%d", depth, m->config.n_layer);
    const float *stream = row_stream(tr, depth, 0, pos);
    unembed(lens, m, &stream, 1, pos, depth == m->config.n_layer ? gpt2_trace_logits(tr, pos) : NULL);
    lens->col_pos = -1; /* not a whole column: the next column is computed afresh */
    TokenStat st;
    int n = row_stats(lens->logits, lens->V, 0, k, ids, probs, &st);
    if (n < 0) return error_set(err, "logit lens: the logits at position %d are not finite (NaN or +inf)", pos);
    return n;
}

/* ---- the grid ------------------------------------------------------------------------- */

int logit_lens_grid_init(LensGrid *g, const Gpt2Config *cfg, int max_pos, int with_mid, ErrorMsg *err) {
    memset(g, 0, sizeof *g);
    if (max_pos < 1 || cfg->n_layer <= 0) return error_set(err, "lens grid: invalid size (%d positions)", max_pos);
    g->n_rows = logit_lens_n_rows(cfg, with_mid);
    g->with_mid = with_mid != 0;
    g->cap = max_pos;
    const size_t cells = (size_t)max_pos * (size_t)g->n_rows;
    g->ids = malloc((size_t)max_pos * sizeof *g->ids);
    g->final_id = malloc((size_t)max_pos * sizeof *g->final_id);
    g->top_id = malloc(cells * sizeof *g->top_id);
    g->top_p = malloc(cells * sizeof *g->top_p);
    g->final_rank = malloc(cells * sizeof *g->final_rank);
    g->final_p = malloc(cells * sizeof *g->final_p);
    if (!g->ids || !g->final_id || !g->top_id || !g->top_p || !g->final_rank || !g->final_p) {
        logit_lens_grid_free(g);
        return error_set(err, "lens grid: out of memory");
    }
    return 0;
}

void logit_lens_grid_free(LensGrid *g) {
    if (!g) return;
    FREE_ALL(g->ids, g->final_id, g->top_id, g->top_p, g->final_rank, g->final_p);
    gpt2_ablation_free(&g->ablation);
    memset(g, 0, sizeof *g);
}

/* Column pos's cells from the lens's current column: top-1 with p, rank and p of final.
 * top_too = 0 keeps the top-1 cells (only the final token changed). */
static int grid_stats(LogitLens *lens, LensGrid *g, int pos, int final, int top_too) {
    if (column_rows(lens, g->with_mid, final, 1)) return -1;
    const size_t base = (size_t)pos * (size_t)g->n_rows;
    for (int k = 0; k < g->n_rows; k++) {
        const LensRow *r = &lens->rows[k];
        g->final_rank[base + (size_t)k] = r->target.rank;
        g->final_p[base + (size_t)k] = (float)r->target.p;
        if (!top_too) continue;
        g->top_id[base + (size_t)k] = r->top_id[0];
        g->top_p[base + (size_t)k] = r->top_p[0];
    }
    g->final_id[pos] = final;
    return 0;
}

int logit_lens_grid_update(LogitLens *lens, LensGrid *g, const Gpt2Model *m, const Gpt2Trace *tr, ErrorMsg *err) {
    const int n = tr->n_pos, V = (int)lens->V;
    if (!g->ids || g->n_rows != logit_lens_n_rows(&m->config, g->with_mid))
        return error_set(err, "lens grid: not sized for this model");
    if (n > g->cap) return error_set(err, "lens grid: %d positions exceed its %d columns", n, g->cap);
    if (n > 0 && check_args(lens, m, tr, n - 1, g->with_mid, err)) return -1;
    if (!gpt2_ablation_equal(&g->ablation, &tr->ablation)) {
        if (gpt2_ablation_copy(&g->ablation, &tr->ablation, err)) return -1;
        g->n_pos = 0; /* every column was computed with other parts switched off */
    }
    if (g->from < 0) g->from = 0;
    if (g->from < g->from_done) g->n_pos = 0; /* placeholders now asked for */
    if (g->n_pos == 0) g->from_done = g->from;
    int first = 0;
    while (first < g->n_pos && first < n && g->ids[first] == tr->ids[first]) first++;
    if (first < g->from && g->from_done < g->from) {
        /* new columns to compute start before `from`: those before it become placeholders */
        first = 0;
        g->from_done = g->from;
    }
    g->n_pos = first;
    int computed = 0;
    /* placeholders: the columns before from_done are not computed */
    for (; first < n && first < g->from_done; first++) {
        g->ids[first] = tr->ids[first];
        g->final_id[first] = -1;
        for (int k = 0; k < g->n_rows; k++) {
            size_t at = (size_t)first * (size_t)g->n_rows + (size_t)k;
            g->top_id[at] = -1;
            g->top_p[at] = 0;
            g->final_rank[at] = 0;
            g->final_p[at] = 0;
        }
        g->n_pos = first + 1;
    }
    /* the column before the first new one: its final token may have changed (it was the
     * newest and ranked the model's top-1, or a branch put another token after it) */
    if (first > g->from_done) {
        int c = first - 1, want = logit_lens_final_token(tr, c, V);
        if (want >= 0 && want < V && want != g->final_id[c]) {
            int fresh = unembed_column(lens, m, tr, c, g->with_mid);
            computed += fresh;
            if (grid_stats(lens, g, c, want, fresh)) goto not_finite;
        }
    }
    for (int p = first; p < n; p++) {
        if (g->cancel && atomic_load(g->cancel)) break; /* asked to stop: columns [0, n_pos) stay valid */
        computed += unembed_column(lens, m, tr, p, g->with_mid);
        int final = logit_lens_final_token(tr, p, V);
        if (final < 0) final = argmax(lens->logits + (size_t)(g->n_rows - 1) * (size_t)V, (size_t)V);
        g->ids[p] = tr->ids[p];
        if (grid_stats(lens, g, p, final, 1)) goto not_finite;
        g->n_pos = p + 1;
    }
    return computed;
not_finite:
    return error_set(err, "lens grid: the logits are not finite (NaN or +inf)");
}
