/* threads_wait.c — OpenMP threads that spin briefly, then sleep.
 *
 * A decode step runs ~50 short parallel regions (the matrix-vector products of every
 * layer and the logits). Between two of them the master thread works alone for a few
 * microseconds (LayerNorm, GELU, short attention). libgomp's idle threads spin by default
 * for ~0.3 s: on a 2-core laptop whose second core is taken (a browser, the projector's
 * screen sharing) the spinning thread and the busy program then take turns on one core,
 * and two threads are far slower than one. Sleeping at once (OMP_WAIT_POLICY=passive)
 * avoids that, but then every region pays a wake-up, an interrupt to the other core,
 * which on a virtual machine costs tens of microseconds. A short spin covers the gaps of a
 * step and sleeps between steps; the session's ThreadGovernor (thread_governor.h) runs a
 * step on one thread when the other core is busy. Measured in README "Threads".
 * libgomp reads its variables once, in its constructor, before main runs, so the only
 * way to set them from inside is to set them and execute ourselves again. */
#include "threads_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* libgomp's spin loop iterations before a thread sleeps (its default is 300,000, 0.1-0.3 s).
 * 1,000 is ~10-50 us depending on the CPU's pause instruction. */
#define THREADS_SPIN "1000"

void threads_wait_briefly(char **argv) {
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return; /* the user's (or our first run's) choice */
    if (setenv("GOMP_SPINCOUNT", THREADS_SPIN, 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc, say): carry on as is; the variable stays set for children */
}

void threads_wait_describe(char *out, size_t cap) {
    const char *p = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    if (p && strcasecmp(p, "passive") == 0) snprintf(out, cap, "passive");
    else if (p && strcasecmp(p, "active") == 0) snprintf(out, cap, "active");
    else if (spin) snprintf(out, cap, "spin %.24s times, then sleep", spin);
    else snprintf(out, cap, "default");
}
