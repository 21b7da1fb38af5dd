/* kernels.h — the numeric building blocks of the GPT-2 forward pass: matrix products
 * in HuggingFace Conv1D layout, LayerNorm, tanh-GELU, softmax, dot/axpy, top-k.
 * Plain float32 arrays in, float32 arrays out; outputs first, inputs, sizes last (llm.c).
 * Not the model: these know nothing of layers, heads or the trace (gpt2_forward.c does).
 * Threads: every matmul is at most one OpenMP parallel region; kern_set_threads() sets
 * the OpenMP and OpenBLAS pools. On a shared machine use no more threads than idle cores:
 * OpenMP's spinning barriers make an oversubscribed 2-thread decode ~10x slower.
 * No allocation anywhere here (the gemm packs weights into a 16 KB stack block). */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

/* Sets the number of worker threads for OpenMP regions and OpenBLAS (n >= 1). */
void kern_set_threads(int n);
/* The current OpenMP thread budget (what kern_set_threads set, or the default). */
int kern_get_threads(void);

/* y (T, out) = x (T, in) @ w (in, out) + b (out)   — Conv1D layout, as stored in HF files.
 * b may be NULL. T == 1 is the decode case (a memory-bound matvec, own SIMD kernel);
 * T > 1 is prefill, compute-bound: own packed AVX-512 gemm when built with AVX-512
 * (Debian's OpenBLAS 0.3.21 picks its SSE3 kernels on this Xeon: 5x slower), else
 * OpenBLAS sgemm. y must not alias x. */
void kern_matmul(float *y, const float *x, const float *w, const float *b,
                 size_t T, size_t in, size_t out);

/* y (T, out) = x (T, in) @ wt^T where wt is (out, in) row-major — the unembedding
 * (logits = ln_final @ wte^T): each output is a dot product with one row of wt. */
void kern_matmul_wt(float *y, const float *x, const float *wt, size_t T, size_t in, size_t out);

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
size_t kern_topk(int *ids, float *vals, const float *x, size_t n, size_t k);

#endif
