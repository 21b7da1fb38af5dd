/* file_read.h — reading a whole input file safely: only regular files (a FIFO, a device
 * or a folder given where a file is expected is refused at once instead of blocking),
 * never more than a stated number of bytes, errors naming the path. Not for the model
 * weights (safetensors.c maps those). */
#ifndef FILE_READ_H
#define FILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Reads all of path into a malloc'd buffer (*out, caller frees) with a NUL byte after
 * the last one (the data may itself contain NULs; *len is the byte count). Opens with
 * O_NONBLOCK and checks fstat before reading: "PATH: not a regular file". Files larger
 * than max_bytes are refused ("PATH: 9000000 bytes, more than the 8388608 allowed").
 * Returns 0, or -1 with err and *out = NULL. */
int file_read_all(const char *path, size_t max_bytes, uint8_t **out, size_t *len, ErrorMsg *err);

#endif
