/* SHA-256 on OpenSSL's EVP interface (see sha256.h). */
#include "sha256.h"

#include <openssl/evp.h>
#include <stdio.h>

int lx_sha256_init(lx_sha256 *s)
{
    if (!s->ctx)
        s->ctx = EVP_MD_CTX_new();
    s->bad = !s->ctx || !EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL);
    return s->bad ? -1 : 0;
}

void lx_sha256_update(lx_sha256 *s, const void *data, size_t n)
{
    if (!s->bad && !EVP_DigestUpdate(s->ctx, data, n))
        s->bad = 1;
}

static void hex(const unsigned char *md, char *dst, size_t cap)
{
    char h[2 * EVP_MAX_MD_SIZE + 1];
    for (int i = 0; i < 32; i++)
        snprintf(h + 2 * i, 3, "%02x", md[i]);
    snprintf(dst, cap, "sha256:%s", h);
}

int lx_sha256_final(lx_sha256 *s, char *dst, size_t cap)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    if (cap > 0)
        dst[0] = '\0';
    if (s->bad || !EVP_DigestFinal_ex(s->ctx, md, NULL))
        return s->bad = 1, -1;
    hex(md, dst, cap);
    return 0;
}

void lx_sha256_free(lx_sha256 *s)
{
    EVP_MD_CTX_free(s->ctx); /* NULL is fine */
    s->ctx = NULL;
    s->bad = 0;
}

int lx_sha256_of(const void *data, size_t n, char *dst, size_t cap)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    if (cap > 0)
        dst[0] = '\0';
    if (!EVP_Digest(data, n, md, NULL, EVP_sha256(), NULL))
        return -1;
    hex(md, dst, cap);
    return 0;
}
