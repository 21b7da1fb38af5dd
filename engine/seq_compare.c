/* seq_compare.c — the columns of a side-by-side comparison (see seq_compare.h): one
 * prefill of the prompt, then per column the trace cut back to the prompt and N decode
 * steps, the sampler fed the same dice in every column. */
#include "seq_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2_forward.h"
#include "gpt2_trace.h"
#include "rng.h"
#include "sampler.h"

void seq_compare_free(SeqCompare *c) {
    if (!c) return;
    for (int i = 0; i < SEQ_COMPARE_MAX_COLS; i++) {
        free(c->col[i].ids);
        free(c->col[i].p_raw);
    }
    free(c->greedy_ids);
    free(c->prompt);
    memset(c, 0, sizeof *c);
}

/* Continues the prompt held in tr (n_prompt positions) by n tokens under set, writing
 * ids and p_raw; tr then holds the prompt and the first n - 1 of them (the logits rows
 * every token was drawn from). */
static int run_column(const Gpt2Model *m, Gpt2Trace *tr, Sampler *smp, SamplerRecord *rec, int n_prompt, int n,
                      const SamplerSettings *set, uint64_t seed, int *ids, double *p_raw, int *greedy,
                      ErrorMsg *err) {
    gpt2_trace_truncate(tr, n_prompt);
    *greedy = 1;
    for (int i = 0; i < n; i++) {
        int pos = n_prompt + i; /* where the chosen token goes: the session's dice index */
        const float *logits = gpt2_trace_logits(tr, pos - 1);
        if (!logits) return error_set(err, "compare: no logits at position %d", pos - 1);
        if (sampler_run(smp, set, logits, tr->ids, (size_t)pos, rng_dice(seed, pos, 0), 0, rec, err)) return -1;
        ids[i] = rec->chosen.id;
        p_raw[i] = rec->chosen.p_raw;
        if (!rec->greedy) *greedy = 0;
        /* the last token needs no forward pass: nothing is chosen after it */
        if (i + 1 < n && gpt2_step(m, tr, ids[i], err)) return -1;
    }
    return 0;
}

/* The n-gram counts and the divergence from greedy of one finished column. */
static int column_metrics(SeqCompareColumn *c, const SeqCompare *cmp, ErrorMsg *err) {
    for (int k = 1; k <= SEQ_MAX_NGRAM; k++)
        if (seq_ngrams(c->ids, (size_t)cmp->n_new, k, &c->ngrams[k - 1], err)) return -1;
    c->diverge = seq_first_divergence(c->ids, (size_t)cmp->n_new, cmp->greedy_ids, (size_t)cmp->n_new);
    return 0;
}

int seq_compare_run(const Gpt2Model *m, const Gpt2Ablation *ab, int n_vocab, const int *prompt, int n_prompt,
                    const char *const *specs, int n_cols, int n_new, uint64_t seed, SeqCompare *out,
                    ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    if (n_cols < SEQ_COMPARE_MIN_COLS || n_cols > SEQ_COMPARE_MAX_COLS)
        return error_set(err, "compare: give %d to %d settings, not %d", SEQ_COMPARE_MIN_COLS, SEQ_COMPARE_MAX_COLS,
                         n_cols);
    for (int i = 0; i < n_cols; i++) {
        SeqCompareColumn *c = &out->col[i];
        if (settings_spec_parse(specs[i], &c->settings, err)) return -1;
        snprintf(c->spec, sizeof c->spec, "%s", specs[i]);
    }
    out->n_cols = n_cols;
    const int NP = m->config.n_positions, V = m->config.vocab_size;
    if (n_new < 1 || n_new > SEQ_COMPARE_MAX_NEW)
        return error_set(err, "compare: %d new tokens is outside [1, %d]", n_new, SEQ_COMPARE_MAX_NEW);
    if (n_prompt < 1) return error_set(err, "compare: the prompt is empty");
    if (n_prompt > NP - n_new)
        return error_set(err, "compare: the prompt (%d tokens) and %d new tokens do not fit the context of %d",
                         n_prompt, n_new, NP);
    if (n_vocab < 1 || n_vocab > V) return error_set(err, "compare: vocabulary %d outside [1, %d]", n_vocab, V);
    out->n_new = n_new;
    out->seed = seed;
    out->n_prompt = n_prompt;
    out->prompt = malloc((size_t)n_prompt * sizeof *out->prompt);
    out->greedy_ids = malloc((size_t)n_new * sizeof *out->greedy_ids);
    if (!out->prompt || !out->greedy_ids) return error_set(err, "compare: out of memory");
    memcpy(out->prompt, prompt, (size_t)n_prompt * sizeof *prompt);
    for (int i = 0; i < n_cols; i++) {
        out->col[i].ids = malloc((size_t)n_new * sizeof *out->col[i].ids);
        out->col[i].p_raw = malloc((size_t)n_new * sizeof *out->col[i].p_raw);
        if (!out->col[i].ids || !out->col[i].p_raw) return error_set(err, "compare: out of memory");
    }

    /* logits at every position: the surprisal reads each column's rows after its run */
    Gpt2Trace tr = {0};
    Sampler smp = {0};
    SamplerRecord *rec = malloc(sizeof *rec);
    double *scratch_p = malloc((size_t)n_new * sizeof *scratch_p);
    float *rows = n_vocab < V ? malloc((size_t)n_new * (size_t)n_vocab * sizeof *rows) : NULL;
    int rc = -1;
    if (!rec || !scratch_p || (n_vocab < V && !rows)) {
        error_set(err, "compare: out of memory");
        goto done;
    }
    if (gpt2_trace_init(&tr, &m->config, n_prompt + n_new, GPT2_CAP_LOGITS, err)) goto done;
    if (ab && ab->n_off && gpt2_trace_set_ablation(&tr, ab, err)) goto done;
    if (sampler_init(&smp, n_vocab, err)) goto done;
    if (gpt2_prefill(m, &tr, prompt, (size_t)n_prompt, err)) goto done;

    /* the greedy reference first: every column's divergence is measured from it */
    SamplerSettings g = sampler_settings_default();
    g.greedy = 1;
    int is_greedy;
    if (run_column(m, &tr, &smp, rec, n_prompt, n_new, &g, seed, out->greedy_ids, scratch_p, &is_greedy, err))
        goto done;
    for (int i = 0; i < n_cols; i++) {
        SeqCompareColumn *c = &out->col[i];
        if (run_column(m, &tr, &smp, rec, n_prompt, n_new, &c->settings, seed, c->ids, c->p_raw, &c->greedy, err))
            goto done;
        /* rows n_prompt-1 .. n_prompt+n_new-2 are what the column's tokens were drawn from */
        const float *l0 = gpt2_trace_logits(&tr, n_prompt - 1);
        if (rows) /* a padded vocabulary: only the real tokens' logits */
            for (int r = 0; r < n_new; r++)
                memcpy(rows + (size_t)r * (size_t)n_vocab, l0 + (size_t)r * (size_t)V, (size_t)n_vocab * sizeof *rows);
        if (seq_mean_surprisal(rows ? rows : l0, (size_t)n_vocab, c->ids, (size_t)n_new, &c->mean_surprisal_bits, err))
            goto done;
        gpt2_trace_truncate(&tr, n_prompt);
        if (column_metrics(c, out, err)) goto done;
    }
    rc = 0;
done:
    sampler_free(&smp);
    gpt2_trace_free(&tr);
    free(rec);
    free(scratch_p);
    free(rows);
    return rc;
}
