/* threads_wait.h — how idle OpenMP threads wait between the many short parallel regions
 * of a decode step (why: threads_wait.c). */
#ifndef THREADS_WAIT_H
#define THREADS_WAIT_H

#include <stddef.h>

/* Before anything else in main: when neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set,
 * set GOMP_SPINCOUNT to a short spin and re-execute this program once (libgomp reads both
 * when it is loaded, before main). Returns only when nothing had to change or the re-exec
 * failed (then the process carries on with libgomp's default, which is correct, only
 * slower when the other core is busy). */
void threads_wait_briefly(char **argv);

/* What this process runs with, for `info` and `bench`: "passive", "active", "spin N times,
 * then sleep" (GOMP_SPINCOUNT) or "default" (libgomp's own choice). */
void threads_wait_describe(char *out, size_t cap);

#endif
