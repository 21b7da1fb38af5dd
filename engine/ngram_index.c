/* ngram_index.c — see ngram_index.h. */
#include "ngram_index.h"

#include <stdlib.h>
#include <string.h>

#include "file_read.h"

#define HEADER_BYTES 48

static uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint32_t ngram_fingerprint(uint64_t seed, const int *ids, int n) {
    uint64_t h = seed;
    for (int i = 0; i < n; i++) h = splitmix64(h ^ (uint64_t)(uint32_t)ids[i]);
    return (uint32_t)(h >> 32);
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

void ngram_index_free(NgramIndex *ix) {
    free(ix->mem);
    memset(ix, 0, sizeof *ix);
}

int ngram_index_load(NgramIndex *ix, const char *path, ErrorMsg *err) {
    memset(ix, 0, sizeof *ix);
    uint8_t *mem;
    size_t len;
    if (file_read_all(path, NGRAM_INDEX_MAX_BYTES, &mem, &len, err)) return -1;
    const char *why = NULL;
    uint64_t count = 0;
    uint32_t n = 0;
    if (len < HEADER_BYTES || memcmp(mem, "ISNGRAM1", 8) != 0) why = "not an inferscope n-gram index (bad magic)";
    else if (rd32(mem + 8) != 1) why = "unsupported version (this build reads version 1)";
    else if ((n = rd32(mem + 12)) < 2 || n > 64) why = "window size outside 2..64";
    else if (rd32(mem + 16) != 32 || rd32(mem + 20) != 1) why = "unknown fingerprint kind";
    else if ((count = rd64(mem + 32)) > (len - HEADER_BYTES) / 4 || HEADER_BYTES + count * 4 != len)
        why = "size does not match its fingerprint count";
    if (why) {
        free(mem);
        return error_set(err, "%s: %s", path, why);
    }
    /* the fingerprints start at byte 48 of a malloc'd block: 4-byte aligned. Store them
     * as the host's uint32 (this reads little-endian files on any host). */
    uint32_t *fp = (uint32_t *)(void *)(mem + HEADER_BYTES);
    for (size_t i = 0; i < count; i++) {
        fp[i] = rd32(mem + HEADER_BYTES + 4 * i);
        if (i > 0 && fp[i] <= fp[i - 1]) {
            free(mem);
            return error_set(err, "%s: fingerprints not strictly increasing at entry %zu", path, i);
        }
    }
    ix->n = (int)n;
    ix->seed = rd64(mem + 24);
    ix->source_tokens = rd64(mem + 40);
    ix->count = (size_t)count;
    ix->fp = fp;
    ix->mem = mem;
    return 0;
}

int ngram_index_contains(const NgramIndex *ix, const int *ids) {
    uint32_t f = ngram_fingerprint(ix->seed, ids, ix->n);
    size_t lo = 0, hi = ix->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->fp[mid] < f) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->count && ix->fp[lo] == f;
}

void ngram_mark(const NgramIndex *ix, const int *ids, size_t n_ids, unsigned char *seen, NgramSummary *sum) {
    ngram_mark_from(ix, ids, n_ids, 0, seen, sum);
}

void ngram_mark_from(const NgramIndex *ix, const int *ids, size_t n_ids, size_t from, unsigned char *seen,
                     NgramSummary *sum) {
    memset(sum, 0, sizeof *sum);
    if (from > n_ids) from = n_ids;
    sum->n_tokens = n_ids - from;
    size_t n = (size_t)ix->n, run = 0; /* run: consecutive seen marks (windows inside [from, ..)) ending here */
    for (size_t i = 0; i < n_ids; i++) {
        int hit = i + 1 >= n && ngram_index_contains(ix, ids + i + 1 - n);
        if (seen) seen[i] = (unsigned char)hit;
        if (i < from) continue;
        sum->n_seen += (size_t)hit;
        int inside = hit && i + 1 >= from + n; /* the whole window lies in [from, n_ids) */
        run = inside ? run + 1 : 0;
        /* `run` marks in a row cover run + n - 1 tokens, each window verbatim in training */
        if (inside && run + n - 1 > sum->longest_run) {
            sum->longest_run = run + n - 1;
            sum->longest_start = i + 1 - sum->longest_run;
        }
    }
    sum->seen_share = sum->n_tokens ? (double)sum->n_seen / (double)sum->n_tokens : 0.0;
}
