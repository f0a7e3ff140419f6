/* Small helpers of names and texts: the random uuids the core names
 * threads, sessions and sandboxes with (version 4 text, lower case, a
 * fresh one each call), and the bounded copy of names and paths. */
#include <ctype.h>
#include <string.h>

#include "core.h"
#include "harness.h"

TEST(names__uuid4_is_lower_case_version_4_text)
{
    char a[37], b[37];
    for (int i = 0; i < 64; i++) {
        dval__uuid4(a);
        CHECK(strlen(a) == 36);
        for (int j = 0; j < 36; j++) {
            if (j == 8 || j == 13 || j == 18 || j == 23)
                CHECK(a[j] == '-');
            else
                CHECK(isxdigit((unsigned char)a[j]) &&
                      !isupper((unsigned char)a[j]));
        }
        CHECK(a[14] == '4');
        CHECK(strchr("89ab", a[19]) != NULL);
    }
    dval__uuid4(b);
    CHECK(strcmp(a, b) != 0);
}

TEST(names__strlcpy_copies_whole_or_cuts_at_a_character)
{
    char d[8];
    dval__strlcpy(d, "abc", sizeof d);
    CHECK_STR(d, "abc");
    dval__strlcpy(d, "1234567", sizeof d);
    CHECK_STR(d, "1234567");
    dval__strlcpy(d, "12345678", sizeof d);
    CHECK_STR(d, "1234567");
    dval__strlcpy(d, NULL, sizeof d);
    CHECK_STR(d, "");
    /* "12345" then a 3-byte character: cut before it, never inside */
    dval__strlcpy(d, "12345\xe2\x82\xac", sizeof d);
    CHECK_STR(d, "12345");
    dval__strlcpy(d, "1234\xe2\x82\xac", sizeof d);
    CHECK_STR(d, "1234\xe2\x82\xac");
    d[0] = 'x';
    dval__strlcpy(d, "abc", 0);
    CHECK(d[0] == 'x');
    char one[1] = {'x'};
    dval__strlcpy(one, "abc", 1);
    CHECK(one[0] == '\0');
}
