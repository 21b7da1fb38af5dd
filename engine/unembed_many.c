/* unembed_many.c — see unembed_many.h. Pairs of rows of w against blocks of up to
 * dot_rows vectors through the kernel table's dot_block (kern_body_w.h: the accumulators
 * in registers, every ISA the CPU has, chosen at run time like every decode kernel),
 * OpenMP over the pairs so each row of w is read from memory once. The vectors are packed
 * first (kern_isa.h KernDotBlockFn), so the kernel reads all of them through one pointer. */
#include "unembed_many.h"

#include <string.h>

#include "kern_isa.h"

size_t unembed_many_scratch(size_t D, size_t C) { return (D + UNEMBED_MAX_BLOCK - 1) / UNEMBED_MAX_BLOCK * UNEMBED_MAX_BLOCK * C; }

/* Block b (rows k0 .. k0 + na) of x into pack, in the kernel's layout. */
static void pack_block(float *pack, const float *x, size_t na, size_t rows, size_t lanes, size_t C) {
    const size_t steps = C / lanes;
    for (size_t s = 0; s < steps; s++)
        for (size_t a = 0; a < rows; a++) {
            float *dst = pack + (s * rows + a) * lanes;
            if (a < na) memcpy(dst, x + a * C + s * lanes, lanes * sizeof *dst);
            else memset(dst, 0, lanes * sizeof *dst);
        }
}

void unembed_many(float *y, size_t ldy, const float *x, size_t D, const void *w, KernDtype dt, size_t V, size_t C,
                  float *scratch) {
    const KernIsa *isa = kern_isa();
    const KernDotBlockFn dot_block = isa->dot_block[dt];
    const size_t es = kern_dtype_size(dt), rows = (size_t)isa->dot_rows, lanes = (size_t)isa->lanes;
    const size_t nw = (size_t)isa->dot_w;
    for (size_t k0 = 0; k0 < D; k0 += rows)
        pack_block(scratch + k0 * C, x + k0 * C, D - k0 < rows ? D - k0 : rows, rows, lanes, C);
    const long blocks = (long)((V + nw - 1) / nw);
#pragma omp parallel for schedule(static)
    for (long bl = 0; bl < blocks; bl++) {
        const size_t v0 = (size_t)bl * nw, nv = V - v0 < nw ? V - v0 : nw;
        const void *wb = (const char *)w + v0 * C * es;
        /* the next block's rows, whole (its first row when it is the short last block) */
        const void *next = v0 + 2 * nw <= V ? (const char *)wb + nw * C * es : wb;
        for (size_t k0 = 0; k0 < D; k0 += rows)
            dot_block(y + k0 * ldy + v0, ldy, scratch + k0 * C, x + k0 * C, C, D - k0 < rows ? D - k0 : rows, wb, nv,
                      next, C);
    }
}
