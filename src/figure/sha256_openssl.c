/* sha256_openssl.c — sha256_digest.h through OpenSSL's EVP digest interface
 * (EVP_DigestInit_ex / Update / Final_ex). Not in the browser build (no libcrypto there:
 * src/platforms/web/sha256_portable.c). */
#include "sha256_digest.h"

#include <openssl/evp.h>

struct Sha256Digest {
    EVP_MD_CTX *ctx;
};

Sha256Digest *sha256_digest_new(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) return NULL;
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        return NULL;
    }
    return (Sha256Digest *)ctx; /* the struct is only a name for the context */
}

int sha256_digest_update(Sha256Digest *d, const void *bytes, size_t n) {
    return EVP_DigestUpdate((EVP_MD_CTX *)d, bytes, n) == 1 ? 0 : -1;
}

int sha256_digest_final(Sha256Digest *d, unsigned char md[SHA256_DIGEST_LEN]) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex((EVP_MD_CTX *)d, out, &len) != 1 || len != SHA256_DIGEST_LEN) return -1;
    for (unsigned int i = 0; i < len; i++) md[i] = out[i];
    return 0;
}

void sha256_digest_free(Sha256Digest *d) { EVP_MD_CTX_free((EVP_MD_CTX *)d); }
