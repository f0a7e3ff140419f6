/* dval_exec_options.env: the caller's variables reach the executor as
 * data (dval_command.env) beside the text, never expanded by a shell.
 * Bad entries never reach the executor. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "support_fake.h"

static fake F;
static fake_fixture FX;

static int run(const char *text, const char *const *env)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.env = env;
    return dval_session_exec(FX.s, text, &eo, NULL, NULL, NULL);
}

static void open_fx(void)
{
    fake_init(&F);
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_OK);
}

TEST(exec_env__given_as_data_beside_the_text)
{
    open_fx();
    const char *env[] = { "A=x y", "EMPTY=", "Q=it's $(no) `no`", NULL };
    CHECK_INT(run("echo \"$A\"", env), DVAL_OK);
    CHECK_INT(F.started_argv, 0);
    CHECK_STR(F.started, "echo \"$A\"");
    CHECK_STR(F.started_env, "A=x y EMPTY= Q=it's $(no) `no`");
    fake_fixture_free(&FX);
}

TEST(exec_env__none_or_empty_leaves_the_command_as_it_was)
{
    open_fx();
    const char *none[] = { NULL };
    CHECK_INT(run("echo hi", NULL), DVAL_OK);
    CHECK_STR(F.started, "echo hi");
    CHECK_STR(F.started_env, "");
    CHECK_INT(run("echo hi", none), DVAL_OK);
    CHECK_STR(F.started, "echo hi");
    CHECK_STR(F.started_env, "");
    fake_fixture_free(&FX);
}

TEST(exec_env__bad_entries_are_refused_before_the_executor)
{
    static char big[32770];
    static const char *many[258];
    {
        open_fx();
        F.trace[0] = 0;
        const char *no_eq[] = { "OK=1", "NAME", NULL };
        const char *digit[] = { "1A=x", NULL };
        const char *dash[] = { "A-B=x", NULL };
        const char *space[] = { "A B=x", NULL };
        const char *utf8[] = { "A=\xff", NULL };
        CHECK_INT(run("true", no_eq), DVAL_EINVAL);
        CHECK_CONTAINS(dval_session_errmsg(FX.s), "\"NAME\" is not NAME=value");
        CHECK_INT(run("true", digit), DVAL_EINVAL);
        CHECK_INT(run("true", dash), DVAL_EINVAL);
        CHECK_INT(run("true", space), DVAL_EINVAL);
        CHECK_INT(run("true", utf8), DVAL_EINVAL);
        CHECK_CONTAINS(dval_session_errmsg(FX.s), "not valid UTF-8");
        for (int i = 0; i < 257; i++)
            many[i] = "V=1";
        many[257] = NULL;
        CHECK_INT(run("true", many), DVAL_EINVAL);
        CHECK_CONTAINS(dval_session_errmsg(FX.s), "more than 256 entries");
        many[256] = NULL; /* 256 is fine */
        CHECK_INT(run("true", many), DVAL_OK);
        memset(big, 'x', sizeof big - 1);
        memcpy(big, "BIG=", 4);
        const char *huge[] = { big, NULL };
        big[32768] = 0; /* 32769 bytes with the NUL: one too many */
        CHECK_INT(run("true", huge), DVAL_EINVAL);
        CHECK_CONTAINS(dval_session_errmsg(FX.s), "32768 bytes");
        big[32767] = 0; /* exactly the limit */
        CHECK_INT(run("true", huge), DVAL_OK);
        /* only the two good commands reached the executor */
        const char *t = strstr(F.trace, "cmd_start");
        CHECK(t != NULL && (t = strstr(t + 1, "cmd_start")) != NULL &&
              strstr(t + 1, "cmd_start") == NULL);
        fake_fixture_free(&FX);
    }
}

/* A caller built against the 0.1.3 header: its struct ends before env,
 * so whatever lies beyond it is never read. */
TEST(exec_env__a_struct_without_the_field_is_not_read_past)
{
    open_fx();
    struct {
        dval_exec_options o;
    } wide;
    const char *bad[] = { "NOT A NAME", NULL };
    dval_exec_options_init(&wide.o, offsetof(dval_exec_options, env));
    wide.o.env = bad; /* past struct_size: ignored */
    CHECK_INT(dval_session_exec(FX.s, "echo hi", &wide.o, NULL, NULL, NULL),
              DVAL_OK);
    CHECK_STR(F.started, "echo hi");
    CHECK_STR(F.started_env, "");
    fake_fixture_free(&FX);
}
