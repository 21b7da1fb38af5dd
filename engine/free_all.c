/* free_all.c — see free_all.h. */
#include "free_all.h"

#include <stdlib.h>

void free_all(void *const *ptrs, size_t n) {
    for (size_t i = 0; i < n; i++) free(ptrs[i]);
}
