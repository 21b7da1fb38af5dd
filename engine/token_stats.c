/* token_stats.c — see token_stats.h. With m = max_i l_i, e_i = exp(l_i - m), S = sum e_i:
 *   ln p_t = (l_t - m) - ln S
 *   H (nats) = -sum p_i ln p_i = ln S - (sum e_i (l_i - m)) / S
 * (both exact rewrites of the definitions; every exp() argument is <= 0). */
#include "token_stats.h"

#include <math.h>

#include "kernels.h"

/* GCC vectorises these reductions at -O2 only when asked (omp simd); clang vectorises
 * them by itself at -O2 and, asked in a build without its vectorizer (the -O1 fuzz
 * build), fails with -Wpass-failed: so the request is GCC's alone. */
#if defined(__clang__)
#define SIMD_LOOP(clauses)
#else
#define SIMD_PRAGMA(x) _Pragma(#x)
#define SIMD_LOOP(clauses) SIMD_PRAGMA(omp simd clauses)
#endif

int token_rank(const float *logits, size_t V, int id) {
    const float lt = logits[id];
    int above = 0;
    SIMD_LOOP(reduction(+ : above))
    for (size_t i = 0; i < (size_t)id; i++) above += logits[i] >= lt;
    SIMD_LOOP(reduction(+ : above))
    for (size_t i = (size_t)id + 1; i < V; i++) above += logits[i] > lt;
    return above + 1;
}

/* The max logit (m) and the rank of `id`; -1 on a bad argument, a NaN or +inf, or all
 * -inf. Branch-free loops (omp simd): with the exp sums in vectors this scan was the
 * lens's next cost. */
static int max_and_rank(const float *logits, size_t V, int id, double *m_out, int *rank_out) {
    if (V == 0 || id < 0 || (size_t)id >= V) return -1;
    float m = -INFINITY;
    int bad = 0;
    SIMD_LOOP(reduction(max : m) reduction(| : bad))
    for (size_t i = 0; i < V; i++) {
        const float l = logits[i];
        bad |= (l != l) | (l == INFINITY);
        m = l > m ? l : m;
    }
    if (bad || m == -INFINITY) return -1;
    *m_out = m;
    *rank_out = token_rank(logits, V, id);
    return 0;
}

/* Everything from S = sum e_i and S_l = sum e_i (l_i - m). */
static int finish(const float *logits, int id, double m, int rank, double s, double s_l, TokenStat *out) {
    const double log_s = log(s), lt = logits[id];
    out->id = id;
    out->nll = lt == -INFINITY ? INFINITY : log_s - (lt - m);
    out->p = exp(-out->nll);
    out->surprisal_bits = out->nll / M_LN2;
    out->entropy_bits = (log_s - s_l / s) / M_LN2;
    out->rank = rank;
    out->logsumexp = m + log_s;
    return 0;
}

int token_stat(const float *logits, size_t V, int id, TokenStat *out) {
    double m;
    int rank;
    if (max_and_rank(logits, V, id, &m, &rank)) return -1;
    double s = 0.0, s_l = 0.0;
    for (size_t i = 0; i < V; i++) {
        double l = logits[i];
        if (l == -INFINITY) continue; /* e_i = 0; and 0 * -inf would be NaN */
        double e = exp(l - m);
        s += e;
        s_l += e * (l - m);
    }
    return finish(logits, id, m, rank, s, s_l, out);
}

int token_stat_fast(const float *logits, size_t V, int id, TokenStat *out) {
    double m, s, s_l;
    int rank;
    if (max_and_rank(logits, V, id, &m, &rank)) return -1;
    kern_exp_sums(logits, V, (float)m, &s, &s_l);
    return finish(logits, id, m, rank, s, s_l, out);
}
