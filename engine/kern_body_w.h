/* kern_body_w.h — (included by kern_body.h, three times) the kernels that read WEIGHTS,
 * for one weight dtype: KW_TAG (f32/f16/bf16), KW_T (element type), KW_LOADV(p) (VW
 * weights as one float vector), KW_LOAD1(p) (one weight as a float). Half-precision
 * weights are widened exactly in registers and everything after is the float32 math of
 * the f32 kernel, in the same order: an F16 model gives the numbers of its F32 image.
 * No include guard on purpose. */

#define KW(name) KB_CAT(KB_CAT(name, KW_TAG), KB_SUFFIX)

/* y[j0..j1) = b + sum_i x[i] W[i][j0..j1) for W (in, out) in Conv1D layout. Each thread
 * owns a column range, streams each row's slice front to back (prefetch friendly) and
 * keeps its slice of y in L1; four rows per pass cut the y load/store traffic by four. */
static KB_TARGET void KW(matvec)(float *restrict y, const float *restrict x, const void *restrict wv,
                                 const float *restrict b, size_t in, size_t out, size_t j0, size_t j1) {
    const KW_T *restrict w = wv;
    if (b) memcpy(y + j0, b + j0, (j1 - j0) * sizeof *y);
    else memset(y + j0, 0, (j1 - j0) * sizeof *y);
    size_t i = 0;
    for (; i + 4 <= in; i += 4) {
        const KW_T *w0 = w + i * out, *w1 = w0 + out, *w2 = w1 + out, *w3 = w2 + out;
        VF x0 = v_set1(x[i]), x1 = v_set1(x[i + 1]), x2 = v_set1(x[i + 2]), x3 = v_set1(x[i + 3]);
        size_t j = j0;
        for (; j + VW <= j1; j += VW) {
            VF acc = v_load(y + j);
            acc = v_fma(x0, KW_LOADV(w0 + j), acc);
            acc = v_fma(x1, KW_LOADV(w1 + j), acc);
            acc = v_fma(x2, KW_LOADV(w2 + j), acc);
            acc = v_fma(x3, KW_LOADV(w3 + j), acc);
            v_store(y + j, acc);
        }
        for (; j < j1; j++)
            y[j] += x[i] * KW_LOAD1(w0 + j) + x[i + 1] * KW_LOAD1(w1 + j) + x[i + 2] * KW_LOAD1(w2 + j) +
                    x[i + 3] * KW_LOAD1(w3 + j);
    }
    for (; i < in; i++) { /* the last in % 4 rows, unfused as plain C would be */
        const KW_T *wr = w + i * out;
        VF xi = v_set1(x[i]);
        size_t j = j0;
        for (; j + VW <= j1; j += VW) v_store(y + j, v_add(v_load(y + j), v_mul(xi, KW_LOADV(wr + j))));
        for (; j < j1; j++) y[j] += x[i] * KW_LOAD1(wr + j);
    }
}

/* sum_i a[i] b[i]: four independent vector accumulators hide the FMA latency. */
static KB_TARGET float KW(dot)(const float *restrict a, const void *restrict bv, size_t n) {
    const KW_T *restrict b = bv;
    VF s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();
    size_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        s0 = v_fma(v_load(a + i), KW_LOADV(b + i), s0);
        s1 = v_fma(v_load(a + i + VW), KW_LOADV(b + i + VW), s1);
        s2 = v_fma(v_load(a + i + 2 * VW), KW_LOADV(b + i + 2 * VW), s2);
        s3 = v_fma(v_load(a + i + 3 * VW), KW_LOADV(b + i + 3 * VW), s3);
    }
    for (; i + VW <= n; i += VW) s0 = v_fma(v_load(a + i), KW_LOADV(b + i), s0);
    float s = v_hsum(v_add(v_add(s0, s1), v_add(s2, s3)));
    for (; i < n; i++) s += a[i] * KW_LOAD1(b + i);
    return s;
}

/* The 4 x 4 block of KernDot4x4Fn: 16 named accumulators (so they stay in registers),
 * each step loads 4 w and 4 x vectors for 16 FMAs. Rows past na / nb repeat row 0 and
 * are not stored. The tail of C is summed in plain float after the vectors. */
static KB_TARGET void KW(dot4x4)(float *restrict y, size_t ldy, const float *restrict x, size_t ldx, size_t na,
                                 const void *restrict wv, size_t nb, size_t C) {
    const KW_T *restrict w = wv;
    const float *x0 = x, *x1 = x + (na > 1 ? ldx : 0), *x2 = x + (na > 2 ? 2 * ldx : 0), *x3 = x + (na > 3 ? 3 * ldx : 0);
    const KW_T *w0 = w, *w1 = w + (nb > 1 ? C : 0), *w2 = w + (nb > 2 ? 2 * C : 0), *w3 = w + (nb > 3 ? 3 * C : 0);
#define KW_ACC(a) VF c##a##0 = v_zero(), c##a##1 = v_zero(), c##a##2 = v_zero(), c##a##3 = v_zero();
    KW_ACC(0) KW_ACC(1) KW_ACC(2) KW_ACC(3)
#undef KW_ACC
    size_t i = 0;
    for (; i + VW <= C; i += VW) {
        const VF r0 = KW_LOADV(w0 + i), r1 = KW_LOADV(w1 + i), r2 = KW_LOADV(w2 + i), r3 = KW_LOADV(w3 + i);
#define KW_ROW(a)                                                                                                \
    {                                                                                                            \
        const VF xa = v_load(x##a + i);                                                                          \
        c##a##0 = v_fma(xa, r0, c##a##0);                                                                        \
        c##a##1 = v_fma(xa, r1, c##a##1);                                                                        \
        c##a##2 = v_fma(xa, r2, c##a##2);                                                                        \
        c##a##3 = v_fma(xa, r3, c##a##3);                                                                        \
    }
        KW_ROW(0) KW_ROW(1) KW_ROW(2) KW_ROW(3)
#undef KW_ROW
    }
    float s[4][4] = {{v_hsum(c00), v_hsum(c01), v_hsum(c02), v_hsum(c03)},
                     {v_hsum(c10), v_hsum(c11), v_hsum(c12), v_hsum(c13)},
                     {v_hsum(c20), v_hsum(c21), v_hsum(c22), v_hsum(c23)},
                     {v_hsum(c30), v_hsum(c31), v_hsum(c32), v_hsum(c33)}};
    const float *xs[4] = {x0, x1, x2, x3};
    const KW_T *ws[4] = {w0, w1, w2, w3};
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < nb; b++) {
            float t = s[a][b];
            for (size_t k = i; k < C; k++) t += xs[a][k] * KW_LOAD1(ws[b] + k);
            y[a * ldy + b] = t;
        }
}

static KB_TARGET void KW(widen)(float *restrict dst, const void *restrict srcv, size_t n) {
    const KW_T *restrict src = srcv;
    size_t i = 0;
    for (; i + VW <= n; i += VW) v_store(dst + i, KW_LOADV(src + i));
    for (; i < n; i++) dst[i] = KW_LOAD1(src + i);
}

#undef KW
#undef KW_TAG
#undef KW_T
#undef KW_LOADV
#undef KW_LOAD1
