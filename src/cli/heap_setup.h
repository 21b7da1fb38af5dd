/* heap_setup.h — where the C library puts large blocks (why: heap_setup.c). */
#ifndef HEAP_SETUP_H
#define HEAP_SETUP_H

/* Blocks of at least this many bytes get a mapping of their own, unmapped when freed:
 * glibc's own starting value, kept fixed (heap_setup.c says why). */
#define HEAP_MMAP_THRESHOLD (128 * 1024)

/* Once, at the start of main, before the first large allocation: blocks of
 * HEAP_MMAP_THRESHOLD bytes or more always get their own mapping. Returns 1 when set,
 * 0 when this C library has no such setting (not glibc) or refused it: the program then
 * runs with the library's defaults, correct, only holding more memory over a long run. */
int heap_keep_large_blocks_apart(void);

#endif
