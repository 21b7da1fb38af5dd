/* file_write.c — new files created exclusively, renamed into place (see file_write.h). */
#include "file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_read.h"

/* Splits path into its folder (dir, "." for a bare name, "/" at the root) and checks the
 * folder and the name as file_write_check documents. */
static int check_target(const char *path, int overwrite, char *dir, size_t dir_cap, ErrorMsg *err) {
    if (!path || !*path) return error_set(err, "empty output path");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return error_set(err, "%s: is a folder, not a file name", path);
    size_t dlen = slash ? (size_t)(slash - path) : 1;
    if (dlen >= dir_cap || strlen(path) >= FILE_WRITE_PATH_MAX) return error_set(err, "%.200s...: path too long", path);
    if (!slash) {
        strcpy(dir, ".");
    } else if (dlen == 0) {
        strcpy(dir, "/");
    } else {
        memcpy(dir, path, dlen);
        dir[dlen] = '\0';
    }
    struct stat st;
    if (stat(dir, &st) != 0) return error_set(err, "%s: folder %s does not exist (%s)", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return error_set(err, "%s: %s is a file, not a folder", path, dir);
    if (lstat(path, &st) != 0) return 0; /* the name is free */
    if (S_ISDIR(st.st_mode)) return error_set(err, "%s: is a folder, not a file", path);
    if (!S_ISREG(st.st_mode))
        return error_set(err, "%s: exists and is %s, not a regular file (not replaced)", path, file_kind_name(st.st_mode));
    if (!overwrite) return error_set(err, "%s: already exists (not overwritten; choose another name)", path);
    return 0;
}

int file_write_check(const char *path, int overwrite, ErrorMsg *err) {
    char dir[FILE_WRITE_PATH_MAX];
    return check_target(path, overwrite, dir, sizeof dir, err);
}

/* Six characters [A-Za-z0-9] for the temporary's name: the kernel's randomness, else the
 * clock and the pid. Unpredictable names only spare retries; O_EXCL is what keeps a
 * planted link from being followed. */
static void random_suffix(char out[7], unsigned attempt) {
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6];
    if (getentropy(r, sizeof r) != 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (unsigned long long)getpid() ^
                               ((unsigned long long)attempt << 40);
        for (int i = 0; i < 6; i++) r[i] = (unsigned char)(x >> (8 * i));
    }
    for (int i = 0; i < 6; i++) out[i] = set[r[i] % (sizeof set - 1)];
    out[6] = '\0';
}

int atomic_file_open(AtomicFile *a, const char *path, int overwrite, ErrorMsg *err) {
    memset(a, 0, sizeof *a);
    if (check_target(path, overwrite, a->dir, sizeof a->dir, err)) return -1;
    strcpy(a->path, path);
    a->overwrite = overwrite;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int fd = -1, e = 0;
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        char r[7];
        random_suffix(r, attempt);
        snprintf(a->tmp, sizeof a->tmp, "%s/.%s.tmp-%s", a->dir, base, r);
        /* 0666 less the umask, as any new file; O_EXCL|O_NOFOLLOW: never an existing name */
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        e = errno;
        if (fd < 0 && e != EEXIST) break;
    }
    if (fd < 0) {
        a->tmp[0] = '\0';
        if (e == EACCES || e == EPERM || e == EROFS)
            return error_set(err, "%s: folder %s is not writable (%s)", path, a->dir, strerror(e));
        return error_set(err, "%s: cannot create a file in %s (%s)", path, a->dir, strerror(e));
    }
    a->f = fdopen(fd, "wb");
    if (!a->f) {
        e = errno;
        close(fd);
        atomic_file_abort(a);
        return error_set(err, "%s: cannot open a stream (%s)", path, strerror(e));
    }
    return 0;
}

void atomic_file_abort(AtomicFile *a) {
    if (!a) return;
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp[0]) unlink(a->tmp);
    a->tmp[0] = '\0';
}

/* Moves the finished temporary onto a->path: rename (replace) or link (no-clobber). */
static int move_into_place(AtomicFile *a, ErrorMsg *err) {
    /* the name may have changed since open: a link or a device there is never replaced */
    char dir[FILE_WRITE_PATH_MAX];
    if (check_target(a->path, a->overwrite, dir, sizeof dir, err)) return -1;
    if (a->overwrite) {
        if (rename(a->tmp, a->path) == 0) return 0;
        return error_set(err, "%s: cannot rename the finished file into place (%s)", a->path, strerror(errno));
    }
    /* link(2) fails with EEXIST if the name appeared meanwhile: no-clobber without a
     * check-then-rename race. File systems without hard links fall back to rename. */
    if (link(a->tmp, a->path) == 0) return unlink(a->tmp), 0;
    int e = errno;
    if (e == EEXIST) return error_set(err, "%s: already exists (not overwritten; choose another name)", a->path);
    struct stat st;
    if (!(e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EMLINK) || lstat(a->path, &st) == 0 ||
        rename(a->tmp, a->path) != 0) {
        if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EMLINK) e = errno;
        return error_set(err, "%s: cannot move the finished file into place (%s)", a->path, strerror(e));
    }
    return 0;
}

int atomic_file_commit(AtomicFile *a, ErrorMsg *err) {
    if (!a->f) return error_set(err, "%s: not open for writing", a->path[0] ? a->path : "(no file)");
    int bad = fflush(a->f) != 0 || ferror(a->f);
    int e = bad ? (errno ? errno : EIO) : 0;
    /* fsync before the rename: else a crash can leave the new name on an empty file */
    if (!bad && !a->no_fsync && fsync(fileno(a->f)) != 0) bad = 1, e = errno;
    if (fclose(a->f) != 0 && !bad) bad = 1, e = errno;
    a->f = NULL;
    if (bad) {
        atomic_file_abort(a);
        if (e == ENOSPC || e == EDQUOT) return error_set(err, "%s: disk full (%s)", a->path, strerror(e));
        return error_set(err, "%s: write failed (%s)", a->path, strerror(e));
    }
    if (move_into_place(a, err)) {
        atomic_file_abort(a);
        return -1;
    }
    a->tmp[0] = '\0';
    if (a->no_fsync) return 0;
    /* make the new directory entry durable too (best effort: some file systems refuse) */
    int dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return 0;
}

static long default_write(int fd, const void *buf, size_t len, void *ctx) {
    (void)ctx;
    return (long)write(fd, buf, len);
}

int file_write_atomic(const char *path, const void *bytes, size_t len, const FileWriteOptions *opt, ErrorMsg *err) {
    static const FileWriteOptions defaults = {0};
    if (!opt) opt = &defaults;
    FileWriteFn write_fn = opt->write_fn ? opt->write_fn : default_write;
    AtomicFile a;
    if (atomic_file_open(&a, path, opt->overwrite, err)) return -1;
    const unsigned char *b = bytes;
    size_t done = 0;
    while (done < len) { /* straight to the descriptor: the stream's buffer stays empty */
        long n = write_fn(fileno(a.f), b + done, len - done, opt->write_ctx);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC; /* no progress without an error: treat as full */
            atomic_file_abort(&a);
            if (e == ENOSPC || e == EDQUOT)
                return error_set(err, "%s: disk full after %zu of %zu bytes (%s)", path, done, len, strerror(e));
            return error_set(err, "%s: write failed after %zu of %zu bytes (%s)", path, done, len, strerror(e));
        }
        done += (size_t)n;
    }
    return atomic_file_commit(&a, err);
}
