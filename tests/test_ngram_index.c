/* test_ngram_index.c — the memorisation index (engine/ngram_index.h): the hash's committed
 * test vector (tools/train/build_ngram_index.py --selftest checks the same value), an
 * index written here in the documented format and read back, marking and the longest
 * run on sequences whose answer is known by construction, every malformed file refused
 * with its reason (bad magic, version, sizes, order, a FIFO), and the shipped index of
 * the bundled model: it loads and matches its card's counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "ngram_index.h"

#define SEED 0x696E666572736370ULL

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Writes an index of the n-windows of `ids` to path, with the header fields given. */
static void write_index(const char *path, const int *ids, size_t n_ids, int n, uint32_t version, int unsorted,
                        long size_delta) {
    size_t m = n_ids >= (size_t)n ? n_ids - (size_t)n + 1 : 0;
    uint32_t *fp = malloc((m + 1) * sizeof *fp);
    for (size_t i = 0; i < m; i++) fp[i] = ngram_fingerprint(SEED, ids + i, n);
    qsort(fp, m, sizeof *fp, cmp_u32);
    size_t k = 0; /* unique */
    for (size_t i = 0; i < m; i++)
        if (k == 0 || fp[i] != fp[k - 1]) fp[k++] = fp[i];
    if (unsorted && k >= 2) {
        uint32_t t = fp[0];
        fp[0] = fp[1];
        fp[1] = t;
    }
    size_t bytes = 48 + 4 * k;
    uint8_t *b = calloc(bytes + 8, 1);
    memcpy(b, "ISNGRAM1", 8);
    put32(b + 8, version);
    put32(b + 12, (uint32_t)n);
    put32(b + 16, 32);
    put32(b + 20, 1);
    put64(b + 24, SEED);
    put64(b + 32, k);
    put64(b + 40, n_ids);
    for (size_t i = 0; i < k; i++) put32(b + 48 + 4 * i, fp[i]);
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, (size_t)((long)bytes + size_delta), f);
    fclose(f);
    free(b);
    free(fp);
}

static void test_hash_vector(void) {
    const int ids[8] = {7454, 2402, 257, 640, 11, 612, 373, 257};
    CHECK(ngram_fingerprint(SEED, ids, 8) == 0xF583F7E7u, "fingerprint %#x, want 0xf583f7e7 (the builder's --selftest)",
          ngram_fingerprint(SEED, ids, 8));
    /* order matters, and the seed matters */
    const int swapped[8] = {2402, 7454, 257, 640, 11, 612, 373, 257};
    CHECK(ngram_fingerprint(SEED, swapped, 8) != ngram_fingerprint(SEED, ids, 8), "order changes the fingerprint");
    CHECK(ngram_fingerprint(SEED + 1, ids, 8) != ngram_fingerprint(SEED, ids, 8), "seed changes the fingerprint");
}

static void test_mark(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/ix.bin", dir);
    /* "training text": 0..39 */
    int train[40];
    for (int i = 0; i < 40; i++) train[i] = 100 + i;
    write_index(path, train, 40, 4, 1, 0, 0);
    NgramIndex ix;
    ErrorMsg err;
    CHECK(ngram_index_load(&ix, path, &err) == 0, "load: %s", err.text);
    CHECK(ix.n == 4 && ix.count == 37 && ix.source_tokens == 40, "header: n %d count %zu", ix.n, ix.count);
    /* a text: 3 unrelated tokens, then train[5..15) verbatim (10 tokens), then 2 more unrelated */
    int text[15] = {1, 2, 3};
    for (int i = 0; i < 10; i++) text[3 + i] = train[5 + i];
    text[13] = 7;
    text[14] = 8;
    unsigned char seen[15];
    NgramSummary s;
    ngram_mark(&ix, text, 15, seen, &s);
    /* windows of 4 ending at 6..12 lie inside the copied run: 7 seen tokens */
    int ok = 1;
    for (int i = 0; i < 15; i++) ok &= seen[i] == (i >= 6 && i <= 12);
    CHECK(ok, "seen marks exactly on tokens 6..12");
    CHECK(s.n_seen == 7 && s.n_tokens == 15, "n_seen %zu", s.n_seen);
    CHECK_CLOSE(s.seen_share, 7.0 / 15.0, 1e-12, 0, "seen share");
    CHECK(s.longest_run == 10 && s.longest_start == 3, "longest run %zu at %zu, want 10 at 3", s.longest_run,
          s.longest_start);
    /* shorter than a window: nothing can be seen */
    ngram_mark(&ix, train, 3, seen, &s);
    CHECK(s.n_seen == 0 && s.longest_run == 0 && s.n_tokens == 3, "short text");
    ngram_mark(&ix, train, 0, NULL, &s);
    CHECK(s.n_tokens == 0 && s.seen_share == 0, "empty text");
    /* the whole training text: everything from token n-1 on */
    ngram_mark(&ix, train, 40, NULL, &s);
    CHECK(s.n_seen == 37 && s.longest_run == 40 && s.longest_start == 0, "whole text: %zu seen, run %zu", s.n_seen,
          s.longest_run);
    ngram_index_free(&ix);
    ngram_index_free(&ix); /* twice is safe */
}

static void expect_refused(const char *path, const char *why) {
    NgramIndex ix;
    ErrorMsg err = {{0}};
    int rc = ngram_index_load(&ix, path, &err);
    CHECK(rc == -1 && strstr(err.text, why) && strstr(err.text, path), "%s: want '%s', got rc %d '%s'", path, why, rc,
          err.text);
    CHECK(ix.mem == NULL && ix.count == 0, "refused index is zeroed");
}

static void test_bad_files(const char *dir) {
    char path[512];
    int ids[20];
    for (int i = 0; i < 20; i++) ids[i] = i * 7;
    /* one damage each: a file name, how write_index damages it, the refusal it must get */
    static const struct {
        const char *file;
        int n;
        uint32_t version;
        int unsorted;
        long size_delta;
        const char *why;
    } bad[] = {
        {"v2.bin", 8, 2, 0, 0, "unsupported version"},
        {"unsorted.bin", 8, 1, 1, 0, "not strictly increasing"},
        {"short.bin", 8, 1, 0, -3, "size does not match"},
        {"long.bin", 8, 1, 0, 4, "size does not match"},
        {"n1.bin", 1, 1, 0, 0, "window size"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, bad[k].file);
        write_index(path, ids, 20, bad[k].n, bad[k].version, bad[k].unsorted, bad[k].size_delta);
        expect_refused(path, bad[k].why);
    }
    snprintf(path, sizeof path, "%s/text.bin", dir);
    FILE *f = fopen(path, "wb");
    fputs("Once upon a time, this was not an index at all. It is long enough to have a header.", f);
    fclose(f);
    expect_refused(path, "bad magic");
    snprintf(path, sizeof path, "%s/empty.bin", dir);
    fclose(fopen(path, "wb"));
    expect_refused(path, "bad magic");
    snprintf(path, sizeof path, "%s/missing.bin", dir);
    expect_refused(path, "cannot open");
    /* a FIFO must be refused at once, not wait for a writer */
    snprintf(path, sizeof path, "%s/fifo.bin", dir);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    struct stat fst;
    if (stat(path, &fst) == 0 && !S_ISFIFO(fst.st_mode)) /* emscripten's file system has no FIFOs */
        printf("SKIPPED: FIFO refused: mkfifo made no FIFO on this platform\n");
    else
        expect_refused(path, "not a regular file");
    expect_refused(dir, "not a regular file");
}

/* The bundled model's index: loads, and agrees with the numbers in its card. */
static void test_shipped_index(void) {
    const char *path = "assets/models/stories16m/" NGRAM_INDEX_FILE;
    NgramIndex ix;
    ErrorMsg err;
    CHECK(ngram_index_load(&ix, path, &err) == 0, "%s", err.text);
    CHECK(ix.n == 8, "n = %d", ix.n);
    FILE *f = fopen("assets/models/stories16m/NGRAM-INDEX.md", "r");
    CHECK(f != NULL, "card present");
    char line[512], want[64];
    snprintf(want, sizeof want, "| fingerprints | %zu,%03zu distinct", ix.count / 1000, ix.count % 1000);
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, want)) found = 1;
    if (f) fclose(f);
    CHECK(found, "card states the fingerprint count (%s)", want);
    /* "Once upon a time, there was a" opens thousands of training stories */
    const int story[8] = {7454, 2402, 257, 640, 11, 612, 373, 257};
    CHECK(ngram_index_contains(&ix, story), "'Once upon a time, there was a' is seen");
    ngram_index_free(&ix);
}

int main(void) {
    char dir[] = "/tmp/inferscope-ngram-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    test_hash_vector();
    test_mark(dir);
    test_bad_files(dir);
    test_shipped_index();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
    return check_summary("test_ngram_index");
}
