/* SHA-256 (FIPS 180-4), for checking registry blobs against their
 * digests while they download: no crypto library is linked for it. */
#ifndef DVAL_LOCAL_SHA256_H
#define DVAL_LOCAL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct lx_sha256 {
    uint32_t h[8];
    uint64_t len;               /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
} lx_sha256;

void lx_sha256_init(lx_sha256 *s);
void lx_sha256_update(lx_sha256 *s, const void *data, size_t n);
/* The digest as "sha256:" + 64 lowercase hex digits (cap >= 72). */
void lx_sha256_final(lx_sha256 *s, char *dst, size_t cap);

/* The round constants (sha256.c), for both implementations. */
extern const uint32_t lx_sha256_k[64];

#if defined(__x86_64__) && defined(__GNUC__)
/* sha256_ni.c: nblocks 64-byte blocks on the CPU's SHA extensions (call
 * only where the CPU has them: sha256.c checks). */
void lx_sha256_blocks_ni(uint32_t h[8], const unsigned char *p,
                         size_t nblocks);
#endif

#endif
