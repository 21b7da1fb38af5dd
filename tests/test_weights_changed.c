/* test_weights_changed.c — model.safetensors rewritten in place (same size) while a session
 * uses it: the weights are read from the mapping, so the next forward pass would silently
 * mix two models (an eval loss of 8.35 instead of 2.21 in issue 35). Every forward pass
 * now compares the file with the one loaded and fails naming it. On a copy of the
 * reference tiny model in a scratch folder. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_tmp.h"
#include "session.h"

static char dir[128];

static int copy_tiny(void) {
    char src[1100], cmd[2600];
    check_ref_file("models/tiny/config.json", src, sizeof src);
    src[strlen(src) - strlen("/config.json")] = 0;
    snprintf(cmd, sizeof cmd, "cp '%s/config.json' '%s/model.safetensors' '%s/'", src, src, dir);
    int rc = system(cmd);
    CHECK(rc == 0, "copy the tiny model: %s", cmd);
    return rc;
}

static int open_session(Session *s) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "open: %s", err.text);
    if (rc == 0) rc = session_set_prompt(s, (const uint8_t *)"Once upon a", 11, &err);
    CHECK(rc == 0, "prompt: %s", err.text);
    return rc;
}

/* Overwrites `n` bytes at the end of the weights file with 0x41 (inside the last tensor's
 * data), size unchanged; then, if keep_mtime, sets mtime back to what it was (only ctime
 * then tells). Returns 0 or -1. */
static int rewrite_tail(size_t n, int keep_mtime) {
    char path[200];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    struct stat before;
    if (stat(path, &before)) return -1;
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    unsigned char buf[64];
    memset(buf, 0x41, sizeof buf);
    if (n > sizeof buf) n = sizeof buf;
    int rc = pwrite(fd, buf, n, before.st_size - (off_t)n) == (ssize_t)n ? 0 : -1;
    if (keep_mtime) {
        struct timespec t[2] = {before.st_atim, before.st_mtim};
        if (futimens(fd, t)) rc = -1;
    }
    close(fd);
    return rc;
}

static void test_rewrite_is_named(int keep_mtime) {
    Session s;
    if (copy_tiny() || open_session(&s)) return;
    ErrorMsg err = {{0}};
    CHECK(session_step(&s, &err) == 0, "unchanged file: step ok (%s)", err.text);
    int n = session_len(&s);
    usleep(20000); /* a later timestamp even on a coarse clock */
    CHECK(rewrite_tail(16, keep_mtime) == 0, "rewrite the file in place");
    int rc = session_step(&s, &err);
    CHECK(rc == -1 && strstr(err.text, "/model.safetensors changed on disk while in use"),
          "keep_mtime %d: step after the rewrite: rc %d '%s'", keep_mtime, rc, err.text);
    CHECK(session_len(&s) == n, "the refused step appends nothing (%d, was %d)", session_len(&s), n);
    rc = session_set_prompt(&s, (const uint8_t *)"Hello", 5, &err);
    CHECK(rc == -1 && strstr(err.text, "changed on disk while in use"), "a new prompt too: rc %d '%s'", rc,
          err.text);
    session_free(&s);
}

/* Replaced by rename (a re-download) or deleted: the mapping keeps the old file whole,
 * so the session goes on with the weights it loaded. */
static void test_rename_keeps_going(void) {
    Session s;
    if (copy_tiny() || open_session(&s)) return;
    char path[200], other[200], cmd[500];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    snprintf(other, sizeof other, "%s/new.safetensors", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, other);
    CHECK(system(cmd) == 0 && rename(other, path) == 0, "replace by rename");
    ErrorMsg err = {{0}};
    CHECK(session_step(&s, &err) == 0, "after a replacement by rename: step ok (%s)", err.text);
    CHECK(unlink(path) == 0, "delete");
    CHECK(session_step(&s, &err) == 0, "after deletion: step ok (%s)", err.text);
    session_free(&s);
}

int main(void) {
    if (check_tmpdir_make(dir, sizeof dir, "test_weights_changed")) return 1;
    test_rewrite_is_named(0);
    test_rewrite_is_named(1);
    test_rename_keeps_going();
    check_tmpdir_remove(dir);
    return check_summary("test_weights_changed");
}
