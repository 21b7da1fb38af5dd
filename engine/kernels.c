/* kernels.c — float32 kernels of the forward pass (see kernels.h for the contracts).
 * Decode is memory-bound (every weight is read once per token), so the matvec is a
 * streaming loop that reads each weight row front to back; prefill is compute-bound,
 * so it goes to a packed register-blocked gemm (AVX-512) or OpenBLAS sgemm. AVX-512 / AVX2 paths are chosen at compile time
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

/* ---- attention rows ---------------------------------------------------------------- */

void kern_attn_scores(float *s, const float *q, const float *K, size_t n, size_t hs, float scale) {
#if defined(__AVX512F__)
    if (hs == 64) {
        /* q in four registers; each key is one cache-line-sized run of 64 floats */
        __m512 q0 = _mm512_loadu_ps(q), q1 = _mm512_loadu_ps(q + 16);
        __m512 q2 = _mm512_loadu_ps(q + 32), q3 = _mm512_loadu_ps(q + 48);
        for (size_t j = 0; j < n; j++) {
            const float *k = K + j * 64;
            __m512 a = _mm512_mul_ps(q0, _mm512_loadu_ps(k));
            __m512 b = _mm512_mul_ps(q1, _mm512_loadu_ps(k + 16));
            a = _mm512_fmadd_ps(q2, _mm512_loadu_ps(k + 32), a);
            b = _mm512_fmadd_ps(q3, _mm512_loadu_ps(k + 48), b);
            s[j] = _mm512_reduce_add_ps(_mm512_add_ps(a, b)) * scale;
        }
        return;
    }
#endif
    for (size_t j = 0; j < n; j++) s[j] = kern_dot(q, K + j * hs, hs) * scale;
}

void kern_attn_mix(float *z, const float *p, const float *V, size_t n, size_t hs) {
#if defined(__AVX512F__)
    if (hs == 64) {
        __m512 z0 = _mm512_setzero_ps(), z1 = _mm512_setzero_ps();
        __m512 z2 = _mm512_setzero_ps(), z3 = _mm512_setzero_ps();
        for (size_t j = 0; j < n; j++) {
            const float *v = V + j * 64;
            __m512 pj = _mm512_set1_ps(p[j]);
            z0 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v), z0);
            z1 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 16), z1);
            z2 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 32), z2);
            z3 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 48), z3);
        }
        _mm512_storeu_ps(z, z0);
        _mm512_storeu_ps(z + 16, z1);
        _mm512_storeu_ps(z + 32, z2);
        _mm512_storeu_ps(z + 48, z3);
        return;
    }
#endif
    memset(z, 0, hs * sizeof *z);
    for (size_t j = 0; j < n; j++) kern_axpy(z, p[j], V + j * hs, hs);
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

#if defined(__AVX512F__)
/* ---- multi-row products (prefill) with AVX-512 ------------------------------------------
 * Own kernels because Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) does not recognise recent
 * Xeons and falls back to its SSE3 "Prescott" kernels (~25 GFLOP/s here against ~130 for
 * its SkylakeX ones, which cannot be selected from inside the program). */

/* Column panels are 32 floats wide (two zmm) and the k dimension is cut into blocks of
 * KC rows, so a packed block of weights (KC x 32 floats = 16 KB) sits in L1 on the
 * thread's stack while every row block of the input streams past it. Packing turns the
 * weight reads into one contiguous stream (the unpacked panel has a 4-12 KB stride per
 * k, which defeats the prefetchers and costs a TLB miss per row). */
#define KC 128

/* y[r, 0..32) += sum_k x[r, k] pk[k, 0..32) for 8 rows r: 16 accumulators in registers;
 * each k loads two packed vectors and broadcasts one input per row. */
static void gemm_nn_8x32(float *y, size_t ldy, const float *x, size_t ldx, const float *pk, size_t kc,
                         __mmask16 m0, __mmask16 m1) {
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define DECL(r) __m512 c##r##0 = _mm512_maskz_loadu_ps(m0, y + r * ldy), \
                       c##r##1 = _mm512_maskz_loadu_ps(m1, y + r * ldy + 16);
    ROWS(DECL)
    for (size_t k = 0; k < kc; k++) {
        __m512 b0 = _mm512_load_ps(pk + k * 32), b1 = _mm512_load_ps(pk + k * 32 + 16);
#define STEP(r) { __m512 a = _mm512_set1_ps(x[r * ldx + k]); \
                  c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0); c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1); }
        ROWS(STEP)
    }
#define STORE(r) _mm512_mask_storeu_ps(y + r * ldy, m0, c##r##0); \
                 _mm512_mask_storeu_ps(y + r * ldy + 16, m1, c##r##1);
    ROWS(STORE)
#undef ROWS
#undef DECL
#undef STEP
#undef STORE
}

/* the same for one row (the rows left over after blocks of 8) */
static void gemm_nn_1x32(float *y, const float *x, const float *pk, size_t kc, __mmask16 m0, __mmask16 m1) {
    __m512 c0 = _mm512_maskz_loadu_ps(m0, y), c1 = _mm512_maskz_loadu_ps(m1, y + 16);
    for (size_t k = 0; k < kc; k++) {
        __m512 a = _mm512_set1_ps(x[k]);
        c0 = _mm512_fmadd_ps(a, _mm512_load_ps(pk + k * 32), c0);
        c1 = _mm512_fmadd_ps(a, _mm512_load_ps(pk + k * 32 + 16), c1);
    }
    _mm512_mask_storeu_ps(y, m0, c0);
    _mm512_mask_storeu_ps(y + 16, m1, c1);
}

static __mmask16 tail_mask(size_t n) { return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u); }

/* y (M, N) += x (M, K) @ B where B (K, N) is w itself (trans = 0: w is (K, N), the Conv1D
 * layout) or the transpose of w (trans = 1: w is (N, K), e.g. the unembedding wte).
 * Threads split the 32-column panels; each packs KC x 32 blocks of B and runs all row
 * blocks of x past it. */
static void gemm(float *y, const float *x, const float *w, size_t M, size_t K, size_t N, int trans) {
    const long panels = (long)((N + 31) / 32);
#pragma omp parallel
    {
        _Alignas(64) float pk[KC * 32]; /* this thread's packed block of B */
#pragma omp for schedule(static)
        for (long p = 0; p < panels; p++) {
            size_t j = (size_t)p * 32, nc = N - j < 32 ? N - j : 32;
            __mmask16 m0 = tail_mask(nc), m1 = nc > 16 ? tail_mask(nc - 16) : 0;
            for (size_t k0 = 0; k0 < K; k0 += KC) {
                size_t kc = K - k0 < KC ? K - k0 : KC;
                if (!trans) {
                    for (size_t k = 0; k < kc; k++) { /* rows of w[k0.., j..j+nc), zero-padded */
                        const float *src = w + (k0 + k) * N + j;
                        _mm512_store_ps(pk + k * 32, _mm512_maskz_loadu_ps(m0, src));
                        _mm512_store_ps(pk + k * 32 + 16, _mm512_maskz_loadu_ps(m1, src + 16));
                    }
                } else {
                    /* B[k][c] = w[j+c][k0+k]: read each of the nc rows of w contiguously,
                     * write it as a column of the packed block */
                    if (nc < 32) memset(pk, 0, sizeof pk);
                    for (size_t c = 0; c < nc; c++) {
                        const float *src = w + (j + c) * K + k0;
                        for (size_t k = 0; k < kc; k++) pk[k * 32 + c] = src[k];
                    }
                }
                size_t i = 0;
                for (; i + 8 <= M; i += 8) gemm_nn_8x32(y + i * N + j, N, x + i * K + k0, K, pk, kc, m0, m1);
                for (; i < M; i++) gemm_nn_1x32(y + i * N + j, x + i * K + k0, pk, kc, m0, m1);
            }
        }
    }
}
#define KERN_OWN_GEMM 1
#else
#define KERN_OWN_GEMM 0
#endif

void kern_matmul(float *y, const float *x, const float *w, const float *b,
                 size_t T, size_t in, size_t out) {
    if (T == 1) {
        matvec(y, x, w, b, in, out);
        return;
    }
    /* y = b (broadcast over rows), then y += x @ w */
    for (size_t t = 0; t < T; t++) {
        if (b) memcpy(y + t * out, b, out * sizeof *y);
        else memset(y + t * out, 0, out * sizeof *y);
    }
#if KERN_OWN_GEMM
    gemm(y, x, w, T, in, out, 0);
#elif KERN_HAVE_BLAS
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
#if KERN_OWN_GEMM
    memset(y, 0, T * out * sizeof *y);
    gemm(y, x, wt, T, in, out, 1);
#elif KERN_HAVE_BLAS
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
