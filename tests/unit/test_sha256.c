/* The local executor's SHA-256 (registry blob and manifest digests,
 * lib/executor/local/sha256.c) against the FIPS 180-4 examples, one shot
 * and streamed, and the reuse a resumed download makes of a context. */
#include "harness.h"
#include "executor/local/sha256.h"

#define ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define TWO "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define MILLION "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
#define TWO_MSG "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

static const char *one_shot(const char *s, size_t n)
{
    static char out[72];
    CHECK_INT(lx_sha256_of(s, n, out, sizeof out), 0);
    return out;
}

TEST(sha256_fips_vectors_one_shot)
{
    CHECK_STR(one_shot("abc", 3), "sha256:" ABC);
    CHECK_STR(one_shot("", 0), "sha256:" EMPTY);
    CHECK_STR(one_shot(TWO_MSG, strlen(TWO_MSG)), "sha256:" TWO);
}

TEST(sha256_million_a_in_odd_chunks)
{
    static char a[1000000];
    static const size_t step[] = { 1, 3, 55, 56, 63, 64, 65, 127, 997, 4099 };
    char out[72];
    lx_sha256 s = { 0 };
    memset(a, 'a', sizeof a);
    CHECK_INT(lx_sha256_init(&s), 0);
    for (size_t off = 0, i = 0; off < sizeof a; i++) {
        size_t n = step[i % 10] < sizeof a - off ? step[i % 10]
                                                 : sizeof a - off;
        lx_sha256_update(&s, a + off, n);
        off += n;
    }
    CHECK_INT(lx_sha256_final(&s, out, sizeof out), 0);
    CHECK_STR(out, "sha256:" MILLION);
    lx_sha256_free(&s);
    CHECK(s.ctx == NULL);
    CHECK_STR(one_shot(a, sizeof a), "sha256:" MILLION);
}

/* pull_blob.c restarts a download's hash with init on the same context
 * (a registry that sends the whole blob again), and frees it once. */
TEST(sha256_restart_and_reuse)
{
    char out[72];
    lx_sha256 s = { 0 };
    CHECK_INT(lx_sha256_init(&s), 0);
    lx_sha256_update(&s, "not this", 8);
    CHECK_INT(lx_sha256_init(&s), 0);
    lx_sha256_update(&s, "ab", 2);
    lx_sha256_update(&s, "c", 1);
    CHECK_INT(lx_sha256_final(&s, out, sizeof out), 0);
    CHECK_STR(out, "sha256:" ABC);
    CHECK_INT(lx_sha256_init(&s), 0); /* after final: a new digest */
    CHECK_INT(lx_sha256_final(&s, out, sizeof out), 0);
    CHECK_STR(out, "sha256:" EMPTY);
    lx_sha256_free(&s);
    lx_sha256_free(&s); /* twice, as on a path that freed already */
    lx_sha256 never = { 0 };
    lx_sha256_free(&never); /* a download that failed before init */
}

TEST(sha256_final_fits_the_digest_buffer)
{
    char out[16];
    CHECK_INT(lx_sha256_of("abc", 3, out, sizeof out), 0);
    CHECK_STR(out, "sha256:ba7816bf");
}
