/* export_dir.c — the figure folder's lock and sweep (export_dir.h). */
#include "export_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int export_dir_lock(const char *dir, ErrorMsg *err) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return error_set(err, "%s: cannot open the folder (%s)", dir, strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) break; /* ENOLCK / EINVAL: no locks here; export unlocked */
    }
    return fd;
}

void export_dir_unlock(int fd) {
    if (fd >= 0) close(fd); /* closing releases the flock */
}

/* "NNNN-" with at least four digits: the start of every name export.c gives a figure */
static int numbered(const char *s) {
    int d = 0;
    while (s[d] >= '0' && s[d] <= '9') d++;
    return d >= 4 && s[d] == '-' && s[d + 1] != '\0';
}

static int ends_with(const char *s, size_t n, const char *suffix) {
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* file_write_atomic's temporary: "." + final name + ".tmp-" + 6 random characters */
static int our_temporary(const char *name) {
    if (name[0] != '.' || !numbered(name + 1)) return 0;
    const char *t = strstr(name, ".tmp-");
    if (!t || strlen(t + 5) != 6) return 0;
    size_t base = (size_t)(t - name);
    return ends_with(name, base, ".png") || ends_with(name, base, ".json");
}

/* A sidecar figure_meta_json wrote: it opens with {"Software": "inferscope ..." */
static int our_sidecar(int dfd, const char *name) {
    int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    char head[64] = {0};
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    static const char mark[] = "{\n  \"Software\": \"inferscope ";
    return n >= (ssize_t)(sizeof mark - 1) && memcmp(head, mark, sizeof mark - 1) == 0;
}

int export_dir_sweep(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int dfd = dirfd(d), removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t n = strlen(name);
        int stale = 0;
        if (our_temporary(name)) {
            stale = 1;
        } else if (numbered(name) && ends_with(name, n, ".json") && n < 1024) {
            char png[1024];
            snprintf(png, sizeof png, "%.*s.png", (int)(n - 5), name);
            stale = faccessat(dfd, png, F_OK, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT && our_sidecar(dfd, name);
        }
        if (stale && unlinkat(dfd, name, 0) == 0) removed++;
    }
    closedir(d);
    return removed;
}
