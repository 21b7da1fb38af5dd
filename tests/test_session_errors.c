/* test_session_errors.c — what the session says when no next-token distribution can be
 * made: the sampler's own reason reaches session_step (it used to be dropped in
 * refresh_records and the user saw only "no next-token distribution at position N"), and
 * a forward pass that yields non-finite logits is undone with the damaged tensor named.
 * On the reference tiny model; the logits / a weight are poisoned in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session.h"

static int open_tiny(Session *s) {
    char dir[1100];
    ErrorMsg err = {{0}};
    check_ref_file("models/tiny/config.json", dir, sizeof dir);
    dir[strlen(dir) - strlen("/config.json")] = 0;
    int rc = session_open(s, dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "open: %s", err.text);
    if (rc == 0) rc = session_set_prompt(s, (const uint8_t *)"Once upon a", 11, &err);
    CHECK(rc == 0, "prompt: %s", err.text);
    return rc;
}

/* NaN logits that reach the sampler: its message is kept and reported by session_step. */
static void test_sampler_error_kept(void) {
    Session s;
    if (open_tiny(&s)) return;
    float *row = (float *)gpt2_trace_logits(&s.trace, session_len(&s) - 1);
    CHECK(row != NULL && s.has_next, "logits of the last position kept");
    if (!row) {
        session_free(&s);
        return;
    }
    row[123] = NAN;
    session_set_seed(&s, s.seed); /* re-runs the sampler on the stored logits */
    CHECK(!s.has_next && strstr(s.next_err.text, "logits[123] is NaN"), "next_err: '%s'", s.next_err.text);
    ErrorMsg err = {{0}};
    int n = session_len(&s);
    CHECK(session_step(&s, &err) == -1 && strstr(err.text, "no next-token distribution at position 3") &&
              strstr(err.text, "sampler: logits[123] is NaN"),
          "step error: '%s'", err.text);
    CHECK(session_len(&s) == n, "a refused step appends nothing");
    row[123] = 0.0f;
    session_set_seed(&s, s.seed);
    CHECK(s.has_next && s.next_err.text[0] == 0, "finite again: has_next, no error ('%s')", s.next_err.text);
    session_free(&s);
}

/* A weight turned NaN after loading: the step that sees NaN logits fails, names the
 * tensor, and leaves the session where it was (n_pos, records). */
static void test_nan_weight_step(void) {
    Session s;
    if (open_tiny(&s)) return;
    int n = session_len(&s), next = s.next.chosen.id;
    /* the mmap is read-only: copy ln_f.weight to owned memory and poison element 7 */
    size_t C = (size_t)s.model.config.n_embd;
    float *lnf = malloc(C * sizeof *lnf);
    if (!lnf) {
        session_free(&s);
        return;
    }
    memcpy(lnf, s.model.w.lnf_w, C * sizeof *lnf);
    lnf[7] = NAN;
    const float *saved = s.model.w.lnf_w;
    s.model.w.lnf_w = lnf;
    ErrorMsg err = {{0}};
    CHECK(session_step(&s, &err) == -1 && strstr(err.text, "tensor 'ln_f.weight' holds NaN at [7]"),
          "step error: '%s'", err.text);
    CHECK(session_len(&s) == n && s.has_next && s.next.chosen.id == next && s.n_branches == 1 &&
              s.branch[0].len == n,
          "the failed step was undone: n_pos %d (want %d), branches %d", session_len(&s), n, s.n_branches);
    s.model.w.lnf_w = saved;
    CHECK(session_step(&s, &err) == 0 && session_len(&s) == n + 1, "healthy again: %s", err.text);
    free(lnf);
    session_free(&s);
}

int main(void) {
    test_sampler_error_kept();
    test_nan_weight_step();
    return check_summary("test_session_errors");
}
