/* lesson_expect.c — measuring `expect` claims (see lesson_expect.h). Each measure
 * reads the same numbers the panels draw: the records (p_final = the bars after the
 * sampler), the trace's attention patterns, the token ids. */
#include "lesson_expect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_fill.h"
#include "frame_fill.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "text_marks.h"

/* s[0..n) as a quoted, escaped, length-limited string: " time" -> "\" time\"". */
static void quote_bytes(const uint8_t *s, size_t n, char *out, size_t cap) {
    size_t k = 0, lim = cap > 8 ? cap - 8 : 0;
    if (k < lim) out[k++] = '"';
    for (size_t i = 0; i < n && k < lim; i++) {
        uint8_t c = s[i];
        if (c == '\n') k += (size_t)snprintf(out + k, cap - k, "\\n");
        else if (c == '"' || c == '\\') k += (size_t)snprintf(out + k, cap - k, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
        else out[k++] = (char)c;
        if (k >= lim && i + 1 < n) k += (size_t)snprintf(out + k, cap - k, "...");
    }
    if (k < cap - 1) out[k++] = '"';
    out[k < cap ? k : cap - 1] = 0;
}

static void token_quote(const Session *s, int id, char *out, size_t cap) {
    size_t n = 0;
    const uint8_t *b = tok_token_bytes(&s->tok, id, &n);
    char q[96];
    quote_bytes(b ? b : (const uint8_t *)"", n, q, sizeof q);
    snprintf(out, cap, "%s (id %d)", q, id);
}

/* The token a claim names: #ID, or the token whose bytes are exactly TEXT. */
static int claim_token(const LessonDirective *d, const Session *s, int *id, ErrorMsg *err) {
    if (d->flag) {
        if (d->n >= s->model.config.vocab_size)
            return error_set(err, "#%ld: the vocabulary has only %d tokens", d->n, s->model.config.vocab_size);
        *id = (int)d->n;
        return 0;
    }
    *id = tok_lookup_bytes(&s->tok, (const uint8_t *)d->text, d->text_len);
    if (*id < 0) {
        char q[96];
        quote_bytes((const uint8_t *)d->text, d->text_len, q, sizeof q);
        return error_set(err, "no single token is exactly %s (mind the leading space; `inferscope tokenize`)", q);
    }
    return 0;
}

/* '=' holds within 1e-9 of the claim's scale: a measured number is a sum or a quotient
 * of floats (the top two bars of top-k 2 add up to 1 - 1.1e-16 with one order of
 * summation and to 1 with another), and a caption's number never has 9 digits. */
static int compare(double v, int cmp, double x) {
    switch (cmp) {
    case LCMP_GE: return v >= x;
    case LCMP_LE: return v <= x;
    case LCMP_GT: return v > x;
    case LCMP_LT: return v < x;
    case LCMP_EQ: return fabs(v - x) <= 1e-9 * fmax(1.0, fabs(x));
    default: return 0;
    }
}


/* 1 if token id has a bar of the pending draw (its p_final is the bar's number). */
static int has_bar(const Session *s, int id) {
    for (int i = 0; i < s->next.n; i++)
        if (s->next.rows[i].id == id) return 1;
    return 0;
}

/* p_final of token id in the pending draw: the bar's own number when it is shown,
 * else the same pipeline for that one token (rank by logit, cut, renormalised); the
 * caller refuses a token without a bar when the chain is not plain (sampler_chain_is_plain). */
static double final_prob(const Session *s, int id) {
    const SamplerRecord *r = &s->next;
    for (int i = 0; i < r->n; i++)
        if (r->rows[i].id == id) return r->rows[i].p_final;
    const float *lg = gpt2_trace_logits(&s->trace, session_len(s) - 1);
    int V = s->model.config.vocab_size;
    float li = lg[id];
    long rank = 0;
    float mx = lg[0];
    for (int v = 0; v < V; v++) {
        if (lg[v] > li || (lg[v] == li && v < id)) rank++;
        if (lg[v] > mx) mx = lg[v];
    }
    if (r->greedy) return rank == 0 ? 1.0 : 0.0;
    if (rank >= r->kept_after_p) return 0.0;
    double T = r->settings.temperature, sum = 0;
    for (int v = 0; v < V; v++) sum += exp(((double)lg[v] - mx) / T);
    return exp(((double)li - mx) / T) / sum / r->kept_mass;
}

double lesson_attention_mean(const Session *s, int layer, int head, int query_form) {
    Gpt2TraceView v;
    int T = session_len(s);
    if (T < 2 || gpt2_trace_get(&s->trace, GPT2_T_PATTERN, layer, &v, NULL)) return 0.0;
    double sum = 0;
    for (int i = 1; i < T; i++) sum += gpt2_view_at(&v, (size_t)head, (size_t)i, query_form == LATT_PREV ? (size_t)i - 1 : 0);
    return sum / (T - 1);
}

/* The longest run of generated tokens that occurs at two different places
 * (overlapping allowed): for every shift d, the longest stretch with g[i] == g[i+d]. */
static int longest_repeat(const int *g, int m, int *at) {
    int best = 0;
    *at = 0;
    for (int d = 1; d < m; d++) {
        int run = 0;
        for (int i = 0; i + d < m; i++) {
            run = g[i] == g[i + d] ? run + 1 : 0;
            if (run > best) { best = run; *at = i - run + 1; }
        }
    }
    return best;
}

static int measure_attention(const LessonDirective *d, const Session *s, char *out, size_t cap, ErrorMsg *err) {
    const Gpt2Config *c = &s->model.config;
    int L = (int)d->arg[0], H = (int)d->arg[1], T = session_len(s);
    if (L >= c->n_layer) return error_set(err, "layer %d does not exist: the model has %d layers (0-%d)", L, c->n_layer, c->n_layer - 1);
    if (H >= c->n_head) return error_set(err, "head %d does not exist: the model has %d heads per layer (0-%d)", H, c->n_head, c->n_head - 1);
    if (d->arg[2] >= 0) {
        if (d->arg[2] >= T || d->arg[3] >= T) return error_set(err, "there are only %d tokens (positions 0-%d)", T, T - 1);
        Gpt2TraceView v;
        if (gpt2_trace_get(&s->trace, GPT2_T_PATTERN, L, &v, err)) return -1;
        double w = gpt2_view_at(&v, (size_t)H, (size_t)d->arg[2], (size_t)d->arg[3]);
        snprintf(out, cap, "%.4f", w);
        return compare(w, d->cmp, d->x);
    }
    if (T < 2) return error_set(err, "the mean over rows 1..T-1 needs at least 2 tokens");
    double m = lesson_attention_mean(s, L, H, (int)d->arg[2]);
    if (d->cmp != LCMP_STRONGEST) {
        snprintf(out, cap, "mean %.4f over %d rows", m, T - 1);
        return compare(m, d->cmp, d->x);
    }
    int bl = 0, bh = 0;
    double best = -1;
    for (int l = 0; l < c->n_layer; l++)
        for (int h = 0; h < c->n_head; h++) {
            double x = lesson_attention_mean(s, l, h, (int)d->arg[2]);
            if (x > best) { best = x; bl = l; bh = h; }
        }
    snprintf(out, cap, "L%dH%d %.4f; the strongest is L%dH%d %.4f", L, H, m, bl, bh, best);
    return bl == L && bh == H;
}

/* `expect head L.H best PATTERN | L.H PATTERN OP X`: the scores of `inferscope heads` and the
 * heads panel (engine/head_scores on the fixed probe, measured once per session by attn_fill). */
static int measure_head(const LessonDirective *d, Session *s, char *out, size_t cap, ErrorMsg *err) {
    const Gpt2Config *c = &s->model.config;
    int L = (int)d->arg[0], H = (int)d->arg[1];
    HeadPattern k = (HeadPattern)d->arg[2];
    if (L >= c->n_layer) return error_set(err, "layer %d does not exist: the model has %d layers (0-%d)", L, c->n_layer, c->n_layer - 1);
    if (H >= c->n_head) return error_set(err, "head %d does not exist: the model has %d heads per layer (0-%d)", H, c->n_head, c->n_head - 1);
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.view = frame_default_view();
    attn_fill(&f, s, VIZ_NEEDS_HEADS);
    if (!f.heads) return error_set(err, "%s", f.attn_missing && f.attn_missing[0] ? f.attn_missing : "no head scores");
    double v = *head_score_at(f.heads->scores, k, L, H);
    int bl = f.heads->best_layer[k], bh = f.heads->best_head[k];
    double best = *head_score_at(f.heads->scores, k, bl, bh);
    snprintf(out, cap, "%s of L%dH%d %.3f; the best is L%dH%d %.3f (chance %.3f)", HEAD_PATTERNS[k].key, L, H, v, bl, bh,
             best, f.heads->chance[k]);
    if (d->cmp == LCMP_STRONGEST) return bl == L && bh == H;
    return compare(v, d->cmp, d->x);
}

/* `expect seen [run|count] OP X`: the share, longest run or count the Text panel's header
 * and `inferscope novelty` show. */
static int measure_seen(const LessonDirective *d, Session *s, char *out, size_t cap, ErrorMsg *err) {
    NgramSummary sum;
    const char *why = NULL;
    if (!text_marks_seen(s->marks, s, &sum, &why)) return error_set(err, "%s", why ? why : "no seen marks");
    snprintf(out, cap, "%.4f (%zu of %zu %stokens seen; longest run %zu)", sum.seen_share, sum.n_seen,
             sum.n_tokens, session_len(s) > s->n_prompt ? "generated " : "", sum.longest_run);
    if (d->arg[0] == LSEEN_RUN) return compare((double)sum.longest_run, d->cmp, d->x);
    if (d->arg[0] == LSEEN_COUNT) return compare((double)sum.n_seen, d->cmp, d->x);
    return compare(sum.seen_share, d->cmp, d->x);
}

/* `expect surprisal POS|max|mean OP X`: the bits the Text panel colours by. */
static int measure_surprisal(const LessonDirective *d, Session *s, char *out, size_t cap, ErrorMsg *err) {
    const TokenStat *st = text_marks_stats(s->marks, s);
    int n = session_len(s);
    if (!st) return error_set(err, "the per-token numbers cannot be computed (unusable logits)");
    long pos = d->arg[0];
    if (pos >= 0) {
        if (pos >= n) return error_set(err, "there are only %d tokens (positions 0-%d)", n, n - 1);
        char lab[128];
        token_quote(s, session_ids(s)[pos], lab, sizeof lab);
        snprintf(out, cap, "%.4f bits for %s (p %.6g, rank %d)", st[pos].surprisal_bits, lab, st[pos].p, st[pos].rank);
        return compare(st[pos].surprisal_bits, d->cmp, d->x);
    }
    int from = n > s->n_prompt ? s->n_prompt : 1;
    if (from < 1) from = 1;
    if (from >= n) return error_set(err, "no token after the first one yet");
    double mx = -1, sum = 0;
    int at = from;
    for (int i = from; i < n; i++) {
        sum += st[i].surprisal_bits;
        if (st[i].surprisal_bits > mx) { mx = st[i].surprisal_bits; at = i; }
    }
    double mean = sum / (n - from), v = pos == LSUR_MAX ? mx : mean;
    char lab[128];
    token_quote(s, session_ids(s)[at], lab, sizeof lab);
    snprintf(out, cap, "max %.4f bits (%s at %d), mean %.4f bits over %d %stokens", mx, lab, at, mean, n - from,
             n > s->n_prompt ? "generated " : "");
    return compare(v, d->cmp, d->x);
}

/* `expect lens TEXT DEPTH OP RANK`: the lens panel's rank of TEXT at the newest position. */
static int measure_lens(const LessonDirective *d, Session *s, char *out, size_t cap, ErrorMsg *err) {
    int id, L = s->model.config.n_layer, n = session_len(s);
    if (claim_token(d, s, &id, err)) return -1;
    if (d->arg[0] > L) return error_set(err, "depth %ld does not exist: the lens has depths 0 (embeddings) .. %d (output)", d->arg[0], L);
    LogitLens lens = {0};
    LensRow *rows = calloc((size_t)L + 1, sizeof *rows);
    int rc = -1;
    if (!rows) error_set(err, "out of memory");
    else if (logit_lens_init(&lens, &s->model.config, session_vocab(s), err) == 0 &&
             logit_lens_at(&lens, &s->model, &s->trace, n - 1, id, 0, 1, rows, err) == L + 1) {
        const TokenStat *t = &rows[d->arg[0]].target;
        char lab[128];
        token_quote(s, id, lab, sizeof lab);
        snprintf(out, cap, "rank %d (p %.4g) for %s at depth %ld", t->rank, t->p, lab, d->arg[0]);
        rc = compare(t->rank, d->cmp, d->x);
    }
    logit_lens_free(&lens);
    free(rows);
    return rc;
}

/* `expect attribution PART OP X`: the attribution panel's bar of PART (the pending pick),
 * or its total (`total`: the logit, or the difference with the view's contrast token). */
static int measure_attribution(const LessonDirective *d, Session *s, const VizView *view, char *out, size_t cap,
                               ErrorMsg *err) {
    if (!s->has_next) return error_set(err, "there is no pending pick (the context is full)");
    Attribution a = {0};
    int rc = -1, target = s->next.chosen.id, vs = view ? viz_view_attr_vs(view) : -1;
    if (vs == target || vs >= session_vocab(s)) vs = -1; /* as the panel: the pick's logit alone */
    if (attribution_init(&a, &s->model.config, err) == 0 &&
        attribution_run(&a, &s->model, &s->trace, session_len(s) - 1, target, vs, err) == 0) {
        int k = -1, total = strcmp(d->text, "total") == 0;
        for (int i = 0; i < a.n; i++)
            if (strcmp(a.comp[i].name, d->text) == 0) k = i;
        char lab[128], of[300];
        token_quote(s, a.target, lab, sizeof lab);
        if (vs >= 0) {
            char vl[128];
            token_quote(s, vs, vl, sizeof vl);
            snprintf(of, sizeof of, "logit(%s) - logit(%s) = %.4f", lab, vl, a.total);
        } else {
            snprintf(of, sizeof of, "the logit %.4f of %s", a.total, lab);
        }
        if (total) {
            snprintf(out, cap, "%s", of);
            rc = compare(a.total, d->cmp, d->x);
        } else if (k < 0) {
            error_set(err, "'%s' is no part of this model (embed, L0H0 .. L%dH%d, L0.mlp .. L%d.mlp, bias, total)",
                      d->text, s->model.config.n_layer - 1, s->model.config.n_head - 1, s->model.config.n_layer - 1);
        } else {
            snprintf(out, cap, "%s adds %+.4f to %s", d->text, a.comp[k].value, of);
            rc = compare(a.comp[k].value, d->cmp, d->x);
        }
    }
    attribution_free(&a);
    return rc;
}

int lesson_expect_measure(const LessonDirective *d, Session *s, const VizView *view, char *out, size_t cap,
                          ErrorMsg *err) {
    session_sync_records(s);
    int id = 0, n = session_len(s), np = s->n_prompt;
    char lab[128];
    switch ((LessonExpect)d->kind) {
    case LEXP_NEXT: case LEXP_PROB:
        if (claim_token(d, s, &id, err)) return -1;
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        if (d->kind == LEXP_NEXT) {
            token_quote(s, s->next.rows[0].id, out, cap);
            return s->next.rows[0].id == id;
        } else {
            if (!has_bar(s, id) && !sampler_chain_is_plain(&s->next))
                return error_set(err, "only the %d bars' probabilities are measured when penalties, min-p or a "
                                      "temperature after the cuts are on", s->next.n);
            double p = final_prob(s, id);
            token_quote(s, id, lab, sizeof lab);
            snprintf(out, cap, "%.6g for %s", p, lab);
            return compare(p, d->cmp, d->x);
        }
    case LEXP_CHOSEN:
        if (claim_token(d, s, &id, err)) return -1;
        if (n <= np) return error_set(err, "no token has been generated after the prompt yet");
        token_quote(s, session_ids(s)[n - 1], out, cap);
        return session_ids(s)[n - 1] == id;
    case LEXP_PICK:
        if (claim_token(d, s, &id, err)) return -1;
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        token_quote(s, s->next.chosen.id, out, cap);
        return s->next.chosen.id == id;
    case LEXP_TOP: {
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        if (d->n > s->next.n) return error_set(err, "only %d bars are kept", s->next.n);
        double sum = 0;
        for (long i = 0; i < d->n; i++) sum += s->next.rows[i].p_final;
        snprintf(out, cap, "%.6g", sum);
        return compare(sum, d->cmp, d->x);
    }
    case LEXP_IDS: {
        TokEncoding enc = {0};
        if (tok_encode(&s->tok, (const uint8_t *)d->text, d->text_len, NULL, &enc, err)) return -1;
        size_t k = 0;
        out[0] = 0;
        for (size_t i = 0; i < enc.n_ids && k + 12 < cap; i++)
            k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? "," : "", enc.ids[i]);
        int ok = enc.n_ids == d->n_ids;
        for (size_t i = 0; ok && i < enc.n_ids; i++) ok = enc.ids[i] == d->ids[i];
        tok_encoding_free(&enc);
        return ok;
    }
    case LEXP_TOKEN:
        if (claim_token(d, s, &id, err)) return -1;
        if (d->arg[0] >= n) return error_set(err, "there are only %d tokens (positions 0-%d)", n, n - 1);
        token_quote(s, session_ids(s)[d->arg[0]], out, cap);
        return session_ids(s)[d->arg[0]] == id;
    case LEXP_TEXT: {
        uint8_t *t = NULL;
        size_t tl = 0;
        if (session_text(s, np, n, &t, &tl, err)) return -1;
        quote_bytes(t, tl, out, cap);
        int ok = tl == d->text_len && memcmp(t, d->text, tl) == 0;
        free(t);
        return ok;
    }
    case LEXP_TOKENS: {
        TokEncoding enc = {0};
        if (tok_encode(&s->tok, (const uint8_t *)d->text, d->text_len, NULL, &enc, err)) return -1;
        size_t k = (size_t)snprintf(out, cap, "%zu token%s:", enc.n_ids, enc.n_ids == 1 ? "" : "s");
        for (size_t i = 0; i < enc.n_ids && k + 40 < cap; i++) {
            size_t bl = 0;
            const uint8_t *b = tok_token_bytes(&s->tok, enc.ids[i], &bl);
            quote_bytes(b, bl, lab, 40);
            k += (size_t)snprintf(out + k, cap - k, " %s=%d", lab, enc.ids[i]);
        }
        int ok = compare((double)enc.n_ids, d->cmp, d->x);
        tok_encoding_free(&enc);
        return ok;
    }
    case LEXP_KEPT:
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        /* after the whole chain, in its order (min-p and a temperature after the cuts too) */
        snprintf(out, cap, "%d tokens", s->next.n_kept);
        return compare(s->next.n_kept, d->cmp, d->x);
    case LEXP_REPEATS: {
        int at = 0, best = longest_repeat(session_ids(s) + np, n - np, &at);
        uint8_t *t = NULL;
        size_t tl = 0;
        lab[0] = 0;
        if (best > 0 && session_text(s, np + at, np + at + best, &t, &tl, err) == 0) quote_bytes(t, tl, lab, 100);
        free(t);
        snprintf(out, cap, "the longest run that occurs twice is %d token%s %s", best, best == 1 ? "" : "s", lab);
        return compare(best, d->cmp, d->x);
    }
    case LEXP_ATTENTION: return measure_attention(d, s, out, cap, err);
    case LEXP_SEEN: return measure_seen(d, s, out, cap, err);
    case LEXP_SURPRISAL: return measure_surprisal(d, s, out, cap, err);
    case LEXP_LENS: return measure_lens(d, s, out, cap, err);
    case LEXP_ATTRIBUTION: return measure_attribution(d, s, view, out, cap, err);
    case LEXP_HEAD: return measure_head(d, s, out, cap, err);
    case LEXP_COMPARE: {
        if (!session_compare_current(s))
            return error_set(err, "no settings side by side for this prompt: put a 'compare' line before it");
        const SeqCompare *c = &s->cmp.result;
        if (d->arg[0] > c->n_cols) return error_set(err, "compare has %d columns", c->n_cols);
        const SeqCompareColumn *col = &c->col[d->arg[0] - 1];
        double v = d->arg[1] == 0   ? (double)col->ngrams[1].repeated
                   : d->arg[1] == 1 ? (double)col->ngrams[2].repeated
                   : d->arg[1] == 2 ? col->ngrams[1].distinct_ratio
                   : d->arg[1] == 3 ? col->mean_surprisal_bits
                                    : (double)col->diverge;
        snprintf(out, cap, "%.6g in column %ld (%s)", v, d->arg[0], col->spec);
        return compare(v, d->cmp, d->x);
    }
    case LEXP_PENALTY: {
        if (claim_token(d, s, &id, err)) return -1;
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        const SamplerPenalty *pen = sampler_record_penalty(&s->next, id);
        token_quote(s, id, lab, sizeof lab);
        double delta = pen ? pen->after - pen->before : 0.0;
        snprintf(out, cap, "%.6g for %s (%s)", delta, lab, pen ? "penalised" : "not penalised");
        return compare(delta, d->cmp, d->x);
    }
    case LEXP_DRAWS: case LEXP_CHI2: {
        if (!s->has_next) return error_set(err, "there is no next-token distribution (the context is full)");
        if (!s->has_draws) return error_set(err, "no rolls to count: put a 'draws N' line before it");
        const SamplerDraws *dr = &s->draws;
        if (d->kind == LEXP_CHI2) {
            double v = d->arg[0] ? dr->p_value : dr->chi2;
            snprintf(out, cap, "chi2 = %.6g, dof %d, p = %.6g (%d rolls)", dr->chi2, dr->dof, dr->p_value, dr->n);
            return compare(v, d->cmp, d->x);
        }
        if (claim_token(d, s, &id, err)) return -1;
        for (int i = 0; i < s->next.n; i++)
            if (s->next.rows[i].id == id) {
                token_quote(s, id, lab, sizeof lab);
                snprintf(out, cap, "%d of %d rolls for %s (p_final %.4g)", dr->row_counts[i], dr->n, lab,
                         s->next.rows[i].p_final);
                return compare(dr->row_counts[i], d->cmp, d->x);
            }
        return error_set(err, "only the %d bars' tokens are counted", s->next.n);
    }
    case LEXP_COUNT: break;
    }
    return error_set(err, "unknown claim");
}

int lesson_expect_check(const Lesson *l, const LessonDirective *d, Session *s, const VizView *view, ErrorMsg *err) {
    char measured[300];
    ErrorMsg e;
    measured[0] = 0;
    int r = lesson_expect_measure(d, s, view, measured, sizeof measured, &e);
    if (r == 1) return 0;
    if (r < 0) return error_set(err, "%s:%d: expect %.150s: %.300s", l->path, d->line, d->claim, e.text);
    return error_set(err, "%s:%d: expect failed: %.150s (measured: %.300s)", l->path, d->line, d->claim, measured);
}
