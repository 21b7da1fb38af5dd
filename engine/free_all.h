/* free_all.h — frees the buffers a struct owns together, in one call.
 * A *_free function of a struct with several buffers is otherwise a column of free()
 * calls that differs from every other such column only by its names; FREE_ALL(a, b, c)
 * says "these are owned together" and frees each (NULL is fine, as for free()). Not for
 * buffers that need their own release function (cJSON_Delete, munmap, ...). */
#ifndef FREE_ALL_H
#define FREE_ALL_H

#include <stddef.h>

/* free() on each of the n pointers. */
void free_all(void *const *ptrs, size_t n);

/* FREE_ALL(p, q, ...): free(p); free(q); ... Every argument must be a non-const object
 * pointer (a const one is a compile error, as it would be for free()). */
#define FREE_ALL(...) \
    free_all((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
