/* kernels.c — float32 kernels of the forward pass (see kernels.h for the contracts).
 * Decode is memory-bound (every weight is read once per token), so the matvec is a
 * streaming loop that reads each weight row front to back; prefill is compute-bound,
 * so it goes to OpenBLAS sgemm. AVX-512 / AVX2 paths are chosen at compile time
 * (the Makefile builds with -march=native); the plain C loops are the portable fallback
 * and the definition of what the SIMD code computes. Not fast-math: no reassociation
 * beyond the fixed accumulator split written out here. */
#include "kernels.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#if __has_include(<cblas.h>)
#include <cblas.h>
#define KERN_HAVE_BLAS 1
#else
#define KERN_HAVE_BLAS 0
#endif

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

void kern_set_threads(int n) {
    if (n < 1) n = 1;
    omp_set_num_threads(n);
#if KERN_HAVE_BLAS
    openblas_set_num_threads(n);
#endif
}

int kern_get_threads(void) { return omp_get_max_threads(); }

/* ---- dot / axpy ------------------------------------------------------------------ */

float kern_dot(const float *a, const float *b, size_t n) {
    size_t i = 0;
#if defined(__AVX512F__)
    /* four independent accumulators hide the FMA latency (4 cycles) */
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
    for (; i + 64 <= n; i += 64) {
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
        s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
        s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
    }
    for (; i + 16 <= n; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
#elif defined(__AVX2__) && defined(__FMA__)
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    __m256 t = _mm256_add_ps(s0, s1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    float s = _mm_cvtss_f32(h);
#else
    float p[8] = {0};
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) p[k] += a[i + k] * b[i + k];
    float s = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
#endif
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

void kern_axpy(float *y, float alpha, const float *x, size_t n) {
    size_t i = 0;
#if defined(__AVX512F__)
    __m512 va = _mm512_set1_ps(alpha);
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_fmadd_ps(va, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
#endif
    for (; i < n; i++) y[i] += alpha * x[i];
}

/* ---- matvec, Conv1D layout ------------------------------------------------------------
 * y[j] = b[j] + sum_i x[i] W[i][j] for j in [j0, j1). W is (in, out) row-major, so a
 * column is strided; instead of dot products we stream rows: y[j0..j1) += x[i] * W[i][j0..j1)
 * for each i. Each thread owns a column range, reads each row's slice contiguously
 * (hardware prefetch friendly) and keeps its slice of y in L1. Four rows per pass cut
 * the y load/store traffic by four. */
static void matvec_cols(float *y, const float *x, const float *w, const float *b,
                        size_t in, size_t out, size_t j0, size_t j1) {
    if (b) memcpy(y + j0, b + j0, (j1 - j0) * sizeof *y);
    else memset(y + j0, 0, (j1 - j0) * sizeof *y);
    size_t i = 0;
#if defined(__AVX512F__)
    for (; i + 4 <= in; i += 4) {
        const float *w0 = w + i * out, *w1 = w0 + out, *w2 = w1 + out, *w3 = w2 + out;
        __m512 x0 = _mm512_set1_ps(x[i]), x1 = _mm512_set1_ps(x[i + 1]);
        __m512 x2 = _mm512_set1_ps(x[i + 2]), x3 = _mm512_set1_ps(x[i + 3]);
        size_t j = j0;
        for (; j + 16 <= j1; j += 16) {
            __m512 acc = _mm512_loadu_ps(y + j);
            acc = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w0 + j), acc);
            acc = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w1 + j), acc);
            acc = _mm512_fmadd_ps(x2, _mm512_loadu_ps(w2 + j), acc);
            acc = _mm512_fmadd_ps(x3, _mm512_loadu_ps(w3 + j), acc);
            _mm512_storeu_ps(y + j, acc);
        }
        for (; j < j1; j++)
            y[j] += x[i] * w0[j] + x[i + 1] * w1[j] + x[i + 2] * w2[j] + x[i + 3] * w3[j];
    }
#endif
    for (; i < in; i++) {
        const float *wr = w + i * out;
        float xi = x[i];
        for (size_t j = j0; j < j1; j++) y[j] += xi * wr[j];
    }
}

/* Below this many multiply-adds a parallel region costs more than it saves. */
#define KERN_PAR_MIN ((size_t)1 << 15)

static void matvec(float *y, const float *x, const float *w, const float *b, size_t in, size_t out) {
    /* split the columns into 16-float blocks (one cache line each) so no two threads
     * write the same line of y */
    size_t blocks = (out + 15) / 16;
#pragma omp parallel if (in * out >= KERN_PAR_MIN)
    {
        size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        size_t j0 = blocks * id / nt * 16, j1 = blocks * (id + 1) / nt * 16;
        if (j1 > out) j1 = out;
        if (j0 < j1) matvec_cols(y, x, w, b, in, out, j0, j1);
    }
}

void kern_matmul(float *y, const float *x, const float *w, const float *b,
                 size_t T, size_t in, size_t out) {
    if (T == 1) {
        matvec(y, x, w, b, in, out);
        return;
    }
#if KERN_HAVE_BLAS
    /* y = b (broadcast over rows), then y = 1 * x @ w + 1 * y */
    for (size_t t = 0; t < T; t++) {
        if (b) memcpy(y + t * out, b, out * sizeof *y);
        else memset(y + t * out, 0, out * sizeof *y);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)out, (int)in, 1.0f, x,
                (int)in, w, (int)out, 1.0f, y, (int)out);
#else
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < T; t++) matvec_cols(y + t * out, x + t * in, w, b, in, out, 0, out);
#endif
}

void kern_matmul_wt(float *y, const float *x, const float *wt, size_t T, size_t in, size_t out) {
    if (T == 1) {
        /* one dot product per output row of wt: wt is read once, front to back */
        long n = (long)out;
#pragma omp parallel for schedule(static) if (in * out >= KERN_PAR_MIN)
        for (long v = 0; v < n; v++) y[v] = kern_dot(x, wt + (size_t)v * in, in);
        return;
    }
#if KERN_HAVE_BLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)T, (int)out, (int)in, 1.0f, x,
                (int)in, wt, (int)in, 0.0f, y, (int)out);
#else
    long n = (long)out;
#pragma omp parallel for schedule(static)
    for (long v = 0; v < n; v++)
        for (size_t t = 0; t < T; t++) y[t * out + (size_t)v] = kern_dot(x + t * in, wt + (size_t)v * in, in);
#endif
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
