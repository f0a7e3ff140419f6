/* The Daytona executor's SHA-1 (OpenSSL's, lib/executor/daytona/sha1.c),
 * base64 and Sec-WebSocket-Accept against published vectors, and the
 * failure reported when libcrypto offers no SHA-1. */
#include <openssl/evp.h>

#include "harness.h"
#include "executor/daytona/sha1.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static const char *sha(const char *s, size_t n)
{
    static char out[41];
    uint8_t d[20];
    CHECK_INT(dt_sha1(s, n, d), 0);
    hex(d, 20, out);
    return out;
}

TEST(sha1_fips_vectors)
{
    CHECK_STR(sha("abc", 3), "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK_STR(sha("", 0), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK_STR(sha(two, strlen(two)), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

TEST(sha1_million_a_and_block_edges)
{
    static char a[1000000];
    memset(a, 'a', sizeof a);
    CHECK_STR(sha(a, sizeof a), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    /* lengths around the 55/56/64-byte padding edges must not crash and
     * must differ from each other */
    char prev[41] = "";
    for (size_t n = 50; n < 130; n++) {
        const char *h = sha(a, n);
        CHECK(strcmp(h, prev) != 0);
        strcpy(prev, h);
    }
}

TEST(base64_rfc4648)
{
    char out[16];
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *exp[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                         "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        dt_base64((const uint8_t *)in[i], strlen(in[i]), out, sizeof out);
        CHECK_STR(out, exp[i]);
    }
    CHECK_INT(dt_base64((const uint8_t *)"foobar", 6, out, 8), 0);
}

TEST(websocket_accept_rfc6455_example)
{
    char acc[29];
    CHECK_INT(dt_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", acc), 0);
    CHECK_STR(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

/* A property query no provider meets stands for a libcrypto without
 * SHA-1 (a restrictive provider configuration): an error, no digest, and
 * an empty accept value that no reply can match. Each test runs in its
 * own process, so the setting stays here. */
TEST(no_sha1_from_libcrypto_is_an_error)
{
    uint8_t d[20];
    char acc[29] = "unchanged";
    CHECK_INT(EVP_set_default_properties(NULL, "provider=no-such"), 1);
    CHECK_INT(dt_sha1("abc", 3, d), -1);
    CHECK_INT(dt_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", acc), -1);
    CHECK_STR(acc, "");
    CHECK_INT(EVP_set_default_properties(NULL, NULL), 1);
    CHECK_INT(dt_sha1("abc", 3, d), 0);
}
