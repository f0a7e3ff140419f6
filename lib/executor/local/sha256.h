/* SHA-256 for checking registry blobs and manifests against their
 * digests while they download: OpenSSL's libcrypto (loaded with libcurl
 * anyway), kept behind these calls so that only sha256.c includes it. */
#ifndef DVAL_LOCAL_SHA256_H
#define DVAL_LOCAL_SHA256_H

#include <stddef.h>

typedef struct lx_sha256 {
    struct evp_md_ctx_st *ctx;  /* OpenSSL's EVP_MD_CTX; NULL until init */
    int bad;                    /* a call failed (out of memory): no digest */
} lx_sha256;

/* Starts or restarts s (zeroed before its first init); 0, or -1 out of
 * memory (then also final's -1, so a caller may check either). */
int lx_sha256_init(lx_sha256 *s);
void lx_sha256_update(lx_sha256 *s, const void *data, size_t n);
/* The digest as "sha256:" + 64 lowercase hex digits (cap >= 72), and 0;
 * -1 and "" when a call since init failed. */
int lx_sha256_final(lx_sha256 *s, char *dst, size_t cap);
/* Releases s after any init, whether or not final came; s may be reused
 * (zeroed). */
void lx_sha256_free(lx_sha256 *s);
/* One shot of n bytes: final's result. */
int lx_sha256_of(const void *data, size_t n, char *dst, size_t cap);

#endif
