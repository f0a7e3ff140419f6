/* What the pool knows instead of asking (issue 14 items 5 and 7): a pool
 * validation uses the shared sandbox as the last validation left it (no
 * GET /api/sandbox) and the snapshot the pool saw in use (no GET
 * /api/snapshots). Both are safe only because what changed behind the
 * client is recovered on the way: a sandbox stopped or deleted between
 * two validations (toolbox 400 "Is the Sandbox started?" / 404 → started
 * or created again), a snapshot deleted behind the client (the create's
 * 400 "Snapshot X not found" → ensured, rebuilt, created again). Each
 * fault is made on the emulator between two validations; the next one
 * must succeed, and the one after it is back to the healthy count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support_emulator.h"

#define RUN "mkdir -p results && echo '{\"ok\":true}' > results/r.json && " \
            "echo ok\n"

typedef struct fx {
    emu e;
    dval_client *c;
    dval_pool *pool;
    char dir[32];
} fx;

static void fx_open(fx *f, int max_per_sandbox)
{
    memset(f, 0, sizeof *f);
    f->c = emu_fast(&f->e);
    emu_program(f->dir, RUN);
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.name = "pk";
    po.max_sandboxes = 1;
    po.max_per_sandbox = max_per_sandbox;
    po.release = DVAL_RELEASE_DELETE;
    if (dval_pool_new(&f->pool, f->c, &po))
        th_fail(__FILE__, __LINE__, "pool: %s", dval_client_errmsg(f->c));
}

static void fx_close(fx *f)
{
    dval_pool_free(f->pool);
    emu_program_rm(f->dir);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

/* One pool validation that must succeed with the program's result. */
static void validate(fx *f, int sandbox_iso)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = f->dir;
    req.isolation = sandbox_iso ? DVAL_ISOLATION_SANDBOX
                                : DVAL_ISOLATION_SESSION;
    char *sum = NULL;
    int rc = dval_pool_validate(f->pool, &req, NULL, NULL, &sum);
    if (rc || !strstr(sum, "\"exit_code\":0") || !strstr(sum, "\"r.json\""))
        th_fail(__FILE__, __LINE__, "validate: %s: %s %s",
                dval_status_name(rc), dval_client_errmsg(f->c),
                sum ? sum : "");
    dval_free(sum);
}

/* The emulator's recorded requests (all of them, since it started) with
 * this method whose path matches re. */
static int n(fx *f, const char *method, const char *re)
{
    return emu_count(&f->e, method, re);
}

/* The sandbox the pool's slot 0 shares (session isolation). */
static void force_pool_sandbox(fx *f, const char *state_json)
{
    CHECK_INT(emu_force(&f->e, "sandbox", "pk-0", state_json), 200);
}

/* A validation on the shared sandbox after a warm one: no lookup, no
 * snapshot GET (the healthy count). */
static void check_healthy_next(fx *f)
{
    int gets = n(f, "GET", "^/api/sandbox"), snaps = n(f, "GET",
                                                       "^/api/snapshots");
    validate(f, 0);
    CHECK_INT(n(f, "GET", "^/api/sandbox") - gets, 0);
    CHECK_INT(n(f, "GET", "^/api/snapshots") - snaps, 0);
}

TEST(pool_known__stopped_between_validations_is_started)
{
    fx f;
    fx_open(&f, 4);
    validate(&f, 0);
    check_healthy_next(&f);
    /* an auto-stop behind the client: the toolbox answers 400 "Is the
     * Sandbox started?" to the session create */
    force_pool_sandbox(&f, "{\"state\":\"stopped\"}");
    int starts = n(&f, "POST", "^/api/sandbox/[^/]+/start$");
    validate(&f, 0);
    CHECK_INT(n(&f, "POST", "^/api/sandbox/[^/]+/start$") - starts, 1);
    CHECK_INT(n(&f, "POST", "^/api/sandbox$"), 1);   /* the same sandbox */
    check_healthy_next(&f);
    fx_close(&f);
}

TEST(pool_known__deleted_between_validations_is_created_again)
{
    fx f;
    fx_open(&f, 4);
    validate(&f, 0);
    check_healthy_next(&f);
    /* a reaper or a TTL deleted it: its toolbox answers 404 */
    force_pool_sandbox(&f, "{\"state\":\"gone\"}");
    validate(&f, 0);
    CHECK_INT(n(&f, "POST", "^/api/sandbox$"), 2);   /* made again */
    /* the pool now hands over the new one */
    check_healthy_next(&f);
    fx_close(&f);
}

/* A validation of the same client outside the pool deletes the slot's
 * sandbox (it names it, release delete): the client's cache forgets it,
 * so the next pool validation looks it up and creates it, with no session
 * tried in the deleted one first. */
TEST(pool_known__deleted_by_the_same_client_is_looked_up)
{
    fx f;
    fx_open(&f, 4);
    validate(&f, 0);
    check_healthy_next(&f);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = f.dir;
    req.profile = "shell";
    req.sandbox_name = "pk-0";
    req.release = DVAL_RELEASE_DELETE;
    char *sum = NULL;
    CHECK_INT(dval_validate(f.c, &req, NULL, NULL, &sum), DVAL_OK);
    dval_free(sum);
    CHECK_INT(n(&f, "DELETE", "^/api/sandbox/[^/]+$"), 1);
    int gets = n(&f, "GET", "^/api/sandbox/pk-0$");
    int sessions = n(&f, "POST", "^/toolbox/[^/]+/process/session$");
    validate(&f, 0);
    CHECK_INT(n(&f, "GET", "^/api/sandbox/pk-0$") - gets, 1);
    CHECK_INT(n(&f, "POST", "^/toolbox/[^/]+/process/session$") - sessions,
              1);
    CHECK_INT(n(&f, "POST", "^/api/sandbox$"), 2);   /* made again */
    check_healthy_next(&f);
    fx_close(&f);
}

/* The snapshot and the shared sandbox both deleted behind the client: the
 * re-acquire's create fails on the missing snapshot, the snapshot is
 * rebuilt, and the create is tried once more. */
TEST(pool_known__snapshot_and_sandbox_deleted_are_rebuilt)
{
    fx f;
    fx_open(&f, 4);
    validate(&f, 0);
    CHECK_INT(n(&f, "POST", "^/api/snapshots$"), 1);
    CHECK_INT(emu_force(&f.e, "snapshot", dval_profile_find("shell")->snapshot_name,
                        "{\"state\":\"gone\"}"), 200);
    force_pool_sandbox(&f, "{\"state\":\"gone\"}");
    validate(&f, 0);
    CHECK_INT(n(&f, "POST", "^/api/snapshots$"), 2);   /* rebuilt */
    CHECK_INT(n(&f, "POST", "^/api/sandbox$"), 3);     /* failed, then made */
    check_healthy_next(&f);
    fx_close(&f);
}

/* isolation=sandbox on Daytona (no guaranteed reset): a sandbox created
 * per validation; the snapshot deleted between two of them is rebuilt by
 * the next one, which succeeds. */
TEST(pool_known__snapshot_deleted_before_an_isolated_create_is_rebuilt)
{
    fx f;
    fx_open(&f, 1);
    validate(&f, 1);
    int snaps = n(&f, "GET", "^/api/snapshots");
    validate(&f, 1);
    CHECK_INT(n(&f, "GET", "^/api/snapshots") - snaps, 0);
    CHECK_INT(emu_force(&f.e, "snapshot", dval_profile_find("shell")->snapshot_name,
                        "{\"state\":\"gone\"}"), 200);
    validate(&f, 1);
    CHECK_INT(n(&f, "POST", "^/api/snapshots$"), 2);   /* rebuilt */
    /* every sandbox of its own was deleted after its validation */
    CHECK_INT(n(&f, "DELETE", "^/api/sandbox/[^/]+$"), 3);
    validate(&f, 1);
    fx_close(&f);
}

/* isolation=sandbox with release delete: the sandbox delete ends the
 * session, so no session delete precedes it; a sandbox delete that fails
 * leaves the sandbox (and the program's processes) behind: then the
 * session is closed after all. */
TEST(pool_known__session_closed_only_when_the_sandbox_stays)
{
    fx f;
    fx_open(&f, 1);
    validate(&f, 1);
    CHECK_INT(n(&f, "DELETE", "^/toolbox/[^/]+/process/session/[^/]+$"), 0);
    CHECK_INT(n(&f, "DELETE", "^/api/sandbox/[^/]+$"), 1);
    CHECK_INT(emu_fault(&f.e, "DELETE", "^/api/sandbox/", 1,
                        "\"status\":403"), 200);
    validate(&f, 1);
    CHECK_INT(n(&f, "DELETE", "^/toolbox/[^/]+/process/session/[^/]+$"), 1);
    fx_close(&f);
}

/* The label dval.isolation=sandbox no longer decides anything: a host's
 * own acquire of a sandbox so labelled is looked up before it is created
 * (only dval_validate, which made the name, skips the lookup). */
TEST(pool_known__isolation_label_is_no_fresh_name)
{
    emu e;
    dval_client *c = emu_fast(&e);
    const char *labels[] = { "dval.isolation=sandbox", NULL };
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "host-named";
    o.snapshot = dval_profile_find("shell")->snapshot_name;
    o.labels = labels;
    o.release = DVAL_RELEASE_DELETE;
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = o.snapshot;
    spec.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    CHECK_INT(dval_snapshot_ensure(&snap, c, &spec, NULL, NULL), DVAL_OK);
    dval_snapshot_free(snap);
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, c, &o);
    if (rc)
        th_fail(__FILE__, __LINE__, "acquire: %s", dval_client_errmsg(c));
    CHECK_INT(emu_count(&e, "GET", "^/api/sandbox/host-named$"), 1);
    CHECK_INT(emu_count(&e, "POST", "^/api/sandbox$"), 1);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    dval_client_free(c);
    emu_stop(&e);
}
