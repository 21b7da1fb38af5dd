/* bench_floor.c — the two bounds of `make bench`, measured in the same run as the
 * figures they judge: the memory floor (stream-read a huge-page buffer once with the
 * kernel table's own vectorised four-accumulator loop: decode must read every weight
 * once per token, so it cannot beat this) and the FMA peak (12 independent FMA chains
 * in registers: prefill cannot beat it). Both use the kernel table in force, so the
 * AVX2 figures are judged by an AVX2 read and AVX2 FMAs, not by an AVX-512 machine's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench.h"
#include "kernels.h"

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
    if (n == 0) return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_buf_init(BenchBuf *b, size_t bytes) {
    memset(b, 0, sizeof *b);
    const size_t huge = (size_t)2 << 20;
    size_t len = (bytes + huge - 1) / huge * huge;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    b->p = p;
    b->n = bytes / sizeof(float);
    b->bytes = len;
    for (size_t i = 0; i < b->n; i++) b->p[i] = (float)(i & 7);
    return 0;
}

void bench_buf_free(BenchBuf *b) {
    if (b->p) munmap(b->p, b->bytes);
    memset(b, 0, sizeof *b);
}

double bench_floor_ms(const BenchBuf *b, size_t bytes, int reps) {
    double t[16];
    volatile float sink = 0.0f;
    size_t n = bytes / sizeof(float);
    if (!b->p) return 0.0;
    if (n > b->n) n = b->n;
    if (reps > 16) reps = 16;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        sink += kern_stream_sum(b->p, n);
        t[r] = (bench_now() - t0) * 1e3;
    }
    (void)sink;
    return bench_median(t, (size_t)reps);
}

double bench_fma_gflops(void) {
    /* a peak: the best of 5 runs (a preempted run is slower, never faster) */
    double best = 0.0;
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        double flops = kern_fma_burn((size_t)4 << 20);
        double g = flops / (bench_now() - t0) / 1e9;
        if (g > best) best = g;
    }
    return best;
}

size_t bench_rss_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = (size_t)strtoull(line + 6, NULL, 10);
    fclose(f);
    return kb * 1024;
}
