/* session_compare.h — a Session's settings side by side: which specs the compare panel
 * and `export --compare` show (the default set greedy / T=0.7 / top-k=40 /
 * top-p=0.9,T=1.5, a lesson's `compare` directive, --compare), and the columns computed
 * for the session's prompt, seed and ablation (engine/seq_compare.h does the work on
 * its own trace: the screen, branches and dice are untouched). The window computes it
 * as a job (app_jobs.c), the exporter and the lesson runner inline; frame_fill hands a
 * current result to the panel. Not the drawing (viz/panel_compare.c). */
#ifndef SESSION_COMPARE_H
#define SESSION_COMPARE_H

#include "error.h"
#include "seq_compare.h"

#define SESSION_COMPARE_DEFAULT_NEW 40 /* tokens per column unless asked otherwise */

typedef struct SessionCompare {
    char spec[SEQ_COMPARE_MAX_COLS][SETTINGS_SPEC_MAX + 1]; /* asked for (n_specs 0 = the default set) */
    int n_specs;
    int n_new;            /* tokens per column asked for (0 = SESSION_COMPARE_DEFAULT_NEW) */
    SeqCompare result;    /* owned: the columns last computed */
    int valid;            /* result was computed for these specs and n_new ... */
    char ablate[256];     /* ... under this ablation (gpt2_ablation_format; "" = none) */
    ErrorMsg err;         /* why the last computation failed (failed = 1) */
    int failed;
} SessionCompare;

struct Session;

/* The specs in use (the default set when none were asked for) into specs[0..*n), and
 * the tokens per column. The pointers live as long as the session's settings. */
void session_compare_specs(const struct Session *s, const char *specs[SEQ_COMPARE_MAX_COLS], int *n, int *n_new);

/* Asks for specs[0..n) (2..4, each checked by settings_spec_parse; n 0 = the default set)
 * and n_new tokens per column (0 = default, else 1..SEQ_COMPARE_MAX_NEW). The result is
 * computed by the next session_compare_update. On error (naming the spec) nothing changes. */
int session_compare_set(struct Session *s, const char *const *specs, int n, int n_new, ErrorMsg *err);

/* 1 when s->cmp.result holds the columns of the current prompt, seed and ablation. */
int session_compare_current(const struct Session *s);

/* Computes the columns unless they are current (a forward pass per token and column:
 * the window runs it as a job). The tokens per column are cut to the room left in the
 * context. Returns 0, or -1 with err (also kept in s->cmp.err with failed = 1). */
int session_compare_update(struct Session *s, ErrorMsg *err);

/* Frees the result; safe on a zeroed struct. */
void session_compare_free(SessionCompare *c);

#endif
