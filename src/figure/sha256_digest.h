/* sha256_digest.h — SHA-256 (FIPS 180-4) over bytes fed in pieces: the one primitive
 * sha256_file.c needs. Natively OpenSSL's EVP digest (sha256_openssl.c: its SHA-NI /
 * AVX2 code hashes a 6 GB checkpoint at disk speed); the browser build has no
 * libcrypto and links src/platforms/web/sha256_portable.c instead (plain C). */
#ifndef SHA256_DIGEST_H
#define SHA256_DIGEST_H

#include <stddef.h>

#define SHA256_DIGEST_LEN 32

typedef struct Sha256Digest Sha256Digest;

/* A digest ready for bytes; NULL when out of memory or the library cannot start one. */
Sha256Digest *sha256_digest_new(void);
/* Feeds n bytes. 0, or -1 when the library failed. */
int sha256_digest_update(Sha256Digest *d, const void *bytes, size_t n);
/* Writes the 32-byte digest of everything fed. 0, or -1 when the library failed. */
int sha256_digest_final(Sha256Digest *d, unsigned char md[SHA256_DIGEST_LEN]);
void sha256_digest_free(Sha256Digest *d); /* NULL is fine */

#endif
