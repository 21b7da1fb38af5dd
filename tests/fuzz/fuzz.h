/* fuzz.h — what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: turning an input
 * into a path (the loaders under test take paths, not buffers) and a loud failure for
 * a broken invariant. Not a harness itself; no libFuzzer dependency, so the same code
 * also runs in tests/test_fuzz_regressions.c.
 *
 * Inputs become files through memfd_create(2): an anonymous in-memory file reached as
 * /proc/self/fd/N, so millions of inputs touch no disk and leave nothing behind. */
#ifndef FUZZ_H
#define FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A broken invariant is a bug even when no sanitizer fires: say which and abort(),
 * which libFuzzer records as a crash (with the input saved) and a test run reports. */
#define FUZZ_ASSERT(cond, ...)                                                     \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "FUZZ_ASSERT %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

/* A refusal explains itself in ONE line that starts with the name of what was read
 * (the file, or the name the harness gave it). */
#define FUZZ_ASSERT_REFUSAL(text, name)                                                              \
    do {                                                                                             \
        FUZZ_ASSERT(strncmp((text), (name), strlen(name)) == 0, "message lacks path: %s", (text));   \
        FUZZ_ASSERT(strchr((text), '\n') == NULL, "message spans lines: %s", (text));                 \
    } while (0)

/* The libFuzzer entry point of a harness: runs ONE(data, size), the harness's check of one
 * input (what it returns, accepted or refused, only the regression test looks at).
 * Expands to nothing under FUZZ_NO_ENTRY, which tests/test_fuzz_regressions.c defines to
 * include every harness in one program. Written without a trailing semicolon. */
#ifdef FUZZ_NO_ENTRY
#define FUZZ_ENTRY(one)
#else
#define FUZZ_ENTRY(one)                                                \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);      \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {     \
        one(data, size);                                               \
        return 0;                                                      \
    }
#endif

/* One reusable in-memory file per harness: fuzz_file_set replaces its contents. */
typedef struct FuzzFile {
    int fd;          /* memfd; 0 before the first use (0 is stdin, never ours) */
    char path[64];   /* "/proc/self/fd/N" */
} FuzzFile;

/* Makes f hold exactly data[0..size) and returns its path (NULL on a system error,
 * which aborts: the harness cannot test anything without it). */
static inline const char *fuzz_file_set(FuzzFile *f, const uint8_t *data, size_t size) {
    if (f->fd <= 0) {
        f->fd = memfd_create("inferscope-fuzz", MFD_CLOEXEC);
        FUZZ_ASSERT(f->fd >= 0, "memfd_create failed");
        snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    }
    FUZZ_ASSERT(ftruncate(f->fd, 0) == 0, "ftruncate failed");
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(f->fd, data + done, size - done, (off_t)done);
        FUZZ_ASSERT(w > 0, "pwrite failed");
        done += (size_t)w;
    }
    return f->path;
}

/* The tokenizer folder for harnesses that need one: $INFERSCOPE_TOKENIZER, else
 * assets/tokenizer (harnesses run from the repository root). */
static inline const char *fuzz_tokenizer_dir(void) {
    const char *d = getenv("INFERSCOPE_TOKENIZER");
    return d ? d : "assets/tokenizer";
}

#endif
