/* sampler.c — logits to next token, stage by stage (see sampler.h for the contract).
 * One sort per call (an O(V) radix sort, ~0.3 ms for GPT-2's 50257 logits), then
 * every stage is a pass over arrays indexed by rank. Probabilities live in double:
 * sums over 50257 terms of size ~2e-5 lose ~4 digits in float. Not here: random
 * numbers (rng.h), the model, anything about drawing. */
#include "sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

SamplerSettings sampler_settings_default(void) {
    SamplerSettings s = {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .greedy = 0};
    return s;
}

int sampler_settings_validate(const SamplerSettings *s, ErrorMsg *err) {
    if (!s) return error_set(err, "sampler: no settings given");
    if (!isfinite(s->temperature))
        return error_set(err, "sampler: temperature %g is not a finite number",
                         (double)s->temperature);
    if (s->temperature < 0.0f)
        return error_set(err, "sampler: temperature %g is negative (0 means greedy)",
                         (double)s->temperature);
    if (s->top_k < 0)
        return error_set(err, "sampler: top_k %d is negative (0 turns top-k off)", s->top_k);
    /* !(p >= 0 && p <= 1) also catches NaN, for which every comparison is false */
    if (!(s->top_p >= 0.0f && s->top_p <= 1.0f))
        return error_set(err, "sampler: top_p %g is outside [0, 1] (1 turns top-p off)",
                         (double)s->top_p);
    return 0;
}

void sampler_free(Sampler *s) {
    if (!s) return;
    free(s->order);
    free(s->order_tmp);
    free(s->keys);
    free(s->keys_tmp);
    free(s->logits_sorted);
    free(s->p_raw);
    free(s->p_temp);
    free(s->p_final);
    memset(s, 0, sizeof *s);
}

int sampler_init(Sampler *s, int vocab_size, ErrorMsg *err) {
    if (!s) return error_set(err, "sampler: no Sampler given");
    memset(s, 0, sizeof *s);
    if (vocab_size < 1)
        return error_set(err, "sampler: vocabulary size %d must be at least 1", vocab_size);
    size_t V = (size_t)vocab_size;
    s->vocab_size = vocab_size;
    s->order = malloc(V * sizeof *s->order);
    s->order_tmp = malloc(V * sizeof *s->order_tmp);
    s->keys = malloc(V * sizeof *s->keys);
    s->keys_tmp = malloc(V * sizeof *s->keys_tmp);
    s->logits_sorted = malloc(V * sizeof *s->logits_sorted);
    s->p_raw = malloc(V * sizeof *s->p_raw);
    s->p_temp = malloc(V * sizeof *s->p_temp);
    s->p_final = malloc(V * sizeof *s->p_final);
    if (!s->order || !s->order_tmp || !s->keys || !s->keys_tmp || !s->logits_sorted ||
        !s->p_raw || !s->p_temp || !s->p_final) {
        sampler_free(s);
        return error_set(err, "sampler: out of memory for %d-token scratch", vocab_size);
    }
    return 0;
}

/* ---- Sorting ------------------------------------------------------------------ */

/* A uint32 whose unsigned order is the DESCENDING order of the float x.
 * IEEE-754 floats compare like sign-magnitude integers: flipping the sign bit of
 * positives and all bits of negatives gives an ascending unsigned key; inverting
 * that gives a descending one. (-0 is mapped to +0 by the caller so that equal
 * values get equal keys.) */
static uint32_t key_descending(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t ascending = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return ~ascending;
}

/* LSD radix sort of (keys, ids), 8 bits per pass, 4 passes. Each pass is stable
 * (a counting sort), so tokens with equal keys stay in their incoming order — the
 * caller passes ids ascending, which is the tie rule "lower id first". 4 passes (an
 * even number) leave the result back in keys/ids. O(V) and branch-free in the data,
 * unlike qsort's O(V log V) with a call per comparison. */
static void radix_sort_desc(uint32_t *keys, int *ids, uint32_t *keys_tmp, int *ids_tmp,
                            size_t n) {
    for (unsigned shift = 0; shift < 32; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++) count[(keys[i] >> shift) & 0xFFu]++;
        /* exclusive prefix sum: count[d] becomes the first output slot of digit d */
        size_t start = 0;
        for (size_t d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = start;
            start += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t slot = count[(keys[i] >> shift) & 0xFFu]++;
            keys_tmp[slot] = keys[i];
            ids_tmp[slot] = ids[i];
        }
        /* swap roles: the sorted-so-far data is now in the tmp buffers */
        uint32_t *tk = keys; keys = keys_tmp; keys_tmp = tk;
        int *ti = ids; ids = ids_tmp; ids_tmp = ti;
    }
}

/* ---- Stages ------------------------------------------------------------------- */

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

size_t sampler_apply_top_k(size_t n, int top_k) {
    if (top_k <= 0 || (size_t)top_k >= n) return n;
    return (size_t)top_k;
}

size_t sampler_apply_top_p(const double *probs, size_t n, float top_p) {
    /* Nucleus sampling (Holtzman et al. 2020, "The Curious Case of Neural Text
     * Degeneration"): the smallest head of the ranked list holding at least p of the
     * mass. ">= p" means a set hitting p exactly stops there. At least one token is
     * always kept (p = 0 keeps exactly the top token). p = 1 is "off": it keeps all n
     * without summing, because a float sum of n terms may end a hair below 1. */
    if (n == 0) return 0;
    if (top_p >= 1.0f) return n;
    double p = (double)top_p, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        c += probs[i];
        if (c >= p) return i + 1;
    }
    return n;
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

/* ---- The pipeline ------------------------------------------------------------- */

/* Fills one row from the rank arrays. cum_lo is the running sum before this rank. */
static void fill_row(const Sampler *s, const double *p_temp, size_t rank, size_t kept,
                     double cum_lo, SamplerRow *row) {
    row->id = s->order[rank];
    row->rank = (int)rank;
    row->logit = s->logits_sorted[rank];
    row->p_raw = s->p_raw[rank];
    row->p_temp = p_temp[rank];
    row->kept = rank < kept;
    row->p_cut = row->kept ? p_temp[rank] : 0.0;
    row->p_final = row->kept ? s->p_final[rank] : 0.0;
    row->cum_lo = cum_lo;
    row->cum_hi = row->kept ? cum_lo + s->p_final[rank] : cum_lo;
}

int sampler_run(Sampler *s, const SamplerSettings *set, const float *logits, double u,
                int top_n, SamplerRecord *rec, ErrorMsg *err) {
    if (!s || !s->order) return error_set(err, "sampler: not initialised (call sampler_init)");
    if (sampler_settings_validate(set, err)) return -1;
    if (!logits || !rec) return error_set(err, "sampler: no logits or no record given");
    if (!(u >= 0.0 && u < 1.0)) /* also rejects NaN */
        return error_set(err, "sampler: draw u %.17g is outside [0, 1)", u);
    if (top_n < 0) return error_set(err, "sampler: top_n %d is negative", top_n);
    size_t V = (size_t)s->vocab_size;

    /* 1. Check the logits and rank them (logit descending, id ascending). */
    for (size_t i = 0; i < V; i++) {
        float x = logits[i];
        if (isnan(x)) return error_set(err, "sampler: logits[%zu] is NaN", i);
        if (isinf(x) && x > 0) return error_set(err, "sampler: logits[%zu] is +inf", i);
        if (x == 0.0f) x = 0.0f; /* -0 and +0 are the same logit: same key */
        s->keys[i] = key_descending(x);
        s->order[i] = (int)i;
    }
    radix_sort_desc(s->keys, s->order, s->keys_tmp, s->order_tmp, V);
    for (size_t r = 0; r < V; r++) s->logits_sorted[r] = logits[s->order[r]];
    if (isinf(s->logits_sorted[0]))
        return error_set(err, "sampler: every one of the %zu logits is -inf", V);

    memset(rec, 0, sizeof *rec);
    rec->settings = *set;
    rec->vocab_size = s->vocab_size;
    rec->u = u;
    rec->greedy = set->greedy || set->temperature == 0.0f;

    /* 2. The model's own distribution (T = 1) and its log-normaliser. */
    rec->logsumexp = sampler_apply_temperature(s->logits_sorted, V, 1.0f, s->p_raw);

    /* 3. Temperature, over the FULL vocabulary (never only over a top-k head: the
     * probabilities shown must be those of the whole distribution). Greedy skips it:
     * T = 0 would divide by zero, and argmax does not depend on T anyway. */
    const double *p_temp = s->p_raw;
    if (!rec->greedy && set->temperature != 1.0f) {
        sampler_apply_temperature(s->logits_sorted, V, set->temperature, s->p_temp);
        p_temp = s->p_temp;
    }

    /* 4. Cuts. Top-p sums p_temp inside the top-k set WITHOUT renormalising first
     * (one renormalisation at the end; HF transformers instead renormalises after
     * top-k, so with both active it can keep fewer tokens than this). Greedy keeps
     * exactly the top-ranked token. */
    size_t after_k, after_p;
    if (rec->greedy) {
        after_k = after_p = 1;
    } else {
        after_k = sampler_apply_top_k(V, set->top_k);
        after_p = sampler_apply_top_p(p_temp, after_k, set->top_p);
    }
    rec->kept_after_k = (int)after_k;
    rec->kept_after_p = (int)after_p;

    /* 5. Renormalise the kept head and pick. */
    rec->kept_mass = sampler_renormalise(p_temp, after_p, s->p_final);
    size_t pick = rec->greedy ? 0 : sampler_pick(s->p_final, after_p, u);

    /* 6. The record: rows 0..n-1, the chosen row (maybe further down), other mass. */
    size_t n = (size_t)top_n;
    if (n > SAMPLER_MAX_SHOW) n = SAMPLER_MAX_SHOW;
    if (n > V) n = V;
    rec->n = (int)n;
    size_t last = n > pick + 1 ? n : pick + 1;
    double cum = 0.0; /* same running sum as sampler_pick */
    for (size_t r = 0; r < last; r++) {
        if (r < n) fill_row(s, p_temp, r, after_p, cum, &rec->rows[r]);
        if (r == pick) fill_row(s, p_temp, r, after_p, cum, &rec->chosen);
        if (r < after_p) cum += s->p_final[r];
    }
    for (size_t r = n; r < V; r++) {
        rec->other_raw += s->p_raw[r];
        rec->other_temp += p_temp[r];
        if (r < after_p) {
            rec->other_cut += p_temp[r];
            rec->other_final += s->p_final[r];
        }
    }
    return 0;
}
