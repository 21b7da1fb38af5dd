/* file_read.c — see file_read.h. */
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_read_all(const char *path, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return error_set(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return error_set(err, "%s: not a regular file", path);
    }
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
