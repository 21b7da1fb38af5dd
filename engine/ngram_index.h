/* ngram_index.h — the memorisation meter: which n-token runs of a text also occur,
 * verbatim, in a model's training text. The index is a sorted list of 32-bit
 * fingerprints, one per distinct n-gram of the training token stream; it holds no token
 * ids and no text (tools/train/build_ngram_index.py makes it; the card beside the file
 * says how, and its measured false-hit rate). A token is "seen" when the n-token window
 * ending at it is in the index. Not a language model and not a search engine: a hit
 * says "this window's fingerprint is in the set", with a small false-hit probability.
 *
 * File (little-endian), 48-byte header then the fingerprints:
 *   0  "ISNGRAM1"       8 bytes magic
 *   8  u32 version = 1
 *  12  u32 n            tokens per window (2..64)
 *  16  u32 fp_bits = 32
 *  20  u32 hash = 1     ngram_fingerprint() below
 *  24  u64 seed         the hash's starting value
 *  32  u64 count        fingerprints that follow
 *  40  u64 source_tokens  tokens of the training stream that were indexed
 *  48  u32 fp[count]    strictly increasing
 * The file size must be exactly 48 + 4*count. */
#ifndef NGRAM_INDEX_H
#define NGRAM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The index's name inside a model folder. */
#define NGRAM_INDEX_FILE "ngram-index.bin"
#define NGRAM_INDEX_MAX_BYTES ((size_t)64 << 20) /* refuse anything larger */

typedef struct NgramIndex {
    int n;                  /* tokens per window */
    uint64_t seed;          /* hash seed */
    uint64_t source_tokens; /* size of the indexed training stream */
    size_t count;           /* fingerprints */
    const uint32_t *fp;     /* (count) sorted, points into `mem` */
    uint8_t *mem;           /* owned: the whole file */
} NgramIndex;

/* What ngram_mark found in one text. */
typedef struct NgramSummary {
    size_t n_tokens;     /* tokens looked at */
    size_t n_seen;       /* tokens marked seen */
    double seen_share;   /* n_seen / n_tokens (0 for no tokens) */
    size_t longest_run;  /* tokens in the longest stretch whose every n-window is seen
                          * (0 if none; otherwise >= n) */
    size_t longest_start;/* its first token */
} NgramSummary;

/* The fingerprint of ids[0..n): h = seed; for each id, h = splitmix64(h XOR id);
 * the top 32 bits of h. splitmix64(x): x += 0x9E3779B97F4A7C15;
 * x = (x ^ x>>30) * 0xBF58476D1CE4E5B9; x = (x ^ x>>27) * 0x94D049BB133111EB; x ^ x>>31
 * (Steele, Lea, Flood 2014). The Python builder computes exactly this. */
uint32_t ngram_fingerprint(uint64_t seed, const int *ids, int n);

/* Loads and validates the file (magic, version, sizes, strictly increasing
 * fingerprints). Returns 0, or -1 with "PATH: problem" and *ix zeroed. */
int ngram_index_load(NgramIndex *ix, const char *path, ErrorMsg *err);
/* Frees; safe on a zeroed index and twice. */
void ngram_index_free(NgramIndex *ix);

/* 1 when the window ids[0..ix->n) is in the index (binary search), else 0. */
int ngram_index_contains(const NgramIndex *ix, const int *ids);

/* Marks seen[i] = 1 when the n-window ending at token i is in the index (so seen[i] = 0
 * for i < n-1), for ids[0..n_ids); fills *sum. seen may be NULL (summary only). */
void ngram_mark(const NgramIndex *ix, const int *ids, size_t n_ids, unsigned char *seen, NgramSummary *sum);
/* The same marks for the whole text, but the summary counts only tokens [from, n_ids)
 * (a continuation after a prompt): the share of them that are seen, and the longest
 * run whose windows lie entirely inside them (longest_start counts from ids[0]). */
void ngram_mark_from(const NgramIndex *ix, const int *ids, size_t n_ids, size_t from, unsigned char *seen,
                     NgramSummary *sum);

#endif
