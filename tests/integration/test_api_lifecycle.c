/* Public API against the emulator: snapshot ensure (absent, inactive,
 * failing builds) and sandbox acquire from every starting state the
 * recovery ladder knows (PROTOCOL 3.4, 9.1, 9.2). */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define SNAP "snap-life"

typedef struct fx {
    emu e;
    dval_client *c;
} fx;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fx_start(fx *f)
{
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":30,"
                       "\"snapshot_build_ms\":100}"), 200);
    f->c = emu_client(&f->e, NULL, 20, NULL);
}

static void fx_stop(fx *f)
{
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static int ensure(fx *f, const char *name, dval_snapshot **out)
{
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = name;
    s.image = "debian:12-slim";
    return dval_snapshot_ensure(out, f->c, &s, NULL, NULL);
}

static void ensure_ok(fx *f, const char *name)
{
    dval_snapshot *s = NULL;
    int rc = ensure(f, name, &s);
    if (rc)
        th_fail(__FILE__, __LINE__, "ensure %s: %s: %s", name,
                dval_status_name(rc), dval_client_errmsg(f->c));
    CHECK_INT(dval_snapshot_state(s), DVAL_SNAPSHOT_ACTIVE);
    dval_snapshot_free(s);
}

static void sb_opts(dval_sandbox_options *o, const char *name)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = name;
    o->snapshot = SNAP;
    o->start_timeout_ms = 20000;
    o->create_timeout_ms = 20000;
    o->zombie_pause_ms = -1;
}

static void acquire_ok(fx *f, const dval_sandbox_options *o,
                       dval_sandbox **out)
{
    int rc = dval_sandbox_acquire(out, f->c, o);
    if (rc)
        th_fail(__FILE__, __LINE__, "acquire %s: %s: %s", o->name,
                dval_status_name(rc), dval_client_errmsg(f->c));
    CHECK_INT(dval_sandbox_state(*out), DVAL_SANDBOX_STARTED);
}

/* ----------------------------------------------------------- snapshots */

TEST(snapshot_absent_is_created_then_reused)
{
    fx f;
    fx_start(&f);
    ensure_ok(&f, SNAP);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots$"), 1);
    ensure_ok(&f, SNAP);   /* active: no second create */
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots$"), 1);
    fx_stop(&f);
}

TEST(snapshot_inactive_is_activated)
{
    fx f;
    fx_start(&f);
    ensure_ok(&f, SNAP);
    CHECK_INT(emu_force(&f.e, "snapshot", SNAP, "{\"state\":\"inactive\"}"),
              200);
    ensure_ok(&f, SNAP);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots/[^/]+/activate$"), 1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots$"), 1);
    fx_stop(&f);
}

TEST(snapshot_four_failed_builds_then_success)
{
    fx f;
    fx_start(&f);
    CHECK_INT(emu_post(&f.e, "/_emu/snapshot/" SNAP "/fail_builds",
                       "{\"count\":4,\"reason\":\"apt-get exploded\"}"), 200);
    ensure_ok(&f, SNAP);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots$"), 5);
    CHECK_INT(emu_count(&f.e, "DELETE", "^/api/snapshots/"), 4);
    fx_stop(&f);
}

TEST(snapshot_five_failed_builds_is_ebuild_with_reason)
{
    fx f;
    fx_start(&f);
    CHECK_INT(emu_post(&f.e, "/_emu/snapshot/" SNAP "/fail_builds",
                       "{\"count\":5,\"reason\":\"apt-get exploded\"}"), 200);
    dval_snapshot *s = NULL;
    CHECK_INT(ensure(&f, SNAP, &s), DVAL_EBUILD);
    CHECK(s == NULL);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "apt-get exploded");
    CHECK_CONTAINS(dval_client_errmsg(f.c), SNAP);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/snapshots$"), 5);
    fx_stop(&f);
}

/* ----------------------------------------------------------- sandboxes */

/* snapshot + sandbox "sb" started; returns the handle */
static dval_sandbox *first(fx *f, dval_sandbox_options *o, const char *name)
{
    ensure_ok(f, SNAP);
    sb_opts(o, name);
    dval_sandbox *sb = NULL;
    acquire_ok(f, o, &sb);
    return sb;
}

TEST(sandbox_absent_created_and_started_reused)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK(dval_sandbox_id(a)[0]);
    CHECK_STR(dval_sandbox_name(a), "sb");
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK_STR(dval_sandbox_id(b), dval_sandbox_id(a));
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/.+/(start|recover)$"),
              0);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

TEST(sandbox_stopped_is_started)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", "{\"state\":\"stopped\"}"), 200);
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK_STR(dval_sandbox_id(b), dval_sandbox_id(a));
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/.+/start$"), 1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

TEST(sandbox_stopping_waits_for_stopped_then_starts)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    /* slow transition: the ladder must wait through "stopping" */
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"transition_ms\":400}"), 200);
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", "{\"state\":\"stopping\"}"),
              200);
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK_STR(dval_sandbox_id(b), dval_sandbox_id(a));
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/.+/start$"), 1);
    /* it polled while stopping instead of starting at once (409) */
    CHECK(emu_count(&f.e, "GET", "^/api/sandbox/") >= 3);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

TEST(sandbox_error_recoverable_is_recovered_server_side)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", "{\"state\":\"error\","
                        "\"recoverable\":true,\"errorReason\":\"disk full\","
                        "\"stuck\":true}"), 200);
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK_STR(dval_sandbox_id(b), dval_sandbox_id(a));
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/.+/recover$"), 1);
    CHECK_INT(emu_count(&f.e, "DELETE", "^/api/sandbox/"), 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

static void zombie_case(const char *force)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    char old[DVAL_ID_MAX];
    snprintf(old, sizeof old, "%s", dval_sandbox_id(a));
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", force), 200);
    o.zombie_pause_ms = 700;
    dval_sandbox *b = NULL;
    int64_t t0 = now_ms();
    acquire_ok(&f, &o, &b);
    int64_t took = now_ms() - t0;
    fprintf(stderr, "    recreate with a 700 ms zombie pause took %lld ms\n",
            (long long)took);
    CHECK(took >= 700);
    CHECK(strcmp(dval_sandbox_id(b), old) != 0);
    CHECK_INT(emu_count(&f.e, "DELETE", "^/api/sandbox/"), 1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/.+/recover$"), 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 2);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

TEST(sandbox_error_not_recoverable_is_deleted_paused_recreated)
{
    zombie_case("{\"state\":\"error\",\"recoverable\":false,"
                "\"errorReason\":\"runner lost\",\"stuck\":true}");
}

TEST(sandbox_build_failed_is_deleted_paused_recreated)
{
    zombie_case("{\"state\":\"build_failed\",\"errorReason\":\"bad image\","
                "\"stuck\":true}");
}

/* A sandbox on its way out (destroying, then gone: GET 404, PROTOCOL 3.4)
 * is waited for and created anew under the same name. */
TEST(sandbox_destroying_then_gone_is_recreated)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"transition_ms\":300}"), 200);
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", "{\"state\":\"destroying\"}"),
              200);
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK(strcmp(dval_sandbox_id(b), dval_sandbox_id(a)) != 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 2);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

/* Deleted through the API right before: acquire creates it again. */
TEST(sandbox_deleted_is_recreated)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK_INT(dval_sandbox_delete(a), DVAL_OK);
    CHECK_INT(dval_sandbox_state(a), DVAL_SANDBOX_DESTROYED);
    dval_sandbox *b = NULL;
    acquire_ok(&f, &o, &b);
    CHECK(strcmp(dval_sandbox_id(b), dval_sandbox_id(a)) != 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 2);
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_stop(&f);
}

TEST(sandbox_stuck_starting_times_out_with_message)
{
    fx f;
    fx_start(&f);
    dval_sandbox_options o;
    dval_sandbox *a = first(&f, &o, "sb");
    CHECK_INT(emu_force(&f.e, "sandbox", "sb", "{\"state\":\"starting\","
                        "\"stuck\":true}"), 200);
    o.start_timeout_ms = 1500;
    dval_sandbox *b = NULL;
    int64_t t0 = now_ms();
    CHECK_INT(dval_sandbox_acquire(&b, f.c, &o), DVAL_ETIMEOUT);
    int64_t took = now_ms() - t0;
    CHECK(b == NULL);
    CHECK(took >= 1500 && took < 6000);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "sb");
    CHECK_CONTAINS(dval_client_errmsg(f.c), "starting");
    dval_sandbox_free(a);
    fx_stop(&f);
}
