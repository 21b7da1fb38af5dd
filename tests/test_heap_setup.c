/* test_heap_setup.c — heap_keep_large_blocks_apart: after glibc has freed a large mapped
 * block (and so, left alone, raised its threshold to that block's size), a 1 MB block
 * still gets a mapping of its own, returned to the system when freed. Without the setting
 * the 1 MB block comes from the heap, where a later small block can keep it resident
 * (the window's memory grew 87 -> 124 MB in 3 minutes that way: heap_setup.c).
 * glibc's allocator only: elsewhere, and under ASan (its own malloc), SKIPPED. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "heap_setup.h"

/* ASan (gcc's __SANITIZE_ADDRESS__, clang's __has_feature) brings its own malloc, which
 * neither glibc's mallopt nor its mallinfo2 sees. */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_TEST_ASAN 1
#endif
#endif

#if defined(__GLIBC__) && !defined(HEAP_TEST_ASAN)
#include <malloc.h>

/* Bytes in mapped blocks now. */
static size_t mapped_bytes(void) { return mallinfo2().hblkhd; }

/* malloc(n), touched so it is really there; the change of mapped_bytes in *grew. */
static unsigned char *alloc_measured(size_t n, long long *grew) {
    size_t before = mapped_bytes();
    unsigned char *p = malloc(n);
    if (p) memset(p, 1, n);
    *grew = (long long)mapped_bytes() - (long long)before;
    return p;
}
#endif

int main(void) {
#if !defined(__GLIBC__) || defined(HEAP_TEST_ASAN)
    printf("SKIPPED: test_heap_setup: glibc's own allocator only (not glibc, or ASan's malloc)\n");
    return check_summary("test_heap_setup");
#else
    /* glibc left alone: an 8 MB block is mapped; freeing it moves the threshold to 8 MB */
    long long grew;
    unsigned char *frame = alloc_measured((size_t)8 << 20, &grew);
    CHECK(frame && grew >= (8 << 20), "an 8 MB block is mapped (+%lld bytes mapped)", grew);
    free(frame);
    if (!heap_keep_large_blocks_apart()) {
        printf("SKIPPED: test_heap_setup: glibc refused the setting\n");
        return check_summary("test_heap_setup");
    }
    /* with the setting: a 1 MB block (under the 8 MB glibc would have moved to) is mapped,
     * and unmapped when freed */
    unsigned char *label = alloc_measured((size_t)1 << 20, &grew);
    CHECK(label && grew >= (1 << 20), "a 1 MB block after an 8 MB one is mapped (+%lld bytes mapped)", grew);
    size_t before_free = mapped_bytes();
    free(label);
    CHECK(before_free - mapped_bytes() >= ((size_t)1 << 20), "and unmapped when freed (%zu -> %zu)", before_free,
          mapped_bytes());
    /* a block under the threshold stays in the heap (the setting is not "map everything") */
    unsigned char *small = alloc_measured(HEAP_MMAP_THRESHOLD / 2, &grew);
    CHECK(small && grew == 0, "a %d kB block comes from the heap (+%lld bytes mapped)", HEAP_MMAP_THRESHOLD / 2048,
          grew);
    free(small);
    return check_summary("test_heap_setup");
#endif
}
