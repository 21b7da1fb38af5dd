/* tok_internal.h — what the tokenizer's own files share (tokenizer.c: loading and
 * lookups; tok_bpe.c: the merge loop for one word; tok_encode.c: regex split, cache and
 * the encode driver). Not part of the engine API: include tokenizer.h instead. */
#ifndef TOK_INTERNAL_H
#define TOK_INTERNAL_H

#include "tokenizer.h"

/* FNV-1a, 64-bit: small, good enough for short byte strings. Never returns 0 (0 marks
 * an empty slot in the hash tables). */
static inline uint64_t tok_hash_bytes(const uint8_t *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

/* Mixes a (left,right) pair key (splitmix64 finaliser) into a table index seed. */
static inline uint64_t tok_hash_pair(uint64_t key) {
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return key;
}

/* The pair-table key of (left,right); +1 so that no pair maps to the empty key 0. */
static inline uint64_t tok_pair_key(int32_t left, int32_t right) {
    return (((uint64_t)(uint32_t)left << 32) | (uint32_t)right) + 1;
}

/* Rank of merging left+right, or -1 if vocab.bpe has no such merge. */
int32_t tok_pair_rank(const Tokenizer *t, int32_t left, int32_t right);

/* Growable scratch for bpe_word, owned by one tok_encode call (no allocation per word). */
typedef struct BpeScratch {
    int32_t *tok;     /* (cap) token id of the part starting at byte i (if alive) */
    uint32_t *next;   /* (cap) byte index of the next alive part, n = none */
    uint32_t *prev;   /* (cap) byte index of the previous alive part, UINT32_MAX = none */
    uint64_t *heap;   /* (heap_cap) candidate merges, key = rank << 32 | byte index */
    uint32_t *touched;/* (cap) parts created in the current rank round */
    size_t cap, heap_cap;
} BpeScratch;

void bpe_scratch_free(BpeScratch *s);

/* Growable list of merges (TokEncoding.merges while it is being built). */
typedef struct MergeList {
    TokMerge *v;
    size_t n, cap;
} MergeList;

/* Runs encoder.py's bpe() on the bytes w[0..n) (n >= 1): appends the resulting ids to
 * *ids (growable: *n_ids used of *ids_cap) and, if merges is not NULL, every merge
 * applied. Returns 0, or -1 on out-of-memory / a word over 4 GiB. */
int bpe_word(const Tokenizer *t, const uint8_t *w, size_t n, BpeScratch *s, int32_t **ids,
             size_t *n_ids, size_t *ids_cap, MergeList *merges, ErrorMsg *err);

/* Word cache (tok_encode.c). lookup returns the ids (valid until the next insert) or NULL. */
const int32_t *tok_cache_lookup(TokCache *c, const uint8_t *w, size_t n, uint64_t h, size_t *n_ids);
void tok_cache_insert(TokCache *c, const uint8_t *w, size_t n, uint64_t h, const int32_t *ids,
                      size_t n_ids);
void tok_cache_free(TokCache *c);

/* GPT-2's pre-tokenizer regex, compiled once per Tokenizer (tok_encode.c). */
int tok_encode_init_regex(Tokenizer *t, ErrorMsg *err);
void tok_encode_free_regex(Tokenizer *t);

/* Builds t->bytes_map (raw bytes -> id) from tok_bytes/tok_off of all n_vocab tokens;
 * two tokens with the same bytes are an error naming `path` and the token. */
int tok_index_bytes(Tokenizer *t, const char *path, ErrorMsg *err);

/* Writes the encoder.json form of the raw bytes s[0..n) (GPT-2's byte alphabet: a space
 * is "Ġ", a newline "Ċ") into out, which must hold 2n + 1 bytes; NUL-terminated. */
void tok_bytes_to_text(const uint8_t *s, size_t n, char *out);

/* Encoding for TOK_KIND_VOCAB / TOK_KIND_IDS (tok_vocab.c) of valid UTF-8 text[0..n):
 * malloc'd ids and one piece per token. -1 with err naming the byte that has no token. */
int tok_vocab_encode(const Tokenizer *t, const uint8_t *text, size_t n, int32_t **ids, size_t *n_ids,
                     TokPiece **pieces, size_t *n_pieces, ErrorMsg *err);

/* Growth helper: makes *p hold at least `need` elements of `elem` bytes (doubling). */
int tok_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
