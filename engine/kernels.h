/* kernels.h — the numeric building blocks of the GPT-2 forward pass: matrix products
 * in HuggingFace Conv1D layout (weights in F32, F16 or BF16, always float32 math),
 * LayerNorm, tanh-GELU, softmax, dot/axpy, top-k. Outputs first, inputs, sizes last
 * (llm.c). Not the model: these know nothing of layers, heads or the trace.
 * SIMD: the decode kernels are chosen at RUN time from the CPU's features (AVX-512,
 * AVX2+FMA+F16C, ARM NEON, plain C; see kern_isa.h), so a binary built for the baseline
 * ISA runs at full speed on any machine of its architecture. INFERSCOPE_ISA=avx2 (or
 * kern_select_isa) forces a table, for tests and benchmarks.
 * Threads: every matmul is at most one OpenMP parallel region; kern_set_threads() sets
 * the OpenMP and OpenBLAS pools. The decode matvec gives the same bits with any thread
 * count (it sums two fixed halves of the rows, kernels.c). On a shared machine use no
 * more threads than idle cores: OpenMP's spinning barriers make an oversubscribed
 * 2-thread decode ~10x slower.
 * No allocation, except a prompt-pass product from F16/BF16 weights where no own gemm
 * exists for the ISA (the weights are widened block by block for OpenBLAS). */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

#include "error.h"

/* How a weight matrix is stored. Vectors (biases, LayerNorm gains) are always float. */
typedef enum KernDtype { KERN_F32, KERN_F16, KERN_BF16, KERN_DTYPE_COUNT } KernDtype;

/* "F32", "F16", "BF16" (as safetensors spells them); bytes per element (4 or 2). */
const char *kern_dtype_name(KernDtype dt);
size_t kern_dtype_size(KernDtype dt);

/* Chooses the kernel table: "auto" (or NULL/"": the best this CPU has), "avx512", "avx2",
 * "neon", "simd128" (WebAssembly), "scalar". -1 with err naming what the CPU offers when it cannot run it.
 * Without a call, the first kernel use reads INFERSCOPE_ISA (auto when unset). */
int kern_select_isa(const char *name, ErrorMsg *err);
/* The table in use: its name ("avx2") and a one-line description for reports. */
const char *kern_isa_name(void);
const char *kern_isa_what(void);
/* Names of the tables this CPU can run, best first; returns how many (<= cap). */
size_t kern_isa_available(const char **names, size_t cap);

/* Sets the number of worker threads for OpenMP regions and OpenBLAS (n >= 1). */
void kern_set_threads(int n);
/* The current OpenMP thread budget (what kern_set_threads set, or the default). */
int kern_get_threads(void);
/* Threads of the CALLING thread's next parallel regions only (OpenMP keeps this setting
 * per thread); OpenBLAS's pool is left as it is. For a decode step whose thread count a
 * ThreadGovernor picks (thread_governor.h). */
void kern_set_region_threads(int n);

/* y (T, out) = x (T, in) @ w (in, out) + b (out)   — Conv1D layout, as stored in HF files.
 * b may be NULL. T == 1 is the decode case (a memory-bound matvec, own SIMD kernel);
 * T > 1 is prefill, compute-bound: own packed gemm on AVX-512 (Debian's OpenBLAS 0.3.21
 * picks its SSE3 kernels on recent Xeons: 5x slower), else OpenBLAS sgemm.
 * y must not alias x. kern_matmul is kern_matmul_dt with F32 weights. */
void kern_matmul(float *y, const float *x, const float *w, const float *b,
                 size_t T, size_t in, size_t out);
void kern_matmul_dt(float *y, const float *x, const void *w, KernDtype dt, const float *b,
                    size_t T, size_t in, size_t out);

/* y (T, out) = x (T, in) @ wt^T where wt is (out, in) row-major — the unembedding
 * (logits = ln_final @ wte^T): each output is a dot product with one row of wt. */
void kern_matmul_wt(float *y, const float *x, const float *wt, size_t T, size_t in, size_t out);
void kern_matmul_wt_dt(float *y, const float *x, const void *wt, KernDtype dt, size_t T, size_t in, size_t out);

/* dst[0..n) = src[0..n) as floats (exact: every F16/BF16 value is a float). */
void kern_widen(float *dst, const void *src, KernDtype dt, size_t n);

/* Sum of p[0..n) split over the threads, with the table's multi-accumulator read loop:
 * `make bench`'s memory-bandwidth floor (what any decode must at least spend). */
float kern_stream_sum(const float *p, size_t n);

/* `make bench`'s compute bound: every thread runs `iters` iterations of 12 independent
 * FMA chains of the table's vector width in registers; returns the flops done (the
 * caller times it). */
double kern_fma_burn(size_t iters);

/* LayerNorm over each of T rows of C: y = (x - mean) / sqrt(var + eps) * g + b with the
 * biased variance (divide by C) and eps inside the sqrt, as torch.nn.LayerNorm.
 * Mean and variance are accumulated in double (two passes) so rows with a large mean
 * lose nothing. y may alias x. */
void kern_layernorm(float *y, const float *x, const float *g, const float *b, float eps,
                    size_t T, size_t C);

/* GPT-2's GELU (HF "gelu_new"): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 * Not the exact erf GELU (torch nn.GELU()): they differ by up to 4.7e-4. y may alias x. */
void kern_gelu(float *y, const float *x, size_t n);

/* In-place softmax of p[0..n): subtracts the max first so exp never overflows. */
void kern_softmax(float *p, size_t n);

/* y = a + b elementwise (y may alias a or b). */
void kern_add(float *y, const float *a, const float *b, size_t n);

/* sum_i a[i] b[i] (several SIMD accumulators; float32 products, float32 sums). */
float kern_dot(const float *a, const float *b, size_t n);

/* y += alpha * x */
void kern_axpy(float *y, float alpha, const float *x, size_t n);

/* Attention of one query over n keys of one head, HS floats each, rows contiguous:
 * scores s[j] = scale * q.K[j] for j < n, and z = sum_j p[j] V[j]. One call per row, with
 * q / z held in registers when HS == 64 (GPT-2's head size for every model size). */
void kern_attn_scores(float *s, const float *q, const float *K, size_t n, size_t hs, float scale);
void kern_attn_mix(float *z, const float *p, const float *V, size_t n, size_t hs);

/* The k largest of x[0..n) in descending order (ties: lower index first); returns how
 * many were written (min(k, n)). ids/vals have room for k. O(n k) worst case, O(n)
 * typical for small k. */
/* S = sum_i exp(d_i) and S_d = sum_i exp(d_i) d_i for d_i = max(x_i - m, -87), every x_i <= m
 * (m: their max): a softmax's normaliser and entropy term in float vectors (relative
 * error about 2e-7 per term, chunks summed in double). For views with a 1e-5 budget (the
 * logit lens); token_stat keeps double exp for eval's exact losses. */
void kern_exp_sums(const float *x, size_t n, float m, double *sum_e, double *sum_ed);

size_t kern_topk(int *ids, float *vals, const float *x, size_t n, size_t k);

#endif
