/* sampler_stages.c — the sampler's stages one at a time, each a small pure function on
 * ranked arrays (see sampler.h for the contracts): temperature, the penalties, top-k,
 * top-p, min-p, renormalising and the pick. Not the chain that strings them together
 * in the chosen order (sampler.c) and nothing random (rng.h). */
#include "sampler.h"

#include <math.h>

double sampler_apply_temperature(const float *logits, size_t n, float temperature,
                                 double *probs) {
    /* softmax(z)_i = exp(z_i - m) / sum_j exp(z_j - m) for any m; with m = max z the
     * exponents are <= 0, so exp never overflows and the largest term is exactly 1
     * (the sum is >= 1, never 0). With z = logits / T that is (l - max l) / T: at
     * T = 0.01 tiny differences become huge negative exponents and underflow to 0,
     * which is the right limit (T -> 0 is argmax). */
    float m = logits[0];
    for (size_t i = 1; i < n; i++)
        if (logits[i] > m) m = logits[i];
    double T = (double)temperature;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        /* in double: l - m of two large floats cannot overflow, and -inf stays -inf */
        double e = exp(((double)logits[i] - (double)m) / T);
        probs[i] = e;
        sum += e;
    }
    for (size_t i = 0; i < n; i++) probs[i] /= sum;
    /* log sum exp(l_i / T) = m/T + log sum exp((l_i - m)/T) */
    return (double)m / T + log(sum);
}

double sampler_penalise(double x, int count, const SamplerSettings *set) {
    if (count <= 0) return x;
    /* CTRL divided every logit by θ; that makes a negative logit MORE likely, so HF
     * (torch.where(score < 0, score * penalty, score / penalty)) and llama.cpp multiply
     * negatives instead. x = 0 is unchanged either way. */
    double theta = (double)set->repetition_penalty;
    if (theta != 1.0) x = x > 0.0 ? x / theta : x * theta;
    /* OpenAI: mu[j] - c[j] * alpha_frequency - float(c[j] > 0) * alpha_presence */
    return x - (double)count * (double)set->frequency_penalty - (double)set->presence_penalty;
}

size_t sampler_apply_top_k(size_t n, int top_k) {
    if (top_k <= 0 || (size_t)top_k >= n) return n;
    return (size_t)top_k;
}

size_t sampler_apply_top_p(const double *probs, size_t n, float top_p) {
    /* Nucleus sampling (Holtzman et al. 2020, "The Curious Case of Neural Text
     * Degeneration"): the smallest head of the ranked list holding at least p of the
     * mass. ">= p" means a set hitting p exactly stops there (HF removes the ascending
     * tail whose sum is <= 1 - p, the same set; llama.cpp stops at cum_sum >= p). At
     * least one token is always kept (p = 0 keeps exactly the top token). p = 1 is
     * "off": it keeps all n without summing, because a float sum of n terms may end a
     * hair below 1. */
    if (n == 0) return 0;
    if (top_p >= 1.0f) return n;
    double p = (double)top_p, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        c += probs[i];
        if (c >= p) return i + 1;
    }
    return n;
}

size_t sampler_apply_min_p(const double *probs, size_t n, float min_p) {
    /* Min-p (Nguyen et al. 2024, "Turning Up the Heat: Min-p Sampling"): the bar scales
     * with the top token's probability, so a confident distribution is cut hard and a
     * flat one barely. HF's MinPLogitsWarper removes probs < min_p * max; the ranked
     * list is descending, so the kept tokens are a head. The first always stays. */
    if (n == 0) return 0;
    if (min_p <= 0.0f) return n;
    double bar = (double)min_p * probs[0];
    size_t m = 1;
    while (m < n && probs[m] >= bar) m++;
    return m;
}

double sampler_renormalise(const double *probs, size_t n, double *out) {
    double mass = 0.0;
    for (size_t i = 0; i < n; i++) mass += probs[i];
    for (size_t i = 0; i < n; i++) out[i] = probs[i] / mass;
    return mass;
}

size_t sampler_pick(const double *probs, size_t n, double u) {
    /* Inverse-CDF sampling: token i owns [c_{i-1}, c_i); u uniform in [0,1) lands in
     * it with probability c_i - c_{i-1} = p_i. The running sum is the same one the
     * record's cum_lo/cum_hi use, so the drawn intervals are exactly these. */
    double c = 0.0;
    size_t last_positive = 0;
    for (size_t i = 0; i < n; i++) {
        c += probs[i];
        if (probs[i] > 0.0) last_positive = i;
        if (u < c) return i;
    }
    return last_positive; /* u >= total only through rounding (total a hair below 1) */
}

size_t sampler_pick_cum(const double *cum, size_t n, double u) {
    if (n == 0) return 0;
    if (!(u < cum[n - 1])) {
        /* rounding left the total a hair below 1: the last token with p > 0 */
        size_t i = n - 1;
        while (i > 0 && !(cum[i] > cum[i - 1])) i--;
        return i;
    }
    /* the smallest i with u < cum[i]: cum is non-decreasing, so bisect. A token with
     * p = 0 has cum[i] == cum[i-1] and can never be the smallest such i. */
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u < cum[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
