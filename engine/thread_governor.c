/* thread_governor.c — one or all threads per decode step, by the time the last steps took
 * (why: thread_governor.h). */
#include "thread_governor.h"

#include <math.h>
#include <string.h>

/* A probe switches the count only when the other is this much faster (the step time of a
 * growing context drifts, and a coin flip between equal counts helps nobody). */
#define GOV_SWITCH 0.95
/* ... and keeps the count with a longer wait before the next probe when the other is this
 * much slower. */
#define GOV_CONFIRM 1.15
/* The in-use count's time this far above its time when chosen: probe now. */
#define GOV_RISE 1.30

static double arm_time(const ThreadGovernor *g, int arm) {
    double best = 0.0;
    for (int i = 0; i < THREAD_GOVERNOR_KEEP; i++) {
        double v = g->ms[arm][i];
        if (v > 0.0 && (best == 0.0 || v < best)) best = v;
    }
    return best;
}

static void push_time(ThreadGovernor *g, int arm, double ms) {
    memmove(&g->ms[arm][1], &g->ms[arm][0], (THREAD_GOVERNOR_KEEP - 1) * sizeof g->ms[arm][0]);
    g->ms[arm][0] = ms;
}

void thread_governor_init(ThreadGovernor *g, int most) {
    memset(g, 0, sizeof *g);
    g->most = most < 1 ? 1 : most;
    g->arm = 1;
    g->every = THREAD_GOVERNOR_START;
}

int thread_governor_next(const ThreadGovernor *g) {
    int arm = g->probing > 0 ? !g->arm : g->arm;
    return arm ? g->most : 1;
}

/* The probe is over: keep the faster count, and wait longer before the next probe when
 * the answer was clear. */
static void decide(ThreadGovernor *g) {
    double cur = arm_time(g, g->arm), other = arm_time(g, !g->arm);
    if (other > 0.0 && (cur == 0.0 || other < GOV_SWITCH * cur)) {
        g->arm = !g->arm;
        g->every = THREAD_GOVERNOR_FIRST;
    } else if (other > GOV_CONFIRM * cur) {
        g->every = g->every * 2 > THREAD_GOVERNOR_LAST ? THREAD_GOVERNOR_LAST : g->every * 2;
    } else {
        g->every = THREAD_GOVERNOR_FIRST;
    }
    g->base = arm_time(g, g->arm);
    g->since = 0;
}

void thread_governor_record(ThreadGovernor *g, int threads, double ms) {
    if (g->most == 1 || !(ms > 0.0) || !isfinite(ms)) return;
    int arm;
    if (threads == g->most) arm = 1;
    else if (threads == 1) arm = 0;
    else return;
    g->n_steps[arm]++;
    if (g->probing > 0) {
        if (arm == g->arm) return; /* not the probe's count: the caller ran something else */
        push_time(g, arm, ms);
        if (--g->probing == 0) decide(g);
        return;
    }
    if (arm != g->arm) return;
    push_time(g, arm, ms);
    if (g->base == 0.0) g->base = arm_time(g, arm);
    g->since++;
    if (g->since >= g->every || arm_time(g, arm) > GOV_RISE * g->base) {
        /* the other count's old times say nothing about the machine now */
        memset(g->ms[!arm], 0, sizeof g->ms[!arm]);
        g->probing = THREAD_GOVERNOR_PROBE;
    }
}
