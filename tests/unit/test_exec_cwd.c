/* The working directory of a command is a field of its description
 * (dval_command.cwd), not text the executor has to parse back. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    CHECK_INT(F.started_argv, 0);
    CHECK_STR(F.started, "dotnet run");
    CHECK_STR(F.started_cwd, "/sandbox/it's here");
    CHECK_INT(F.cwd_null, 0);
    CHECK_INT(exec_in(NULL, "true", 0), DVAL_OK);
    CHECK_STR(F.started, "true");
    CHECK_INT(F.cwd_null, 1);
    teardown();
}

TEST(exec_cwd__an_executor_without_command_start_has_no_sessions)
{
    fake_init(&F);
    fake_omit(&F, "command_start");
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

/* A validation's commands are its own: each is started with its thread
 * id as the owner, given by the core, whatever directory it runs in. */
TEST(exec_cwd__a_validations_commands_are_owned_by_its_thread_id)
{
    fakeclock_install();
    fake_init(&F);
    F.snap_exists = 1;
    snprintf(F.snap.id, sizeof F.snap.id, "snap-1");
    const dval_profile *shell = dval_profile_find("shell");
    snprintf(F.snap.name, sizeof F.snap.name, "%s", shell->snapshot_name);
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    F.sb_exists = 1;
    snprintf(F.sb.id, sizeof F.sb.id, "id-shell-sandbox");
    snprintf(F.sb.name, sizeof F.sb.name, "%s", shell->sandbox_name);
    F.sb.state = DVAL_SANDBOX_STARTED;
    F.mkdir_ok = 1;
    dval_client *c = fake_client(&F, 0);
    char dir[] = "/tmp/dval-owner-XXXXXX";
    CHECK(mkdtemp(dir));
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.thread_id = "t-own";
    char *summary = NULL;
    dval_validate(c, &req, NULL, NULL, &summary);
    dval_free(summary);
    rmdir(dir);
    /* the workdir's clean-up and the run (the executor lists the
     * results: file_list) */
    CHECK_INT(F.starts, 2);
    CHECK_INT(F.starts_unowned, 0);
    CHECK_STR(F.started_owner, "t-own");
    dval_client_free(c);
}
