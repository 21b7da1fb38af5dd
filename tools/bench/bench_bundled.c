/* bench_bundled.c — see bench_bundled.h. */
#include "bench_bundled.h"

#include <stdio.h>

#include "bench.h"
#include "kernels.h"
#include "session.h"

/* open + prompt: what `inferscope next "Once upon a"` does before printing */
static double open_and_answer_ms(const char *model_dir, const char *tok_dir, ErrorMsg *err) {
    static const char prompt[] = "Once upon a";
    Session s;
    double t0 = bench_now();
    if (session_open(&s, model_dir, tok_dir, 0, GPT2_CAP_DEFAULT, err)) return -1;
    int rc = session_set_prompt(&s, (const uint8_t *)prompt, sizeof prompt - 1, err);
    double ms = 1e3 * (bench_now() - t0);
    session_free(&s);
    return rc ? -1 : ms;
}

void bench_bundled(const char *model_dir, const char *tok_dir) {
    ErrorMsg err;
    enum { REPS = 9 };
    double t[REPS];
    printf("bundled model (%s)\n", model_dir);
    for (int threads = 1; threads <= 2; threads++) {
        kern_set_threads(threads);
        for (int r = 0; r < REPS; r++) {
            t[r] = open_and_answer_ms(model_dir, tok_dir, &err);
            if (t[r] < 0) {
                printf("  cannot open it: %s\n", err.text);
                return;
            }
        }
        printf("  load + answer \"Once upon a\" (%d thread%s): median %.1f ms of %d\n", threads,
               threads > 1 ? "s" : "", bench_median(t, REPS), REPS);
    }

    /* one window step = session_step: one position through the model + the sampler */
    Session s;
    static const char prompt[] = "Once upon a time";
    if (session_open(&s, model_dir, tok_dir, 0, GPT2_CAP_DEFAULT, &err) ||
        session_set_prompt(&s, (const uint8_t *)prompt, sizeof prompt - 1, &err)) {
        printf("  cannot open it: %s\n", err.text);
        session_free(&s);
        return;
    }
    const int ctx = s.trace.max_pos;
    const int at[] = {8, ctx / 2, ctx - 2};
    for (int threads = 1; threads <= 2; threads++) {
        kern_set_threads(threads);
        printf("  window step, ms (%d thread%s):", threads, threads > 1 ? "s" : "");
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            /* walk to the context length, then time REPS steps there (back one, step one) */
            while (session_len(&s) < at[k] && session_step(&s, &err) == 0) {}
            int n = 0;
            for (; n < REPS; n++) {
                session_back(&s, 1);
                /* forget the redo row: stepping over the same token again would run no
                 * forward pass (session.h), and this figure would time the sampler alone */
                s.memo_len = session_len(&s);
                double t0 = bench_now();
                if (session_step(&s, &err)) break;
                t[n] = 1e3 * (bench_now() - t0);
            }
            printf("  ctx %d: %.2f", session_len(&s), bench_median(t, (size_t)n));
        }
        printf("\n");
        session_home(&s);
    }
    session_free(&s);
}
