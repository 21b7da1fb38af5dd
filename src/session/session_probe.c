/* session_probe.c — session_probe_step_ms: how long one step of this model takes here,
 * measured on the session's own trace (a few probe steps, each undone), for the status
 * line and the trace budget. The trace is left as it was, plus one redo row. */
#include <stdlib.h>

#include "gpt2_forward.h"
#include "session.h"
#include "session_internal.h"

double session_probe_step_ms(Session *s, int probes) {
    enum { MAX_PROBES = 15 };
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
    for (int i = 1; i < probes; i++) /* insertion sort: at most 15 values */
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[probes / 2];
}
