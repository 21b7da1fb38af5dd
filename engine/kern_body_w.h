/* kern_body_w.h — (included by kern_body.h, three times) the kernels that read WEIGHTS,
 * for one weight dtype: KW_TAG (f32/f16/bf16), KW_T (element type), KW_LOADV(p) (VW
 * weights as one float vector), KW_LOAD1(p) (one weight as a float). Half-precision
 * weights are widened exactly in registers and everything after is the float32 math of
 * the f32 kernel, in the same order: an F16 model gives the numbers of its F32 image.
 * No include guard on purpose. */

#define KW(name) KB_CAT(KB_CAT(name, KW_TAG), KB_SUFFIX)
/* KW_GUARD (kern_body.h, KB_F16_GUARDED): KW_LOADV widens the range kw_hi/kw_lo, and a
 * call that met an Inf/NaN weight is redone by its exact twin KW_GUARD_EXACT(name) */
#ifdef KW_GUARD
#define KW_GUARD_DECL VF kw_hi = v_zero(), kw_lo = v_zero();
#define KW_GUARD_MET v_f16_special(kw_hi, kw_lo)
#define KW_GUARD_EXACT(name) KB_CAT(KB_CAT(name, KW_GUARD), KB_SUFFIX)
#else
#define KW_GUARD_DECL
#endif

/* y[j0..j1) = b + sum_i x[i] W[i][j0..j1) for W (in, out) in Conv1D layout. The caller
 * (kernels.c) gives each thread one half of the rows, all columns (with two threads), or
 * chunks of 1,024 columns (with one), and keeps y's slice in L1; four rows per pass cut the
 * y load/store traffic by four. The slices of the next four rows are prefetched as these
 * are read: when the slice is a short run per row (a column range), the hardware
 * prefetcher does not run ahead across rows. make bench (124M, ctx 16, 1 thread, when
 * threads split columns): F16 decode 12.6-13.3 -> 8.7-10.1 ms, F16/F32 time 0.70 -> 0.50-0.56. */
static KB_TARGET void KW(matvec)(float *restrict y, const float *restrict x, const void *restrict wv,
                                 const float *restrict b, size_t in, size_t out, size_t j0, size_t j1) {
    const KW_T *restrict w = wv;
    KW_GUARD_DECL
    if (b) memcpy(y + j0, b + j0, (j1 - j0) * sizeof *y);
    else memset(y + j0, 0, (j1 - j0) * sizeof *y);
    size_t i = 0;
    for (; i + 4 <= in; i += 4) {
        const KW_T *w0 = w + i * out, *w1 = w0 + out, *w2 = w1 + out, *w3 = w2 + out;
        const KW_T *pf = i + 8 <= in ? w0 + 4 * out : w0; /* the next 4 rows */
        VF x0 = v_set1(x[i]), x1 = v_set1(x[i + 1]), x2 = v_set1(x[i + 2]), x3 = v_set1(x[i + 3]);
        size_t j = j0;
        for (; j + VW <= j1; j += VW) {
            __builtin_prefetch(pf + j);
            __builtin_prefetch(pf + out + j);
            __builtin_prefetch(pf + 2 * out + j);
            __builtin_prefetch(pf + 3 * out + j);
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
#ifdef KW_GUARD
    if (KW_GUARD_MET) KW_GUARD_EXACT(matvec)(y, x, wv, b, in, out, j0, j1);
#endif
}

/* sum_i a[i] b[i]: four independent vector accumulators hide the FMA latency. */
static KB_TARGET float KW(dot)(const float *restrict a, const void *restrict bv, size_t n) {
    const KW_T *restrict b = bv;
    KW_GUARD_DECL
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
#ifdef KW_GUARD
    if (KW_GUARD_MET) return KW_GUARD_EXACT(dot)(a, bv, n);
#endif
    return s;
}

/* The block of KernDotBlockFn: KB_DOT_ROWS packed vectors against KB_DOT_W rows of w, one
 * named accumulator per pair (so they stay in registers), the w vectors of a step in
 * registers and one x vector at a time: each step loads KB_DOT_W + KB_DOT_ROWS vectors
 * for KB_DOT_W * KB_DOT_ROWS FMAs, the x vectors all through one pointer at fixed
 * offsets. Rows of w past nb repeat row 0 and are not stored. The tail of C is summed in
 * plain float from the unpacked x. Each step also prefetches the same columns of the
 * rows the caller reads next (`next`): on the second and later blocks of vectors over
 * the same rows (from L1) the memory system is otherwise idle, and with the prefetch the
 * next rows arrive meanwhile: 124M's 12 depths from memory took 14.8 -> 11.0 ms on
 * AVX-512 and 21 -> 11.7 ms on AVX2 (1 thread, Zen 5). */
static KB_TARGET void KW(dot_block)(float *restrict y, size_t ldy, const float *restrict xp,
                                    const float *restrict x, size_t ldx, size_t na, const void *restrict wv,
                                    size_t nb, const void *next, size_t C) {
    const KW_T *restrict w = wv, *nx = next;
    const KW_T *ws[KB_DOT_W];
    KW_GUARD_DECL
#define KW_WPTR(z, b) const KW_T *restrict w##b = w + (nb > b ? b * C : 0);
#define KW_ACC1(a, b) VF c##a##_##b = v_zero();
#define KW_ACC(a) KB_DOT_EACH_W(KW_ACC1, a)
    KB_DOT_EACH_W(KW_WPTR, 0)
    KB_DOT_EACH(KW_ACC)
    size_t i = 0;
    for (const float *p = xp; i + VW <= C; i += VW, p += KB_DOT_ROWS * VW) {
#define KW_PREFETCH(z, b) __builtin_prefetch(nx + (b) * C + i);
#define KW_WLOAD(z, b) const VF r##b = KW_LOADV(w##b + i);
#define KW_FMA1(a, b) c##a##_##b = v_fma(xa, r##b, c##a##_##b);
#define KW_ROW(a)                                                                                                \
    {                                                                                                            \
        VF xa = v_load(p + (a) * VW);                                                                            \
        v_in_reg(xa);                                                                                            \
        KB_DOT_EACH_W(KW_FMA1, a)                                                                                \
    }
        KB_DOT_EACH_W(KW_WLOAD, 0)
        KB_DOT_EACH_W(KW_PREFETCH, 0)
        KB_DOT_EACH(KW_ROW)
    }
    float s[KB_DOT_ROWS][KB_DOT_W];
#define KW_SUM1(a, b) s[a][b] = v_hsum(c##a##_##b);
#define KW_SUM(a) KB_DOT_EACH_W(KW_SUM1, a)
#define KW_WS(z, b) ws[b] = w##b;
    KB_DOT_EACH(KW_SUM)
    KB_DOT_EACH_W(KW_WS, 0)
#undef KW_WPTR
#undef KW_ACC1
#undef KW_ACC
#undef KW_WLOAD
#undef KW_PREFETCH
#undef KW_FMA1
#undef KW_ROW
#undef KW_SUM1
#undef KW_SUM
#undef KW_WS
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < nb; b++) {
            float t = s[a][b];
            for (size_t k = i; k < C; k++) t += x[a * ldx + k] * KW_LOAD1(ws[b] + k);
            y[a * ldy + b] = t;
        }
#ifdef KW_GUARD
    if (KW_GUARD_MET) KW_GUARD_EXACT(dot_block)(y, ldy, xp, x, ldx, na, wv, nb, next, C);
#endif
}

static KB_TARGET void KW(widen)(float *restrict dst, const void *restrict srcv, size_t n) {
    const KW_T *restrict src = srcv;
    KW_GUARD_DECL
    size_t i = 0;
    for (; i + VW <= n; i += VW) v_store(dst + i, KW_LOADV(src + i));
    for (; i < n; i++) dst[i] = KW_LOAD1(src + i);
#ifdef KW_GUARD
    if (KW_GUARD_MET) KW_GUARD_EXACT(widen)(dst, srcv, n);
#endif
}

#undef KW
#undef KW_GUARD_DECL
#ifdef KW_GUARD
#undef KW_GUARD_MET
#undef KW_GUARD_EXACT
#undef KW_GUARD
#endif
#undef KW_TAG
#undef KW_T
#undef KW_LOADV
#undef KW_LOAD1
