/* bench_lens.c — see bench_lens.h. Context 256 (a long classroom story); every timed
 * call sees the same trace: the step is undone by truncation, which is free. */
#include "bench_lens.h"

#include <stdio.h>

#include "bench.h"
#include "gpt2_forward.h"
#include "gpt2_trace.h"
#include "kernels.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "token_journey.h"

#define CTX 256
#define REPS 11

typedef enum { B_STEP, B_LENS, B_GRID, B_ATTR, B_JOURNEY, B_ALL, B_N } Which;

/* Median ms of one `which` at position CTX-1, at most REPS runs or ~1.5 s. */
static double time_one(Which which, const Gpt2Model *m, Gpt2Trace *tr, LogitLens *lens, LensGrid *g,
                       Attribution *at, TokenJourney *jy, LensRow *rows) {
    double t[REPS];
    ErrorMsg err;
    int n = 0, id = tr->ids[CTX - 1];
    double start = bench_now();
    for (; n < REPS && (n < 3 || bench_now() - start < 1.5); n++) {
        gpt2_trace_truncate(tr, CTX - 1);
        if (which != B_STEP) gpt2_step(m, tr, id, &err);
        lens->col_pos = -1; /* every timed call starts cold */
        if (which == B_GRID || which == B_ALL) {
            /* the window's state before a step: the grid (and the lens's last column) at
             * CTX-1 positions */
            gpt2_trace_truncate(tr, CTX - 1);
            logit_lens_grid_update(lens, g, m, tr, &err);
            gpt2_step(m, tr, id, &err);
        }
        unsigned long cols = lens->n_columns;
        double t0 = bench_now();
        int rc = 0;
        switch (which) {
        case B_STEP: rc = gpt2_step(m, tr, id, &err); break;
        case B_LENS: rc = logit_lens_at(lens, m, tr, CTX - 1, -1, 0, 10, rows, &err) < 0; break;
        case B_GRID: rc = logit_lens_grid_update(lens, g, m, tr, &err) < 0; break;
        case B_ATTR: rc = attribution_run(at, m, tr, CTX - 1, tr->ids[1], tr->ids[2], &err); break;
        case B_JOURNEY: rc = token_journey_at(jy, lens, m, tr, CTX - 1, &err); break;
        default: /* what the window does per step: the grid's new column, then the rows,
                  * the attribution and the journey of the newest token reuse it */
            rc = logit_lens_grid_update(lens, g, m, tr, &err) < 0 ||
                 logit_lens_at(lens, m, tr, CTX - 1, -1, 0, 10, rows, &err) < 0 ||
                 attribution_run(at, m, tr, CTX - 1, tr->ids[1], tr->ids[2], &err) ||
                 token_journey_at(jy, lens, m, tr, CTX - 1, &err);
            break;
        }
        t[n] = (bench_now() - t0) * 1e3;
        if (which == B_ALL && lens->n_columns - cols != 1)
            printf("  (all views computed %lu columns, not 1)\n", lens->n_columns - cols);
        if (rc) {
            printf("  failed: %s\n", err.text);
            return -1;
        }
    }
    return bench_median(t, (size_t)n);
}

void bench_lens(const Gpt2Model *m) {
    Gpt2Trace tr = {0};
    LogitLens lens = {0};
    LensGrid g = {0};
    Attribution at = {0};
    TokenJourney jy = {0};
    ErrorMsg err;
    LensRow rows[2 * 12 + 1];
    int ids[CTX];
    for (int i = 0; i < CTX; i++) ids[i] = (i * 7919 + 13) % m->config.vocab_size;
    if (m->config.n_layer > 12 || gpt2_trace_init(&tr, &m->config, 1024, GPT2_CAP_DEFAULT, &err) ||
        logit_lens_init(&lens, &m->config, m->config.vocab_size, &err) || logit_lens_grid_init(&g, &m->config, 1024, 0, &err) ||
        attribution_init(&at, &m->config, &err) || token_journey_init(&jy, &m->config, &err) ||
        gpt2_prefill(m, &tr, ids, CTX, &err)) {
        printf("lens bench: %s (skipped)\n", err.text);
        goto done;
    }
    printf("inside the model, ms per step at context %d (trace default; medians of up to %d)\n", CTX, REPS);
    printf("  %-8s %7s %7s %7s %7s %8s %9s   %s\n", "threads", "decode", "lens", "grid", "attrib", "journey",
           "all views", "(lens + attrib) / decode, all views / decode");
    for (int th = 1; th <= 2; th++) {
        kern_set_threads(th);
        double v[B_N];
        for (int w = 0; w < B_N; w++) v[w] = time_one((Which)w, m, &tr, &lens, &g, &at, &jy, rows);
        printf("  %-8d %7.2f %7.2f %7.2f %7.2f %8.2f %9.2f   %.2f, %.2f (bound: <= 1)\n", th, v[B_STEP], v[B_LENS],
               v[B_GRID], v[B_ATTR], v[B_JOURNEY], v[B_ALL],
               v[B_STEP] > 0 ? (v[B_LENS] + v[B_ATTR]) / v[B_STEP] : 0.0, v[B_STEP] > 0 ? v[B_ALL] / v[B_STEP] : 0.0);
    }
    printf("  lens = %d depths in one pass over wte (cold); grid = one new column; all views = grid + lens rows +\n"
           "  attribution + journey of the newest token sharing that column; attribution = %d components,\n"
           "  z recomputed from pattern @ V (no GPT2_CAP_Z: it would cost %.1f MB at 1024 positions)\n",
           logit_lens_n_rows(&m->config, 0), at.n,
           (double)m->config.n_layer * 1024.0 * m->config.n_embd * 4 / 1e6);
done:
    token_journey_free(&jy);
    attribution_free(&at);
    logit_lens_grid_free(&g);
    logit_lens_free(&lens);
    gpt2_trace_free(&tr);
}

int bench_lens_124m(void) {
    const Gpt2Config cfg = {.n_layer = 12, .n_head = 12, .n_embd = 768, .n_positions = 1024,
                            .vocab_size = 50257, .ln_eps = 1e-5f};
    Gpt2Model m;
    ErrorMsg err;
    if (gpt2_model_init_random(&m, &cfg, 42, &err)) {
        printf("bench: %s\n", err.text);
        return 1;
    }
    bench_lens(&m);
    gpt2_model_free(&m);
    return 0;
}
