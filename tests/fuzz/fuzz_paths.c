/* Names, remote paths, ids, UTF-8 helpers: never crash; an accepted remote
 * path never has a ".." component or a control byte. */
#include "fuzz.h"
#include "internal.h"

FUZZ_TARGET(paths)
{
    char *s = fuzz_cstr(data, size);
    if (!s)
        return 0;
    char msg[256];
    if (dval__check_remote_path(s, msg, sizeof msg) == DVAL_OK) {
        FUZZ_ASSERT(strlen(s) > 0);
        for (const char *p = s; *p; p++)
            FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
        for (const char *p = s; (p = strstr(p, "..")); p += 2) {
            int starts = p == s || p[-1] == '/';
            int ends = p[2] == '\0' || p[2] == '/';
            FUZZ_ASSERT(!(starts && ends));
        }
    }
    dval__check_name("name", s, 0, msg, sizeof msg);
    dval__check_name("name", s, 1, msg, sizeof msg);
    if (dval__check_component("id", s, msg, sizeof msg) == DVAL_OK)
        FUZZ_ASSERT(!strchr(s, '/') && strcmp(s, "..") && strcmp(s, "."));
    size_t k = dval__utf8_complete_prefix((const char *)data, size);
    FUZZ_ASSERT(k <= size && size - k <= 3);
    if (dval__utf8_valid((const char *)data, size))
        FUZZ_ASSERT(k == size);
    dval__buf q = { 0 };
    dval__shell_quote(&q, s);
    dval__buf_free(&q);
    free(s);
    return 0;
}
