/* Every row of the sandbox recovery ladder (PROTOCOL §3.4, §9.2), the wait
 * cadence and the deadlines, on a scripted executor and a fake clock. */
#include "harness.h"
#include "support_fake.h"

static fake F;

static dval_client *setup(void)
{
    fakeclock_install();
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    return c;
}

static void existing(int state, int recoverable)
{
    F.sb_exists = 1;
    snprintf(F.sb.id, sizeof F.sb.id, "id-java-25-sandbox");
    snprintf(F.sb.name, sizeof F.sb.name, "java-25-sandbox");
    F.sb.state = state;
    F.sb.recoverable = recoverable;
    snprintf(F.sb.error_reason, sizeof F.sb.error_reason, "runner lost");
}

static int acquire(dval_client *c, dval_sandbox **sb, int64_t start_timeout)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "java-25-sandbox";
    o.snapshot = "validation-snapshot-java";
    o.start_timeout_ms = start_timeout;
    return dval_sandbox_acquire(sb, c, &o);
}

static void expect(int initial, int recoverable, const int *seq, int nseq,
                   const char *trace, int64_t min_sleep_total)
{
    dval_client *c = setup();
    if (initial >= 0)
        existing(initial, recoverable);
    if (nseq)
        fake_sb_seq(&F, nseq, seq);
    dval_sandbox *sb = NULL;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    CHECK_STR(F.trace, trace);
    int64_t total = 0;
    for (int i = 0; i < fakeclock_nsleeps; i++)
        total += fakeclock_sleeps[i];
    CHECK(total >= min_sleep_total);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__started_is_reused)
{
    int seq[] = { DVAL_SANDBOX_STARTED };
    expect(DVAL_SANDBOX_STARTED, 0, seq, 1, "sb_get ", 0);
}

TEST(sandbox__absent_is_created)
{
    expect(-1, 0, NULL, 0, "sb_get sb_create ", 0);
}

TEST(sandbox__created_in_creating_is_awaited)
{
    dval_client *c = setup();
    F.sb_create_state = DVAL_SANDBOX_CREATING;
    dval_sandbox *sb;
    int seq[] = { DVAL_SANDBOX_CREATING, DVAL_SANDBOX_STARTED };
    /* the sequence starts after create */
    fake_sb_seq(&F, 2, seq);
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_create sb_get sb_get ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__sleepers_are_started)
{
    int states[] = { DVAL_SANDBOX_STOPPED, DVAL_SANDBOX_ARCHIVED,
                     DVAL_SANDBOX_PAUSED };
    for (int i = 0; i < 3; i++) {
        int seq[] = { states[i] };
        expect(states[i], 0, seq, 1, "sb_get sb_start ", 0);
    }
}

TEST(sandbox__stopping_waits_for_stopped_then_starts)
{
    int seq[] = { DVAL_SANDBOX_STOPPING, DVAL_SANDBOX_STOPPING,
                  DVAL_SANDBOX_STOPPED };
    expect(DVAL_SANDBOX_STOPPING, 0, seq, 3,
           "sb_get sb_get sb_get sb_start ", 200);
}

TEST(sandbox__transitional_states_are_awaited)
{
    int states[] = { DVAL_SANDBOX_CREATING, DVAL_SANDBOX_STARTING,
                     DVAL_SANDBOX_RESTORING, DVAL_SANDBOX_PULLING_SNAPSHOT,
                     DVAL_SANDBOX_BUILDING_SNAPSHOT, DVAL_SANDBOX_PENDING_BUILD,
                     DVAL_SANDBOX_RESUMING, DVAL_SANDBOX_UNKNOWN };
    for (int i = 0; i < 8; i++) {
        int seq[] = { states[i], states[i], DVAL_SANDBOX_STARTED };
        expect(states[i], 0, seq, 3, "sb_get sb_get sb_get ", 200);
    }
}

TEST(sandbox__recoverable_error_is_recovered_server_side)
{
    int seq[] = { DVAL_SANDBOX_ERROR };
    expect(DVAL_SANDBOX_ERROR, 1, seq, 1, "sb_get sb_recover ", 0);
}

TEST(sandbox__zombie_is_deleted_paused_and_recreated)
{
    int states[] = { DVAL_SANDBOX_ERROR, DVAL_SANDBOX_BUILD_FAILED };
    for (int i = 0; i < 2; i++) {
        int seq[] = { states[i] };
        expect(states[i], 0, seq, 1, "sb_get sb_delete sb_create ", 5000);
        CHECK_INT(fakeclock_sleeps[0], 5000); /* the zombie pause */
    }
}

TEST(sandbox__build_failed_is_never_recovered_server_side)
{
    int seq[] = { DVAL_SANDBOX_BUILD_FAILED };
    expect(DVAL_SANDBOX_BUILD_FAILED, 1, seq, 1,
           "sb_get sb_delete sb_create ", 5000);
}

TEST(sandbox__no_recover_option_deletes_instead)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_ERROR, 1);
    int seq[] = { DVAL_SANDBOX_ERROR };
    fake_sb_seq(&F, 1, seq);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "java-25-sandbox";
    o.no_recover = 1;
    o.zombie_pause_ms = 1234;
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_delete sb_create ");
    CHECK_INT(fakeclock_sleeps[0], 1234);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__failed_recover_falls_back_to_delete)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_ERROR, 1);
    int seq[] = { DVAL_SANDBOX_ERROR };
    fake_sb_seq(&F, 1, seq);
    fake_fail(&F, "sb_recover", DVAL_EBADREQUEST, -1);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_recover sb_delete sb_create ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__zombie_delete_waits_while_state_forbids_it)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_ERROR, 0);
    int seq[] = { DVAL_SANDBOX_ERROR };
    fake_sb_seq(&F, 1, seq);
    fake_fail(&F, "sb_delete", DVAL_ECONFLICT, -1);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_delete sb_delete sb_create ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__destroying_waits_until_gone_then_creates)
{
    int seq[] = { DVAL_SANDBOX_DESTROYING, DVAL_SANDBOX_DESTROYING, FAKE_GONE };
    expect(DVAL_SANDBOX_DESTROYING, 0, seq, 3,
           "sb_get sb_get sb_get sb_create ", 200);
}

TEST(sandbox__destroyed_state_is_recreated)
{
    int seq[] = { DVAL_SANDBOX_DESTROYED };
    expect(DVAL_SANDBOX_DESTROYED, 0, seq, 1, "sb_get sb_create ", 0);
}

TEST(sandbox__create_race_gets_the_winner)
{
    dval_client *c = setup();
    /* absent at first, but someone creates it before us */
    fake_fail(&F, "sb_get", DVAL_ENOTFOUND, -1);
    existing(DVAL_SANDBOX_STARTED, 0);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_create sb_get ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__start_timeout_is_a_monotonic_deadline)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STARTING, 0); /* stuck */
    dval_sandbox *sb = NULL;
    int64_t t0 = fakeclock_now;
    CHECK_INT(acquire(c, &sb, 0), DVAL_ETIMEOUT);
    CHECK(sb == NULL);
    int64_t waited = fakeclock_now - t0;
    CHECK(waited >= 180000 && waited < 182000); /* default 180 s */
    CHECK_CONTAINS(dval_client_errmsg(c), "still starting");
    dval_client_free(c);
}

TEST(sandbox__poll_cadence_100ms_then_x1_1_capped_at_1s)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STARTING, 0);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 20000), DVAL_ETIMEOUT);
    int64_t t = 0;
    int i = 0;
    for (; i < fakeclock_nsleeps && t < 5000; i++) {
        CHECK_INT(fakeclock_sleeps[i], 100);
        t += fakeclock_sleeps[i];
    }
    CHECK_INT(fakeclock_sleeps[i], 110);
    CHECK_INT(fakeclock_sleeps[i + 1], 121);
    CHECK_INT(fakeclock_sleeps[fakeclock_nsleeps - 1], 1000);
    dval_client_free(c);
}

TEST(sandbox__zombie_that_stays_broken_gives_up)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_ERROR, 0);
    F.sb_create_state = DVAL_SANDBOX_ERROR; /* every new one breaks too */
    int seq[] = { DVAL_SANDBOX_ERROR };
    fake_sb_seq(&F, 1, seq);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_ESTATE);
    CHECK_CONTAINS(dval_client_errmsg(c), "after 2 recoveries");
    dval_client_free(c);
}

TEST(sandbox__rate_limited_create_honours_retry_after)
{
    dval_client *c = setup();
    fake_fail(&F, "sb_create", DVAL_ERATELIMIT, 2000);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_create sb_create ");
    CHECK_INT(fakeclock_sleeps[0], 2000);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__start_conflict_waits_and_retries)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STOPPED, 0);
    int seq[] = { DVAL_SANDBOX_STOPPED };
    fake_sb_seq(&F, 1, seq);
    fake_fail(&F, "sb_start", DVAL_ECONFLICT, -1);
    dval_sandbox *sb;
    CHECK_INT(acquire(c, &sb, 0), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_start sb_start ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__stop_delete_release_and_refresh)
{
    dval_client *c = setup();
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "box";
    o.release = DVAL_RELEASE_DELETE;
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    CHECK_INT(dval_sandbox_stop(sb), DVAL_OK);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STOPPED);
    CHECK_INT(dval_sandbox_start(sb), DVAL_OK);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    CHECK(!F.sb_exists);
    CHECK_INT(dval_sandbox_refresh(sb), DVAL_ENOTFOUND);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_DESTROYED);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

static int states_seen[16], nstates_seen;

static void on_state(const char *n, int st, void *ud)
{
    (void)ud;
    CHECK_STR(n, "java-25-sandbox");
    if (nstates_seen < 16)
        states_seen[nstates_seen++] = st;
}

TEST(sandbox__state_callback_sees_transitions)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STOPPED, 0);
    int seq[] = { DVAL_SANDBOX_STOPPED, DVAL_SANDBOX_STARTING,
                  DVAL_SANDBOX_STARTED };
    fake_sb_seq(&F, 3, seq);
    F.sb_start_state = DVAL_SANDBOX_STARTING;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "java-25-sandbox";
    o.on_state = on_state;
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    CHECK_INT(nstates_seen, 3);
    CHECK_INT(states_seen[0], DVAL_SANDBOX_STOPPED);
    CHECK_INT(states_seen[1], DVAL_SANDBOX_STARTING);
    CHECK_INT(states_seen[2], DVAL_SANDBOX_STARTED);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__get_attaches_without_starting)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STOPPED, 0);
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_get(&sb, c, "java-25-sandbox"), DVAL_OK);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STOPPED);
    CHECK_STR(F.trace, "sb_get "); /* no start */
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    CHECK(!F.sb_exists);
    dval_sandbox_free(sb);
    CHECK_INT(dval_sandbox_get(&sb, c, "java-25-sandbox"), DVAL_ENOTFOUND);
    CHECK(sb == NULL);
    CHECK_CONTAINS(dval_client_errmsg(c), "not found");
    CHECK_INT(dval_sandbox_get(&sb, c, "a/b"), DVAL_EINVAL);
    dval_client_free(c);
}

TEST(sandbox__start_never_recreates_or_deletes)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STOPPED, 0);
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_get(&sb, c, "java-25-sandbox"), DVAL_OK);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    /* gone: start reports it instead of creating a new one */
    CHECK_INT(dval_sandbox_start(sb), DVAL_ENOTFOUND);
    CHECK(!F.sb_exists);
    CHECK_CONTAINS(dval_sandbox_errmsg(sb), "no longer exists");
    CHECK_INT(dval_sandbox_stop(sb), DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_sandbox_errmsg(sb), "no longer exists");
    dval_sandbox_free(sb);
    /* broken: start reports it; acquire is the call that recovers */
    existing(DVAL_SANDBOX_ERROR, 0);
    CHECK_INT(dval_sandbox_get(&sb, c, "java-25-sandbox"), DVAL_OK);
    CHECK_INT(dval_sandbox_start(sb), DVAL_ESTATE);
    CHECK_CONTAINS(dval_sandbox_errmsg(sb), "runner lost");
    CHECK(F.sb_exists);
    CHECK(!strstr(F.trace, "sb_delete sb_create"));
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(sandbox__get_by_id_names_the_handle_by_its_name)
{
    dval_client *c = setup();
    existing(DVAL_SANDBOX_STARTED, 0);
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_get(&sb, c, "id-java-25-sandbox"), DVAL_OK);
    CHECK_STR(dval_sandbox_name(sb), "java-25-sandbox");
    CHECK_STR(dval_sandbox_id(sb), "id-java-25-sandbox");
    dval_sandbox_free(sb);
    dval_client_free(c);
}
