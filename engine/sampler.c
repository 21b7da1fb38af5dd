/* sampler.c — the chain: logits to next token through the stages in the settings'
 * order, each acting on the survivors of the one before (see sampler.h for the
 * contract). The survivors are always the ranks [0, m) of one permutation `order`,
 * ranked by the current logit; the logit-changing stages (penalties, temperature) write
 * a new array of unnormalised probabilities e = exp((z - max z) / T) over the survivors,
 * the cuts shrink m. Probabilities live in double: sums over 50257 terms of size ~2e-5
 * lose ~4 digits in float. Not here: the stage formulas (sampler_stages.c), settings
 * (settings.c, sampler_settings.c), random numbers (rng.h), anything about drawing. */
#include "sampler.h"
#include "free_all.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CUT_NONE 255 /* cut_at[id] of a token no stage cut */

void sampler_free(Sampler *s) {
    if (!s) return;
    FREE_ALL(s->order, s->order_tmp, s->keys, s->keys_tmp, s->cur);
    for (int i = 0; i < 4; i++) free(s->e[i]);
    FREE_ALL(s->cut_at, s->counts, s->pen_ids, s->pen_before, s->pen_after, s->p_final, s->cum, s->draw_counts);
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
    s->cur = malloc(V * sizeof *s->cur);
    int ok = s->order && s->order_tmp && s->keys && s->keys_tmp && s->cur;
    for (int i = 0; i < 4; i++) ok &= (s->e[i] = malloc(V * sizeof *s->e[i])) != NULL;
    s->cut_at = malloc(V);
    s->counts = calloc(V, sizeof *s->counts); /* zero between runs, see count_window */
    s->pen_ids = malloc(V * sizeof *s->pen_ids);
    s->pen_before = malloc(V * sizeof *s->pen_before);
    s->pen_after = malloc(V * sizeof *s->pen_after);
    s->p_final = malloc(V * sizeof *s->p_final);
    s->cum = malloc(V * sizeof *s->cum);
    s->draw_counts = malloc(V * sizeof *s->draw_counts);
    if (!ok || !s->cut_at || !s->counts || !s->pen_ids || !s->pen_before || !s->pen_after ||
        !s->p_final || !s->cum || !s->draw_counts) {
        sampler_free(s);
        return error_set(err, "sampler: out of memory for %d-token scratch", vocab_size);
    }
    return 0;
}

/* ---- Ranking ------------------------------------------------------------------ */

/* A uint64 whose unsigned order is the DESCENDING order of the double x. IEEE-754
 * doubles compare like sign-magnitude integers: flipping the sign bit of positives and
 * all bits of negatives gives an ascending unsigned key; inverting that gives a
 * descending one. -0 is mapped to +0 so that equal values get equal keys. */
static uint64_t key_descending(double x) {
    if (x == 0.0) x = 0.0;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint64_t ascending = (b & 0x8000000000000000u) ? ~b : (b | 0x8000000000000000u);
    return ~ascending;
}

/* LSD radix sort of (keys, ids), 8 bits per pass. Each pass is stable (a counting
 * sort), so tokens with equal keys stay in their incoming order — the caller passes ids
 * ascending, which is the tie rule "lower id first". A pass where every key has the
 * same digit would move nothing and is skipped: logits that are floats widened to
 * double have 29 zero low bits, so about 3 of the 8 passes go. O(n), branch-free in the
 * data, unlike qsort's O(n log n) with a call per comparison. */
static void radix_sort_desc(uint64_t *keys, int *ids, uint64_t *keys_tmp, int *ids_tmp,
                            size_t n) {
    uint64_t *k = keys, *kt = keys_tmp;
    int *d = ids, *dt = ids_tmp;
    for (unsigned shift = 0; shift < 64 && n > 1; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++) count[(k[i] >> shift) & 0xFFu]++;
        if (count[(k[0] >> shift) & 0xFFu] == n) continue;
        /* exclusive prefix sum: count[b] becomes the first output slot of digit b */
        size_t start = 0;
        for (size_t b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = start;
            start += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t slot = count[(k[i] >> shift) & 0xFFu]++;
            kt[slot] = k[i];
            dt[slot] = d[i];
        }
        uint64_t *tk = k; k = kt; kt = tk;
        int *ti = d; d = dt; dt = ti;
    }
    if (d != ids) memcpy(ids, d, n * sizeof *ids);
}

/* key_descending for a float: the same order on the same values, in 32 bits. */
static uint32_t key32_descending(float x) {
    if (x == 0.0f) x = 0.0f;
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    /* without a branch on the sign (half the logits are negative, in no pattern):
     * negatives flip every bit, positives the sign bit only */
    uint32_t flip = (uint32_t)-(int32_t)(b >> 31) | 0x80000000u;
    return ~(b ^ flip);
}

/* LSD radix sort of v[0..n) by their high 32 bits (a key32_descending; the id in the low
 * 32 bits keeps its incoming order among equal keys, as every pass is stable), 11 bits a
 * pass: 3 passes of 8 bytes a token where (double key, id) took 5 of 12, and the three
 * histograms counted in one read. A pass whose digit is the same for every value is
 * skipped. Returns v or tmp, whichever holds the result. */
static uint64_t *radix_sort_hi32(uint64_t *v, uint64_t *tmp, size_t n) {
    enum { BITS = 11, DIGITS = 1 << BITS, PASSES = 3 };
    static const unsigned SHIFT[PASSES] = {32, 32 + BITS, 32 + 2 * BITS};
    uint32_t count[PASSES][DIGITS];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        for (int p = 0; p < PASSES; p++) count[p][(x >> SHIFT[p]) & (DIGITS - 1)]++;
    }
    uint64_t *src = v, *dst = tmp;
    for (int p = 0; p < PASSES && n > 1; p++) {
        uint32_t *cnt = count[p];
        unsigned sh = SHIFT[p];
        if (cnt[(src[0] >> sh) & (DIGITS - 1)] == n) continue;
        uint32_t start = 0; /* exclusive prefix sum: the first output slot of each digit */
        for (size_t b = 0; b < DIGITS; b++) {
            uint32_t c = cnt[b];
            cnt[b] = start;
            start += c;
        }
        for (size_t i = 0; i < n; i++) dst[cnt[(src[i] >> sh) & (DIGITS - 1)]++] = src[i];
        uint64_t *t = src; src = dst; dst = t;
    }
    return src;
}

/* ---- The chain's state ------------------------------------------------------------ */

typedef struct Chain {
    size_t V, m;            /* vocabulary; survivors are order[0..m) */
    size_t ranked;          /* order[0..ranked) is the head of the ranking by cur; the
                             * survivors in order[ranked..m) rank below all of it and are
                             * in ascending id order (0: nothing ranked since cur changed) */
    size_t min_head;        /* the least a ranking ranks: the rows the record shows */
    double T;               /* temperature applied so far: the logit is cur / T */
    int buf;                /* s->e[buf] holds the survivors' unnormalised probabilities */
    double S;               /* their sum */
    double mx;              /* the max of cur over the survivors when e[buf] was written */
    double raw_S;           /* sum of e[0] = exp(logit - max logit): the raw softmax */
    int next_buf;           /* the e[] a logit-changing stage writes next */
    int full_buf;           /* an e[] over ALL V for the current logits, or -1 */
    double full_S;
    int pen_ran;            /* the penalties stage changed logits */
    int stage_buf[SAMPLER_N_STAGES + 1]; /* per recorded stage: its e[] and sum */
    double stage_S[SAMPLER_N_STAGES + 1];
} Chain;

/* The k-th smallest (0-based, k < n) of v[0..n) (not modified), by MSD radix select: at
 * each level a histogram of an 11-bit digit of the candidates finds the digit the k-th
 * has, and only the candidates with that digit go on, compacted into tmp (n entries).
 * Two passes with one predictable branch per key where a quickselect's partitions took an
 * unpredictable one per key and per round: on 50,257 logits with the draw in a peaked
 * distribution's head the quickselect was ~0.9 of a 2.1 ms sampler run (native; 2-core
 * Zen). The answer is a key of v, so the head it bounds is exactly the one before. */
static uint64_t select_kth(const uint64_t *v, size_t n, size_t k, uint64_t *tmp) {
    enum { BITS = 11, DIGITS = 1 << BITS };
    const uint64_t *src = v;
    /* shifts 53, 42, 31, 20, 9, 0: the last digit's top two bits are the same in every
     * candidate by then, so it orders them by bits 8..0 */
    for (int shift = 64 - BITS;; shift = shift > BITS ? shift - BITS : 0) {
        uint32_t count[DIGITS];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) count[(src[i] >> shift) & (DIGITS - 1)]++;
        size_t d = 0;
        while (k >= count[d]) k -= count[d++];
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (((src[i] >> shift) & (DIGITS - 1)) == d) tmp[m++] = src[i];
        if (shift == 0 || m == 1) return tmp[k]; /* every candidate left is equal, or one */
        src = tmp;
        n = m;
    }
}

/* Below this many survivors, or when the head wanted is more than an eighth of them,
 * ranking all of them costs about what selecting a head would. */
#define RANK_ALL_BELOW 4096
/* The head ranked before a draw (a draw from a peaked distribution lands in it; else the
 * rest is ranked too) and before a top-p or min-p cut is looked for in it. */
#define RANK_HEAD_DRAW 256
#define RANK_HEAD_CUT 1024

/* Ranks the survivors order[from..to), which are in ascending id order and rank below
 * every rank before `from` (what rank_head leaves after its head). */
static void sort_rest(Sampler *s, size_t from, size_t to) {
    size_t n = to - from;
    int *ids = s->order + from;
    if (s->cur_is_input) {
        for (size_t i = 0; i < n; i++)
            s->keys[i] = (uint64_t)key32_descending((float)s->cur[ids[i]]) << 32 | (uint32_t)ids[i];
        const uint64_t *v = radix_sort_hi32(s->keys, s->keys_tmp, n);
        for (size_t i = 0; i < n; i++) ids[i] = (int)(uint32_t)v[i];
        return;
    }
    for (size_t i = 0; i < n; i++) s->keys[i] = key_descending(s->cur[ids[i]]);
    radix_sort_desc(s->keys, ids, s->keys_tmp, s->order_tmp, n);
}

/* The sort key of token id (see Sampler.cur_is_input); a smaller key ranks first. */
static uint64_t rank_key(const Sampler *s, int id) {
    return s->cur_is_input ? (uint64_t)key32_descending((float)s->cur[id]) << 32 | (uint32_t)id
                           : key_descending(s->cur[id]);
}

/* 1 if key ranks at or above bar, ties of the logit included (a packed key's id does not
 * count: a head ends between two different logits). */
static int key_in_head(const Sampler *s, uint64_t key, uint64_t bar) {
    return s->cur_is_input ? key >> 32 <= bar >> 32 : key <= bar;
}

/* Makes order[0..want) (at least c->min_head, at most m) the head of the ranking by cur,
 * descending, ties by lower id. The survivors' ids are collected ascending (from cut_at);
 * then either all are radix-sorted, or the want-th key is selected (O(m)), the survivors
 * at or above it (ties included, so the head ends between two different keys) move to
 * the front, ids still ascending, and only they are sorted. The cut tail order[m..V) is
 * not touched. Sorting all of them was ~1 ms of a 3.8 ms step of the bundled model. */
static void rank_head(Sampler *s, Chain *c, size_t want) {
    if (want < c->min_head) want = c->min_head;
    if (want > c->m) want = c->m;
    if (want == 0 || c->ranked >= want) return;
    size_t k = 0;
    if (c->m == c->V) /* nothing cut: every id, without a test per id */
        for (k = 0; k < c->V; k++) s->order[k] = (int)k;
    else
        for (size_t id = 0; id < c->V; id++)
            if (s->cut_at[id] == CUT_NONE) s->order[k++] = (int)id;
    c->ranked = k; /* unless a head is selected below */
    if (k < RANK_ALL_BELOW || want > k / 8) {
        sort_rest(s, 0, k);
        return;
    }
    for (size_t i = 0; i < k; i++) s->keys[i] = rank_key(s, s->order[i]);
    const uint64_t bar = select_kth(s->keys, k, want - 1, s->keys_tmp);
    size_t h = 0; /* head: keys up to bar's logit (a smaller key is a larger logit) */
    for (size_t i = 0; i < k; i++)
        if (key_in_head(s, s->keys[i], bar)) s->order_tmp[h++] = s->order[i];
    for (size_t i = 0, t = h; i < k; i++)
        if (!key_in_head(s, s->keys[i], bar)) s->order_tmp[t++] = s->order[i];
    memcpy(s->order, s->order_tmp, k * sizeof *s->order);
    sort_rest(s, 0, h);
    c->ranked = h;
}

/* Ranks what the record and the draw u need: the head of c->min_head ranks (rank_head),
 * or every rank when u lies beyond anything that head can hold. Each survivor's p_final
 * is e / S <= 1 / S (the largest e is exp(0) = 1), so the head's cum stays below
 * min_head / S; on a flat distribution (random weights: u beyond the head at nearly every
 * step) finish_chain would then rank the rest after the head, and sorting all at once
 * skips selecting the head. The ranks are the same either way. One case differs: ties
 * of the head's last logit make rank_head's head longer than min_head, and if u lands in
 * that longer head, the head path leaves the ranks after it unranked (in id order); that
 * is rebuilt here, so the record's sums run in the same order as the head path's. */
static void rank_for_draw(Sampler *s, Chain *c, int greedy, double u) {
    size_t want = c->min_head < c->m ? c->min_head : c->m;
    int selects = c->ranked < want && c->m >= RANK_ALL_BELOW && want <= c->m / 8;
    if (greedy || !selects || !(u >= (double)want / c->S * (1.0 + 1e-9))) {
        rank_head(s, c, want);
        return;
    }
    rank_head(s, c, c->m);
    double bar = s->cur[s->order[want - 1]];
    size_t h = want;
    while (h < c->m && s->cur[s->order[h]] == bar) h++;
    if (h == want) return;
    const double *e = s->e[c->buf];
    double run = 0.0; /* cum[h - 1] as finish_chain sums it */
    for (size_t r = 0; r < h; r++) run += e[s->order[r]] / c->S;
    if (!(u < run)) return;
    for (size_t id = 0, t = h; id < c->V; id++)
        if (s->cut_at[id] == CUT_NONE && s->cur[id] < bar) s->order[t++] = (int)id;
    c->ranked = h;
}

/* sort_rest, then p_final and cum over those ranks: the running sum goes on from
 * cum[from-1], so the values are the ones one pass over all ranks gives. */
static void rank_rest(Sampler *s, size_t from, size_t to, const double *e, double S) {
    sort_rest(s, from, to);
    double run = from ? s->cum[from - 1] : 0.0;
    for (size_t r = from; r < to; r++) {
        s->p_final[r] = e[s->order[r]] / S;
        run += s->p_final[r];
        s->cum[r] = run;
    }
}

void sampler_rank_all(Sampler *s) {
    if (!s || s->runs == 0 || s->n_ranked >= s->n_final) return;
    rank_rest(s, (size_t)s->n_ranked, (size_t)s->n_final, s->e[s->final_buf], s->final_S);
    s->n_ranked = s->n_final;
}

/* e[b][id] = exp((cur - max) / T) over the survivors, max over the survivors (so the
 * largest term is 1 and nothing overflows); c->buf becomes b. */
static void softmax_survivors(Sampler *s, Chain *c, int b) {
    double *e = s->e[b], mx = -INFINITY, sum = 0.0;
    int all = c->m == c->V;
    for (size_t r = 0; r < c->m; r++) {
        size_t id = all ? r : (size_t)s->order[r];
        if (s->cur[id] > mx) mx = s->cur[id];
    }
    for (size_t r = 0; r < c->m; r++) {
        size_t id = all ? r : (size_t)s->order[r];
        /* (cur - max) / T: the old sampler's exact formula, so T alone gives the same
         * numbers as before; -inf stays -inf and exp gives exactly 0 */
        double x = exp((s->cur[id] - mx) / c->T);
        e[id] = x;
        sum += x;
    }
    c->buf = b;
    c->S = sum;
    c->mx = mx;
    if (all) {
        c->full_buf = b;
        c->full_S = sum;
    } else {
        c->full_buf = -1; /* the cut tokens' e would be stale */
    }
}

/* ---- Penalties ------------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Counts context[start..n_context) into s->counts (by id) and lists its distinct ids,
 * ascending, in s->pen_ids (count = 0: an empty window). The previous run's counts are
 * cleared first, so counts is all zero except for this window's ids. */
static void count_window(Sampler *s, const int *context, size_t start, size_t n_context) {
    for (int i = 0; i < s->n_pen; i++) s->counts[s->pen_ids[i]] = 0;
    s->n_pen = 0;
    for (size_t i = start; i < n_context; i++)
        if (s->counts[context[i]]++ == 0) s->pen_ids[s->n_pen++] = context[i];
    qsort(s->pen_ids, (size_t)s->n_pen, sizeof *s->pen_ids, cmp_int);
}

/* The penalties stage: every token of the window gets sampler_penalise applied to its
 * logit cur / T (so with penalties after temperature they act on logits / T, as in a
 * llama.cpp chain). Returns 0 if nothing changed. */
static int apply_penalties(Sampler *s, Chain *c, const SamplerSettings *set) {
    int changed = 0;
    for (int i = 0; i < s->n_pen; i++) {
        int id = s->pen_ids[i];
        double before = s->cur[id] / c->T;
        double after = sampler_penalise(before, s->counts[id], set);
        s->pen_before[i] = before;
        s->pen_after[i] = after;
        if (after != before) {
            s->cur[id] = c->T == 1.0 ? after : after * c->T;
            s->cur_is_input = 0;
            changed = 1;
        }
    }
    return changed;
}

/* Index of id in s->pen_ids, or -1. */
static int pen_index(const Sampler *s, int id) {
    const int *hit = bsearch(&id, s->pen_ids, (size_t)s->n_pen, sizeof id, cmp_int);
    return hit ? (int)(hit - s->pen_ids) : -1;
}

/* ---- One stage -------------------------------------------------------------------- */

/* Keeps the first `keep` survivors: marks the rest as cut by stage j, returns the
 * mass the kept ones held and makes their sum the new normaliser. */
static double cut_to(Sampler *s, Chain *c, size_t keep, int j) {
    const double *e = s->e[c->buf];
    double kept = 0.0;
    for (size_t r = 0; r < keep; r++) kept += e[s->order[r]];
    for (size_t r = keep; r < c->m; r++) s->cut_at[s->order[r]] = (uint8_t)j;
    double mass = kept / c->S;
    c->m = keep;
    if (c->ranked > keep) c->ranked = keep;
    c->S = kept;
    return mass;
}

/* Runs stage `st` as the j-th recorded stage. Cuts see the survivors ranked and their
 * distribution renormalised over them (s->p_final is the ranked scratch). */
static void run_stage(Sampler *s, Chain *c, const SamplerSettings *set, SamplerStage st,
                      int j, SamplerStageRecord *out) {
    out->stage = (uint8_t)st;
    out->active = (uint8_t)sampler_stage_active(set, st);
    out->mass_kept = 1.0;
    size_t keep = c->m;
    switch (st) {
    case SAMPLER_STAGE_PENALTIES:
        out->active = out->active && apply_penalties(s, c, set);
        if (out->active) {
            c->pen_ran = 1;
            c->ranked = 0;
            softmax_survivors(s, c, c->next_buf++);
        }
        break;
    case SAMPLER_STAGE_TEMPERATURE:
        if (out->active) {
            c->T = (double)set->temperature;
            softmax_survivors(s, c, c->next_buf++);
        }
        break;
    case SAMPLER_STAGE_TOP_K:
    case SAMPLER_STAGE_TOP_P:
    case SAMPLER_STAGE_MIN_P:
    case SAMPLER_STAGE_GREEDY:
        if (!out->active) break;
        if (st == SAMPLER_STAGE_TOP_K) {
            keep = sampler_apply_top_k(c->m, set->top_k);
            rank_head(s, c, keep);
        } else if (st == SAMPLER_STAGE_GREEDY) {
            keep = 1;
            rank_head(s, c, keep);
        } else {
            /* on the ranked head first: a cut inside it is the cut over all survivors
             * (both scan the same ranks in the same order); one at its end may not be,
             * so then the rest is ranked below the head and the scan runs again */
            rank_head(s, c, RANK_HEAD_CUT);
            for (size_t done = 0;;) {
                for (size_t r = done; r < c->ranked; r++) s->p_final[r] = s->e[c->buf][s->order[r]] / c->S;
                done = c->ranked;
                keep = st == SAMPLER_STAGE_TOP_P ? sampler_apply_top_p(s->p_final, c->ranked, set->top_p)
                                                 : sampler_apply_min_p(s->p_final, c->ranked, set->min_p);
                if (keep < c->ranked || c->ranked == c->m) break;
                sort_rest(s, c->ranked, c->m);
                c->ranked = c->m;
            }
        }
        out->mass_kept = cut_to(s, c, keep, j);
        break;
    case SAMPLER_STAGE_END: break;
    }
    out->kept = (int)c->m;
    c->stage_buf[j] = c->buf;
    c->stage_S[j] = c->S;
}

/* ---- The record ------------------------------------------------------------------- */

/* p_temp of token id: softmax over the whole vocabulary of the final logits. */
static double p_temp_of(const Sampler *s, const Chain *c, int id) {
    return s->e[c->full_buf][id] / c->full_S;
}

static void fill_row(const Sampler *s, const Chain *c, const float *logits, size_t r,
                     SamplerRow *row) {
    int id = s->order[r];
    row->id = id;
    row->rank = (int)r;
    row->logit = logits[id];
    int pi = c->pen_ran && s->counts[id] ? pen_index(s, id) : -1;
    row->penalty = pi >= 0 ? s->pen_after[pi] - s->pen_before[pi] : 0.0;
    row->p_raw = s->e[0][id] / c->raw_S;
    row->p_temp = p_temp_of(s, c, id);
    row->kept = r < c->m;
    row->cut_by = row->kept ? -1 : s->cut_at[id];
    row->p_cut = row->kept ? row->p_temp : 0.0;
    row->p_final = row->kept ? s->p_final[r] : 0.0;
    row->cum_lo = r == 0 ? 0.0 : s->cum[(r < c->m ? r : c->m) - 1];
    row->cum_hi = row->kept ? s->cum[r] : row->cum_lo;
}

/* rows, every stage's p per row, and the mass of everything not shown, summed
 * directly at every stage. */
static void fill_record(const Sampler *s, const Chain *c, const float *logits, size_t n,
                        size_t pick, SamplerRecord *rec) {
    rec->n = (int)n;
    for (size_t r = 0; r < n; r++) fill_row(s, c, logits, r, &rec->rows[r]);
    fill_row(s, c, logits, pick, &rec->chosen);
    for (int j = 0; j < rec->n_stages; j++) {
        const double *e = s->e[c->stage_buf[j]];
        for (size_t r = 0; r < n; r++) {
            int id = s->order[r];
            int alive = s->cut_at[id] == CUT_NONE || s->cut_at[id] > j;
            rec->stages[j].p[r] = alive ? e[id] / c->stage_S[j] : 0.0;
        }
    }
    double o_raw = 0.0, o_temp = 0.0, o_cut = 0.0, o_final = 0.0;
    const double *e_final = s->e[c->buf]; /* p_final of a survivor is e_final / S */
    /* finish_chain left p_final[r] = e_final[order[r]] / S for the ranked survivors: the
     * same division, read by rank instead of redone (and, when no cut came after the last
     * softmax, p_temp is that too). Each sum still adds the same terms in rank order. */
    size_t known = c->ranked < c->m ? c->ranked : c->m;
    int temp_is_final = c->full_buf == c->buf && c->full_S == c->S;
    /* A stage that cut nothing and wrote no new e[] sums the same terms as the one before
     * it (the first: as the raw sum): same_as[j] names that stage (-1: the raw sum), and
     * only the others are summed. Stages that change nothing (the default chain) then
     * cost no pass over the vocabulary. */
    int same_as[SAMPLER_N_STAGES + 1], n_sum = 0;
    int sum_j[SAMPLER_N_STAGES + 1]; /* the stages summed, ascending */
    for (int j = 0; j < rec->n_stages; j++) {
        int kept_before = j ? rec->stages[j - 1].kept : (int)c->V;
        int buf_before = j ? c->stage_buf[j - 1] : 0;
        same_as[j] = rec->stages[j].kept == kept_before && c->stage_buf[j] == buf_before ? j - 1 : j;
        if (same_as[j] == j) sum_j[n_sum++] = j;
    }
    double o_stage[SAMPLER_N_STAGES + 1] = {0};
    /* the kept mass sums p_temp over ranks [0, m) in rank order: the ranks before n here,
     * the rest in the loop below, so it costs no pass of its own */
    double kept_mass = 0.0;
    for (size_t r = 0; r < n && r < c->m; r++)
        kept_mass += r < known && temp_is_final ? s->p_final[r] : p_temp_of(s, c, s->order[r]);
    for (size_t r = n; r < c->V; r++) {
        int id = s->order[r];
        o_raw += s->e[0][id];
        double pf = r < known ? s->p_final[r] : e_final[id] / c->S;
        /* temp_is_final: p_temp_of is e[buf][id] / S, the same division as pf */
        double pt = temp_is_final ? pf : p_temp_of(s, c, id);
        o_temp += pt;
        if (r < c->m) {
            o_cut += pt;
            o_final += pf;
            kept_mass += pt;
        }
        if (n_sum == 0) continue;
        int last = s->cut_at[id] == CUT_NONE ? rec->n_stages : s->cut_at[id];
        for (int i = 0; i < n_sum && sum_j[i] < last; i++)
            o_stage[sum_j[i]] += s->e[c->stage_buf[sum_j[i]]][id];
    }
    rec->other_raw = o_raw / c->raw_S;
    rec->other_temp = o_temp;
    rec->other_cut = o_cut;
    rec->other_final = o_final;
    for (int j = 0; j < rec->n_stages; j++) {
        if (same_as[j] != j) o_stage[j] = same_as[j] < 0 ? o_raw : o_stage[same_as[j]];
        rec->stages[j].other = o_stage[j] / c->stage_S[j];
    }
    rec->kept_mass = kept_mass;
}

/* The penalised tokens into the record (the first SAMPLER_MAX_PENALISED by id). */
static void fill_penalties(const Sampler *s, const Chain *c, SamplerRecord *rec) {
    if (!c->pen_ran) return;
    rec->n_penalised_total = s->n_pen;
    rec->n_penalised = s->n_pen < SAMPLER_MAX_PENALISED ? s->n_pen : SAMPLER_MAX_PENALISED;
    for (int i = 0; i < rec->n_penalised; i++) {
        SamplerPenalty *p = &rec->penalised[i];
        p->id = s->pen_ids[i];
        p->count = s->counts[p->id];
        p->before = s->pen_before[i];
        p->after = s->pen_after[i];
    }
}

const SamplerPenalty *sampler_record_penalty(const SamplerRecord *rec, int id) {
    int lo = 0, hi = rec->n_penalised;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (rec->penalised[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < rec->n_penalised && rec->penalised[lo].id == id ? &rec->penalised[lo] : NULL;
}

/* ---- The pipeline ------------------------------------------------------------------ */

static int check_inputs(const Sampler *s, const SamplerSettings *set, const float *logits,
                        const int *context, size_t n_context, double u, int top_n,
                        const SamplerRecord *rec, ErrorMsg *err) {
    if (!s || !s->order) return error_set(err, "sampler: not initialised (call sampler_init)");
    if (sampler_settings_validate(set, err)) return -1;
    if (!logits || !rec) return error_set(err, "sampler: no logits or no record given");
    if (n_context && !context)
        return error_set(err, "sampler: %zu context tokens but no context given", n_context);
    if (!(u >= 0.0 && u < 1.0)) /* also rejects NaN */
        return error_set(err, "sampler: draw u %.17g is outside [0, 1)", u);
    if (top_n < 0) return error_set(err, "sampler: top_n %d is negative", top_n);
    size_t V = (size_t)s->vocab_size;
    for (size_t i = 0; i < n_context; i++)
        if (context[i] < 0 || (size_t)context[i] >= V)
            return error_set(err, "sampler: context[%zu] = %d is outside the vocabulary [0, %zu)",
                             i, context[i], V);
    /* one pass without a branch per logit (NaN fails x < inf, and so does +inf); the
     * offender is looked for only when there is one */
    int bad = 0, finite = 0;
    for (size_t i = 0; i < V; i++) {
        bad |= !(logits[i] < INFINITY);
        finite |= logits[i] > -INFINITY;
    }
    for (size_t i = 0; bad && i < V; i++) {
        if (isnan(logits[i])) return error_set(err, "sampler: logits[%zu] is NaN", i);
        if (isinf(logits[i]) && logits[i] > 0) return error_set(err, "sampler: logits[%zu] is +inf", i);
    }
    if (!finite) return error_set(err, "sampler: every one of the %zu logits is -inf", V);
    return 0;
}

/* The model's own distribution: cur = logits, e[0] = exp(l - max), everyone alive. */
static void chain_init(Sampler *s, Chain *c, const float *logits) {
    memset(c, 0, sizeof *c);
    c->V = c->m = (size_t)s->vocab_size;
    c->T = 1.0;
    for (size_t i = 0; i < c->V; i++) s->cur[i] = logits[i];
    s->cur_is_input = 1;
    memset(s->cut_at, CUT_NONE, c->V);
    softmax_survivors(s, c, 0);
    c->next_buf = 1;
    c->raw_S = c->S;
}

/* Runs the stages of the order (greedy: only the penalties, then the argmax) and
 * records them; the survivors' head is ranked at the end. */
static void run_chain(Sampler *s, Chain *c, const SamplerSettings *set, SamplerRecord *rec) {
    uint8_t order[SAMPLER_N_STAGES];
    int n_order = sampler_settings_order(set, order), j = 0, p_done = 0;
    rec->kept_after_k = (int)c->V;
    for (int i = 0; i < n_order; i++) {
        SamplerStage st = (SamplerStage)order[i];
        if (rec->greedy && st != SAMPLER_STAGE_PENALTIES) continue;
        run_stage(s, c, set, st, j, &rec->stages[j]);
        if (st == SAMPLER_STAGE_TOP_K) rec->kept_after_k = (int)c->m;
        if (st == SAMPLER_STAGE_TOP_P) rec->kept_after_p = (int)c->m, p_done = 1;
        j++;
    }
    if (rec->greedy) {
        run_stage(s, c, set, SAMPLER_STAGE_GREEDY, j, &rec->stages[j]);
        j++;
        rec->kept_after_k = rec->kept_after_p = 1;
    } else if (!p_done) {
        rec->kept_after_p = rec->kept_after_k;
    }
    rec->n_stages = j;
}

/* The final distribution over the ranked survivors and its running sums (the draw's
 * intervals), ranking the rest when the draw u lands beyond the head (a flat
 * distribution); then p_temp over the whole vocabulary if no stage left one. */
static void finish_chain(Sampler *s, Chain *c, int greedy, double u) {
    const double *e = s->e[c->buf];
    double run = 0.0;
    for (size_t r = 0; r < c->ranked; r++) {
        s->p_final[r] = e[s->order[r]] / c->S;
        run += s->p_final[r];
        s->cum[r] = run;
    }
    if (!greedy && c->ranked < c->m && !(u < s->cum[c->ranked - 1])) {
        rank_rest(s, c->ranked, c->m, e, c->S);
        c->ranked = c->m;
    }
    s->n_final = (int)c->m;
    s->n_ranked = (int)c->ranked;
    s->final_buf = c->buf;
    s->final_S = c->S;
    if (c->full_buf < 0) {
        Chain full = *c;
        full.m = full.V; /* every token, as a loop over ids */
        softmax_survivors(s, &full, 3);
        c->full_buf = 3;
        c->full_S = full.S;
    }
}

int sampler_run(Sampler *s, const SamplerSettings *set, const float *logits,
                const int *context, size_t n_context, double u, int top_n,
                SamplerRecord *rec, ErrorMsg *err) {
    if (check_inputs(s, set, logits, context, n_context, u, top_n, rec, err)) return -1;
    memset(rec, 0, sizeof *rec);
    rec->settings = *set;
    rec->vocab_size = s->vocab_size;
    rec->u = u;
    rec->greedy = set->greedy || set->temperature == 0.0f;

    /* The penalty window: counted only when the penalties stage is in the order and
     * would change something. */
    uint8_t order[SAMPLER_N_STAGES];
    int n_order = sampler_settings_order(set, order), has_pen = 0;
    for (int i = 0; i < n_order; i++) has_pen |= order[i] == SAMPLER_STAGE_PENALTIES;
    size_t start = 0;
    if (set->penalty_window > 0 && (size_t)set->penalty_window < n_context)
        start = n_context - (size_t)set->penalty_window;
    rec->n_context = (int)n_context;
    rec->window_start = (int)start;
    int counting = has_pen && sampler_stage_active(set, SAMPLER_STAGE_PENALTIES);
    count_window(s, context, start, counting ? n_context : start);

    size_t n = (size_t)top_n;
    if (n > SAMPLER_MAX_SHOW) n = SAMPLER_MAX_SHOW;
    if (n > (size_t)s->vocab_size) n = (size_t)s->vocab_size;
    Chain c;
    chain_init(s, &c, logits);
    /* the rows shown, and enough of a head that a draw from a peaked distribution lands
     * in it */
    c.min_head = n > RANK_HEAD_DRAW ? n : RANK_HEAD_DRAW;
    rec->logsumexp = c.mx + log(c.raw_S); /* log sum exp(l) = max + log sum exp(l - max) */
    run_chain(s, &c, set, rec);
    rank_for_draw(s, &c, rec->greedy, u);
    finish_chain(s, &c, rec->greedy, u);
    rec->n_kept = (int)c.m;
    size_t pick = rec->greedy ? 0 : sampler_pick_cum(s->cum, c.ranked, u);

    fill_record(s, &c, logits, n, pick, rec);
    fill_penalties(s, &c, rec);
    rec->run = ++s->runs;
    return 0;
}

int sampler_chain_is_plain(const SamplerRecord *r) {
    int cut = 0;
    for (int j = 0; j < r->n_stages; j++) {
        const SamplerStageRecord *st = &r->stages[j];
        if (!st->active) continue;
        if (st->stage == SAMPLER_STAGE_PENALTIES || st->stage == SAMPLER_STAGE_MIN_P) return 0;
        if (st->stage == SAMPLER_STAGE_TEMPERATURE && cut) return 0;
        if (st->stage == SAMPLER_STAGE_TOP_K || st->stage == SAMPLER_STAGE_TOP_P) cut = 1;
    }
    return 1;
}
