/* sha256_file.c — SHA-256 of a file through OpenSSL's EVP digest interface
 * (EVP_DigestInit_ex / Update / Final_ex, FIPS 180-4), plus the stat-keyed cache.
 * The file is streamed in 1 MiB blocks so a 6 GB GPT-2 XL costs 1 MiB of memory. */
#include "sha256_file.h"
#include "file_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#define SHA256_BLOCK (1u << 20)

/* Streams f through ctx in SHA256_BLOCK pieces (buf holds one) and writes the digest
 * as lowercase hex. path names the file in errors. */
static int digest_stream(FILE *f, EVP_MD_CTX *ctx, unsigned char *buf, const char *path,
                         char hex[SHA256_HEX_LEN + 1], ErrorMsg *err) {
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
        return error_set(err, "%s: cannot start SHA-256 (libcrypto)", path);
    for (;;) {
        size_t got = fread(buf, 1, SHA256_BLOCK, f);
        if (got > 0 && EVP_DigestUpdate(ctx, buf, got) != 1)
            return error_set(err, "%s: SHA-256 update failed (libcrypto)", path);
        if (got < SHA256_BLOCK) break;
    }
    if (ferror(f)) return error_set(err, "%s: read error while hashing", path);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (EVP_DigestFinal_ex(ctx, md, &md_len) != 1 || md_len != SHA256_HEX_LEN / 2)
        return error_set(err, "%s: SHA-256 final failed (libcrypto)", path);
    static const char digits[] = "0123456789abcdef";
    for (unsigned int i = 0; i < md_len; i++) {
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
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = buf && ctx ? digest_stream(f, ctx, buf, path, hex, err)
                        : error_set(err, "%s: out of memory while hashing", path);
    EVP_MD_CTX_free(ctx);
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
