/* dval_cancel tokens: the API, a token fired before dval_validate, and one
 * fired while the core waits for a sandbox that never settles (scripted
 * executor, fake clock: the wait must end at once, not at its deadline). */
#include <pthread.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

static fake F;

TEST(cancel__token_api)
{
    dval_cancel *t = NULL;
    CHECK_INT(dval_cancel_new(NULL), DVAL_EINVAL);
    CHECK_INT(dval_cancel_fire(NULL), DVAL_EINVAL);
    CHECK_INT(dval_cancel_fired(NULL), 0);
    dval_cancel_free(NULL);
    CHECK_INT(dval_cancel_new(&t), DVAL_OK);
    CHECK(t);
    CHECK_INT(dval_cancel_fired(t), 0);
    CHECK_INT(dval_cancel_fire(t), DVAL_OK);
    CHECK_INT(dval_cancel_fire(t), DVAL_OK);   /* idempotent */
    CHECK_INT(dval_cancel_fired(t), 1);
    dval_cancel_free(t);
}

static void *fire_later(void *arg)
{
    usleep(20000);
    dval_cancel_fire(arg);
    return NULL;
}

TEST(cancel__fire_from_another_thread)
{
    dval_cancel *t = NULL;
    CHECK_INT(dval_cancel_new(&t), DVAL_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fire_later, t) == 0);
    for (int i = 0; i < 500 && !dval_cancel_fired(t); i++)
        usleep(2000);
    pthread_join(th, NULL);
    CHECK_INT(dval_cancel_fired(t), 1);
    dval_cancel_free(t);
}

typedef struct seen {
    dval_cancel *token;
    const char *fire_at;     /* fire when this phase starts */
    char phases[256];
} seen;

static int on_event(const dval_event *ev, void *ud)
{
    seen *s = ud;
    if (ev->type != DVAL_EVENT_PHASE || ev->done)
        return 0;
    strncat(s->phases, ev->phase, sizeof s->phases - strlen(s->phases) - 2);
    strcat(s->phases, " ");
    if (s->fire_at && !strcmp(ev->phase, s->fire_at))
        dval_cancel_fire(s->token);
    return 0;
}

static int validate(dval_client *c, seen *s, char **summary)
{
    char dir[] = "/tmp/dval-cancel-XXXXXX";
    CHECK(mkdtemp(dir));
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.cancel = s->token;
    int rc = dval_validate(c, &req, on_event, s, summary);
    rmdir(dir);
    return rc;
}

TEST(cancel__fired_before_start_runs_nothing)
{
    fakeclock_install();
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    seen s = {0};
    CHECK_INT(dval_cancel_new(&s.token), DVAL_OK);
    dval_cancel_fire(s.token);
    char *summary = (char *)1;
    CHECK_INT(validate(c, &s, &summary), DVAL_ECANCELED);
    /* the summary says so: a pipeline branches on the verdict */
    CHECK_CONTAINS(summary, "\"verdict\":\"canceled\"");
    dval_free(summary);
    CHECK_STR(dval_client_errmsg(c), "snapshot: canceled");
    CHECK(strstr(s.phases, "snapshot") == NULL);
    CHECK(strstr(F.trace, "snap_") == NULL);
    dval_cancel_free(s.token);
    dval_client_free(c);
}

TEST(cancel__ends_the_sandbox_wait)
{
    fakeclock_install();
    fake_init(&F);
    F.snap_exists = 1;
    snprintf(F.snap.id, sizeof F.snap.id, "snap-1");
    const dval_profile *shell = dval_profile_find("shell");
    snprintf(F.snap.name, sizeof F.snap.name, "%s", shell->snapshot_name);
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    /* a sandbox that stays "starting" for as long as anyone asks */
    F.sb_exists = 1;
    snprintf(F.sb.id, sizeof F.sb.id, "id-shell-sandbox");
    snprintf(F.sb.name, sizeof F.sb.name, "%s", shell->sandbox_name);
    F.sb.state = DVAL_SANDBOX_STARTING;
    dval_client *c = fake_client(&F, 0);
    seen s = {.fire_at = "sandbox"};
    CHECK_INT(dval_cancel_new(&s.token), DVAL_OK);
    int64_t t0 = fakeclock_now;
    char *summary = NULL;
    CHECK_INT(validate(c, &s, &summary), DVAL_ECANCELED);
    CHECK_CONTAINS(summary, "\"verdict\":\"canceled\"");
    dval_free(summary);
    /* without the token the wait lasts start_timeout_ms (minutes) */
    CHECK(fakeclock_now - t0 < 1000);
    CHECK(strstr(dval_client_errmsg(c), "sandbox: ") ==
          dval_client_errmsg(c));
    CHECK(strstr(s.phases, "session") == NULL);
    CHECK(strstr(s.phases, "close") != NULL);
    CHECK(strstr(F.trace, "ses_create") == NULL);
    dval_cancel_free(s.token);
    dval_client_free(c);
}
