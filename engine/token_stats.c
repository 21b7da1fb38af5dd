/* token_stats.c — see token_stats.h. With m = max_i l_i, e_i = exp(l_i - m), S = sum e_i:
 *   ln p_t = (l_t - m) - ln S
 *   H (nats) = -sum p_i ln p_i = ln S - (sum e_i (l_i - m)) / S
 * (both exact rewrites of the definitions; every exp() argument is <= 0). */
#include "token_stats.h"

#include <math.h>

int token_stat(const float *logits, size_t V, int id, TokenStat *out) {
    if (V == 0 || id < 0 || (size_t)id >= V) return -1;
    double m = -INFINITY;
    for (size_t i = 0; i < V; i++) {
        double l = logits[i];
        if (l != l || l == INFINITY) return -1;
        if (l > m) m = l;
    }
    if (m == -INFINITY) return -1;
    double s = 0.0, s_l = 0.0, lt = logits[id];
    int above = 0; /* tokens ordered before `id`: a higher logit, or the same logit and a lower id */
    for (size_t i = 0; i < V; i++) {
        double l = logits[i];
        if (l > lt || (l == lt && i < (size_t)id)) above++;
        if (l == -INFINITY) continue; /* e_i = 0; and 0 * -inf would be NaN */
        double e = exp(l - m);
        s += e;
        s_l += e * (l - m);
    }
    double log_s = log(s);
    out->id = id;
    out->nll = lt == -INFINITY ? INFINITY : log_s - (lt - m);
    out->p = exp(-out->nll);
    out->surprisal_bits = out->nll / M_LN2;
    out->entropy_bits = (log_s - s_l / s) / M_LN2;
    out->rank = above + 1;
    out->logsumexp = m + log_s;
    return 0;
}
