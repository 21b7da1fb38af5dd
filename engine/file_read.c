/* file_read.c — non-blocking open + regular-file check + bounded whole-file read (see
 * file_read.h). The descriptor is opened O_NONBLOCK so that open() itself returns at once
 * for a FIFO with no writer; fstat then refuses it before any read could wait. */
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *file_kind_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

int file_open_regular(const char *path, struct stat *st, ErrorMsg *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENXIO) return error_set(err, "%s: not a regular file (a socket or device)", path);
        return error_set(err, "%s: cannot open: %s", path, strerror(errno));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return error_set(err, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        if (S_ISDIR(st->st_mode)) return error_set(err, "%s: is a directory, not a file", path);
        return error_set(err, "%s: not a regular file (%s)", path, file_kind_name(st->st_mode));
    }
    /* a regular file never blocks, but plain blocking reads are what callers expect */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int file_check_regular(const char *path, ErrorMsg *err) {
    struct stat st;
    if (stat(path, &st) != 0) return error_set(err, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return error_set(err, "%s: is a directory, not a file", path);
    if (!S_ISREG(st.st_mode)) return error_set(err, "%s: not a regular file (%s)", path, file_kind_name(st.st_mode));
    return 0;
}

int file_read_all(const char *path, size_t max_bytes, const char *what, char **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    struct stat st;
    int fd = file_open_regular(path, &st, err);
    if (fd < 0) return -1;
    if ((unsigned long long)st.st_size > (unsigned long long)max_bytes) {
        close(fd);
        return error_set(err, "%s: %lld bytes is too large for %s", path, (long long)st.st_size, what);
    }
    size_t cap = (size_t)st.st_size;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return error_set(err, "%s: out of memory", path);
    }
    size_t n = 0;
    while (n < cap) { /* the file may shrink while we read: stop at its end */
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return error_set(err, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}
