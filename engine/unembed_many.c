/* unembed_many.c — see unembed_many.h. Blocks of 4 rows of w against blocks of 4 vectors
 * through the kernel table's dot4x4 (kern_body_w.h: 16 accumulators in registers, every
 * ISA the CPU has, chosen at run time like every decode kernel), OpenMP over the blocks
 * of w so each row of w is read from memory once. */
#include "unembed_many.h"

#include "kern_isa.h"

void unembed_many(float *y, size_t ldy, const float *x, size_t D, const void *w, KernDtype dt, size_t V, size_t C) {
    const KernDot4x4Fn dot4x4 = kern_isa()->dot4x4[dt];
    const size_t es = kern_dtype_size(dt);
    const long blocks = (long)((V + 3) / 4);
#pragma omp parallel for schedule(static)
    for (long bl = 0; bl < blocks; bl++) {
        const size_t v0 = (size_t)bl * 4, nv = V - v0 < 4 ? V - v0 : 4;
        const void *wb = (const char *)w + v0 * C * es;
        for (size_t k0 = 0; k0 < D; k0 += 4)
            dot4x4(y + k0 * ldy + v0, ldy, x + k0 * C, C, D - k0 < 4 ? D - k0 : 4, wb, nv, C);
    }
}
