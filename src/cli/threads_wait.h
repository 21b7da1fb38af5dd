/* threads_wait.h — how idle OpenMP threads wait between the many short parallel regions
 * of a decode step (why: threads_wait.c). */
#ifndef THREADS_WAIT_H
#define THREADS_WAIT_H

/* Before anything else in main: when OMP_WAIT_POLICY is unset, set it to "passive" and
 * re-execute this program once (libgomp reads it when it is loaded, before main). Returns
 * only when nothing had to change or the re-exec failed (then the process carries on with
 * libgomp's default, which is correct, only slower when the other core is busy). */
void threads_wait_passively(char **argv);

/* "passive", "active" or "default" (libgomp's own choice): what this process runs with. */
const char *threads_wait_policy(void);

#endif
