/* file_identity.c — stat's view of a file, compared field by field (file_identity.h). */
#include "file_identity.h"

#include <string.h>
#include <sys/stat.h>

int file_identity(const char *path, FileIdentity *id) {
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) != 0) return -1;
    *id = (FileIdentity){.size = (uint64_t)st.st_size, .ino = (uint64_t)st.st_ino, .dev = (uint64_t)st.st_dev,
                         .mtime_s = (int64_t)st.st_mtim.tv_sec, .mtime_ns = (int64_t)st.st_mtim.tv_nsec,
                         .ctime_s = (int64_t)st.st_ctim.tv_sec, .ctime_ns = (int64_t)st.st_ctim.tv_nsec, .valid = 1};
    return 0;
}

int file_identity_same(const FileIdentity *a, const FileIdentity *b) {
    return a->valid && b->valid && a->size == b->size && a->ino == b->ino && a->dev == b->dev &&
           a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s &&
           a->ctime_ns == b->ctime_ns;
}
