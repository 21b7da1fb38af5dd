/* bench.h — shared helpers of `make bench` (every file in tools/bench): a monotonic clock and a
 * median. The bench prints speed figures; it never fails and is not a test.
 * bench.c holds main: engine speed (decode, prefill, memory-bandwidth floor), then
 * bench_bundled() (bench_bundled.c), bench_tokenizer() (bench_tokenizer.c). */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>

/* Seconds on a monotonic clock (only differences mean anything). */
double bench_now(void);

/* Median of v[0..n) (sorts v in place); 0 for n == 0. */
double bench_median(double *v, size_t n);

#endif
