/* SHA-256 as FIPS 180-4 defines it. Written out rather than taken from a
 * crypto library: the library links only libcurl, jansson and libuuid,
 * and a pull hashes each blob once, as it arrives (pull_blob.c). On x86
 * with the SHA extensions the compression runs on them (a registry
 * blob can be hundreds of MB, and the extensions are several times
 * faster than the portable rounds). */
#include "sha256.h"

#include <stdio.h>
#include <string.h>

const uint32_t lx_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void blocks_portable(uint32_t h[8], const unsigned char *p,
                            size_t nblocks)
{
    for (; nblocks--; p += 64) {
        uint32_t w[64], v[8];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
                   (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
                          (w[i - 15] >> 3);
            uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
                          (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        memcpy(v, h, sizeof v);
        for (int i = 0; i < 64; i++) {
            uint32_t s1 = ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25);
            uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
            uint32_t t1 = v[7] + s1 + ch + lx_sha256_k[i] + w[i];
            uint32_t s0 = ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22);
            uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            v[7] = v[6];
            v[6] = v[5];
            v[5] = v[4];
            v[4] = v[3] + t1;
            v[3] = v[2];
            v[2] = v[1];
            v[1] = v[0];
            v[0] = t1 + s0 + maj;
        }
        for (int i = 0; i < 8; i++)
            h[i] += v[i];
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define LX_SHA_NI 1
#endif

#ifdef LX_SHA_NI
#include <cpuid.h>

/* The CPU's SHA extensions and SSE4.1, asked of cpuid itself: clang's
 * __builtin_cpu_supports knows no "sha". */
static int cpu_has_sha_ni(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)))  /* SSE4.1 */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;                              /* SHA */
}
#endif

static void blocks(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
#ifdef LX_SHA_NI
    static int ni = -1; /* a benign race: every thread computes the same */
    if (ni < 0)
        ni = cpu_has_sha_ni();
    if (ni) {
        lx_sha256_blocks_ni(h, p, nblocks);
        return;
    }
#endif
    blocks_portable(h, p, nblocks);
}

void lx_sha256_init(lx_sha256 *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                    0xa54ff53a, 0x510e527f, 0x9b05688c,
                                    0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->nbuf = 0;
}

void lx_sha256_update(lx_sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->len += n;
    if (s->nbuf) {
        size_t take = 64 - s->nbuf < n ? 64 - s->nbuf : n;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take;
        p += take;
        n -= take;
        if (s->nbuf < 64)
            return;
        blocks(s->h, s->buf, 1);
        s->nbuf = 0;
    }
    blocks(s->h, p, n / 64);
    p += n / 64 * 64;
    s->nbuf = n % 64;
    memcpy(s->buf, p, s->nbuf);
}

void lx_sha256_final(lx_sha256 *s, char *dst, size_t cap)
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = { 0x80 };
    size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
    for (int i = 0; i < 8; i++)
        pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
    lx_sha256_update(s, pad, npad + 8);
    char hex[65];
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
    snprintf(dst, cap, "sha256:%s", hex);
}
