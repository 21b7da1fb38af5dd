/* bench_ngram.h — the memorisation meter for `make bench`: loading the bundled model's
 * n-gram index (target < 50 ms) and marking 1,000 tokens (target < 10 ms), medians of
 * repeated runs. Not a test: it prints, it never fails. */
#ifndef BENCH_NGRAM_H
#define BENCH_NGRAM_H

/* model_dir holds ngram-index.bin; says so and returns when it has none. */
void bench_ngram(const char *model_dir);

#endif
