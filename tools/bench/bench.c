/* bench.c — `make bench`: speed of the engine on a GPT-2 124M-shaped model with random
 * weights (gpt2_model_init_random), as medians over repeated runs:
 *   - the memory-bandwidth floor: time to stream-read a buffer the size of the weights
 *     (decode must read every weight once per token, so it cannot beat this);
 *   - decode ms/token at context 16, 256, 1000, trace off / default / all, 1 and 2 threads,
 *     and its ratio to the floor;
 *   - prefill tokens/s for a 256-token prompt;
 *   - the bundled model as a user meets it: load + first answer, one window step
 *     (bench_bundled.c);
 *   - the logit lens, attribution and journey per step against one decode step (bench_lens.c);
 *   - then the memorisation index (bench_ngram.c) and the tokenizer (bench_tokenizer.c).
 * Prints, never fails; runs in well under two minutes on 2 cores. Not a test. */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <omp.h>

#include "cli.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "kernels.h"

#if __has_include("bench_tokenizer.h")
#include "bench_tokenizer.h"
#define HAVE_BENCH_TOKENIZER 1
#endif

#include "bench_bundled.h"
#include "bench_lens.h"
#include "bench_ngram.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

/* ---- memory-bandwidth floor ------------------------------------------------------------ */

/* Sum of n floats, split over the OpenMP threads: a pure streaming read. */
static float stream_read(const float *buf, size_t n) {
    float total = 0.0f;
#pragma omp parallel reduction(+ : total)
    {
        size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        size_t i0 = n * id / nt / 64 * 64, i1 = id + 1 == nt ? n : n * (id + 1) / nt / 64 * 64;
        float s = 0.0f;
        size_t i = i0;
#if defined(__AVX512F__)
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (; i + 64 <= i1; i += 64) {
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(buf + i));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(buf + i + 16));
            a2 = _mm512_add_ps(a2, _mm512_loadu_ps(buf + i + 32));
            a3 = _mm512_add_ps(a3, _mm512_loadu_ps(buf + i + 48));
        }
        s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
#endif
        for (; i < i1; i++) s += buf[i];
        total += s;
    }
    return total;
}

/* n floats in 2 MiB-aligned anonymous memory advised as huge pages (NULL on failure). */
static float *alloc_huge(size_t n, size_t *bytes_out) {
    size_t bytes = (n * sizeof(float) + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    *bytes_out = bytes;
    return p;
}

static double floor_ms(const float *buf, size_t n, int reps) {
    double t[16];
    volatile float sink = 0.0f;
    if (reps > 16) reps = 16;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        sink += stream_read(buf, n);
        t[r] = (bench_now() - t0) * 1e3;
    }
    (void)sink;
    return bench_median(t, (size_t)reps);
}

/* ---- decode / prefill ------------------------------------------------------------------ */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static int random_id(int V) {
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((g_rng >> 33) % (uint64_t)V);
}

/* Median ms of one gpt2_step at position ctx-1 (the trace holds ctx-1 tokens; each
 * repetition steps, then truncates back — truncation is free, so every timed step sees
 * exactly the same context). Stops after `reps` steps or `budget` seconds (min 3 steps)
 * so a loaded machine cannot stretch the bench past its two minutes. */
static double decode_ms(const Gpt2Model *m, Gpt2Trace *tr, int ctx, int reps, double budget) {
    double t[64];
    ErrorMsg err;
    int n = 0;
    if (reps > 64) reps = 64;
    gpt2_trace_truncate(tr, ctx - 1);
    gpt2_step(m, tr, random_id(m->config.vocab_size), &err); /* warm-up */
    double start = bench_now();
    for (; n < reps && (n < 3 || bench_now() - start < budget); n++) {
        gpt2_trace_truncate(tr, ctx - 1);
        int id = random_id(m->config.vocab_size);
        double t0 = bench_now();
        if (gpt2_step(m, tr, id, &err)) {
            printf("  step failed: %s\n", err.text);
            return -1.0;
        }
        t[n] = (bench_now() - t0) * 1e3;
    }
    return bench_median(t, (size_t)n);
}

static double prefill_tok_s(const Gpt2Model *m, Gpt2Trace *tr, const int *ids, int n, int reps, double budget) {
    double t[16];
    ErrorMsg err;
    int r = 0;
    if (reps > 16) reps = 16;
    double start = bench_now();
    for (; r < reps && (r < 1 || bench_now() - start < budget); r++) {
        double t0 = bench_now();
        if (gpt2_prefill(m, tr, ids, (size_t)n, &err)) {
            printf("  prefill failed: %s\n", err.text);
            return -1.0;
        }
        t[r] = bench_now() - t0;
    }
    return n / bench_median(t, (size_t)r);
}

static void print_cpu(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            printf("cpu: %s", c ? c + 2 : line);
            break;
        }
    fclose(f);
    printf("simd: %s, cores seen by OpenMP: %d\n",
           __builtin_cpu_supports("avx512f") ? "AVX-512" : __builtin_cpu_supports("avx2") ? "AVX2" : "baseline",
           omp_get_num_procs());
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* show each figure as it is measured, even through a pipe */
    print_cpu();
    const Gpt2Config cfg = {.n_layer = 12, .n_head = 12, .n_embd = 768, .n_positions = 1024,
                            .vocab_size = 50257, .ln_eps = 1e-5f};
    Gpt2Model m = {0};
    ErrorMsg err;
    double t0 = bench_now();
    if (gpt2_model_init_random(&m, &cfg, 42, &err)) {
        printf("bench: %s\n", err.text);
        return 1;
    }
    const size_t n_floats = m.owned_len, wbytes = n_floats * sizeof(float);
    printf("model: GPT-2 124M shape (L=12 NH=12 C=768 V=50257), random weights, %.1f MB, built in %.1f s\n",
           (double)wbytes / 1e6, bench_now() - t0);

    /* the floor: stream-read a buffer of the weights' size (huge pages, as good as it gets) */
    size_t fbytes = 0;
    float *fbuf = alloc_huge(n_floats, &fbytes);
    double floor1 = 0, floor2 = 0;
    if (fbuf) {
        for (size_t i = 0; i < n_floats; i++) fbuf[i] = (float)(i & 7);
        kern_set_threads(1);
        floor1 = floor_ms(fbuf, n_floats, 7);
        kern_set_threads(2);
        floor2 = floor_ms(fbuf, n_floats, 7);
        printf("floor (stream-read %.0f MB): 1 thread %.2f ms (%.1f GB/s), 2 threads %.2f ms (%.1f GB/s)\n",
               (double)wbytes / 1e6, floor1, (double)wbytes / floor1 / 1e6, floor2, (double)wbytes / floor2 / 1e6);
    }

    /* decode. The machine may be shared (a training run, other builds), so each figure
     * is divided by a floor measured right before it with the same thread count. */
    const int ctxs[3] = {1000, 256, 16}; /* descending: one prefill, then truncate down */
    const struct { const char *name; unsigned cap; } modes[3] = {
        {"off", 0}, {"default", GPT2_CAP_DEFAULT}, {"all", GPT2_CAP_ALL}};
    int *ids = malloc(1024 * sizeof(int));
    for (int i = 0; i < 1024; i++) ids[i] = random_id(cfg.vocab_size);
    printf("\ndecode ms/token, median of up to 15 steps (x = ratio to the floor measured just before)\n");
    printf("  %-8s %5s %18s %18s\n", "trace", "ctx", "1 thread", "2 threads");
    for (int mo = 0; mo < 3; mo++) {
        Gpt2Trace tr = {0};
        if (gpt2_trace_init(&tr, &cfg, 1024, modes[mo].cap, &err)) {
            printf("  %s\n", err.text);
            continue;
        }
        kern_set_threads(1);
        if (gpt2_prefill(&m, &tr, ids, (size_t)ctxs[0] - 1, &err)) {
            printf("  %s\n", err.text);
            gpt2_trace_free(&tr);
            continue;
        }
        for (int c = 0; c < 3; c++) {
            int ctx = ctxs[c];
            double d[2], fl[2];
            for (int th = 1; th <= 2; th++) {
                kern_set_threads(th);
                fl[th - 1] = fbuf ? floor_ms(fbuf, n_floats, 3) : 0.0;
                d[th - 1] = decode_ms(&m, &tr, ctx, 15, 1.5);
            }
            printf("  %-8s %5d %8.2f (%5.2fx) %8.2f (%5.2fx)\n", modes[mo].name, ctx, d[0], fl[0] > 0 ? d[0] / fl[0] : 0,
                   d[1], fl[1] > 0 ? d[1] / fl[1] : 0);
        }
        gpt2_trace_free(&tr);
    }

    /* prefill */
    printf("\nprefill of a 256-token prompt, tokens/s (median of up to 3)\n");
    for (int mo = 0; mo < 2; mo++) {
        Gpt2Trace tr = {0};
        if (gpt2_trace_init(&tr, &cfg, 1024, modes[mo].cap, &err)) continue;
        double p[2];
        for (int th = 1; th <= 2; th++) {
            kern_set_threads(th);
            p[th - 1] = prefill_tok_s(&m, &tr, ids, 256, 3, 4.0);
        }
        printf("  trace %-8s 1 thread %7.0f   2 threads %7.0f\n", modes[mo].name, p[0], p[1]);
        gpt2_trace_free(&tr);
    }
    kern_set_threads(2);

    /* Lever: the same weights in 2 MiB huge pages (the loader keeps them in malloc'd
     * memory; THP here is "madvise" only). Copies the random weights and repoints. */
    if (fbuf && n_floats * sizeof(float) <= fbytes) {
        memcpy(fbuf, m.owned, wbytes);
        ptrdiff_t shift = fbuf - m.owned;
        Gpt2Model h = m;
        Gpt2LayerWeights *lw = malloc((size_t)cfg.n_layer * sizeof *lw);
        if (lw) {
#define MOVE(p) ((p) = (p) + shift)
            MOVE(h.w.wte);
            MOVE(h.w.wpe);
            MOVE(h.w.lnf_w);
            MOVE(h.w.lnf_b);
            MOVE(h.w.lm_head);
            for (int l = 0; l < cfg.n_layer; l++) {
                lw[l] = m.w.layers[l];
                MOVE(lw[l].ln1_w); MOVE(lw[l].ln1_b); MOVE(lw[l].qkv_w); MOVE(lw[l].qkv_b);
                MOVE(lw[l].attn_proj_w); MOVE(lw[l].attn_proj_b); MOVE(lw[l].ln2_w); MOVE(lw[l].ln2_b);
                MOVE(lw[l].fc_w); MOVE(lw[l].fc_b); MOVE(lw[l].fc_proj_w); MOVE(lw[l].fc_proj_b);
            }
#undef MOVE
            h.w.layers = lw;
            Gpt2Trace tr = {0};
            if (gpt2_trace_init(&tr, &cfg, 1024, 0, &err) == 0 && gpt2_prefill(&h, &tr, ids, 15, &err) == 0) {
                kern_set_threads(1);
                double f1 = floor_ms(fbuf + 0, n_floats, 3); /* same buffer: now it holds the weights */
                double d1 = decode_ms(&h, &tr, 16, 15, 1.5);
                double dm = decode_ms(&m, &tr, 16, 15, 1.5);
                printf("\nweights in 2 MiB huge pages (1 thread, trace off, ctx 16): %.2f ms (%.2fx floor %.2f ms)"
                       " vs malloc'd weights %.2f ms\n", d1, d1 / f1, f1, dm);
            }
            gpt2_trace_free(&tr);
            free(lw);
        }
    }

    printf("\ntrace memory for 124M at 1024 positions: off %.0f MB, default %.0f MB, all %.0f MB\n",
           (double)gpt2_trace_bytes(&cfg, 1024, 0) / 1e6, (double)gpt2_trace_bytes(&cfg, 1024, GPT2_CAP_DEFAULT) / 1e6,
           (double)gpt2_trace_bytes(&cfg, 1024, GPT2_CAP_ALL) / 1e6);
    free(ids);
    if (fbuf) munmap(fbuf, fbytes);
    printf("\n");
    bench_lens(&m);
    kern_set_threads(2);
    gpt2_model_free(&m);

    printf("\n");
    bench_bundled(cli_default_model_dir(), cli_tokenizer_dir());
    printf("\n");
    bench_ngram(cli_default_model_dir());

#ifdef HAVE_BENCH_TOKENIZER
    printf("\n");
    bench_tokenizer(cli_tokenizer_dir());
#endif
    return 0;
}
