/* unembed_many.h — dot products of a few vectors with every row of a big row-major
 * matrix: Y[k][v] = x_k . w_v, for the logit lens (every depth of a position against
 * every row of wte at once). Decode's unembedding is one vector (a memory-bound matvec,
 * kern_matmul_wt); with D vectors the same single pass over w is compute-bound, and a
 * 4x4 register block (4 vectors x 4 rows of w per vector step, kern_body_w.h, on every
 * ISA) serves 4 depths per row read. Measured on 124M, 13 depths, 1 thread (AVX-512):
 * 16.8 ms, against ~27 ms for 13 dot passes and ~60 ms for the packed gemm (which copies
 * all of wte per call). Not the forward pass. Same float32 sums, fixed order. */
#ifndef UNEMBED_MANY_H
#define UNEMBED_MANY_H

#include <stddef.h>

#include "kernels.h"

/* y[k * ldy + v] = sum_i x[k*C + i] * w[v*C + i] for k < D, v < V, w (V, C) row-major in
 * dtype dt (F16/BF16 widened exactly in registers). OpenMP over blocks of rows of w (each
 * row of w is read from memory once). y must not alias x or w. */
void unembed_many(float *y, size_t ldy, const float *x, size_t D, const void *w, KernDtype dt, size_t V, size_t C);

#endif
