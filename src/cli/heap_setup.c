/* heap_setup.c — large blocks in mappings of their own, for a window open all day.
 *
 * glibc gives a block of 128 kB or more its own mapping (mmap), returned to the system
 * when freed, but it raises that threshold to the size of each such block freed, up to
 * 32 MB. The window frees large blocks all the time: an export's 1920x1080 frame
 * (8.3 MB, twice: the drawing and its copy), the text cache's larger labels. After the
 * first export every block under 8 MB comes from the heap instead, and the heap can only
 * shrink from its top: a small block allocated after a freed frame keeps the frame's
 * pages resident. Measured in a 3-minute soak at 1920x1080 (make soak, SOAK_SIZE): the
 * heap grew 13 -> 49 MB while 15 MB of it was in use, and the process 87 -> 124 MB.
 * A fixed threshold (setting it stops the adjusting) keeps those blocks out of the heap.
 * Cost: a mapping per large block, a page fault per page touched; the window allocates
 * such blocks on an export, a resize or a new label, not per frame. */
#include "heap_setup.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int heap_keep_large_blocks_apart(void) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_THRESHOLD) == 1;
#else
    return 0;
#endif
}
