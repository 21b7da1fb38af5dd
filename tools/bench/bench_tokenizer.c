/* bench_tokenizer.c — median encode speed of the GPT-2 tokenizer on real prose (the
 * TinyStories head files): 5 runs with the word cache (emptied before each run, so each
 * run starts cold) and 5 without it. Prints; never fails. Called by tools/bench/bench_main.c. */
#include "bench_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "file_read.h"
#include "tokenizer.h"

#define RUNS 5

/* Appends a whole file to *buf (growing it); returns 0, or -1 if it cannot be read. */
static int append_file(const char *path, uint8_t **buf, size_t *len) {
    uint8_t *part = NULL;
    size_t n = 0;
    ErrorMsg err;
    if (file_read_all(path, (size_t)1 << 30, &part, &n, &err)) return -1;
    uint8_t *nb = realloc(*buf, *len + n + 1);
    if (nb) {
        memcpy(nb + *len, part, n + 1);
        *buf = nb;
        *len += n;
    }
    free(part);
    return nb ? 0 : -1;
}

void bench_tokenizer(const char *tokenizer_dir) {
    const char *corpus = getenv("INFERSCOPE_CORPUS");
    if (!corpus || !*corpus) corpus = "../shared/corpus";
    const char *files[2] = {"tinystories-train-head.txt", "tinystories-valid-head.txt"};
    uint8_t *text = NULL;
    size_t len = 0;
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", corpus, files[i]);
        if (append_file(path, &text, &len)) {
            printf("tokenizer: skipped (cannot read %s)\n", path);
            free(text);
            return;
        }
    }
    Tokenizer tok = {0};
    ErrorMsg err;
    double t0 = bench_now();
    if (tok_load(&tok, tokenizer_dir, &err)) {
        printf("tokenizer: skipped (%s)\n", err.text);
        free(text);
        return;
    }
    double load_s = bench_now() - t0;
    printf("tokenizer: %.2f MB of TinyStories, load %.1f ms, regex JIT %s, median of %d runs\n",
           (double)len / 1e6, 1e3 * load_s, tok.jit ? "on" : "off", RUNS);

    double base_tok_s = 0;
    for (int cached = 1; cached >= 0; cached--) {
        TokEncodeOptions opt = {.utf8 = TOK_UTF8_REPLACE, .no_cache = !cached};
        double secs[RUNS];
        size_t n_ids = 0;
        uint64_t hits = 0, misses = 0;
        int ok = 1;
        for (int r = 0; r < RUNS && ok; r++) {
            tok_cache_reset(&tok);
            TokEncoding enc = {0};
            double s = bench_now();
            ok = tok_encode(&tok, text, len, &opt, &enc, &err) == 0;
            secs[r] = bench_now() - s;
            n_ids = enc.n_ids;
            hits = tok.cache.hits;
            misses = tok.cache.misses;
            tok_encoding_free(&enc);
        }
        if (!ok) {
            printf("tokenizer: encode failed: %s\n", err.text);
            break;
        }
        double med = bench_median(secs, RUNS); /* RUNS is odd: the middle run */
        double tok_s = (double)n_ids / med;
        printf("  %-14s %9.0f tokens/s  %6.2f MB/s  (%zu tokens, %.1f ms)", cached ? "word cache" : "no cache",
               tok_s, (double)len / 1e6 / med, n_ids, 1e3 * med);
        if (cached) {
            printf("  hit rate %.1f%%\n", hits + misses ? 100.0 * (double)hits / (double)(hits + misses) : 0.0);
            base_tok_s = tok_s;
        } else {
            printf("  cache speed-up x%.2f\n", tok_s > 0 ? base_tok_s / tok_s : 0.0);
        }
    }
    tok_free(&tok);
    free(text);
}
