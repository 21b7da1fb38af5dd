/* sha256_file.c — SHA-256 of a file (sha256_digest.h: OpenSSL natively, plain C in the
 * browser), plus the stat-keyed cache. The file is streamed in 1 MiB blocks so a 6 GB
 * GPT-2 XL costs 1 MiB of memory. */
#include "sha256_file.h"
#include "file_read.h"
#include "sha256_digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHA256_BLOCK (1u << 20)

/* Streams f through d in SHA256_BLOCK pieces (buf holds one) and writes the digest
 * as lowercase hex. path names the file in errors. */
static int digest_stream(FILE *f, Sha256Digest *d, unsigned char *buf, const char *path,
                         char hex[SHA256_HEX_LEN + 1], ErrorMsg *err) {
    for (;;) {
        size_t got = fread(buf, 1, SHA256_BLOCK, f);
        if (got > 0 && sha256_digest_update(d, buf, got) != 0)
            return error_set(err, "%s: SHA-256 update failed", path);
        if (got < SHA256_BLOCK) break;
    }
    if (ferror(f)) return error_set(err, "%s: read error while hashing", path);
    unsigned char md[SHA256_DIGEST_LEN];
    if (sha256_digest_final(d, md) != 0) return error_set(err, "%s: SHA-256 final failed", path);
    static const char digits[] = "0123456789abcdef";
    for (unsigned int i = 0; i < SHA256_DIGEST_LEN; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[SHA256_HEX_LEN] = '\0';
    return 0;
}

int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1], ErrorMsg *err) {
    hex[0] = '\0';
    /* file_read's non-blocking open: a FIFO in place of the weights must not hang */
    FILE *f = file_fopen_regular(path, NULL, err);
    if (!f) return -1;
    unsigned char *buf = malloc(SHA256_BLOCK);
    Sha256Digest *d = sha256_digest_new();
    int rc = buf && d ? digest_stream(f, d, buf, path, hex, err)
                      : error_set(err, "%s: out of memory while hashing (or no SHA-256)", path);
    sha256_digest_free(d);
    free(buf);
    fclose(f);
    return rc;
}

int sha256_file_cached(Sha256Cache *c, const char *path, const char **hex, ErrorMsg *err) {
    FileIdentity now;
    if (file_identity(path, &now) != 0) {
        c->valid = 0;
        return error_set(err, "%s: cannot open for hashing: %s", path, strerror(errno));
    }
    size_t plen = strlen(path);
    int fits = plen < sizeof c->path;
    if (fits && c->valid && strcmp(c->path, path) == 0 && file_identity_same(&c->id, &now)) {
        *hex = c->hex;
        return 0;
    }
    c->valid = 0;
    if (sha256_file(path, c->hex, err) != 0) return -1;
    *hex = c->hex;
    if (!fits) return 0;
    memcpy(c->path, path, plen + 1);
    c->id = now;
    c->valid = 1;
    return 0;
}
