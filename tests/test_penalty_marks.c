/* test_penalty_marks.c — the token strip's penalty marks (viz/panel_tokens.c,
 * tokens_penalty_mark) are the sampler's penalised list: a chip is marked exactly when
 * its position lies in the penalty window and its token was penalised, and the mark's
 * number is the logit change, recomputed here in double from the published rules (HF's
 * repetition penalty, OpenAI's frequency and presence penalties) on the raw logits.
 * A record made for another context (the strip moved on) marks nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "panels.h"
#include "sampler.h"

#define V 12

/* The reference: the logit change of token id counted over ids[start, n). */
static int ref_delta(const float *logits, const int *ids, int n, int start, int id, double theta, double F,
                     double P, double *delta) {
    int count = 0;
    for (int i = start; i < n; i++) count += ids[i] == id;
    if (!count) return 0;
    double x = logits[id];
    double y = x > 0 ? x / theta : x * theta;
    y -= count * F + P;
    *delta = y - x;
    return 1;
}

static void run_case(int window, const char *what) {
    float logits[V];
    for (int i = 0; i < V; i++) logits[i] = (float)(1.5 - 0.37 * i + 0.2 * cos(2.3 * i)); /* both signs */
    int ids[] = {5, 1, 9, 1, 7, 5, 1, 11, 2};
    int n = (int)(sizeof ids / sizeof ids[0]);
    SamplerSettings set = sampler_settings_default();
    set.repetition_penalty = 1.4f;
    set.frequency_penalty = 0.3f;
    set.presence_penalty = 0.2f;
    set.penalty_window = window;
    ErrorMsg err = {0};
    Sampler s = {0};
    CHECK(sampler_init(&s, V, &err) == 0, "init: %s", err.text);
    SamplerRecord *rec = calloc(1, sizeof *rec);
    CHECK(sampler_run(&s, &set, logits, ids, (size_t)n, 0.3, 8, rec, &err) == 0, "run: %s", err.text);
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.ids = ids;
    f.n_pos = n;
    f.rec = rec;
    int start = window > 0 && window < n ? n - window : 0, marked = 0;
    for (int p = 0; p < n; p++) {
        double got = 0, want = 0;
        int m = tokens_penalty_mark(&f, p, &got);
        int w = p >= start && ref_delta(logits, ids, n, start, ids[p], (double)set.repetition_penalty,
                                        (double)set.frequency_penalty, (double)set.presence_penalty, &want);
        CHECK(m == w, "%s: position %d (id %d) marked %d, reference %d", what, p, ids[p], m, w);
        if (m && w) CHECK_CLOSE(got, want, 1e-9, 1e-9, "penalty mark = logit change");
        marked += m;
    }
    CHECK(marked == n - start, "%s: %d of %d chips in the window marked", what, marked, n - start);
    /* a record for a different context: nothing is marked */
    f.n_pos = n - 1;
    int any = 0;
    for (int p = 0; p < n - 1; p++) any |= tokens_penalty_mark(&f, p, NULL);
    CHECK(!any, "%s: a record of another context marks nothing", what);
    /* penalties off: no marks */
    f.n_pos = n;
    SamplerSettings off = sampler_settings_default();
    CHECK(sampler_run(&s, &off, logits, ids, (size_t)n, 0.3, 8, rec, &err) == 0, "run: %s", err.text);
    any = 0;
    for (int p = 0; p < n; p++) any |= tokens_penalty_mark(&f, p, NULL);
    CHECK(!any, "%s: no penalty, no marks", what);
    free(rec);
    sampler_free(&s);
}

int main(void) {
    run_case(0, "whole context");
    run_case(4, "window 4");
    return check_summary("test_penalty_marks");
}
