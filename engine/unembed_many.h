/* unembed_many.h — dot products of a few vectors with every row of a big row-major
 * matrix: Y[k][v] = x_k . w_v, for the logit lens (every depth of a position against
 * every row of wte at once). Decode's unembedding is one vector (a memory-bound matvec,
 * kern_matmul_wt); with D vectors the same single pass over w is compute-bound, so a
 * register block (6 vectors x 4 rows of w per vector step on AVX-512 and NEON, 6 x 2 on
 * AVX2: kern_body_w.h dot_block, measurements in kern_body.h) serves 6 depths per row
 * read from memory; the other depths find the rows in L1. Not the forward pass. Same
 * float32 sums, fixed order. */
#ifndef UNEMBED_MANY_H
#define UNEMBED_MANY_H

#include <stddef.h>

#include "kernels.h"

/* y[k * ldy + v] = sum_i x[k*C + i] * w[v*C + i] for k < D, v < V, w (V, C) row-major in
 * dtype dt (F16/BF16 widened exactly in registers). OpenMP over blocks of rows of w (each
 * row of w is read from memory once). y must not alias x, w or scratch. */
void unembed_many(float *y, size_t ldy, const float *x, size_t D, const void *w, KernDtype dt, size_t V, size_t C,
                  float *scratch);

/* A multiple of every ISA's KernIsa.dot_rows (6 today), and the floats of `scratch` that
 * unembed_many needs for D vectors of C floats (the caller owns it: no allocation in the
 * hot path). */
enum { UNEMBED_MAX_BLOCK = 12 };
size_t unembed_many_scratch(size_t D, size_t C);

#endif
