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

/* Path of the shared reference folder: $INFERSCOPE_REF or ../shared/reference. */
static inline const char *check_ref_dir(void) {
    const char *r = getenv("INFERSCOPE_REF");
    return r ? r : "../shared/reference";
}

/* Prints "name: N passed, M failed" and returns the process exit status. */
static inline int check_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}
#endif
