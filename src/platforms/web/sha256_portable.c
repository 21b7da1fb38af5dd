/* sha256_portable.c — sha256_digest.h in plain C (FIPS 180-4 §6.2) for the browser
 * build, which has no OpenSSL. Speed is no concern there: it hashes the bundled 35 MB
 * model once per session, when the first figure is exported. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sha256_digest.h"

struct Sha256Digest {
    uint32_t h[8];
    unsigned char block[64];
    size_t used;     /* bytes waiting in block */
    uint64_t total;  /* bytes fed so far */
};

/* the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/* One 64-byte block into the state (the compression function, §6.2.2). */
static void compress(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

Sha256Digest *sha256_digest_new(void) {
    Sha256Digest *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(d->h, H0, sizeof H0);
    return d;
}

int sha256_digest_update(Sha256Digest *d, const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    d->total += n;
    while (n > 0) {
        size_t take = sizeof d->block - d->used < n ? sizeof d->block - d->used : n;
        memcpy(d->block + d->used, p, take);
        d->used += take, p += take, n -= take;
        if (d->used == sizeof d->block) {
            compress(d->h, d->block);
            d->used = 0;
        }
    }
    return 0;
}

int sha256_digest_final(Sha256Digest *d, unsigned char md[SHA256_DIGEST_LEN]) {
    uint64_t bits = d->total * 8;
    /* the padding (§5.1.1): 0x80, zeros to 56 mod 64, the message length in bits */
    static const unsigned char pad[64] = {0x80};
    size_t padn = d->used < 56 ? 56 - d->used : 120 - d->used;
    sha256_digest_update(d, pad, padn);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_digest_update(d, len, sizeof len);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) md[4 * i + j] = (unsigned char)(d->h[i] >> (24 - 8 * j));
    return 0;
}

void sha256_digest_free(Sha256Digest *d) { free(d); }
