/* thread_governor.h — how many threads the next decode step runs on: one, or all it may
 * use, whichever the last steps say is faster on this machine right now.
 *
 * Why: a decode step of 124M is ~50 short parallel regions. On an idle 2-core machine two
 * threads are ~1.7x faster than one; when another program holds the second core, every
 * region waits for a thread that is not running and two threads are slower than one
 * (measured: README "Threads"). Which case holds changes while the app runs (a browser,
 * the projector's screen sharing), so the governor times the steps and, now and then,
 * tries the other count for two steps. The decode kernels give the same bits on any
 * thread count (kernels.h), so switching changes no number, only the time.
 *
 * A plain state machine with no clock and no OpenMP: the caller asks thread_governor_next
 * before a step, runs it on that many threads and reports the step's wall time. */
#ifndef THREAD_GOVERNOR_H
#define THREAD_GOVERNOR_H

/* Steps a probe runs on the other count: the first may wake a sleeping thread or find
 * cold caches, so the faster of the two is what counts. */
#define THREAD_GOVERNOR_PROBE 2
/* Steps before the first probe: a session knows nothing yet, and on a busy machine every
 * step before it runs at the slower count (a lesson's beat is often only a few steps). */
#define THREAD_GOVERNOR_START 4
/* Steps between probes: from FIRST (START at the first), doubling up to LAST while each
 * probe confirms the count in use by a clear margin (a probe of the slower count costs a
 * step or two). */
#define THREAD_GOVERNOR_FIRST 16
#define THREAD_GOVERNOR_LAST 128
/* The last steps on a count of which the fastest is its time (a one-off slow step, the
 * window drawing on the other core say, does not move it). */
#define THREAD_GOVERNOR_KEEP 3

typedef struct ThreadGovernor {
    int most;          /* threads a step may use (>= 1); 1 = nothing to govern */
    int arm;           /* the count in use: 0 = one thread, 1 = `most` */
    double ms[2][THREAD_GOVERNOR_KEEP]; /* per arm: the last step times, newest at [0]; 0 = none */
    double base;       /* the in-use arm's time when it was last chosen: a rise past it
                        * (another program took a core) starts a probe early */
    int since;         /* steps on `arm` since the last probe */
    int every;         /* steps between probes now */
    int probing;       /* steps of the probe still to run (on the other arm) */
    long n_steps[2];   /* steps run per arm since init (for `info` and tests) */
} ThreadGovernor;

/* Starts on `most` threads (most < 1 is taken as 1). */
void thread_governor_init(ThreadGovernor *g, int most);
/* Threads for the next step: 1 or g->most. */
int thread_governor_next(const ThreadGovernor *g);
/* The step just run on `threads` took `ms` milliseconds (a count other than 1 or most,
 * or a time that is not positive and finite, is ignored). */
void thread_governor_record(ThreadGovernor *g, int threads, double ms);

#endif
