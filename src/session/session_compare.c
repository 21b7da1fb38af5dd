/* session_compare.c — the compare columns of a Session (see session_compare.h). */
#include "session_compare.h"

#include <stdio.h>
#include <string.h>

#include "session.h"

/* The set the compare panel starts with: the seed's four regimes from "safe but
 * repetitive" to "creative". */
static const char *const DEFAULT_SPECS[] = {"greedy", "T=0.7", "top-k=40", "top-p=0.9,T=1.5"};
#define N_DEFAULT ((int)(sizeof DEFAULT_SPECS / sizeof DEFAULT_SPECS[0]))

void session_compare_specs(const Session *s, const char *specs[SEQ_COMPARE_MAX_COLS], int *n, int *n_new) {
    const SessionCompare *c = &s->cmp;
    *n = c->n_specs ? c->n_specs : N_DEFAULT;
    for (int i = 0; i < *n; i++) specs[i] = c->n_specs ? c->spec[i] : DEFAULT_SPECS[i];
    *n_new = c->n_new ? c->n_new : SESSION_COMPARE_DEFAULT_NEW;
}

void session_compare_free(SessionCompare *c) {
    if (!c) return;
    seq_compare_free(&c->result);
    c->valid = 0;
}

int session_compare_set(Session *s, const char *const *specs, int n, int n_new, ErrorMsg *err) {
    if (n != 0 && (n < SEQ_COMPARE_MIN_COLS || n > SEQ_COMPARE_MAX_COLS))
        return error_set(err, "compare: give %d to %d settings, not %d", SEQ_COMPARE_MIN_COLS, SEQ_COMPARE_MAX_COLS, n);
    if (n_new < 0 || n_new > SEQ_COMPARE_MAX_NEW)
        return error_set(err, "compare: %d tokens per column is outside [1, %d]", n_new, SEQ_COMPARE_MAX_NEW);
    for (int i = 0; i < n; i++) {
        SamplerSettings set;
        if (settings_spec_parse(specs[i], &set, err)) return -1;
    }
    SessionCompare *c = &s->cmp;
    for (int i = 0; i < n; i++) snprintf(c->spec[i], sizeof c->spec[i], "%s", specs[i]);
    c->n_specs = n;
    c->n_new = n_new;
    c->failed = 0;
    session_compare_free(c);
    return 0;
}

/* The tokens per column that fit after the prompt. */
static int room_for(const Session *s, int n_new) {
    int room = s->model.config.n_positions - s->n_prompt;
    return n_new < room ? n_new : room;
}

int session_compare_current(const Session *s) {
    const SessionCompare *c = &s->cmp;
    const SeqCompare *r = &c->result;
    if (!c->valid || r->n_prompt != s->n_prompt || r->seed != s->seed || s->n_prompt <= 0) return 0;
    if (memcmp(r->prompt, session_ids(s), (size_t)s->n_prompt * sizeof *r->prompt) != 0) return 0;
    const char *specs[SEQ_COMPARE_MAX_COLS];
    int n, n_new;
    session_compare_specs(s, specs, &n, &n_new);
    if (r->n_cols != n || r->n_new != room_for(s, n_new)) return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(r->col[i].spec, specs[i]) != 0) return 0;
    char ab[sizeof c->ablate];
    gpt2_ablation_format(&s->trace.ablation, ab, sizeof ab);
    return strcmp(ab, c->ablate) == 0;
}

int session_compare_update(Session *s, ErrorMsg *err) {
    if (session_compare_current(s)) return 0;
    SessionCompare *c = &s->cmp;
    session_compare_free(c);
    c->failed = 1;
    const char *specs[SEQ_COMPARE_MAX_COLS];
    int n, n_new;
    session_compare_specs(s, specs, &n, &n_new);
    int k = room_for(s, n_new);
    if (s->n_prompt <= 0) error_set(&c->err, "compare: no prompt yet");
    else if (k < 1) error_set(&c->err, "compare: the prompt (%d tokens) fills the context: nothing to continue", s->n_prompt);
    else if (seq_compare_run(&s->model, &s->trace.ablation, session_vocab(s), session_ids(s), s->n_prompt, specs, n, k,
                             s->seed, &c->result, &c->err) == 0)
        c->failed = 0;
    if (c->failed) {
        seq_compare_free(&c->result);
        if (err) *err = c->err;
        return -1;
    }
    gpt2_ablation_format(&s->trace.ablation, c->ablate, sizeof c->ablate);
    c->valid = 1;
    return 0;
}
