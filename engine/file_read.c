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
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a plain file";
}

/* The one message for a path that exists but is no regular file. */
static int not_regular(const char *path, mode_t mode, ErrorMsg *err) {
    if (S_ISDIR(mode)) return error_set(err, "%s: is a directory, not a regular file", path);
    return error_set(err, "%s: not a regular file (%s)", path, file_kind_name(mode));
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
        return not_regular(path, st->st_mode, err);
    }
    /* a regular file never blocks, but plain blocking reads are what callers expect */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *file_fopen_regular(const char *path, struct stat *st, ErrorMsg *err) {
    struct stat own;
    int fd = file_open_regular(path, st ? st : &own, err);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        error_set(err, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int file_check_regular(const char *path, ErrorMsg *err) {
    struct stat st;
    if (stat(path, &st) != 0) return error_set(err, "%s: cannot open: %s", path, strerror(errno));
    return S_ISREG(st.st_mode) ? 0 : not_regular(path, st.st_mode, err);
}

int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

int file_read_all(const char *path, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    struct stat st;
    int fd = file_open_regular(path, &st, err);
    if (fd < 0) return -1;
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes) {
        close(fd);
        return error_set(err, "%s: %jd bytes, more than the %zu allowed", path, (intmax_t)st.st_size, max_bytes);
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return error_set(err, "%s: out of memory", path);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { /* error, or the file shrank while we read it */
            int e = r < 0 ? errno : 0;
            free(buf);
            close(fd);
            return e ? error_set(err, "%s: read error: %s", path, strerror(e))
                     : error_set(err, "%s: changed while being read (%zu of %zu bytes)", path, got, n);
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int file_read_stream(FILE *f, const char *name, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    if (!buf) return error_set(err, "%s: out of memory", name);
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) break; /* more than allowed: refused below */
            uint8_t *nb = cap <= SIZE_MAX / 2 - 1 ? realloc(buf, cap * 2 + 1) : NULL;
            if (!nb) {
                free(buf);
                return error_set(err, "%s: out of memory", name);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        return error_set(err, "%s: read error", name);
    }
    if (n > max_bytes) {
        free(buf);
        return error_set(err, "%s: more than the %zu bytes allowed", name, max_bytes);
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}
