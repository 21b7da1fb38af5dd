/* sampler_draws.c — N rolls, their tally and Pearson's χ² (see sampler_draws.h). Each
 * roll is the same inverse-CDF pick sampler_run makes (sampler_pick_cum on the same
 * running sums), so roll k is exactly the token that u_k would choose there. */
#include "sampler_draws.h"

#include <math.h>
#include <string.h>

#include "chi2.h"
#include "rng.h"

/* Pearson's statistic with tail pooling (Cochran 1954: every expected count >= 5 for
 * the χ² approximation to hold). The final distribution is ranked, so expected counts
 * fall with the rank and the bins are a head of single tokens plus one pooled tail. */
static void pearson(const Sampler *s, int n, SamplerDraws *out) {
    size_t m = (size_t)s->n_final;
    double chi2 = 0.0, last_o = 0.0, last_e = 0.0, tail_o = 0.0, tail_e = 0.0;
    int bins = 0;
    for (size_t r = 0; r < m; r++) {
        double e = n * s->p_final[r], o = s->draw_counts[r];
        if (e >= SAMPLER_CHI2_MIN_EXPECTED) {
            if (bins) chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
            last_o = o;
            last_e = e;
            bins++;
        } else {
            tail_o += o;
            tail_e += e;
        }
    }
    if (tail_e > 0.0 && (tail_e >= SAMPLER_CHI2_MIN_EXPECTED || bins == 0)) {
        if (bins) chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
        last_o = tail_o;
        last_e = tail_e;
        bins++;
    } else if (tail_e > 0.0) { /* a thin tail joins the last single-token bin */
        last_o += tail_o;
        last_e += tail_e;
    }
    if (bins) chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
    out->chi2 = bins > 1 ? chi2 : 0.0; /* one bin: the count is n, exactly expected */
    out->n_bins = bins;
    out->dof = bins > 1 ? bins - 1 : 0;
    out->p_value = chi2_survival(out->chi2, out->dof);
}

int sampler_draw_many(Sampler *s, const SamplerRecord *rec, uint64_t seed, int pos,
                      uint32_t salt, int n, SamplerDraws *out, ErrorMsg *err) {
    if (!s || !s->order || !rec || !out) return error_set(err, "draws: no sampler, record or output");
    if (s->runs == 0 || rec->run != s->runs || rec->vocab_size != s->vocab_size)
        return error_set(err, "draws: the record is not the sampler's last run (run %llu, "
                         "sampler at %llu): run the sampler again first",
                         (unsigned long long)rec->run, (unsigned long long)s->runs);
    if (n < 1 || n > SAMPLER_MAX_DRAWS)
        return error_set(err, "draws: %d rolls is outside [1, %d]", n, SAMPLER_MAX_DRAWS);
    sampler_rank_all(s); /* the rolls may land anywhere in the distribution */
    memset(out, 0, sizeof *out);
    out->n = n;
    out->seed = seed;
    out->pos = pos;
    out->salt = salt;
    size_t m = (size_t)s->n_final;
    memset(s->draw_counts, 0, m * sizeof *s->draw_counts);
    for (int k = 0; k < n; k++) {
        /* greedy ignores the dice: its distribution is the one argmax token */
        size_t r = rec->greedy ? 0 : sampler_pick_cum(s->cum, m, rng_dice(seed, pos, salt + (uint32_t)k));
        if (k == 0) out->first_rank = (int)r;
        s->draw_counts[r]++;
    }
    double tv = 0.0;
    for (size_t r = 0; r < m; r++) {
        out->n_support += s->p_final[r] > 0.0;
        out->n_distinct += s->draw_counts[r] > 0;
        tv += fabs((double)s->draw_counts[r] / n - s->p_final[r]);
        if (r < (size_t)rec->n) out->row_counts[r] = s->draw_counts[r];
        else out->other_count += s->draw_counts[r];
    }
    s->drawn_run = s->runs;
    out->tv = 0.5 * tv; /* cut tokens have p = 0 and count 0: they add nothing */
    pearson(s, n, out);
    return 0;
}

int sampler_draws_list(const Sampler *s, SamplerDrawCount *out, int cap) {
    int k = 0;
    if (s->drawn_run != s->runs || s->runs == 0) return 0; /* no draws on this run yet */
    for (int r = 0; r < s->n_final; r++) {
        if (s->draw_counts[r] == 0) continue;
        if (k < cap) {
            out[k].id = s->order[r];
            out[k].rank = r;
            out[k].count = s->draw_counts[r];
            out[k].p = s->p_final[r];
        }
        k++;
    }
    return k;
}
