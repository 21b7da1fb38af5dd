/* file_read.h — opening input files so that nothing can hang or surprise the reader: the
 * path is opened with O_NONBLOCK (a FIFO or a device in place of a file would otherwise
 * block open() forever), must then be a regular file, and is read whole up to a cap.
 * Every error is one line naming the path ("models/x/config.json: not a regular file (a
 * FIFO)"). Not for writing, and not for standard input (the CLI reads that itself). */
#ifndef FILE_READ_H
#define FILE_READ_H

#include <stddef.h>
#include <sys/stat.h>

#include "error.h"

/* Opens path read-only (close-on-exec, blocking mode restored once it is known to be a
 * regular file). Returns the descriptor and fills *st, or -1 with err set. */
int file_open_regular(const char *path, struct stat *st, ErrorMsg *err);

/* Reads the whole regular file path (at most max_bytes, else "PATH: N bytes is too large
 * for WHAT") into a malloc'd buffer *out (caller frees), NUL-terminated one past *len. */
int file_read_all(const char *path, size_t max_bytes, const char *what, char **out, size_t *len, ErrorMsg *err);

/* For a path that a library opens itself: 0 if it names a regular file (stat, no open),
 * else -1 with the same messages as file_open_regular. */
int file_check_regular(const char *path, ErrorMsg *err);

/* "a FIFO", "a directory", ... for a st_mode that is not a regular file. */
const char *file_kind_name(mode_t mode);

#endif
