/* Each built-in profile is parsed on its own first lookup
 * (lib/profile.c): one that could not be for lack of memory is missing
 * from that lookup only, and parsed again by the next. Its own binary: the lookup under
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

/* A process that runs one profile never pays for parsing the others (the
 * java and dotnet ones carry their packed files: tens of KiB of JSON). */
TEST(test_profile_builtin_nomem__a_lookup_parses_that_profile_only)
{
    dval__alloc_fail_at(0);
    CHECK(dval_profile_find("shell") != NULL);
    long shell = dval__alloc_count();
    dval__alloc_fail_at(0);
    CHECK(dval_profile_find("shell") != NULL); /* parsed already */
    CHECK(dval__alloc_count() == 0);
    CHECK(dval_profile_find("java") != NULL);
    long java = dval__alloc_count();
    const char *const *names = NULL;
    CHECK_INT(dval_profile_names(&names), DVAL_OK); /* names: no parse */
    CHECK(dval__alloc_count() == java);
    CHECK_STR(names[2], "shell");
    CHECK(shell > 0 && java > 0);
    /* with every built-in parsed, shell's share would be java's and more */
    CHECK(shell < java);
}
