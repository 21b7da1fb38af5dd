/* check.h — the whole test framework: counters, CHECK macros, a summary that
 * exits non-zero on any failure. Each tests/test_*.c is its own program and ends
 * with `return check_summary("name");`. tests/run.sh adds the per-program lines up.
 * Not a framework to grow: if a test needs more, write a helper in the test. */
#ifndef CHECK_H
#define CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed_, check_failed_;

/* CHECK(cond, fmt, ...): counts one check; prints file:line and the message on failure. */
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            check_passed_++;                                                    \
        } else {                                                                \
            check_failed_++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

/* CHECK_CLOSE: |got - want| <= atol + rtol*|want|, NaN never passes. */
#define CHECK_CLOSE(got, want, atol, rtol, what)                                \
    do {                                                                        \
        double g_ = (double)(got), w_ = (double)(want);                         \
        CHECK(fabs(g_ - w_) <= (atol) + (rtol) * fabs(w_),                      \
              "%s: got %.9g want %.9g (diff %.3g)", (what), g_, w_, fabs(g_ - w_)); \
    } while (0)

/* The reference data (tokenizer cases, the tiny model, its vectors): $INFERSCOPE_REF
 * when set, else the verbatim copy vendored in tests/reference (see its README). Tests
 * run from the repository root (tests/run.sh cd's there). */
static inline const char *check_ref_dir(void) {
    const char *r = getenv("INFERSCOPE_REF");
    return r && *r ? r : "tests/reference";
}

/* Where reference file `rel` is: check_ref_dir()/rel, else ../shared/reference/rel (which
 * also holds tiny_s128, too big to vendor). Writes the path into buf (even when absent)
 * and returns 1 when the file exists. */
static inline int check_ref_file(const char *rel, char *buf, size_t n) {
    const char *dirs[] = {check_ref_dir(), "../shared/reference"};
    for (int i = 0; i < 2; i++) {
        snprintf(buf, n, "%s/%s", dirs[i], rel);
        FILE *f = fopen(buf, "rb");
        if (f) {
            fclose(f);
            return 1;
        }
    }
    snprintf(buf, n, "%s/%s", dirs[0], rel);
    return 0;
}

/* A part of a test that cannot run here (a reference file that is absent, a tool
 * missing): one line "SKIPPED: name: why" that tests/run.sh counts and names. Never a
 * pass, never a failure. */
#define CHECK_SKIP(name, ...)                                                   \
    do {                                                                        \
        printf("SKIPPED: %s: ", (name));                                        \
        printf(__VA_ARGS__);                                                    \
        putchar('\n');                                                          \
        fflush(stdout);                                                         \
    } while (0)

/* Prints "name: N passed, M failed" and returns the process exit status. */
static inline int check_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}
#endif
