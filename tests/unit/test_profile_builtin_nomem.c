/* The built-in profiles are parsed on the first lookup (lib/profile.c):
 * one that could not be for lack of memory is missing from that lookup
 * only, and parsed again by the next. Its own binary: the lookup under
 * the failure must be the process's first. */
#include "harness.h"

#include <dval.h>

long dval__alloc_count(void);
void dval__alloc_fail_at(long n);

TEST(test_profile_builtin_nomem__a_failed_parse_is_tried_again)
{
    dval__alloc_fail_at(1);
    const dval_profile *first = dval_profile_find("dotnet");
    long used = dval__alloc_count();
    dval__alloc_fail_at(0);
    CHECK(used > 0);
    CHECK(first == NULL);
    const dval_profile *p = dval_profile_find("dotnet");
    CHECK(p != NULL);
    CHECK_STR(p->name, "dotnet");
    CHECK_STR(p->build_commands[0], "dotnet --version");
    CHECK(dval_profile_find("java") != NULL);
    CHECK(dval_profile_find("shell") != NULL);
    const char *const *names = NULL;
    CHECK_INT(dval_profile_names(&names), DVAL_OK);
    CHECK_STR(names[0], "dotnet");
}
