/* map_guard.h — a file we read weights from through mmap can be truncated or replaced in
 * place while we use it (a re-download, `cp` over it, a full disk); touching a page past
 * its new end raises SIGBUS, which would kill the window without a word. map_guard
 * installs one SIGBUS handler that, when the faulting address lies in a registered
 * mapping, prints "PATH changed on disk while in use ..." and exits with status 2 (the
 * CLI's error status); any other SIGBUS gets the previous disposition, unchanged.
 * Why not copy the weights instead: a 1.5B F32 model is 6.2 GB, the copy would need as
 * much RAM again and seconds of load (measured in the issue note); this costs nothing.
 * The registry is process-wide by nature (a signal handler has no context argument);
 * it holds up to MAP_GUARD_MAX mappings. Not a general signal framework. */
#ifndef MAP_GUARD_H
#define MAP_GUARD_H

#include <stddef.h>

#define MAP_GUARD_MAX 16

/* Registers [addr, addr+len) as mapped from `path` (copied; first 400 bytes). Returns 0,
 * or -1 when the table is full (the mapping then simply has no guard). */
int map_guard_add(const void *addr, size_t len, const char *path);

/* Forgets the mapping starting at addr (call before munmap). */
void map_guard_remove(const void *addr);

#endif
