/* unembed_many.h — dot products of a few vectors with every row of a big row-major
 * matrix: Y[k][v] = x_k . w_v, for the logit lens (every depth of a position against
 * every row of wte at once). Decode's unembedding is one vector (a memory-bound matvec,
 * kern_matmul_wt); with D vectors the same single pass over w is compute-bound, and a
 * 4x4 register block (4 vectors x 4 rows of w per step of 16 channels) makes it ~6x
 * faster than D separate dots per row, and far faster than the packed gemm (which would
 * copy all of wte per call). Not the forward pass. Same float32 sums, fixed order. */
#ifndef UNEMBED_MANY_H
#define UNEMBED_MANY_H

#include <stddef.h>

/* y[k * ldy + v] = sum_i x[k*C + i] * w[v*C + i] for k < D, v < V. OpenMP over blocks of
 * rows of w (each row of w is read from memory once). y must not alias x or w. */
void unembed_many(float *y, size_t ldy, const float *x, size_t D, const float *w, size_t V, size_t C);

#endif
