/* test_thread_governor.c — the governor that runs a decode step on one thread or on all
 * (thread_governor.h), fed step times of a machine whose second core is idle, then busy,
 * then idle again. The times are those measured on this repository's 2-core machine
 * (124M F16, generate, ms/token): idle 2 threads ~10.5, 1 thread ~15.5; busy 2 threads
 * ~21, 1 thread ~16.5. Pass/fail on what a user sees: how many steps run on the slower
 * count, and how soon the governor follows a change. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "thread_governor.h"

/* A machine: the time of a step on 1 thread and on `most` threads, with a spike every
 * `spike` steps (the window drawing, say: 3x the time) when spike > 0. */
typedef struct Machine {
    double one, most;
    int spike;
} Machine;

/* Runs n steps; returns how many ran on one thread; *first_one (if given): the index of
 * the first step it ran on 1 thread, -1 if none. */
static int run(ThreadGovernor *g, Machine mc, int n, int *first_one, long *clock) {
    int ones = 0, bad = 0;
    if (first_one) *first_one = -1;
    for (int i = 0; i < n; i++, (*clock)++) {
        int th = thread_governor_next(g);
        if (th != 1 && th != g->most) bad++;
        double ms = th == 1 ? mc.one : mc.most;
        if (mc.spike > 0 && *clock % mc.spike == 0) ms *= 3.0;
        /* a little deterministic jitter, as real steps have (+-2 %) */
        ms *= 1.0 + 0.02 * sin((double)*clock * 1.7);
        thread_governor_record(g, th, ms);
        if (th == 1) {
            ones++;
            if (first_one && *first_one < 0) *first_one = i;
        }
    }
    CHECK(bad == 0, "governor: %d steps asked for a count other than 1 or %d", bad, g->most);
    return ones;
}

/* Steps on 1 thread among the last k of n (the choice it settled on). */
static int settled_ones(ThreadGovernor *g, Machine mc, int n, int k, long *clock) {
    run(g, mc, n - k, NULL, clock);
    return run(g, mc, k, NULL, clock);
}

int main(void) {
    const Machine idle = {15.5, 10.5, 0}, busy = {16.5, 21.0, 0}, idle_spiky = {15.5, 10.5, 7};
    const Machine equal = {10.0, 10.0, 0};
    long clock = 0;
    ThreadGovernor g;
    int first, ones;

    /* one thread allowed: nothing to govern */
    thread_governor_init(&g, 1);
    CHECK(thread_governor_next(&g) == 1, "most 1: next is %d", thread_governor_next(&g));
    CHECK(run(&g, idle, 100, NULL, &clock) == 100, "most 1: not every step on 1 thread");
    thread_governor_init(&g, 0);
    CHECK(g.most == 1, "most 0 is taken as 1, got %d", g.most);

    /* idle machine: starts on both threads, probes one thread rarely */
    thread_governor_init(&g, 2);
    CHECK(thread_governor_next(&g) == 2, "idle: the first step runs on %d threads, want 2", thread_governor_next(&g));
    ones = run(&g, idle, 1000, NULL, &clock);
    /* probes of 2 steps after 4, 8, 16, 32, 64, 128, then every 128: about 2 % of the steps */
    CHECK(ones > 0 && ones <= 30, "idle: %d of 1000 steps on 1 thread, want 1..30 (probes only)", ones);
    CHECK(g.every == THREAD_GOVERNOR_LAST, "idle: probes every %d steps, want %d", g.every, THREAD_GOVERNOR_LAST);

    /* busy from the start (a lesson opened while the other core is taken): the first
     * probe comes after THREAD_GOVERNOR_START steps, and the steps after it run on 1 */
    thread_governor_init(&g, 2);
    first = -1;
    ones = run(&g, busy, 20, &first, &clock);
    CHECK(first == THREAD_GOVERNOR_START, "busy start: first step on 1 thread is step %d, want %d", first,
          THREAD_GOVERNOR_START);
    CHECK(ones == 20 - THREAD_GOVERNOR_START, "busy start: %d of the first 20 steps on 1 thread, want %d", ones,
          20 - THREAD_GOVERNOR_START);

    /* spikes every 7th step (3x): the fastest of the last 3 steps ignores them */
    thread_governor_init(&g, 2);
    ones = run(&g, idle_spiky, 1000, NULL, &clock);
    CHECK(ones <= 30, "idle with spikes: %d of 1000 steps on 1 thread, want <= 30", ones);

    /* the other core gets busy: two-thread steps double; the rise starts a probe at once */
    first = -1;
    run(&g, busy, 20, &first, &clock);
    CHECK(first >= 0 && first <= THREAD_GOVERNOR_KEEP + 1,
          "idle -> busy: first step on 1 thread after %d steps, want <= %d", first, THREAD_GOVERNOR_KEEP + 1);
    ones = settled_ones(&g, busy, 1000, 500, &clock);
    /* probes of 2 threads: every 128 steps once settled */
    CHECK(ones >= 490, "busy: %d of the last 500 steps on 1 thread, want >= 490", ones);

    /* idle again: the 1-thread time does not change, so only a probe finds out; within
     * the probe interval plus the probe */
    int most_first = -1;
    for (int i = 0; i < 400; i++, clock++) {
        int th = thread_governor_next(&g);
        thread_governor_record(&g, th, th == 1 ? idle.one : idle.most);
        if (th == 2 && most_first < 0) most_first = i;
        if (most_first >= 0 && i > most_first + 40) break;
    }
    CHECK(most_first >= 0 && most_first <= THREAD_GOVERNOR_LAST + THREAD_GOVERNOR_PROBE,
          "busy -> idle: first step on 2 threads after %d steps, want <= %d", most_first,
          THREAD_GOVERNOR_LAST + THREAD_GOVERNOR_PROBE);
    ones = settled_ones(&g, idle, 300, 100, &clock);
    CHECK(ones <= THREAD_GOVERNOR_PROBE, "busy -> idle: %d of the last 100 steps on 1 thread, want <= %d", ones,
          THREAD_GOVERNOR_PROBE);

    /* one thread only a little slower (5 %): kept on 2, but probed at the first rate, since
     * a small change of load could turn it */
    thread_governor_init(&g, 2);
    run(&g, (Machine){10.5 * 1.05, 10.5, 0}, 1000, NULL, &clock);
    CHECK(thread_governor_next(&g) == 2 && g.every == THREAD_GOVERNOR_FIRST,
          "close times: next %d threads, probes every %d steps, want 2 and %d", thread_governor_next(&g), g.every,
          THREAD_GOVERNOR_FIRST);

    /* equal times: no flapping (a switch needs a clear win) */
    thread_governor_init(&g, 2);
    ones = run(&g, equal, 1000, NULL, &clock);
    CHECK(ones <= 2 * THREAD_GOVERNOR_PROBE * (1000 / THREAD_GOVERNOR_FIRST),
          "equal: %d of 1000 on 1 thread; the governor must stay on 2 between probes", ones);
    CHECK(thread_governor_next(&g) == 2, "equal: ended on %d threads, want 2 (no switch without a win)",
          thread_governor_next(&g));

    /* bad reports are ignored: NaN, zero, negative, infinite, a count it did not ask for */
    thread_governor_init(&g, 2);
    ThreadGovernor before = g;
    thread_governor_record(&g, 2, NAN);
    thread_governor_record(&g, 2, 0.0);
    thread_governor_record(&g, 2, -5.0);
    thread_governor_record(&g, 2, INFINITY);
    thread_governor_record(&g, 3, 10.0);
    thread_governor_record(&g, 0, 10.0);
    CHECK(g.since == before.since && g.n_steps[0] == 0 && g.n_steps[1] == 0 && g.ms[1][0] == 0.0,
          "bad reports changed the governor (since %d, steps %ld/%ld, last %g)", g.since, g.n_steps[0],
          g.n_steps[1], g.ms[1][0]);

    /* a step on the count in use reported during a probe is counted but not taken as the
     * probe's (the caller ran something else) */
    thread_governor_init(&g, 4);
    for (int i = 0; i < THREAD_GOVERNOR_START; i++) thread_governor_record(&g, 4, 10.0);
    CHECK(g.probing == THREAD_GOVERNOR_PROBE && thread_governor_next(&g) == 1,
          "after %d steps a probe of 1 thread starts (probing %d, next %d)", THREAD_GOVERNOR_START, g.probing,
          thread_governor_next(&g));
    thread_governor_record(&g, 4, 10.0);
    CHECK(g.probing == THREAD_GOVERNOR_PROBE, "a step on 4 threads during the probe was taken as the probe's");
    thread_governor_record(&g, 1, 30.0);
    thread_governor_record(&g, 1, 31.0);
    CHECK(g.probing == 0 && thread_governor_next(&g) == 4 && g.every == 2 * THREAD_GOVERNOR_START,
          "a 3x slower probe keeps 4 threads and doubles the wait (probing %d, next %d, every %d)", g.probing,
          thread_governor_next(&g), g.every);
    return check_summary("test_thread_governor");
}
