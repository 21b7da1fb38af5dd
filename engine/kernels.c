/* kernels.c — the public kernels (kernels.h): matrix products routed to the run-time
 * kernel table (kern_isa.h: decode matvecs and dots, AVX-512's own prefill gemm) or to
 * OpenBLAS, plus the elementwise float32 kernels, which cost little next to the weight
 * stream and stay plain C. Not fast-math: no reassociation beyond the fixed
 * accumulator split written out in kern_body.h. */
#include "kernels.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern_isa.h"

#if __has_include(<cblas.h>)
#include <cblas.h>
#define KERN_HAVE_BLAS 1
#else
#define KERN_HAVE_BLAS 0
#endif

void kern_set_threads(int n) {
    if (n < 1) n = 1;
    omp_set_num_threads(n);
#if KERN_HAVE_BLAS
    openblas_set_num_threads(n);
#endif
}

int kern_get_threads(void) { return omp_get_max_threads(); }

void kern_set_region_threads(int n) { omp_set_num_threads(n < 1 ? 1 : n); }

/* ---- thin wrappers over the table ------------------------------------------------------ */

float kern_dot(const float *a, const float *b, size_t n) { return kern_isa()->dot[KERN_F32](a, b, n); }

void kern_axpy(float *y, float alpha, const float *x, size_t n) { kern_isa()->axpy(y, alpha, x, n); }

void kern_exp_sums(const float *x, size_t n, float m, double *sum_e, double *sum_ed) {
    /* Each lane's float partial sum adds at most 256 terms, so it stays within ~1e-7 of
     * its exact value: chunks of 4,096 on AVX-512, 256 in plain C (one lane; 4,096 terms
     * in one float chain missed the entropy by 2e-6 bits: test_token_stats under
     * INFERSCOPE_ISA=scalar). */
    const KernIsa *isa = kern_isa();
    const size_t chunk = (size_t)256 * (size_t)isa->lanes;
    double s = 0.0, s_d = 0.0;
    for (size_t i = 0; i < n; i += chunk) {
        float a, b;
        isa->exp_sums(x + i, n - i < chunk ? n - i : chunk, m, &a, &b);
        s += a;
        s_d += b;
    }
    *sum_e = s;
    *sum_ed = s_d;
}

void kern_attn_scores(float *s, const float *q, const float *K, size_t n, size_t hs, float scale) {
    kern_isa()->attn_scores(s, q, K, n, hs, scale);
}

void kern_attn_mix(float *z, const float *p, const float *V, size_t n, size_t hs) {
    kern_isa()->attn_mix(z, p, V, n, hs);
}

void kern_widen(float *dst, const void *src, KernDtype dt, size_t n) { kern_isa()->widen[dt](dst, src, n); }

float kern_stream_sum(const float *p, size_t n) {
    const KernIsa *isa = kern_isa();
    float total = 0.0f;
#pragma omp parallel reduction(+ : total)
    {
        /* each thread one contiguous range, cut at 64-float (256 B) boundaries */
        size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        size_t i0 = n * id / nt / 64 * 64, i1 = id + 1 == nt ? n : n * (id + 1) / nt / 64 * 64;
        total += isa->stream_sum(p + i0, i1 - i0);
    }
    return total;
}

double kern_fma_burn(size_t iters) {
    const KernIsa *isa = kern_isa();
    volatile float sink = 0.0f;
    int threads = 1;
#pragma omp parallel
    {
        float r = isa->fma_peak(iters);
#pragma omp critical
        sink += r;
#pragma omp single
        threads = omp_get_num_threads();
    }
    (void)sink;
    return (double)threads * (double)iters * 24.0 * (double)isa->lanes;
}

/* Element offset -> address in a weight array of dtype dt. */
static const void *w_at(const void *w, KernDtype dt, size_t idx) {
    return (const uint8_t *)w + idx * kern_dtype_size(dt);
}

/* ---- decode: matvec in Conv1D layout ---------------------------------------------------- */

/* Below this many multiply-adds a parallel region costs more than it saves. */
#define KERN_PAR_MIN ((size_t)1 << 15)
/* Widest output the two-halves split keeps on the stack (GPT-2 XL's MLP is 6,400). */
#define KERN_SPLIT_MAX_OUT 8192
/* The one-thread path (the browser's only path) reads whole rows, as each of two threads
 * does (below): the longer the run of a row before the kernel switches rows, the longer the
 * hardware prefetcher stays on one stream. Only a row wider than the stack's partial row
 * (GPT-2 XL's MLP is 6,400 wide) goes in pieces. Measured against runs of 8 KB and 4 KB
 * (2026-12-07, 2-core Zen VM, interleaved runs, medians): native 768 x 3072 matvec F16
 * 0.383 (4 KB) -> 0.317 ms, F32 0.695 (4 KB) / 0.64 (8 KB) -> 0.55 ms (whole rows);
 * 124M decode at one thread F16 1.32-1.41 -> 1.17-1.27x the floor (8 KB); SIMD128 under
 * Node, 768 x 3072 F16 0.80 -> 0.71 ms, decode 2.42-2.67 -> 2.23-2.39x its floor. Whole
 * F32 rows against 8 KB runs did not show in 124M's decode beside this VM's +-10 % (F32
 * 1.13-1.22 / 1.01-1.18x). (2 KB runs, the first choice for half weights, were slower
 * again: twice the row switches.)
 *
 * y = b + x W, computed as (b + x[0..mid) W[0..mid)) + x[mid..in) W[mid..in): the rows
 * are cut in two halves at `mid` whatever the thread count, so every thread count gives
 * the same bits. Why halves of rows, not ranges of columns: in Conv1D layout a column
 * range is a short run of every row, and two threads each reading every other run of the
 * same rows stream memory far below its rate (124M's block matrices at 2 threads: 7.7-8.0
 * ms by columns, 6.3-6.4 by halves of rows, 5.7-6.0 a plain read of the same bytes; F16
 * 5.6 -> 3.9-4.3 ms). With two threads each streams one contiguous half. */
static size_t split_mid(size_t in) { return in / 2 / 4 * 4; /* 4: the kernel's rows per pass */ }

/* One thread: both halves, one after the other, of whole rows (of pieces of 8,192 columns
 * past that width), the second half's partial in a stack row. The kernel's sum for a
 * column does not depend on the column range it is given (ranges start at multiples of
 * 16), so this is bit for bit the parallel split. */
static void matvec_serial(KernMatvecFn fn, float *y, const float *x, const void *w, KernDtype dt, const float *b,
                          size_t in, size_t out) {
    const size_t mid = split_mid(in), chunk = KERN_SPLIT_MAX_OUT;
    _Alignas(64) float part[KERN_SPLIT_MAX_OUT];
    for (size_t c0 = 0; c0 < out; c0 += chunk) {
        size_t c1 = out - c0 < chunk ? out : c0 + chunk;
        fn(y, x, w, b, mid, out, c0, c1);
        /* columns c0..c1 of the second half as columns 0.. of a matrix that starts at
         * column c0 (the row stride stays out), so they land on part[0..] */
        fn(part, x + mid, w_at(w, dt, mid * out + c0), NULL, in - mid, out, 0, c1 - c0);
        for (size_t j = c0; j < c1; j++) y[j] += part[j - c0];
    }
}

static void matvec(float *y, const float *x, const void *w, KernDtype dt, const float *b, size_t in, size_t out) {
    KernMatvecFn fn = kern_isa()->matvec[dt];
    if (in * out < KERN_PAR_MIN || out > KERN_SPLIT_MAX_OUT || omp_get_max_threads() < 2) {
        matvec_serial(fn, y, x, w, dt, b, in, out);
        return;
    }
    const size_t mid = split_mid(in), blocks = (out + 15) / 16, cells = 2 * blocks;
    const void *w_hi = w_at(w, dt, mid * out);
    _Alignas(64) float part[KERN_SPLIT_MAX_OUT]; /* the second half's partial sums */
    atomic_size_t done = 0;
#pragma omp parallel
    {
        /* a thread's share: a run of cells (half, 16-column block) in half-major order, so
         * with two threads each takes one half; blocks keep threads off each other's lines */
        size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        size_t c0 = cells * id / nt, c1 = cells * (id + 1) / nt;
        if (c0 < blocks) {
            size_t j1 = (c1 < blocks ? c1 : blocks) * 16;
            fn(y, x, w, b, mid, out, c0 * 16, j1 < out ? j1 : out);
        }
        if (c1 > blocks) {
            size_t j0 = (c0 > blocks ? c0 - blocks : 0) * 16, j1 = (c1 - blocks) * 16;
            fn(part, x + mid, w_hi, NULL, in - mid, out, j0, j1 < out ? j1 : out);
        }
        /* the last thread to finish adds the halves: acq_rel makes the others' writes visible */
        if (atomic_fetch_add_explicit(&done, 1, memory_order_acq_rel) == nt - 1)
            for (size_t j = 0; j < out; j++) y[j] += part[j];
    }
}

/* ---- prefill without an own gemm: OpenBLAS ---------------------------------------------
 * sgemm wants float weights, so F16/BF16 ones are widened a block of rows at a time
 * (about 4 MB, so the block is still in cache when sgemm reads it). trans 0: w is
 * (K, N) and blocks are rows k0.. of w, accumulated into y (beta 1); trans 1: w is
 * (N, K) and blocks are output columns n0.. (disjoint parts of y, beta 0). */
#if KERN_HAVE_BLAS
static void gemm_blas(float *y, const float *x, const void *w, KernDtype dt, size_t M, size_t K, size_t N,
                      int trans) {
    if (dt == KERN_F32) {
        if (!trans)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, x, (int)K, w,
                        (int)N, 1.0f, y, (int)N);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f, x, (int)K, w,
                        (int)K, 0.0f, y, (int)N);
        return;
    }
    const size_t row_len = trans ? K : N, total_rows = trans ? N : K;
    size_t rows = ((size_t)1 << 20) / row_len;
    if (rows < 8) rows = 8;
    if (rows > total_rows) rows = total_rows;
    float *blk = malloc(rows * row_len * sizeof *blk);
    if (!blk) { /* no 4 MB to spare: plain loops, slow but correct */
        for (size_t t = 0; t < M; t++)
            for (size_t r = 0; r < total_rows; r++) {
                float tmp[1];
                if (trans) {
                    float *yr = y + t * N;
                    yr[r] = kern_isa()->dot[dt](x + t * K, w_at(w, dt, r * K), K);
                } else {
                    for (size_t j = 0; j < N; j++) {
                        kern_isa()->widen[dt](tmp, w_at(w, dt, r * N + j), 1);
                        y[t * N + j] += x[t * K + r] * tmp[0];
                    }
                }
            }
        return;
    }
    KernWidenFn widen = kern_isa()->widen[dt];
    for (size_t r0 = 0; r0 < total_rows; r0 += rows) {
        size_t nr = total_rows - r0 < rows ? total_rows - r0 : rows;
        long nrl = (long)nr;
#pragma omp parallel for schedule(static)
        for (long r = 0; r < nrl; r++)
            widen(blk + (size_t)r * row_len, w_at(w, dt, (r0 + (size_t)r) * row_len), row_len);
        if (!trans)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)nr, 1.0f, x + r0, (int)K, blk,
                        (int)N, 1.0f, y, (int)N);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)nr, (int)K, 1.0f, x, (int)K, blk,
                        (int)K, 0.0f, y + r0, (int)N);
    }
    free(blk);
}
#endif

/* 1 when T > 1 rows go to a gemm (own or OpenBLAS) rather than one matvec per row. */
static int have_gemm(KernDtype dt) { return KERN_HAVE_BLAS || kern_isa()->gemm[dt] != NULL; }

/* y (M, N) += x @ B (trans 0) or = x @ w^T (trans 1, y zeroed by the caller). */
static void gemm_any(float *y, const float *x, const void *w, KernDtype dt, size_t M, size_t K, size_t N, int trans) {
    const KernIsa *isa = kern_isa();
    if (isa->gemm[dt]) {
        isa->gemm[dt](y, x, w, M, K, N, trans);
        return;
    }
#if KERN_HAVE_BLAS
    gemm_blas(y, x, w, dt, M, K, N, trans);
#endif
}

void kern_matmul_dt(float *y, const float *x, const void *w, KernDtype dt, const float *b,
                    size_t T, size_t in, size_t out) {
    if (T == 1 || !have_gemm(dt)) {
        for (size_t t = 0; t < T; t++) matvec(y + t * out, x + t * in, w, dt, b, in, out);
        return;
    }
    /* y = b (broadcast over rows), then y += x @ w */
    for (size_t t = 0; t < T; t++) {
        if (b) memcpy(y + t * out, b, out * sizeof *y);
        else memset(y + t * out, 0, out * sizeof *y);
    }
    gemm_any(y, x, w, dt, T, in, out, 0);
}

void kern_matmul(float *y, const float *x, const float *w, const float *b, size_t T, size_t in, size_t out) {
    kern_matmul_dt(y, x, w, KERN_F32, b, T, in, out);
}

void kern_matmul_wt_dt(float *y, const float *x, const void *wt, KernDtype dt, size_t T, size_t in, size_t out) {
    if (T == 1 || !have_gemm(dt)) {
        /* one dot product per output row of wt: wt is read once, front to back */
        KernDotFn dot = kern_isa()->dot[dt];
        long n = (long)out;
        for (size_t t = 0; t < T; t++) {
            float *yr = y + t * out;
            const float *xr = x + t * in;
#pragma omp parallel for schedule(static) if (in * out >= KERN_PAR_MIN)
            for (long v = 0; v < n; v++) yr[v] = dot(xr, w_at(wt, dt, (size_t)v * in), in);
        }
        return;
    }
    memset(y, 0, T * out * sizeof *y);
    gemm_any(y, x, wt, dt, T, in, out, 1);
}

void kern_matmul_wt(float *y, const float *x, const float *wt, size_t T, size_t in, size_t out) {
    kern_matmul_wt_dt(y, x, wt, KERN_F32, T, in, out);
}

/* ---- elementwise ------------------------------------------------------------------- */

void kern_layernorm(float *y, const float *x, const float *g, const float *b, float eps,
                    size_t T, size_t C) {
    for (size_t t = 0; t < T; t++) {
        const float *xr = x + t * C;
        float *yr = y + t * C;
        double sum = 0.0;
        for (size_t i = 0; i < C; i++) sum += xr[i];
        double mean = sum / (double)C;
        double ss = 0.0;
        for (size_t i = 0; i < C; i++) {
            double d = xr[i] - mean;
            ss += d * d;
        }
        /* biased variance (divide by C, not C-1) and eps inside the sqrt: torch LayerNorm */
        float rstd = (float)(1.0 / sqrt(ss / (double)C + (double)eps));
        float m = (float)mean;
        for (size_t i = 0; i < C; i++) yr[i] = (xr[i] - m) * rstd * g[i] + b[i];
    }
}

void kern_gelu(float *y, const float *x, size_t n) {
    /* 0.5 (1 + tanh(u)) == 1 / (1 + exp(-2u)) exactly (the logistic function is a shifted
     * tanh), so gelu_tanh(x) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3):
     * the same function as GPT-2's formula with one exp instead of a tanh. For very
     * negative x, exp overflows to +inf and the result is -0, the correct limit. */
    const float k = 0.7978845608028654f; /* sqrt(2/pi) */
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        float u = k * (v + 0.044715f * v * v * v);
        y[i] = v / (1.0f + expf(-2.0f * u));
    }
}

void kern_softmax(float *p, size_t n) {
    if (n == 0) return;
    float mx = p[0];
    for (size_t i = 1; i < n; i++)
        if (p[i] > mx) mx = p[i];
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        p[i] = expf(p[i] - mx);
        sum += p[i];
    }
    float inv = 1.0f / sum;
    for (size_t i = 0; i < n; i++) p[i] *= inv;
}

void kern_add(float *y, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

size_t kern_topk(int *ids, float *vals, const float *x, size_t n, size_t k) {
    size_t have = 0;
    if (k > n) k = n;
    if (k == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        /* strictly greater than the current k-th: on ties the earlier index stays */
        if (have == k && !(v > vals[k - 1])) continue;
        size_t pos = have < k ? have++ : k - 1;
        while (pos > 0 && v > vals[pos - 1]) {
            vals[pos] = vals[pos - 1];
            ids[pos] = ids[pos - 1];
            pos--;
        }
        vals[pos] = v;
        ids[pos] = (int)i;
    }
    return k;
}
