/* session_ablation.c — switching parts of the model off in a running session
 * (session_set_ablation): the trace is re-run under the new mask, or, when the original
 * model is tracked, the untouched trace is kept beside it for the comparison and becomes
 * the trace again when everything is switched back on (bit for bit: no recompute). Not
 * the mask itself (engine/gpt2_ablation.c). */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "gpt2_forward.h"
#include "session_internal.h"

/* The redo memory after the mask changed: every remembered pick was made from other
 * logits, and rows [0, n_pos) are on the one path (session.h) only when they are the
 * original's (switching off) or the prompt's own prefill; a re-run of prompt and
 * generated tokens as one prefill is the same math in another summation order. */
static void memo_after_mask(Session *s, int on_the_path) {
    const int n = s->trace.n_pos;
    session_picks_forget_after(s, -1);
    if (on_the_path || n == s->n_prompt) {
        s->memo_len = n;
        s->prefill_len = n < s->n_prompt ? n : s->n_prompt;
    } else {
        s->memo_len = s->prefill_len = 0;
    }
}

/* Runs the tokens ids[0..n) into the trace again (after its mask changed). */
static int rerun(Session *s, const int *ids, int n, ErrorMsg *err) {
    if (n == 0) return 0;
    double t0 = session_now_ms();
    int rc = gpt2_prefill(&s->model, &s->trace, ids, (size_t)n, err) || session_check_forward(s, err) ? -1 : 0;
    s->last_step_ms = session_now_ms() - t0;
    s->n_steps++;
    return rc;
}

int session_set_ablation(Session *s, const Gpt2Ablation *ab, ErrorMsg *err) {
    if (gpt2_ablation_equal(&s->trace.ablation, ab)) return 0;
    const int whole_now = s->trace.ablation.n_off == 0, whole_next = !ab || ab->n_off == 0;
    int rc = 0, on_the_path = 0;
    if (whole_next && s->orig.mem && s->orig.n_pos == s->trace.n_pos) {
        /* switching off: the original, kept in step, becomes the trace again */
        gpt2_trace_free(&s->trace);
        s->trace = s->orig;
        memset(&s->orig, 0, sizeof s->orig);
        on_the_path = 1;
    } else if (whole_now && s->track_original && s->trace.n_pos > 0) {
        /* switching on: keep the trace as it is for the comparison, run a new one */
        Gpt2Trace t = {0};
        if (gpt2_trace_init(&t, &s->model.config, s->trace.max_pos, s->trace.capture, err)) return -1;
        if (gpt2_trace_set_ablation(&t, ab, err)) {
            gpt2_trace_free(&t);
            return -1;
        }
        gpt2_trace_free(&s->orig);
        s->orig = s->trace;
        s->trace = t;
        rc = rerun(s, s->orig.ids, s->orig.n_pos, err);
    } else {
        const int n = s->trace.n_pos;
        int *ids = malloc(((size_t)n + 1) * sizeof *ids); /* the trace forgets them: keep a copy */
        if (!ids) return error_set(err, "out of memory");
        memcpy(ids, s->trace.ids, (size_t)n * sizeof *ids);
        rc = gpt2_trace_set_ablation(&s->trace, ab, err);
        if (rc == 0) rc = rerun(s, ids, n, err);
        free(ids);
    }
    memo_after_mask(s, on_the_path);
    session_sync_pending_salt(s);
    session_refresh_records(s);
    return rc;
}

