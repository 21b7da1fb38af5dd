/* attn_lines.h — which token-to-token lines a BertViz-style lines view draws: for one
 * layer and a set of heads, each query's strongest keys (top-k per query and head, weight
 * at least a threshold), so 200+ tokens stay readable, plus how much of the attention the
 * drawn lines carry (for the caption: "lines show 91 % of the weight"). A selection over
 * the traced patterns (weights copied, never recomputed); not a panel and not model math.
 *
 *     size_t cap = attn_lines_capacity(tr.cfg.n_head, tr.n_pos, sel.top_k);
 *     AttnLine *lines = malloc(cap * sizeof *lines);       // once, at the panel's size
 *     AttnLinesResult r;
 *     attn_lines_select(lines, cap, &tr, &sel, &r, &err);   // r.n lines, weakest first */
#ifndef ATTN_LINES_H
#define ATTN_LINES_H

#include <stddef.h>

#include "error.h"
#include "gpt2_trace.h"

typedef struct AttnLine {
    int head;       /* 0..NH-1 (one colour per head) */
    int query;      /* the position attending (left/upper column) */
    int key;        /* the position attended to, <= query */
    float weight;   /* hook_pattern[head, query, key] */
} AttnLine;

typedef struct AttnLinesSelect {
    int layer;
    unsigned long long head_mask; /* bit h = head h shown (heads >= 64 are not selectable) */
    int top_k;          /* keys kept per query and head, >= 1 */
    float min_weight;   /* lines below this weight are dropped (0 keeps all of the top k) */
    int only_query;     /* >= 0: lines of this query only (a clicked token); -1: all */
    int only_key;       /* >= 0: lines into this key only; -1: all */
    int skip_key0;      /* 1: drop lines into position 0 (the sink), so the rest shows */
} AttnLinesSelect;

typedef struct AttnLinesResult {
    size_t n;           /* lines written, sorted by weight ascending (draw in order: strong on top) */
    double mass_shown;  /* sum of the drawn weights / sum of the weights the selection covers
                         * (queries x heads chosen, all their keys; key 0 too) */
    size_t n_candidates; /* (query, key, head) triples the selection covers before top-k */
} AttnLinesResult;

/* Lines the selection can produce at most: heads x positions x top_k. */
size_t attn_lines_capacity(int n_head, int n_pos, int top_k);

/* Writes the selected lines into out (room for cap; attn_lines_capacity is always enough)
 * and fills *res. Returns -1 with err on a bad layer, empty head mask, top_k < 1,
 * only_query / only_key out of range, or cap too small (nothing written then). */
int attn_lines_select(AttnLine *out, size_t cap, const Gpt2Trace *tr, const AttnLinesSelect *sel,
                      AttnLinesResult *res, ErrorMsg *err);

#endif
