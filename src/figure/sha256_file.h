/* sha256_file.h — the SHA-256 of a file (the model's weights) as 64 lowercase hex
 * digits, for figure provenance: a figure names the exact weights that drew it.
 * Hashing 100 MB–6 GB takes a while, so a Sha256Cache the caller owns remembers the
 * answer for one path and recomputes only when the file's size, mtime or inode change.
 * The digest is sha256_digest.h (OpenSSL natively); reads in 1 MiB blocks (no mmap, no whole-file
 * buffer). Not a general crypto module: nothing else of OpenSSL is used. */
#ifndef SHA256_FILE_H
#define SHA256_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "file_identity.h"

#define SHA256_HEX_LEN 64

/* Hashes the whole file at path into hex (65 bytes: 64 digits + NUL). Returns 0, or -1
 * with err naming the file (cannot open, is a folder, read error, crypto failure). */
int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1], ErrorMsg *err);

/* The remembered hash of one file. Zero-initialise; needs no free. */
typedef struct Sha256Cache {
    char path[1024];                 /* the file hashed ("" = empty cache) */
    FileIdentity id;                 /* identity of the file when it was hashed */
    char hex[SHA256_HEX_LEN + 1];    /* its SHA-256 */
    int valid;                       /* 1 once hex holds a hash of path */
} Sha256Cache;

/* sha256_file through the cache: returns at once when path is the cached file and it
 * has not changed (same size, mtime, inode), else hashes and remembers it. *hex points
 * into the cache (valid until the next call). Paths longer than the cache's buffer are
 * hashed every time. Returns 0 or -1 with err (the cache is then left empty). */
int sha256_file_cached(Sha256Cache *c, const char *path, const char **hex, ErrorMsg *err);

#endif
