/* attn_lines.c — the line selection of a lines view (see attn_lines.h): per query and head,
 * the top-k keys by traced weight, then all lines sorted weakest first. */
#include "attn_lines.h"

#include <stdlib.h>

size_t attn_lines_capacity(int n_head, int n_pos, int top_k) {
    if (n_head <= 0 || n_pos <= 0 || top_k <= 0) return 0;
    return (size_t)n_head * (size_t)n_pos * (size_t)top_k;
}

/* Keeps row[0..k) the best `have` lines in descending weight (ties: lower key first). */
static size_t keep_top(AttnLine *row, size_t have, size_t k, AttnLine cand) {
    if (have == k && !(cand.weight > row[k - 1].weight)) return have;
    size_t at = have < k ? have : k - 1;
    while (at > 0 && cand.weight > row[at - 1].weight) {
        row[at] = row[at - 1];
        at--;
    }
    row[at] = cand;
    return have < k ? have + 1 : have;
}

static int line_order(const void *a, const void *b) {
    const AttnLine *x = a, *y = b;
    if (x->weight != y->weight) return x->weight < y->weight ? -1 : 1;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    if (x->query != y->query) return x->query < y->query ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

int attn_lines_select(AttnLine *out, size_t cap, const Gpt2Trace *tr, const AttnLinesSelect *sel,
                      AttnLinesResult *res, ErrorMsg *err) {
    res->n = 0;
    res->mass_shown = 0.0;
    res->n_candidates = 0;
    const int NH = tr->cfg.n_head, T = tr->n_pos;
    if (!tr->mem || T < 1) return error_set(err, "attention lines: the trace holds no positions");
    if (sel->layer < 0 || sel->layer >= tr->cfg.n_layer)
        return error_set(err, "attention lines: layer %d out of range 0..%d", sel->layer, tr->cfg.n_layer - 1);
    int n_heads = 0;
    for (int h = 0; h < NH && h < 64; h++) n_heads += (int)((sel->head_mask >> h) & 1u);
    if (n_heads == 0) return error_set(err, "attention lines: no head selected (heads 0..%d)", NH - 1);
    if (sel->top_k < 1) return error_set(err, "attention lines: top-k %d must be at least 1", sel->top_k);
    if (sel->only_query >= T || sel->only_key >= T)
        return error_set(err, "attention lines: position %d out of range 0..%d",
                         sel->only_query >= T ? sel->only_query : sel->only_key, T - 1);
    int q0 = sel->only_query >= 0 ? sel->only_query : 0, q1 = sel->only_query >= 0 ? sel->only_query + 1 : T;
    size_t k = (size_t)sel->top_k;
    if (cap < (size_t)n_heads * (size_t)(q1 - q0) * k)
        return error_set(err, "attention lines: room for %zu lines, the selection may need %zu", cap,
                         (size_t)n_heads * (size_t)(q1 - q0) * k);
    const size_t P = gpt2_tri_row((size_t)tr->max_pos);
    double shown = 0.0;
    size_t n = 0, rows = 0;
    for (int h = 0; h < NH && h < 64; h++) {
        if (!((sel->head_mask >> h) & 1u)) continue;
        const float *base = gpt2_trace_layer_patterns(tr, (size_t)sel->layer) + (size_t)h * P;
        for (int q = q0; q < q1; q++) {
            const float *row = base + gpt2_tri_row((size_t)q);
            size_t have = 0;
            rows++;
            for (int j = sel->skip_key0 ? 1 : 0; j <= q; j++) {
                if (sel->only_key >= 0 && j != sel->only_key) continue;
                res->n_candidates++;
                if (!(row[j] >= sel->min_weight)) continue;
                have = keep_top(out + n, have, k, (AttnLine){h, q, j, row[j]});
            }
            for (size_t r = 0; r < have; r++) shown += out[n + r].weight;
            n += have;
        }
    }
    qsort(out, n, sizeof *out, line_order);
    res->n = n;
    /* each covered (query, head) row sums to 1, so the rows' total weight is their count */
    res->mass_shown = rows ? shown / (double)rows : 0.0;
    return 0;
}
