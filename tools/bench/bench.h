/* bench.h — shared helpers of `make bench` (every file in tools/bench): a clock, a
 * median, the two bounds every figure is divided by (bench_floor.c), and the sections.
 * The bench prints speed figures; it never fails and is not a test.
 * bench_main.c holds main; bench_floor.c the bounds; bench_decode.c decode and prefill;
 * bench_bundled.c the bundled model; bench_tokenizer.c the tokenizer. */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>

#include "gpt2_model.h"

/* Seconds on a monotonic clock (only differences mean anything). */
double bench_now(void);

/* Median of v[0..n) (sorts v in place); 0 for n == 0. */
double bench_median(double *v, size_t n);

/* A buffer to stream-read for the memory floor: huge-page backed, filled. */
typedef struct BenchBuf {
    float *p;
    size_t n;      /* floats */
    size_t bytes;  /* mapped bytes */
} BenchBuf;
int bench_buf_init(BenchBuf *b, size_t bytes);
void bench_buf_free(BenchBuf *b);

/* Median ms to read the first `bytes` of b once with the current kernel table and
 * thread count (kern_stream_sum: vectorised, four accumulators). */
double bench_floor_ms(const BenchBuf *b, size_t bytes, int reps);

/* The current table's FMA throughput with the current threads, GFLOP/s (best of 5). */
double bench_fma_gflops(void);

/* Decode and prefill on a GPT-2 124M-shaped random model (bench_decode.c); targets_only:
 * just the decode targets (context 16, trace off), for `bench --decode`. */
void bench_decode(const BenchBuf *floor_buf, int all_isas, int targets_only);

/* RSS of this process now, bytes (VmRSS), 0 if unknown. */
size_t bench_rss_bytes(void);

#endif
