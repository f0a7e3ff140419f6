/* The random uuids the core names threads, sessions and sandboxes with:
 * version 4 text, lower case, a fresh one each call. */
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
