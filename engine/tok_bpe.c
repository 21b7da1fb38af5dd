/* tok_bpe.c — the BPE merge loop for ONE pre-token, with exactly encoder.py's semantics:
 * repeatedly take the adjacent pair with the lowest merge rank and merge every
 * non-overlapping occurrence of it, left to right, until no adjacent pair has a rank.
 * Not the regex split or the cache (tok_encode.c), not file loading (tokenizer.c).
 *
 * encoder.py rescans the whole word for each merge (O(n^2) for an n-byte word). Here the
 * parts are a doubly linked list over byte positions and the candidate pairs sit in a
 * min-heap keyed (rank, position): O(n log n), and the same merges in the same order. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"
#include "free_all.h"

#define NONE UINT32_MAX

void bpe_scratch_free(BpeScratch *s) {
    if (!s) return;
    FREE_ALL(s->tok, s->next, s->prev, s->heap, s->touched);
    memset(s, 0, sizeof *s);
}

static int scratch_reserve(BpeScratch *s, size_t n) {
    if (n > s->cap) {
        size_t c = s->cap ? s->cap : 64;
        while (c < n) c *= 2;
        int32_t *tok = realloc(s->tok, c * sizeof *tok);
        if (tok) s->tok = tok;
        uint32_t *next = realloc(s->next, c * sizeof *next);
        if (next) s->next = next;
        uint32_t *prev = realloc(s->prev, c * sizeof *prev);
        if (prev) s->prev = prev;
        uint32_t *touched = realloc(s->touched, c * sizeof *touched);
        if (touched) s->touched = touched;
        if (!tok || !next || !prev || !touched) return -1;
        s->cap = c;
    }
    /* each merge adds at most 2 new pairs to the n-1 initial ones: 3n bounds the heap */
    if (tok_grow((void **)&s->heap, &s->heap_cap, 3 * n, sizeof *s->heap)) return -1;
    return 0;
}

/* A binary min-heap of uint64 keys (rank << 32 | position): popping the smallest key
 * yields the lowest rank, and among equal ranks the leftmost position. */
static void heap_push(uint64_t *h, size_t *n, uint64_t key) {
    size_t i = (*n)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (h[parent] <= key) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = key;
}

static uint64_t heap_pop(uint64_t *h, size_t *n) {
    uint64_t top = h[0], last = h[--*n];
    size_t i = 0, m = *n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m) break;
        if (c + 1 < m && h[c + 1] < h[c]) c++;
        if (h[c] >= last) break;
        h[i] = h[c];
        i = c;
    }
    if (m) h[i] = last;
    return top;
}

/* Pushes the pair (part at a, the part after it) if vocab.bpe can merge it. */
static void push_pair(const Tokenizer *t, BpeScratch *s, size_t *hn, uint32_t a, size_t n) {
    if (a == NONE) return;
    uint32_t b = s->next[a];
    if (b >= n) return;
    int32_t r = tok_pair_rank(t, s->tok[a], s->tok[b]);
    if (r >= 0) heap_push(s->heap, hn, ((uint64_t)(uint32_t)r << 32) | a);
}

int bpe_word(const Tokenizer *t, const uint8_t *w, size_t n, BpeScratch *s, int32_t **ids,
             size_t *n_ids, size_t *ids_cap, MergeList *merges, ErrorMsg *err) {
    if (n >= NONE) return error_set(err, "a single word of %zu bytes is too long to encode", n);
    if (scratch_reserve(s, n)) return error_set(err, "encode: out of memory");
    /* Start: one part per byte, part i begins at byte i. A part is identified by the
     * byte it starts at, so a merge keeps the left part's index and kills the right one
     * (tok = -1). */
    for (size_t i = 0; i < n; i++) {
        s->tok[i] = t->byte_token[w[i]];
        s->prev[i] = i ? (uint32_t)(i - 1) : NONE;
        s->next[i] = (uint32_t)(i + 1);
    }
    size_t hn = 0;
    for (size_t i = 0; i + 1 < n; i++) push_pair(t, s, &hn, (uint32_t)i, n);

    while (hn) {
        /* One round = one rank r, like one iteration of encoder.py's `while True`.
         * Its occurrences pop in left-to-right order; an entry is stale if the left
         * part died or either part changed since it was pushed. New pairs are pushed
         * only after the round: encoder.py also finishes all occurrences of r before
         * it looks at the pairs those merges created. */
        uint32_t r = (uint32_t)(s->heap[0] >> 32);
        int32_t L = t->merge_left[r], R = t->merge_right[r], M = t->merge_result[r];
        size_t nt = 0;
        while (hn && (uint32_t)(s->heap[0] >> 32) == r) {
            uint32_t a = (uint32_t)heap_pop(s->heap, &hn);
            uint32_t b = s->next[a];
            if (s->tok[a] != L || b >= n || s->tok[b] != R) continue;
            if (merges) {
                if (tok_grow((void **)&merges->v, &merges->cap, merges->n + 1, sizeof *merges->v))
                    return error_set(err, "encode: out of memory");
                merges->v[merges->n++] = (TokMerge){(int32_t)r, L, R, M, a};
            }
            s->tok[a] = M;
            s->tok[b] = -1;
            s->next[a] = s->next[b];
            if (s->next[b] < n) s->prev[s->next[b]] = a;
            s->touched[nt++] = a;
        }
        /* M is longer than L and R, so a part made in this round cannot be merged again
         * in it: every touched part is still alive here. */
        for (size_t k = 0; k < nt; k++) {
            uint32_t a = s->touched[k];
            push_pair(t, s, &hn, s->prev[a], n);
            push_pair(t, s, &hn, a, n);
        }
    }
    /* part 0 is never a right part, so it is alive: walk the list from it */
    size_t count = 0;
    for (uint32_t i = 0; i < n; i = s->next[i]) count++;
    if (tok_grow((void **)ids, ids_cap, *n_ids + count, sizeof **ids))
        return error_set(err, "encode: out of memory");
    for (uint32_t i = 0; i < n; i = s->next[i]) (*ids)[(*n_ids)++] = s->tok[i];
    return 0;
}
