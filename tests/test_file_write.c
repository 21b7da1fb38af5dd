/* test_file_write.c — engine/file_write.h, the one way files are written (issue 35): a new
 * temporary beside the name (mode 0666 less the umask), renamed (replace) or linked
 * (no-clobber) when complete; a link, a FIFO or a folder at the name is refused and left
 * as it was, also when it appears between open and commit; a write error (the disk-full
 * seam) leaves nothing behind; an aborted or refused write leaves no temporary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_tmp.h"
#include "file_write.h"

static char dir[] = "/tmp/test_file_write_XXXXXX";

static const char *at(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

static int has(const char *path, const char *want) {
    char got[64] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    return n == strlen(want) && memcmp(got, want, n) == 0;
}


static long full_disk(int fd, const void *buf, size_t len, void *ctx) {
    (void)fd, (void)buf, (void)len, (void)ctx;
    errno = ENOSPC;
    return -1;
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

int main(void) {
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return check_summary("test_file_write");
    }
    char p[512], q[512], t[512];
    ErrorMsg err;
    struct stat st;
    FileWriteOptions keep = {.overwrite = 0}, replace = {.overwrite = 1};

    /* a new file, with the umask's mode; no temporary left */
    mode_t old = umask(027);
    CHECK(file_write_atomic(at(p, sizeof p, "a.txt"), "one", 3, &keep, &err) == 0, "new file: %s", err.text);
    umask(old);
    CHECK(has(p, "one") && stat(p, &st) == 0 && (st.st_mode & 0777) == 0640, "content and mode 0640 (umask 027): %o",
          (unsigned)(st.st_mode & 0777));
    CHECK(file_write_atomic(p, "two", 3, &keep, &err) == -1 && strstr(err.text, "a.txt: already exists") != NULL,
          "no-clobber refuses: %s", err.text);
    CHECK(has(p, "one"), "the old file kept");
    CHECK(file_write_atomic(p, "two", 3, &replace, &err) == 0 && has(p, "two"), "overwrite replaces a regular file");
    CHECK(check_tmpdir_temps(dir) == 0, "no temporary left");

    /* a link, a FIFO, a folder at the name: refused in both modes, left as they were */
    put(at(t, sizeof t, "precious"), "precious");
    CHECK(symlink(t, at(p, sizeof p, "link")) == 0, "plant a link");
    for (int ow = 0; ow <= 1; ow++) {
        CHECK(file_write_atomic(p, "x", 1, ow ? &replace : &keep, &err) == -1 &&
                  strstr(err.text, "link: exists and is a symbolic link, not a regular file (not replaced)") != NULL,
              "a link refused (overwrite %d): %s", ow, err.text);
        CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && has(t, "precious"), "the link and its target untouched");
    }
    CHECK(mkfifo(at(p, sizeof p, "fifo"), 0600) == 0, "a FIFO");
    CHECK(file_write_atomic(p, "x", 1, &replace, &err) == -1 && strstr(err.text, "exists and is a FIFO") != NULL,
          "a FIFO refused: %s", err.text);
    CHECK(mkdir(at(p, sizeof p, "sub"), 0700) == 0, "a folder");
    CHECK(file_write_atomic(p, "x", 1, &replace, &err) == -1 && strstr(err.text, "sub: is a folder, not a file") != NULL,
          "a folder refused: %s", err.text);
    CHECK(file_write_atomic(at(p, sizeof p, "nope/x"), "x", 1, &keep, &err) == -1 &&
              strstr(err.text, "does not exist") != NULL, "a missing folder: %s", err.text);
    CHECK(file_write_atomic(at(p, sizeof p, "a.txt/x"), "x", 1, &keep, &err) == -1 &&
              strstr(err.text, "a.txt is a file, not a folder") != NULL, "a file as folder: %s", err.text);
    CHECK(file_write_check(at(p, sizeof p, "free"), 0, &err) == 0, "a free name passes the check");
    CHECK(check_tmpdir_temps(dir) == 0, "no temporary left by the refusals");

    /* streaming: invisible until commit; abort leaves nothing */
    AtomicFile a;
    CHECK(atomic_file_open(&a, at(p, sizeof p, "s.txt"), 0, &err) == 0, "open: %s", err.text);
    fputs("streamed", a.f);
    CHECK(access(p, F_OK) != 0 && check_tmpdir_temps(dir) == 1, "only the temporary exists before commit");
    CHECK(atomic_file_commit(&a, &err) == 0 && has(p, "streamed") && check_tmpdir_temps(dir) == 0, "commit: %s", err.text);
    CHECK(atomic_file_open(&a, at(p, sizeof p, "gone.txt"), 0, &err) == 0, "open again");
    fputs("x", a.f);
    atomic_file_abort(&a);
    atomic_file_abort(&a);
    CHECK(access(p, F_OK) != 0 && check_tmpdir_temps(dir) == 0, "abort (twice) leaves nothing");

    /* the name changes between open and commit */
    CHECK(atomic_file_open(&a, at(p, sizeof p, "race.txt"), 0, &err) == 0, "open race.txt");
    put(p, "theirs");
    CHECK(atomic_file_commit(&a, &err) == -1 && strstr(err.text, "already exists") != NULL && has(p, "theirs"),
          "a file that appeared meanwhile is not replaced: %s", err.text);
    CHECK(atomic_file_open(&a, at(q, sizeof q, "race2.txt"), 1, &err) == 0, "open race2.txt (replace)");
    CHECK(symlink(t, q) == 0, "a link appears meanwhile");
    CHECK(atomic_file_commit(&a, &err) == -1 && strstr(err.text, "symbolic link") != NULL && has(t, "precious"),
          "a link that appeared meanwhile is not replaced: %s", err.text);
    CHECK(check_tmpdir_temps(dir) == 0, "no temporary left by the races");

    /* a full disk: reported with the counts, nothing left */
    FileWriteOptions full = {.overwrite = 0, .write_fn = full_disk};
    CHECK(file_write_atomic(at(p, sizeof p, "full.txt"), "abc", 3, &full, &err) == -1 &&
              strstr(err.text, "full.txt: disk full after 0 of 3 bytes") != NULL, "disk full: %s", err.text);
    CHECK(access(p, F_OK) != 0 && check_tmpdir_temps(dir) == 0, "nothing left after the full disk");

    const char *names[] = {"a.txt", "link", "fifo", "s.txt", "race.txt", "race2.txt", "precious"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(at(p, sizeof p, names[i]));
    rmdir(at(p, sizeof p, "sub"));
    CHECK(rmdir(dir) == 0, "the folder is empty at the end");
    return check_summary("test_file_write");
}
