/* check_tmp.h — a test's scratch folder, made and removed one way: /tmp/NAME.XXXXXX by
 * mkdtemp, removed with everything in it at the end. Not for files the test must keep. */
#ifndef CHECK_TMP_H
#define CHECK_TMP_H

#include <stdio.h>
#include <stdlib.h>

/* Makes /tmp/NAME.XXXXXX into dir (cap >= 32 + strlen(name)). Returns 0, or -1 after
 * saying why on stderr (the test cannot run without it). */
static inline int check_tmpdir_make(char *dir, size_t cap, const char *name) {
    snprintf(dir, cap, "/tmp/%s.XXXXXX", name);
    if (mkdtemp(dir)) return 0;
    perror("mkdtemp");
    return -1;
}

/* Removes dir and everything below it (complains on stderr if that fails). */
static inline void check_tmpdir_remove(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

#endif
