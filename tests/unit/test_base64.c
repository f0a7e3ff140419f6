/* base64 (lib/base64.c): what dval__base64_append makes decodes back to
 * the same bytes, NULs and 0xff included; text that is not padded base64
 * is refused. */
#include <string.h>

#include "harness.h"
#include "base64.h"

TEST(test_base64__round_trips)
{
    const unsigned char in[] = { 'a', 0, 'b', 0xff, 0xfe, 'c', 0x80, 1 };
    for (size_t n = 0; n <= sizeof in; n++) {
        dval__buf b = { 0 };
        CHECK_INT(dval__base64_append(&b, in, n), DVAL_OK);
        CHECK_INT(b.len, (n + 2) / 3 * 4);
        unsigned char out[16];
        size_t len = 99;
        CHECK_INT(dval__base64_decode(b.data ? b.data : "", b.len, out, &len),
                  0);
        CHECK_INT(len, n);
        CHECK(!memcmp(out, in, n) && out[n] == 0);
        dval__buf_free(&b);
    }
    dval__buf b = { 0 };
    CHECK_INT(dval__base64_append(&b, (const unsigned char *)"a\0b\xff\xfe"
                                  "c", 6), DVAL_OK);
    CHECK(b.len == 8 && !memcmp(b.data, "YQBi//5j", 8));
    dval__buf_free(&b);
}

TEST(test_base64__refuses_what_is_not_base64)
{
    unsigned char out[16];
    size_t len;
    CHECK_INT(dval__base64_decode("YQ=", 3, out, &len), -1);
    CHECK_INT(dval__base64_decode("Y=Q=", 4, out, &len), -1);
    CHECK_INT(dval__base64_decode("YQ==YQ==", 8, out, &len), -1);
    CHECK_INT(dval__base64_decode("YQ!=", 4, out, &len), -1);
    CHECK_INT(dval__base64_decode("YQ==", 4, out, &len), 0);
    CHECK_INT(len, 1);
}
