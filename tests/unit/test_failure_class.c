/* The retry policy follows the executor's classification of a failure
 * (dval_call.failure), and only the executor's: the core no longer treats
 * 400/404 from session creation as a Daytona toolbox warming up for every
 * executor. */
#include <string.h>

#include "harness.h"
#include "support_fake.h"

static fake F;
static fake_fixture FX;
static dval_client *C;
static dval_sandbox *SB;

static void setup(void)
{
    fakeclock_install();
    fake_init(&F);
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 0), DVAL_OK);
    C = FX.c;
    SB = FX.sb;
    F.trace[0] = '\0';
}

static void teardown(void)
{
    fake_fixture_free(&FX);
}

static int count(const char *op)
{
    int n = 0;
    for (const char *p = F.trace; (p = strstr(p, op)) != NULL; p += strlen(op))
        n++;
    return n;
}

TEST(unclassified_bad_request_on_session_create_is_final)
{
    setup();
    fake_fail(&F, "ses_create", DVAL_EBADREQUEST, -1);
    fake_fail(&F, "ses_create", DVAL_EBADREQUEST, -1);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, SB), DVAL_EBADREQUEST);
    CHECK_INT(count("ses_create"), 1);
    CHECK_CONTAINS(dval_client_errmsg(C), "injected DVAL_EBADREQUEST");
    teardown();
}

TEST(not_ready_is_retried_with_backoff_until_ready)
{
    setup();
    fake_fail_class(&F, "ses_create", DVAL_EBADREQUEST, DVAL_FAILURE_NOT_READY);
    fake_fail_class(&F, "ses_create", DVAL_ENOTFOUND, DVAL_FAILURE_NOT_READY);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, SB), DVAL_OK);
    CHECK_INT(count("ses_create"), 3);
    CHECK_INT(fakeclock_nsleeps, 2);
    CHECK_INT((int)fakeclock_sleeps[0], 1000);
    CHECK_INT((int)fakeclock_sleeps[1], 2000);
    dval_session_free(s);
    teardown();
}

TEST(not_ready_gives_up_after_the_attempts)
{
    setup();
    for (int i = 0; i < 6; i++)
        fake_fail_class(&F, "ses_create", DVAL_ENOTFOUND, DVAL_FAILURE_NOT_READY);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, SB), DVAL_ENOTFOUND);
    CHECK_INT(count("ses_create"), 5);
    teardown();
}

TEST(permanent_server_error_is_not_retried)
{
    setup();
    fake_fail_class(&F, "sb_get", DVAL_ESERVER, DVAL_FAILURE_PERMANENT);
    CHECK_INT(dval_sandbox_refresh(SB), DVAL_ESERVER);
    CHECK_INT(count("sb_get"), 1);
    teardown();
}

TEST(unclassified_server_error_is_retried_when_idempotent)
{
    setup();
    fake_fail(&F, "sb_get", DVAL_ESERVER, -1);
    CHECK_INT(dval_sandbox_refresh(SB), DVAL_OK);
    CHECK_INT(count("sb_get"), 2);
    teardown();
}

TEST(transient_is_retried_only_when_idempotent)
{
    setup();
    fake_fail_class(&F, "sb_get", DVAL_EBADREQUEST, DVAL_FAILURE_TRANSIENT);
    CHECK_INT(dval_sandbox_refresh(SB), DVAL_OK);
    CHECK_INT(count("sb_get"), 2);
    /* the command start is never repeated (it could run twice) */
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, SB), DVAL_OK);
    fake_fail_class(&F, "cmd_start", DVAL_ENETWORK, DVAL_FAILURE_TRANSIENT);
    int code = -1;
    CHECK_INT(dval_session_exec(s, "true", NULL, NULL, NULL, &code),
              DVAL_ENETWORK);
    CHECK_INT(count("cmd_start"), 1);
    dval_session_free(s);
    teardown();
}

TEST(gone_is_not_retried)
{
    setup();
    fake_fail_class(&F, "sb_get", DVAL_ESERVER, DVAL_FAILURE_GONE);
    CHECK_INT(dval_sandbox_refresh(SB), DVAL_ESERVER);
    CHECK_INT(count("sb_get"), 1);
    teardown();
}
