/* file_read.h — opening input files so that nothing can hang or surprise the reader: the
 * path is opened with O_NONBLOCK (a FIFO or a device in place of a file would otherwise
 * block open() forever), must then be a regular file, and is read whole up to a cap.
 * Every error is one line naming the path ("models/x/config.json: not a regular file (a
 * FIFO)"). Standard input (or any stream) is read by file_read_stream, with the same cap.
 * Not for writing. */
#ifndef FILE_READ_H
#define FILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "error.h"

/* Opens path read-only (close-on-exec, blocking mode restored once it is known to be a
 * regular file). Returns the descriptor and fills *st, or -1 with err set:
 * "PATH: not a regular file (a FIFO)", "PATH: is a directory, not a regular file". */
int file_open_regular(const char *path, struct stat *st, ErrorMsg *err);

/* file_open_regular as a stdio stream ("rb"): NULL with err set (the same messages, or
 * "PATH: cannot open: ..." if fdopen fails). *st (may be NULL) gets its stat. */
FILE *file_fopen_regular(const char *path, struct stat *st, ErrorMsg *err);

/* For a path that a library opens itself: 0 if it names a regular file (stat, no open),
 * else -1 with the same messages as file_open_regular. */
int file_check_regular(const char *path, ErrorMsg *err);

/* 0 if nothing is at path (stat says no such file), else 1 (something is there, or it
 * cannot be told). Nothing is opened, so a FIFO there cannot block: for optional
 * files (an n-gram index) whose absence is not an error but whose presence is then read
 * through file_read_all, which refuses a FIFO with its usual message. */
int file_exists(const char *path);

/* Reads all of path into a malloc'd buffer (*out, caller frees) with a NUL byte after
 * the last one (the data may itself contain NULs; *len is the byte count), through
 * file_open_regular. Files larger than max_bytes are refused ("PATH: 9000000 bytes, more
 * than the 8388608 allowed"), and so is one that shrinks while it is read.
 * Returns 0, or -1 with err and *out = NULL. */
int file_read_all(const char *path, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err);

/* Reads stream f to its end into a malloc'd buffer, NUL-terminated like file_read_all;
 * `name` is what errors call it ("stdin: read error", "stdin: more than the 1073741824
 * bytes allowed"). f is not closed. Returns 0, or -1 with err and *out = NULL. */
int file_read_stream(FILE *f, const char *name, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err);

/* "a FIFO", "a directory", ... for a st_mode that is not a regular file. */
const char *file_kind_name(mode_t mode);

#endif
