/* npy_write.h — writes float32 arrays as NumPy .npy files (format version 1.0, dtype
 * '<f4', C order) so a student can np.load() any activation of the trace. Streaming:
 * the caller pushes the elements in C order in as many pieces as it likes (views of
 * the trace are strided or packed, so there is rarely one contiguous block). The file
 * is written to a temporary created new beside it and renamed into place by npy_close
 * (file_write.h), so a reader never sees half a file; an earlier regular file of the same
 * name is replaced, a link or a device there never is. Not a reader and not other dtypes.
 *
 * Format (numpy/lib/format.py): "\x93NUMPY", major 1, minor 0, uint16 LE header length
 * HLEN, then HLEN bytes of a Python dict literal
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (4, 4, 4), }
 * padded with spaces and ended by '\n' so that 10 + HLEN is a multiple of 64 (the data
 * then starts aligned), then the elements as little-endian float32.
 *
 * Usage:
 *     NpyWriter w = {0};  size_t shape[2] = {T, V};
 *     if (npy_open(&w, "out/logits.npy", shape, 2, &err)) ...;
 *     for (t...) if (npy_write_f32(&w, row, V, &err)) { npy_abort(&w); ... }
 *     if (npy_close(&w, &err)) ...;          // checks the count, renames into place */
#ifndef NPY_WRITE_H
#define NPY_WRITE_H

#include <stdio.h>
#include <stddef.h>

#include "error.h"
#include "file_write.h"

#define NPY_MAX_DIM 8

typedef struct NpyWriter {
    AtomicFile file;    /* the temporary (file.f, NULL when closed) and the final name */
    size_t n_total;     /* elements promised by the shape */
    size_t n_written;   /* elements pushed so far */
} NpyWriter;

/* Creates the temporary file and writes the header for an array of `ndim` (0..8)
 * dimensions. Errors name the path ("out/x.npy: folder out is not writable (Permission
 * denied)", "out/x.npy: exists and is a symbolic link, not a regular file (not replaced)").
 * On error w is left closed (npy_abort is still safe). */
int npy_open(NpyWriter *w, const char *path, const size_t *shape, int ndim, ErrorMsg *err);

/* Appends n elements (in C order). More elements than the shape holds is an error. */
int npy_write_f32(NpyWriter *w, const float *x, size_t n, ErrorMsg *err);

/* Checks that exactly the shape's element count was written, flushes, closes and renames
 * the temporary file to the final name. On any error the temporary file is removed. */
int npy_close(NpyWriter *w, ErrorMsg *err);

/* Drops the temporary file (after an error elsewhere); safe on a zeroed or closed writer. */
void npy_abort(NpyWriter *w);

/* One-shot: a contiguous C-order array. */
int npy_save_f32(const char *path, const float *x, const size_t *shape, int ndim, ErrorMsg *err);

/* The header bytes for a shape (for tests and for anyone who writes the data elsewhere):
 * writes up to cap bytes into buf and returns the full header length (a multiple of 64),
 * or 0 if ndim is out of range. */
size_t npy_header(char *buf, size_t cap, const size_t *shape, int ndim);

#endif
