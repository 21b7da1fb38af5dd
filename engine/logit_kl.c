/* logit_kl.c — see logit_kl.h. With a = logsumexp(p), b = logsumexp(q):
 *   KL = sum_i exp(p_i - a) ((p_i - a) - (q_i - b)). */
#include "logit_kl.h"

#include <math.h>

/* logsumexp of x[0..n) in double; NaN for NaN / +inf entries or n == 0. */
static double logsumexp(const float *x, size_t n) {
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (v != v || v == INFINITY) return NAN;
        if (v > m) m = v;
    }
    if (n == 0 || m == -INFINITY) return NAN;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += exp((double)x[i] - m);
    return m + log(s);
}

double logits_kl(const float *p, const float *q, size_t V) {
    double a = logsumexp(p, V), b = logsumexp(q, V);
    if (a != a || b != b) return NAN;
    double kl = 0.0;
    for (size_t i = 0; i < V; i++) {
        if (p[i] == -INFINITY) continue; /* P_i = 0 */
        double lp = (double)p[i] - a, lq = (double)q[i] - b;
        kl += exp(lp) * (lp - lq);       /* lq = -inf gives +inf, as it should */
    }
    return kl < 0.0 ? 0.0 : kl; /* rounding can leave -1e-17 for identical inputs */
}
