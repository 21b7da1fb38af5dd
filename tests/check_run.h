/* check_run.h — what tests that run a program share: its whole standard output (read by
 * engine/file_read_stream, so no test grows its own buffer) with the exit status, and
 * the path of the inferscope binary built beside the test (build/tests/test_x ->
 * build/inferscope). Not a process library: popen, one command line. */
#ifndef CHECK_RUN_H
#define CHECK_RUN_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_read.h"

/* Runs cmd (a shell command line), returns its stdout NUL-terminated (caller frees), or
 * NULL when it cannot run or prints more than 64 MB. *status: pclose's (-1 when not run). */
static inline char *check_run(const char *cmd, int *status) {
    *status = -1;
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    uint8_t *out = NULL;
    size_t len = 0;
    ErrorMsg err;
    int rc = file_read_stream(p, cmd, (size_t)64 << 20, &out, &len, &err);
    *status = pclose(p);
    return rc ? NULL : (char *)out;
}

/* The inferscope binary of this build into buf ("" when /proc/self/exe is unreadable). */
static inline void check_cli_bin(char *buf, size_t cap) {
    buf[0] = '\0';
    if (cap < 32) return;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 32);
    if (n <= 0) return;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) snprintf(slash, cap - (size_t)(slash - buf), "/../inferscope");
}

#endif
