/* test_kernels_isa.c — every kernel table this CPU can run (AVX-512, AVX2, NEON, plain
 * C; kern_isa.h) against a float64 reference written here from the definitions, against
 * each other, and through the whole forward pass against the reference vectors of
 * ../shared/reference (nanoGPT logits). Sizes are odd on purpose so every tail runs:
 * columns past a vector, rows past blocks of 4, k past blocks of 128, thread splits. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "half.h"
#include "kernels.h"
#include "ref_attn_f64.h"
#include "safetensors.h"

enum { IN = 301, OUT = 83, ROWS = 11, NK = 37 };

static uint64_t g_rng = 12345;
static float frand(void) { /* uniform in [-1, 1), deterministic */
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(g_rng >> 40) / (double)(1u << 24) * 2.0 - 1.0);
}

/* Weights of each dtype holding the same values: w32 is the exact image of the halves. */
typedef struct Weights {
    float w32[IN * OUT], w16img[IN * OUT], wbfimg[IN * OUT];
    uint16_t w16[IN * OUT], wbf[IN * OUT];
} Weights;

static void make_weights(Weights *w) {
    for (int i = 0; i < IN * OUT; i++) {
        w->w32[i] = frand() * 0.5f;
        w->w16[i] = half_f32_to_f16(w->w32[i]);
        w->wbf[i] = half_f32_to_bf16(w->w32[i]);
        w->w16img[i] = half_f16_to_f32(w->w16[i]);
        w->wbfimg[i] = half_bf16_to_f32(w->wbf[i]);
    }
}

static const void *w_of(const Weights *w, KernDtype dt) {
    return dt == KERN_F32 ? (const void *)w->w32 : dt == KERN_F16 ? (const void *)w->w16 : (const void *)w->wbf;
}
static const float *img_of(const Weights *w, KernDtype dt) {
    return dt == KERN_F32 ? w->w32 : dt == KERN_F16 ? w->w16img : w->wbfimg;
}

/* Float32 rounding of a k-term sum: |error| <~ sqrt(k) * 2^-24 * sum|terms| (random-walk
 * bound, x8 for safety). A dropped or doubled term costs ~|term| ~ 0.1, far above it.
 * Returns the worst ratio error / bound over n values (<= 1 passes). */
static double worst(const float *got, const double *want, const double *abs_sum, size_t n, size_t k) {
    double m = 0.0, unit = 8.0 * sqrt((double)k) * ldexp(1.0, -24);
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]) / (unit * abs_sum[i] + 1e-30);
        if (d > m || d != d) m = d;
    }
    return m;
}

/* matmul (Conv1D and transposed) of every dtype, T = 1 (matvec/dot) and T > 1 (gemm or
 * OpenBLAS), against float64 sums over the exact float image of the weights. */
static void test_matmuls(const char *isa, const Weights *w) {
    static float X[ROWS * IN], B[OUT], Y[ROWS * OUT];
    static double R[ROWS * OUT], A[ROWS * OUT];
    for (int i = 0; i < ROWS * IN; i++) X[i] = frand();
    for (int j = 0; j < OUT; j++) B[j] = frand();
    const int row_counts[3] = {1, 3, ROWS};
    for (int dt = 0; dt < KERN_DTYPE_COUNT; dt++) {
        const float *W = img_of(w, (KernDtype)dt);
        for (int rc = 0; rc < 3; rc++) {
            int rows = row_counts[rc];
            kern_matmul_dt(Y, X, w_of(w, (KernDtype)dt), (KernDtype)dt, B, (size_t)rows, IN, OUT);
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < OUT; j++) {
                    double acc = B[j], abs = fabs(B[j]);
                    for (int i = 0; i < IN; i++) {
                        acc += (double)X[r * IN + i] * W[i * OUT + j];
                        abs += fabs((double)X[r * IN + i] * W[i * OUT + j]);
                    }
                    R[r * OUT + j] = acc;
                    A[r * OUT + j] = abs;
                }
            double e = worst(Y, R, A, (size_t)(rows * OUT), IN + 1);
            CHECK(e <= 1.0, "%s %s matmul T=%d: error %.3g of the rounding bound", isa, kern_dtype_name((KernDtype)dt), rows, e);
            /* the same numbers read as an (OUT, IN) matrix: the unembedding layout */
            kern_matmul_wt_dt(Y, X, w_of(w, (KernDtype)dt), (KernDtype)dt, (size_t)rows, IN, OUT);
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < OUT; j++) {
                    double acc = 0, abs = 0;
                    for (int i = 0; i < IN; i++) {
                        acc += (double)X[r * IN + i] * W[j * IN + i];
                        abs += fabs((double)X[r * IN + i] * W[j * IN + i]);
                    }
                    R[r * OUT + j] = acc;
                    A[r * OUT + j] = abs;
                }
            e = worst(Y, R, A, (size_t)(rows * OUT), IN);
            CHECK(e <= 1.0, "%s %s matmul_wt T=%d: error %.3g of the rounding bound", isa, kern_dtype_name((KernDtype)dt), rows, e);
            if (dt != KERN_F32 && rows == 1) { /* the decode's dots: the bits of the F32 image */
                static float Yimg[OUT];
                kern_matmul_wt_dt(Yimg, X, W, KERN_F32, 1, IN, OUT);
                CHECK(memcmp(Y, Yimg, sizeof Yimg) == 0, "%s %s matmul_wt T=1: the bits of its F32 image", isa,
                      kern_dtype_name((KernDtype)dt));
            }
        }
        /* widening is exact */
        static float wide[IN * OUT];
        kern_widen(wide, w_of(w, (KernDtype)dt), (KernDtype)dt, IN * OUT - 3);
        CHECK(memcmp(wide, W, (IN * OUT - 3) * sizeof(float)) == 0, "%s widen %s is not exact", isa,
              kern_dtype_name((KernDtype)dt));
    }
}

/* The decode matvec with 1, 2 and 3 threads: the rows are cut in two fixed halves and the
 * halves added, so every thread count must give the same bits, and those bits must be a
 * correct product (float64 reference). Large enough to run in parallel; IN odd (the halves
 * and the rows past blocks of 4), OUT past the one-thread path's widest whole row (8,192
 * columns: 8200 crosses it) and not a multiple of 16; 1045 = 130 x 8 + 4 + 1 columns.
 * out = 8200 is past the widest split output: the one-thread path, still correct. */
static void test_matvec_threads(const char *isa) {
    const size_t shapes[3][2] = {{1203, 1041}, {7, 8200}, {37, 1045}};
    for (int s = 0; s < 3; s++) {
        const size_t in = shapes[s][0], out = shapes[s][1], n = in * out;
        float *w32 = malloc(n * sizeof *w32), *x = malloc(in * sizeof *x), *b = malloc(out * sizeof *b);
        float *img = malloc(n * sizeof *img), *y[3] = {0};
        uint16_t *w16 = malloc(n * sizeof *w16);
        double *ref = malloc(out * sizeof *ref), *abs_sum = malloc(out * sizeof *abs_sum);
        for (int t = 0; t < 3; t++) y[t] = malloc(out * sizeof *y[t]);
        CHECK(w32 && x && b && img && w16 && ref && abs_sum && y[0] && y[1] && y[2], "matvec test: out of memory");
        if (!w32 || !x || !b || !img || !w16 || !ref || !abs_sum || !y[0] || !y[1] || !y[2]) goto done;
        for (size_t i = 0; i < n; i++) w32[i] = frand() * 0.5f;
        for (size_t i = 0; i < in; i++) x[i] = frand();
        for (size_t j = 0; j < out; j++) b[j] = frand();
        for (int dt = 0; dt < KERN_DTYPE_COUNT; dt++) {
            const void *w = w32;
            if (dt != KERN_F32) {
                for (size_t i = 0; i < n; i++) {
                    w16[i] = dt == KERN_F16 ? half_f32_to_f16(w32[i]) : half_f32_to_bf16(w32[i]);
                    img[i] = dt == KERN_F16 ? half_f16_to_f32(w16[i]) : half_bf16_to_f32(w16[i]);
                }
                w = w16;
            }
            const float *W = dt == KERN_F32 ? w32 : img;
            for (size_t j = 0; j < out; j++) {
                ref[j] = b[j];
                abs_sum[j] = fabs(b[j]);
            }
            for (size_t i = 0; i < in; i++)
                for (size_t j = 0; j < out; j++) {
                    ref[j] += (double)x[i] * W[i * out + j];
                    abs_sum[j] += fabs((double)x[i] * W[i * out + j]);
                }
            for (int t = 0; t < 3; t++) {
                kern_set_threads(t + 1);
                kern_matmul_dt(y[t], x, w, (KernDtype)dt, b, 1, in, out);
            }
            kern_set_threads(2);
            const char *dn = kern_dtype_name((KernDtype)dt);
            double e = worst(y[0], ref, abs_sum, out, in + 1);
            CHECK(e <= 1.0, "%s %s matvec %zux%zu: error %.3g of the rounding bound", isa, dn, in, out, e);
            CHECK(memcmp(y[0], y[1], out * sizeof(float)) == 0 && memcmp(y[0], y[2], out * sizeof(float)) == 0,
                  "%s %s matvec %zux%zu: 1, 2 and 3 threads give different bits", isa, dn, in, out);
            if (dt != KERN_F32) { /* kern_body_w.h: a half model gives the numbers of its F32 image, bit for bit */
                kern_matmul_dt(y[1], x, img, KERN_F32, b, 1, in, out);
                CHECK(memcmp(y[0], y[1], out * sizeof(float)) == 0, "%s %s matvec %zux%zu: the bits of its F32 image", isa,
                      dn, in, out);
            }
        }
    done:
        free(w32), free(x), free(b), free(img), free(w16), free(ref), free(abs_sum);
        for (int t = 0; t < 3; t++) free(y[t]);
    }
}

/* attention rows (hs 64: the register path; 16: the generic one), dot, axpy, stream sum */
static void test_vector_kernels(const char *isa) {
    static float q[64], Kc[NK * 64], P[NK], sc[NK], zz[64], buf[1000];
    for (int hs = 16; hs <= 64; hs += 48) {
        for (int i = 0; i < hs; i++) q[i] = frand();
        for (int i = 0; i < NK * hs; i++) Kc[i] = frand();
        for (int j = 0; j < NK; j++) P[j] = (frand() + 1.0f) / (float)NK;
        kern_attn_scores(sc, q, Kc, NK, (size_t)hs, 0.125f);
        kern_attn_mix(zz, P, Kc, NK, (size_t)hs);
        double ms, mz;
        ref_attn_row_diffs(q, Kc, P, NK, hs, 0.125, sc, zz, &ms, &mz);
        CHECK(ms < 1e-6 && mz < 1e-6, "%s attention hs=%d: scores %.3g, mix %.3g", isa, hs, ms, mz);
    }
    double ref = 0, sum = 0;
    for (int i = 0; i < 1000; i++) buf[i] = frand(), ref += (double)buf[i] * Kc[i], sum += buf[i];
    CHECK_CLOSE(kern_dot(buf, Kc, 999) + (double)buf[999] * Kc[999], ref, 1e-4, 0.0, "dot");
    CHECK_CLOSE(kern_stream_sum(buf, 1000), sum, 1e-3, 0.0, "stream sum");
    float y[19];
    for (int i = 0; i < 19; i++) y[i] = (float)i;
    kern_axpy(y, 0.5f, buf, 19);
    double e = 0;
    for (int i = 0; i < 19; i++) e = fmax(e, fabs(y[i] - (i + 0.5 * buf[i])));
    CHECK(e < 1e-6, "%s axpy: %.3g", isa, e);
}

/* every one of the 65,536 halves through the table's F16 widening (the loads the matvec
 * and dot use): bit for bit the scalar half_f16_to_f32 for every half but NaN (zeros of
 * both signs, subnormals, the largest finite, the infinities); a NaN may come out as NaN
 * or as an infinity (kern_simd128.c says why), never as a finite number */
static void test_widen_every_half(const char *isa) {
    static uint16_t h[65536];
    static float got[65536];
    for (uint32_t i = 0; i < 65536; i++) h[i] = (uint16_t)i;
    kern_widen(got, h, KERN_F16, 65536);
    size_t bad = 0, nan_finite = 0, first_bad = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        const float want = half_f16_to_f32(h[i]);
        if (isnan(want)) {
            nan_finite += isfinite(got[i]) != 0;
        } else if (memcmp(&want, &got[i], sizeof want) != 0 && bad++ == 0) {
            first_bad = i;
        }
    }
    CHECK(bad == 0, "%s: F16 widening of every non-NaN half is exact (%zu differ, first 0x%04zx)", isa, bad, first_bad);
    CHECK(nan_finite == 0, "%s: no NaN half widens to a finite number (%zu did)", isa, nan_finite);
    /* an F16 matvec (decode), the unembedding's dots and a prefill over weights of 1.0 with
     * one +Inf and one NaN: those columns come out +Inf and NaN, the others exactly 16 (a
     * guarded table, kern_body.h, redoes such a call with its exact load) */
    enum { WI = 16, WO = 24 };
    static uint16_t wh[WI * WO], wt[WO * WI];
    static float xs[3 * WI], ys[3 * WO];
    for (size_t i = 0; i < WI * WO; i++) wh[i] = wt[i] = 0x3c00; /* 1.0 */
    wh[5 * WO + 7] = wt[7 * WI + 5] = 0x7c00;                       /* +Inf */
    wh[9 * WO + 13] = wt[13 * WI + 9] = 0x7e01;                     /* NaN */
    for (size_t i = 0; i < 3 * WI; i++) xs[i] = 1.0f;
    for (int pass = 0; pass < 3; pass++) {
        const size_t T = pass == 2 ? 3 : 1;
        if (pass == 1) kern_matmul_wt_dt(ys, xs, wt, KERN_F16, T, WI, WO);
        else kern_matmul_dt(ys, xs, wh, KERN_F16, NULL, T, WI, WO);
        size_t wrong = 0;
        for (size_t t = 0; t < T; t++)
            for (size_t j = 0; j < WO; j++) {
                const float v = ys[t * WO + j];
                wrong += j == 7 ? !(isinf(v) && v > 0) : j == 13 ? !isnan(v) : v != 16.0f;
            }
        CHECK(wrong == 0, "%s: F16 %s over an Inf and a NaN weight: Inf, NaN, and 16 elsewhere (%zu wrong)", isa,
              pass == 0 ? "matvec" : pass == 1 ? "unembedding" : "prefill", wrong);
    }
}

static float *ref_tensor(const SafeFile *f, const char *name, size_t n) {
    const SafeTensor *t = safe_find(f, name);
    if (!t || t->dtype != SAFE_F32 || safe_numel(t) != n) return NULL;
    float *p = malloc(n * sizeof *p);
    if (p) memcpy(p, t->data, n * sizeof *p);
    return p;
}

/* The tiny reference model through this ISA: prefill and step-by-step decode logits of
 * tiny_s30 against nanoGPT's (the suite's tolerance, 1e-4 + 1e-4 |x|). Returns the
 * decode logits of the last position (malloc'd) for the cross-ISA comparison. */
static float *test_forward_vectors(const char *isa, const Gpt2Model *m) {
    char path[1200];
    snprintf(path, sizeof path, "%s/vectors/tiny_s30.safetensors", check_ref_dir());
    SafeFile f;
    ErrorMsg err = {{0}};
    if (safe_open(&f, path, &err)) {
        CHECK(0, "%s", err.text);
        return NULL;
    }
    const SafeTensor *tid = safe_find(&f, "input_ids");
    size_t T = tid ? safe_numel(tid) : 0, V = (size_t)m->config.vocab_size;
    int ids[128];
    for (size_t i = 0; i < T && i < 128; i++) ids[i] = ((const int32_t *)(const void *)tid->data)[i];
    float *want = ref_tensor(&f, "logits", T * V), *last = NULL;
    Gpt2Trace a = {0}, b = {0};
    int rc = want && T > 1 && T <= 128 ? 0 : -1;
    if (rc == 0) rc = gpt2_trace_init(&a, &m->config, (int)T, GPT2_CAP_LOGITS, &err);
    if (rc == 0) rc = gpt2_trace_init(&b, &m->config, (int)T, GPT2_CAP_LOGITS, &err);
    if (rc == 0) rc = gpt2_prefill(m, &a, ids, T, &err);
    for (size_t t = 0; rc == 0 && t < T; t++) rc = gpt2_step(m, &b, ids[t], &err);
    CHECK(rc == 0, "%s forward: %s", isa, err.text);
    if (rc == 0) {
        size_t bad_p = 0, bad_d = 0;
        for (size_t i = 0; i < T * V; i++) {
            double tol = 1e-4 + 1e-4 * fabs(want[i]);
            bad_p += !(fabs((double)a.logits[i] - want[i]) <= tol);
            bad_d += !(fabs((double)b.logits[i] - want[i]) <= tol);
        }
        CHECK(bad_p == 0 && bad_d == 0, "%s: %zu prefill and %zu decode logits outside the reference tolerance", isa,
              bad_p, bad_d);
        last = malloc(V * sizeof *last);
        if (last) memcpy(last, b.logits + (T - 1) * V, V * sizeof *last);
    }
    gpt2_trace_free(&a);
    gpt2_trace_free(&b);
    free(want);
    safe_close(&f);
    return last;
}

/* kern_exp_sums against exp in double: every length's vector tail, values from the max
 * down past the -87 clamp, -inf; S within 1e-6 relative, S_d within 1e-6 of |S_d| + S
 * (what the entropy, S_d / S, can see: the clamp's ~1e-36 terms are below it). */
static void test_exp_sums(const char *isa) {
    enum { N = 5000 };
    static float x[N];
    for (int i = 0; i < N; i++) x[i] = (float)(-(double)((i * 7919) % 1000) / 9.0);
    x[3] = 0.0f;            /* the max: e = 1 */
    x[17] = -INFINITY;      /* a masked logit: contributes nothing */
    x[40] = -200.0f;        /* under the clamp */
    x[41] = -86.9f;
    int bad = 0, cases = 0;
    for (size_t n = 1; n <= N; n = n < 40 ? n + 1 : n * 3) {
        double s, sd, ws = 0, wsd = 0;
        for (size_t i = 0; i < n; i++) {
            if (x[i] == -INFINITY) continue;
            double d = (double)x[i], e = exp(d);
            ws += e;
            wsd += e * d;
        }
        kern_exp_sums(x, n, 0.0f, &s, &sd);
        cases++;
        if (fabs(s - ws) > 1e-6 * ws || fabs(sd - wsd) > 1e-6 * (fabs(wsd) + ws)) {
            if (!bad) fprintf(stderr, "%s n=%zu: S %.9g vs %.9g, S_d %.9g vs %.9g\n", isa, n, s, ws, sd, wsd);
            bad++;
        }
    }
    /* single terms across the range: e within 2e-7 relative of exp */
    double worst = 0;
    for (int k = 0; k <= 8700; k++) {
        float v = (float)(-k / 100.0), one[1] = {v};
        double s, sd;
        kern_exp_sums(one, 1, 0.0f, &s, &sd);
        worst = fmax(worst, fabs(s - exp((double)v)) / exp((double)v));
    }
    CHECK(bad == 0, "%s exp_sums: %d of %d lengths off", isa, bad, cases);
    CHECK(worst < 3e-7, "%s exp: worst relative error %.3g on [-87, 0]", isa, worst);
}

int main(void) {
    static Weights w;
    make_weights(&w);
    ErrorMsg err = {{0}};
    const char *names[8];
    size_t n = kern_isa_available(names, 8);
    CHECK(n >= 2 && strcmp(names[n - 1], "scalar") == 0, "the plain-C table is always offered (%zu tables)", n);
#if defined(__x86_64__)
    /* this project's machines all have AVX2; a CPU without it would skip that path silently */
    int has_avx2 = 0;
    for (size_t i = 0; i < n; i++) has_avx2 |= strcmp(names[i], "avx2") == 0;
    CHECK(has_avx2 == (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")), "avx2 offered iff the CPU has it");
#endif
    CHECK(kern_select_isa("sse9", &err) == -1 && strstr(err.text, "unknown") && strstr(err.text, "scalar"),
          "an unknown table is refused, naming what the CPU offers: %s", err.text);
    Gpt2Model m = {0};
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/models/tiny", check_ref_dir());
    int have_model = gpt2_model_load(&m, dir, &err) == 0;
    CHECK(have_model, "load tiny: %s", err.text);
    float *first = NULL;
    const size_t V = have_model ? (size_t)m.config.vocab_size : 0;
    for (size_t k = 0; k < n; k++) {
        CHECK(kern_select_isa(names[k], &err) == 0 && strcmp(kern_isa_name(), names[k]) == 0, "select %s: %s",
              names[k], err.text);
        for (int threads = 1; threads <= 2; threads++) {
            kern_set_threads(threads);
            test_matmuls(names[k], &w);
        }
        test_matvec_threads(names[k]);
        test_vector_kernels(names[k]);
        test_widen_every_half(names[k]);
        test_exp_sums(names[k]);
        float *last = have_model ? test_forward_vectors(names[k], &m) : NULL;
        if (!first) {
            first = last;
            continue;
        }
        /* every table against the first (the best): only summation order differs */
        double md = 0;
        for (size_t i = 0; last && i < V; i++) md = fmax(md, fabs((double)last[i] - first[i]));
        CHECK(last && md < 2e-5, "%s vs %s: last-position logits differ by %.3g", names[k], names[0], md);
        free(last);
    }
    free(first);
    CHECK(kern_select_isa("auto", &err) == 0 && strcmp(kern_isa_name(), names[0]) == 0, "auto picks the best (%s)",
          names[0]);
    gpt2_model_free(&m);
    return check_summary("test_kernels_isa");
}
