/* The SHA-256 compression on x86's SHA extensions (sha256rnds2 does two
 * rounds, sha256msg1/msg2 the message schedule). The state is kept as
 * the instructions want it: one register with A,B,E,F and one with
 * C,D,G,H (highest lane first). sha256.c calls this only on CPUs that
 * have the extensions. */
#include "sha256.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Four message words (big-endian in p) plus their round constants. */
TARGET static __m128i load_words(const unsigned char *p)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
                                         0x0405060700010203LL);
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
}

/* Four rounds: wk holds the next four words plus constants. */
TARGET static void rounds4(__m128i *abef, __m128i *cdgh, __m128i wk)
{
    __m128i t = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
    *cdgh = *abef;
    *abef = t;
    t = _mm_sha256rnds2_epu32(*cdgh, *abef, _mm_shuffle_epi32(wk, 0x0E));
    *cdgh = *abef;
    *abef = t;
}

TARGET static void one_block(__m128i *abef, __m128i *cdgh,
                             const unsigned char *p, const uint32_t *k)
{
    __m128i m[4], a0 = *abef, c0 = *cdgh;
    for (int g = 0; g < 16; g++) {
        __m128i w;
        if (g < 4) {
            w = load_words(p + 16 * g);
        } else { /* w[i] = s1(w[i-2]) + w[i-7] + s0(w[i-15]) + w[i-16] */
            w = _mm_sha256msg1_epu32(m[g % 4], m[(g + 1) % 4]);
            w = _mm_add_epi32(w, _mm_alignr_epi8(m[(g + 3) % 4],
                                                 m[(g + 2) % 4], 4));
            w = _mm_sha256msg2_epu32(w, m[(g + 3) % 4]);
        }
        m[g % 4] = w;
        rounds4(abef, cdgh, _mm_add_epi32(w, _mm_loadu_si128(
                                                 (const __m128i *)(k + 4 * g))));
    }
    *abef = _mm_add_epi32(*abef, a0);
    *cdgh = _mm_add_epi32(*cdgh, c0);
}


TARGET void lx_sha256_blocks_ni(uint32_t h[8], const unsigned char *p,
                                size_t nblocks)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)h);       /* a b c d */
    __m128i x1 = _mm_loadu_si128((const __m128i *)(h + 4)); /* e f g h */
    x0 = _mm_shuffle_epi32(x0, 0x1B);                       /* d c b a */
    x1 = _mm_shuffle_epi32(x1, 0x1B);                       /* h g f e */
    __m128i abef = _mm_unpackhi_epi64(x1, x0);              /* f e b a */
    __m128i cdgh = _mm_unpacklo_epi64(x1, x0);              /* h g d c */
    for (; nblocks--; p += 64)
        one_block(&abef, &cdgh, p, lx_sha256_k);
    abef = _mm_shuffle_epi32(abef, 0x1B);                   /* a b e f */
    cdgh = _mm_shuffle_epi32(cdgh, 0x1B);                   /* c d g h */
    _mm_storeu_si128((__m128i *)h, _mm_unpacklo_epi64(abef, cdgh));
    _mm_storeu_si128((__m128i *)(h + 4), _mm_unpackhi_epi64(abef, cdgh));
}
#endif
