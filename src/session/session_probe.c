/* session_probe.c — session_probe_step_ms: how long one step of this model takes here,
 * measured on the session's own trace (a few probe steps, each undone), for the status
 * line and the trace budget. The trace is left as it was, plus one redo row. Also
 * session_probe_folder_ms: the same for a model folder the session has not opened. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "gpt2_forward.h"
#include "session.h"
#include "session_internal.h"

enum { MAX_PROBES = 15 };

/* The median of t[0..n), n <= MAX_PROBES (t is sorted in place). */
static double median_ms(double *t, int n) {
    for (int i = 1; i < n; i++) /* insertion sort: at most 15 values */
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[n / 2];
}

double session_probe_step_ms(Session *s, int probes) {
    int n = s->trace.n_pos;
    if (n <= 0 || n >= s->trace.max_pos || probes < 1) return -1.0;
    if (probes > MAX_PROBES) probes = MAX_PROBES;
    if (s->stale & 1) session_compute_next(s);
    int id = s->has_next ? s->next.rows[0].id : s->trace.ids[n - 1];
    double t[MAX_PROBES];
    ErrorMsg err;
    for (int i = 0; i < probes; i++) {
        double t0 = session_now_ms();
        if (gpt2_step(&s->model, &s->trace, id, &err)) return -1.0;
        t[i] = session_now_ms() - t0;
        gpt2_trace_truncate(&s->trace, n);
    }
    /* row n now holds the probe token: it is a redo row for it, later ones are not */
    if (n <= s->memo_len) s->memo_len = n + 1;
    session_picks_forget_after(s, n);
    return median_ms(t, probes);
}

double session_probe_folder_ms(const char *dir, const Gpt2Config *want, int probes) {
    enum { PROMPT = 4 };
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (probes < 1 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1.0;
    if (probes > MAX_PROBES) probes = MAX_PROBES;
    Gpt2Model m;
    Gpt2Trace tr = {0};
    ErrorMsg err;
    if (gpt2_model_load_as(&m, dir, GPT2_WEIGHTS_AS_STORED, &err)) return -1.0;
    const Gpt2Config *c = &m.config;
    int shape = c->n_layer == want->n_layer && c->n_head == want->n_head && c->n_embd == want->n_embd &&
                c->vocab_size == want->vocab_size;
    /* "The history of the" (ids below 50257): the prefill also reads every weight in once */
    const int ids[PROMPT] = {464, 2106, 286, 262};
    double t[MAX_PROBES], ms = -1.0;
    if (shape && gpt2_trace_init(&tr, c, 16, GPT2_CAP_DEFAULT, &err) == 0 && gpt2_prefill(&m, &tr, ids, PROMPT, &err) == 0) {
        int i = 0;
        for (; i < probes; i++) {
            double t0 = session_now_ms();
            if (gpt2_step(&m, &tr, ids[0], &err)) break;
            t[i] = session_now_ms() - t0;
            gpt2_trace_truncate(&tr, PROMPT);
        }
        if (i == probes) ms = median_ms(t, probes);
    }
    gpt2_trace_free(&tr);
    gpt2_model_free(&m);
    return ms;
}
