/* bench_ngram.c — see bench_ngram.h. The marked text is 1,000 pseudo-random token ids
 * (a fixed LCG): what matters is the lookups, not the words. */
#include "bench_ngram.h"

#include <stdio.h>

#include "bench.h"
#include "ngram_index.h"

#define RUNS 15

void bench_ngram(const char *model_dir) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", model_dir, NGRAM_INDEX_FILE);
    double load[RUNS], mark[RUNS];
    int ids[1000];
    unsigned char seen[1000];
    unsigned x = 12345;
    for (int i = 0; i < 1000; i++) {
        x = x * 1103515245u + 12345u;
        ids[i] = (int)((x >> 8) % 50257u);
    }
    NgramSummary sum = {0};
    size_t count = 0;
    for (int r = 0; r < RUNS; r++) {
        NgramIndex ix;
        ErrorMsg err;
        double t0 = bench_now();
        if (ngram_index_load(&ix, path, &err)) {
            printf("memorisation index: %s (skipped)\n", err.text);
            return;
        }
        double t1 = bench_now();
        ngram_mark(&ix, ids, 1000, seen, &sum);
        double t2 = bench_now();
        count = ix.count;
        ngram_index_free(&ix);
        load[r] = (t1 - t0) * 1e3;
        mark[r] = (t2 - t1) * 1e3;
    }
    printf("memorisation index (%zu fingerprints): load %.2f ms (target < 50), mark 1,000 tokens %.3f ms "
           "(target < 10); medians of %d\n",
           count, bench_median(load, RUNS), bench_median(mark, RUNS), RUNS);
}
