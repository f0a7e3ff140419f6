/* Every row of the snapshot ladder (PROTOCOL §9.1) and the retry policy
 * around it, on a scripted executor and a fake clock. */
#include "harness.h"
#include "support_fake.h"

static fake F;

static int ensure(dval_client *c, int rebuild, int64_t timeout,
                  dval_snapshot **out)
{
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "validation-snapshot-java";
    spec.image = "debian:12-slim";
    spec.rebuild_failed = rebuild;
    spec.build_timeout_ms = timeout;
    return dval_snapshot_ensure(out, c, &spec, NULL, NULL);
}

static dval_client *setup(void)
{
    fakeclock_install();
    fake_init(&F);
    /* when a test marks the snapshot as existing, it has this name/id */
    snprintf(F.snap.name, sizeof F.snap.name, "validation-snapshot-java");
    snprintf(F.snap.id, sizeof F.snap.id, "snap-0");
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    return c;
}

TEST(snapshot__active_is_reused)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get ");
    CHECK_INT(dval_snapshot_state(s), DVAL_SNAPSHOT_ACTIVE);
    CHECK_INT(fakeclock_nsleeps, 0);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__absent_is_created_and_awaited)
{
    dval_client *c = setup();
    F.snap_create_state = DVAL_SNAPSHOT_PENDING;
    int seq[] = { DVAL_SNAPSHOT_BUILDING, DVAL_SNAPSHOT_BUILDING,
                  DVAL_SNAPSHOT_ACTIVE };
    dval_snapshot *s;
    /* the sequence applies once the snapshot exists (after create) */
    fake_snap_seq(&F, 3, seq);
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get snap_create snap_get snap_get snap_get ");
    CHECK_INT(F.snap_builds, 1);
    CHECK_INT(fakeclock_nsleeps, 3);
    CHECK_INT(fakeclock_sleeps[0], 1000); /* polled every second */
    CHECK_STR(dval_snapshot_id(s), "snap-1");
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__transitional_states_are_awaited)
{
    int states[] = { DVAL_SNAPSHOT_PENDING, DVAL_SNAPSHOT_PULLING,
                     DVAL_SNAPSHOT_BUILDING };
    for (int i = 0; i < 3; i++) {
        dval_client *c = setup();
        F.snap_exists = 1;
        F.snap.state = states[i];
        int seq[] = { states[i], states[i], DVAL_SNAPSHOT_ACTIVE };
        fake_snap_seq(&F, 3, seq);
        dval_snapshot *s;
        CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
        CHECK_INT(F.snap_builds, 0);
        CHECK_STR(F.trace, "snap_get snap_get snap_get ");
        dval_snapshot_free(s);
        dval_client_free(c);
    }
}

TEST(snapshot__inactive_is_activated)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_INACTIVE;
    int seq[] = { DVAL_SNAPSHOT_INACTIVE, DVAL_SNAPSHOT_PENDING,
                  DVAL_SNAPSHOT_ACTIVE };
    fake_snap_seq(&F, 3, seq);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get snap_activate snap_get snap_get ");
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__failed_reports_error_reason_without_rebuild)
{
    int states[] = { DVAL_SNAPSHOT_ERROR, DVAL_SNAPSHOT_BUILD_FAILED };
    for (int i = 0; i < 2; i++) {
        dval_client *c = setup();
        F.snap_exists = 1;
        F.snap.state = states[i];
        snprintf(F.snap.error_reason, sizeof F.snap.error_reason,
                 "apt-get exited with 100");
        dval_snapshot *s = (dval_snapshot *)&F;
        CHECK_INT(ensure(c, 0, 0, &s), DVAL_EBUILD);
        CHECK(s == NULL);
        CHECK_CONTAINS(dval_client_errmsg(c), "apt-get exited with 100");
        CHECK_INT(F.snap_builds, 0);
        CHECK_STR(F.trace, "snap_get "); /* not retried: it is not ours */
        dval_client_free(c);
    }
}

TEST(snapshot__failed_is_rebuilt_when_asked)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_BUILD_FAILED;
    dval_snapshot *s;
    CHECK_INT(ensure(c, 1, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get snap_delete snap_get snap_get snap_create ");
    CHECK_INT(F.snap_builds, 1);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__removing_waits_until_gone_then_creates)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_REMOVING;
    int seq[] = { DVAL_SNAPSHOT_REMOVING, DVAL_SNAPSHOT_REMOVING, FAKE_GONE };
    fake_snap_seq(&F, 3, seq);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get snap_get snap_get snap_get snap_create ");
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__conflict_on_create_gets_again)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    fake_fail(&F, "snap_get", DVAL_ENOTFOUND, -1); /* a racing creator */
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_STR(F.trace, "snap_get snap_create snap_get ");
    CHECK_INT(F.snap_builds, 0);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__builds_failing_four_times_then_succeed)
{
    dval_client *c = setup();
    F.snap_fail_builds = 4;
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_INT(F.snap_builds, 5);
    /* backoff between attempts: 1, 2, 4, 8 s (other sleeps are polls) */
    int64_t want[] = { 1000, 2000, 4000, 8000 };
    int k = 0;
    for (int i = 0; i < fakeclock_nsleeps && k < 4; i++)
        if (fakeclock_sleeps[i] == want[k])
            k++;
    CHECK_INT(k, 4);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__five_failed_builds_give_up_with_the_last_error)
{
    dval_client *c = setup();
    F.snap_fail_builds = 5;
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_EBUILD);
    CHECK_INT(F.snap_builds, 5);
    CHECK_CONTAINS(dval_client_errmsg(c), "build 5 failed");
    dval_client_free(c);
}

TEST(snapshot__transient_errors_back_off_1_2_4_8)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    for (int i = 0; i < 4; i++)
        fake_fail(&F, "snap_get", DVAL_ESERVER, -1);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_INT(fakeclock_nsleeps, 4);
    CHECK_INT(fakeclock_sleeps[0], 1000);
    CHECK_INT(fakeclock_sleeps[1], 2000);
    CHECK_INT(fakeclock_sleeps[2], 4000);
    CHECK_INT(fakeclock_sleeps[3], 8000);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__exhaustion_surfaces_the_last_error)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    for (int i = 0; i < 40; i++)
        fake_fail(&F, "snap_get", DVAL_ESERVER, -1);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_ESERVER);
    CHECK_CONTAINS(dval_client_errmsg(c), "injected DVAL_ESERVER on snap_get");
    dval_client_free(c);
}

TEST(snapshot__retry_after_takes_precedence)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    fake_fail(&F, "snap_get", DVAL_ERATELIMIT, 3000);
    fake_fail(&F, "snap_get", DVAL_ERATELIMIT, 250);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_OK);
    CHECK_INT(fakeclock_nsleeps, 2);
    CHECK_INT(fakeclock_sleeps[0], 3000);
    CHECK_INT(fakeclock_sleeps[1], 250);
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__auth_failure_is_not_retried)
{
    dval_client *c = setup();
    fake_fail(&F, "snap_get", DVAL_EAUTH, -1);
    dval_snapshot *s;
    CHECK_INT(ensure(c, 0, 0, &s), DVAL_EAUTH);
    CHECK_STR(F.trace, "snap_get ");
    CHECK_INT(fakeclock_nsleeps, 0);
    dval_client_free(c);
}

TEST(snapshot__build_deadline)
{
    dval_client *c = setup();
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_BUILDING; /* stuck */
    dval_snapshot *s;
    int64_t t0 = fakeclock_now;
    CHECK_INT(ensure(c, 0, 5000, &s), DVAL_ETIMEOUT);
    CHECK(fakeclock_now - t0 >= 5000);
    CHECK(fakeclock_now - t0 < 5 * 5000 + 16000); /* 5 attempts + backoff */
    CHECK_CONTAINS(dval_client_errmsg(c), "did not become active");
    dval_client_free(c);
}

static int collect(const char *d, size_t n, void *u)
{
    strncat((char *)u, d, n);
    return 0;
}

TEST(snapshot__build_logs_reach_the_callback)
{
    dval_client *c = setup();
    char got[64] = "";
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "snap";
    dval_snapshot *s;
    CHECK_INT(dval_snapshot_ensure(&s, c, &spec, collect, got), DVAL_OK);
    CHECK_STR(got, "building\n");
    dval_snapshot_free(s);
    dval_client_free(c);
}

TEST(snapshot__get_never_creates_or_waits)
{
    dval_client *c = setup();
    dval_snapshot *s = NULL;
    CHECK_INT(dval_snapshot_get(&s, c, "validation-snapshot-java"),
              DVAL_ENOTFOUND);
    CHECK(s == NULL);
    CHECK_INT(F.snap_builds, 0);
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_BUILDING;
    CHECK_INT(dval_snapshot_get(&s, c, "validation-snapshot-java"), DVAL_OK);
    CHECK_INT(dval_snapshot_state(s), DVAL_SNAPSHOT_BUILDING);
    CHECK_INT(fakeclock_nsleeps, 0);
    CHECK_INT(dval_snapshot_delete(s), DVAL_OK);
    CHECK_INT(dval_snapshot_delete(s), DVAL_OK); /* already gone is fine */
    dval_snapshot_free(s);
    dval_client_free(c);
}
