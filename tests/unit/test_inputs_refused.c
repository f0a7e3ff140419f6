/* A validation's inputs (dval_validation.args, .stdin_data) out of
 * bounds are refused before any work, saying which bound: more than 256
 * words or 64 KiB of them, stdin past 16 MiB, or a stdin_len without
 * its bytes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

static int validate(dval_client *c, const char *const *args,
                    const char *in, size_t in_len)
{
    char empty[] = "/tmp/dval-unit-inputs-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "shell";
    v.source_dir = empty;
    v.run_command = "true";
    v.allow_missing_results = 1;
    v.args = args;
    v.stdin_data = in;
    v.stdin_len = in_len;
    char *sum = NULL;
    int rc = dval_validate(c, &v, NULL, NULL, &sum);
    dval_free(sum);
    rmdir(empty);
    return rc;
}

TEST(test_inputs_refused__words_and_bytes_past_their_bounds)
{
    fake f;
    fake_init(&f);
    f.mkdir_ok = 1;
    dval_client *c = fake_client(&f, 0);
    static const char *many[258];
    for (int i = 0; i < 257; i++)
        many[i] = "w";
    CHECK_INT(validate(c, many, NULL, 0), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "request: args: at most 256 "
                   "words");
    CHECK_INT(f.snap_builds, 0);           /* refused before any work */
    char *big = malloc(40000);
    CHECK(big != NULL);
    memset(big, 'x', 39999);
    big[39999] = '\0';
    const char *two[] = { big, big, NULL };  /* 80 000 bytes */
    CHECK_INT(validate(c, two, NULL, 0), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "64 KiB");
    CHECK_INT(validate(c, NULL, "x", ((size_t)16 << 20) + 1), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "request: stdin_len");
    CHECK_INT(validate(c, NULL, NULL, 3), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "stdin_len");
    free(big);
    many[256] = NULL;                      /* 256 words: fine */
    CHECK_INT(validate(c, many, NULL, 0), DVAL_OK);
    dval_client_free(c);
}
