/* file_identity.h — which file a path named at one moment (stat's size, inode, device,
 * mtime, ctime), to notice a file rewritten or replaced since it was read. Apart from
 * sha256_file.c (OpenSSL) so a build without OpenSSL (WebAssembly) has it too. */
#ifndef FILE_IDENTITY_H
#define FILE_IDENTITY_H

#include <stdint.h>

/* Which file a path named at one moment: a rewrite in place changes mtime and ctime (a
 * writer can set mtime back, never ctime), a replacement by rename changes the inode. */
typedef struct FileIdentity {
    uint64_t size, ino, dev;
    int64_t mtime_s, mtime_ns;
    int64_t ctime_s, ctime_ns;
    int valid;                       /* 1 once filled */
} FileIdentity;

/* Fills *id from stat(path). Returns 0, or -1 (id->valid 0) when path cannot be stat'ed. */
int file_identity(const char *path, FileIdentity *id);

/* 1 if a and b are both valid and name the same unchanged file. */
int file_identity_same(const FileIdentity *a, const FileIdentity *b);

#endif
