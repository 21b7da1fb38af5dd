/* threads_wait.c — OpenMP threads that wait passively.
 *
 * A decode step runs ~100 short parallel regions (a few matrix-vector products and the
 * attention of every layer). Between regions libgomp's idle threads spin. On a 2-core
 * laptop the second core is often taken (a browser, the projector's screen sharing), and
 * then the spinning thread and the busy program take turns on one core, so two threads
 * are far slower than one. Measured on this repository's 2-core machine (124M-shaped F16
 * model, 16-token prompt, 40 greedy tokens, whole process, 3 interleaved runs each):
 *                     other core idle     other core busy (a shell loop)
 *   1 thread          0.83-0.88 s         0.97-1.05 s
 *   2 threads, spin   0.70-0.73 s         1.94-2.57 s
 *   2 threads, wait   0.75-0.76 s         1.03-1.10 s
 * Waiting passively costs ~5 % on an idle machine and saves up to 2.4x on a busy one, so
 * it is the default; OMP_WAIT_POLICY=active restores spinning for benchmarks on a quiet
 * machine. libgomp reads the variable once, in its constructor, before main runs, so the
 * only way to change it from inside is to set it and execute ourselves again. */
#include "threads_wait.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void threads_wait_passively(char **argv) {
    if (getenv("OMP_WAIT_POLICY")) return; /* the user's (or our first run's) choice */
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc, say): carry on as is; the variable stays set for children */
}

const char *threads_wait_policy(void) {
    const char *p = getenv("OMP_WAIT_POLICY");
    if (!p) return "default";
    if (strcasecmp(p, "passive") == 0) return "passive";
    if (strcasecmp(p, "active") == 0) return "active";
    return "default";
}
