/* The working directory of a command is an argument of the executor
 * (command_start_in), not text the executor has to parse back; only an
 * executor built for 0.1.0 (no command_start_in) gets the core's quoted
 * "cd '<dir>' || exit; " in front of the command. */
#include <stddef.h>
#include <string.h>

#include "harness.h"
#include "support_fake.h"

static fake F;
static fake_fixture FX;
static dval_client *C;
static dval_sandbox *SB;
static dval_session *S;

/* F is set up (fake_init, then any omissions) before this */
static void open_session(void)
{
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_OK);
    C = FX.c;
    SB = FX.sb;
    S = FX.s;
}

static void teardown(void)
{
    fake_fixture_free(&FX);
}

static int exec_in(const char *cwd, const char *command, int64_t timeout)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.cwd = cwd;
    eo.timeout_ms = timeout;
    int code = -1;
    int rc = dval_session_exec(S, command, &eo, NULL, NULL, &code);
    if (rc == DVAL_OK)
        CHECK_INT(code, 0);
    return rc;
}

TEST(exec_cwd__the_directory_is_an_argument_and_the_text_untouched)
{
    fake_init(&F);
    open_session();
    CHECK_INT(exec_in("/sandbox/it's here", "dotnet run", 0), DVAL_OK);
    CHECK_INT(F.started_old, 0);
    CHECK_STR(F.started, "dotnet run");
    CHECK_STR(F.started_cwd, "/sandbox/it's here");
    CHECK_INT(F.cwd_null, 0);
    CHECK_INT(exec_in(NULL, "true", 0), DVAL_OK);
    CHECK_STR(F.started, "true");
    CHECK_INT(F.cwd_null, 1);
    teardown();
}

/* A host executor compiled against the 0.1.0 header: its struct ends
 * before command_start_in, so the member is not there at all. */
TEST(exec_cwd__an_executor_of_0_1_0_gets_a_quoted_cd_prefix)
{
    fake_init(&F);
    F.ex_size = offsetof(struct dval_executor, command_start_in);
    open_session();
    CHECK_INT(exec_in("/sandbox/it's here", "dotnet run", 0), DVAL_OK);
    CHECK_INT(F.started_old, 1);
    CHECK_STR(F.started, "cd '/sandbox/it'\\''s here' || exit; dotnet run");
    CHECK_INT(exec_in(NULL, "true", 0), DVAL_OK);
    CHECK_STR(F.started, "true");
    teardown();
}

TEST(exec_cwd__an_executor_with_only_command_start_in_runs_commands)
{
    fake_init(&F);
    fake_omit(&F, "command_start");
    open_session();
    CHECK_INT(exec_in("/sandbox/a", "true", 0), DVAL_OK);
    CHECK_INT(F.started_old, 0);
    CHECK_STR(F.started_cwd, "/sandbox/a");
    teardown();
}

TEST(exec_cwd__an_executor_without_either_start_has_no_sessions)
{
    fake_init(&F);
    fake_omit(&F, "command_start");
    fake_omit(&F, "command_start_in");
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(dval_sandbox_errmsg(FX.sb), "cannot run sessions");
    fake_fixture_free(&FX);
}

/* The start is one attempt of the command's time: it ends by the exec
 * timeout, not 60 s later. */
TEST(exec_cwd__the_start_attempt_ends_by_the_exec_timeout)
{
    fake_init(&F);
    open_session();
    CHECK_INT(exec_in("/sandbox/a", "true", 5000), DVAL_OK);
    CHECK_INT(F.start_timeout_ms, 5000);
    CHECK_INT(exec_in("/sandbox/a", "true", 0), DVAL_OK);
    CHECK_INT(F.start_timeout_ms, 60000);
    teardown();
}

/* A refused start (429) is retried, and the retry keeps the directory. */
TEST(exec_cwd__a_rate_limited_start_is_retried_in_the_same_directory)
{
    fake_init(&F);
    fake_fail(&F, "cmd_start", DVAL_ERATELIMIT, 10);
    open_session();
    F.trace[0] = '\0';
    CHECK_INT(exec_in("/sandbox/a", "true", 0), DVAL_OK);
    CHECK(strstr(F.trace, "cmd_start cmd_start ") == F.trace);
    CHECK_STR(F.started_cwd, "/sandbox/a");
    teardown();
}
