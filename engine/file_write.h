/* file_write.h — how every file inferscope writes comes into being: its bytes go to a
 * temporary created new (O_CREAT|O_EXCL|O_NOFOLLOW, a random name ".NAME.tmp-XXXXXX") in the
 * target's own folder, are flushed and fsynced, and the finished file is then linked onto
 * its name (no-clobber: EEXIST if the name appeared meanwhile) or renamed over it (replace).
 * So a reader never sees half a file, a failed write leaves nothing behind, and a link
 * planted at a predictable temporary name is never written through. A name that exists
 * and is not a regular file (a symbolic link, a device such as /dev/full, a FIFO, a
 * socket, a folder) is never replaced. Not for reading (file_read.h).
 *
 * Streaming use (the writer pushes pieces through stdio):
 *     AtomicFile a;
 *     if (atomic_file_open(&a, "out/x.npy", 1, &err)) ...;    // 1: replace a regular file
 *     fwrite(..., a.f); fprintf(a.f, ...);
 *     if (atomic_file_commit(&a, &err)) ...;                  // write errors reported here
 * or atomic_file_abort(&a) to drop the temporary. One buffer: file_write_atomic. */
#ifndef FILE_WRITE_H
#define FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

#define FILE_WRITE_PATH_MAX 4096

/* Test seam: a replacement for write(2) with the same contract (bytes written, or -1 with
 * errno set). Lets tests simulate a full disk or short writes. */
typedef long (*FileWriteFn)(int fd, const void *buf, size_t len, void *ctx);

typedef struct FileWriteOptions {
    int overwrite;        /* 0: refuse an existing name; 1: replace an existing regular file */
    FileWriteFn write_fn; /* NULL: write(2) */
    void *write_ctx;      /* passed to write_fn */
} FileWriteOptions;

typedef struct AtomicFile {
    FILE *f;                             /* the temporary, open for writing; NULL when closed */
    int overwrite;                       /* as FileWriteOptions.overwrite */
    int no_fsync;                        /* set after open: commit skips fsync (a test hook's
                                          * file rewritten every frame; durability is moot) */
    char path[FILE_WRITE_PATH_MAX];      /* the final name */
    char dir[FILE_WRITE_PATH_MAX];       /* its folder ("." for a bare name) */
    char tmp[FILE_WRITE_PATH_MAX + 32];  /* the temporary, in dir */
} AtomicFile;

/* 0 if path may be written: its folder exists, and the name is free or (overwrite) a
 * regular file. Else -1 with one line naming the path: "PATH: folder D does not exist",
 * "PATH: D is a file, not a folder", "PATH: is a folder, not a file", "PATH: exists and is a
 * symbolic link, not a regular file (not replaced)", "PATH: already exists (not
 * overwritten; choose another name)". For a CLI to refuse a named output before any work. */
int file_write_check(const char *path, int overwrite, ErrorMsg *err);

/* file_write_check, then creates the temporary (mode 0666 less the umask) and opens a->f
 * on it. On error nothing is left behind and a->f is NULL. */
int atomic_file_open(AtomicFile *a, const char *path, int overwrite, ErrorMsg *err);

/* Flushes a->f (a write error, disk full included, is reported here: "PATH: disk full
 * (...)", "PATH: write failed (...)"), fsyncs, closes, and links/renames the temporary onto
 * a->path after checking the name once more. On any error the temporary is removed.
 * Closed afterwards either way. */
int atomic_file_commit(AtomicFile *a, ErrorMsg *err);

/* Closes and removes the temporary; safe on a zeroed, failed or committed AtomicFile. */
void atomic_file_abort(AtomicFile *a);

/* Writes len bytes to path as above, in one call. opt may be NULL (defaults). */
int file_write_atomic(const char *path, const void *bytes, size_t len, const FileWriteOptions *opt,
                      ErrorMsg *err);

#endif
