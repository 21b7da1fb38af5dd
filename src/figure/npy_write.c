/* npy_write.c — the .npy writer (see npy_write.h). Elements are encoded byte by byte as
 * little-endian, so the files are the same on any host. */
#include "npy_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t npy_header(char *buf, size_t cap, const size_t *shape, int ndim) {
    if (ndim < 0 || ndim > NPY_MAX_DIM) return 0;
    /* The dict: Python tuple syntax, so a 1-D shape needs its trailing comma "(n,)". */
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int d = 0; d < ndim; d++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, d ? ", %zu" : "%zu", shape[d]);
    len += snprintf(dict + len, sizeof dict - (size_t)len, "%s), }", ndim == 1 ? "," : "");
    /* magic(6) + version(2) + HLEN(2) + dict + spaces + '\n', a multiple of 64 bytes */
    size_t total = 10 + (size_t)len + 1;
    total = (total + 63) / 64 * 64;
    size_t hlen = total - 10;
    if (buf && cap >= total) {
        memcpy(buf, "\x93NUMPY\x01\x00", 8);
        buf[8] = (char)(hlen & 0xFF);
        buf[9] = (char)(hlen >> 8);
        memcpy(buf + 10, dict, (size_t)len);
        memset(buf + 10 + len, ' ', total - 10 - (size_t)len - 1);
        buf[total - 1] = '\n';
    }
    return total;
}

void npy_abort(NpyWriter *w) {
    if (!w) return;
    atomic_file_abort(&w->file);
    w->n_total = w->n_written = 0;
}

int npy_open(NpyWriter *w, const char *path, const size_t *shape, int ndim, ErrorMsg *err) {
    memset(w, 0, sizeof *w);
    char header[512];
    size_t hl = npy_header(header, sizeof header, shape, ndim);
    if (hl == 0 || hl > sizeof header) return error_set(err, "%s: unsupported shape (%d dimensions)", path, ndim);
    size_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] && n > SIZE_MAX / shape[d]) return error_set(err, "%s: shape too large", path);
        n *= shape[d];
    }
    /* a dump replaces an earlier one of the same name, never a link or a device there */
    if (atomic_file_open(&w->file, path, 1, err)) return -1;
    w->n_total = n;
    if (fwrite(header, 1, hl, w->file.f) != hl) {
        int e = errno;
        npy_abort(w);
        return error_set(err, "%s: write failed (%s)", path, strerror(e));
    }
    return 0;
}

int npy_write_f32(NpyWriter *w, const float *x, size_t n, ErrorMsg *err) {
    if (!w->file.f) return error_set(err, "npy: write to a closed file");
    if (n > w->n_total - w->n_written)
        return error_set(err, "%s: %zu more elements than the shape holds", w->file.path,
                         n - (w->n_total - w->n_written));
    uint8_t buf[4096 * 4];
    while (n > 0) {
        size_t m = n < 4096 ? n : 4096;
        for (size_t i = 0; i < m; i++) {
            uint32_t u;
            memcpy(&u, &x[i], 4); /* the float's bits, written least significant byte first */
            buf[4 * i + 0] = (uint8_t)u;
            buf[4 * i + 1] = (uint8_t)(u >> 8);
            buf[4 * i + 2] = (uint8_t)(u >> 16);
            buf[4 * i + 3] = (uint8_t)(u >> 24);
        }
        if (fwrite(buf, 4, m, w->file.f) != m) {
            int e = errno;
            return error_set(err, "%s: write failed (%s)", w->file.path, strerror(e));
        }
        x += m;
        n -= m;
        w->n_written += m;
    }
    return 0;
}

int npy_close(NpyWriter *w, ErrorMsg *err) {
    if (!w->file.f) return error_set(err, "npy: close of a closed file");
    if (w->n_written != w->n_total) {
        error_set(err, "%s: %zu of %zu elements written", w->file.path, w->n_written, w->n_total);
        npy_abort(w);
        return -1;
    }
    return atomic_file_commit(&w->file, err);
}

int npy_save_f32(const char *path, const float *x, const size_t *shape, int ndim, ErrorMsg *err) {
    NpyWriter w;
    if (npy_open(&w, path, shape, ndim, err)) return -1;
    if (npy_write_f32(&w, x, w.n_total, err)) {
        npy_abort(&w);
        return -1;
    }
    return npy_close(&w, err);
}
