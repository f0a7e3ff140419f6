/* Concurrency stress of the daytona executor against the emulator, through
 * the public API: one dval_client shared by 32 threads × 20 sessions
 * (tests/stress/stress.h), on one shared sandbox handle and on several
 * sandboxes acquired concurrently by every thread. Checks every session's
 * exit code and output, and that descriptors and RSS do not grow from the
 * second round to the last. */
#include "dval.h"
#include "stress/stress.h"
#include "support_emulator.h"

static atomic_int warnings;

static void logfn(int level, const char *msg, void *ud)
{
    (void)ud;
    if (level <= DVAL_LOG_WARN) {
        if (atomic_fetch_add(&warnings, 1) < 10)
            fprintf(stderr, "    [log %d] %s\n", level, msg);
    } else if (getenv("DVAL_STRESS_VERBOSE")) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        fprintf(stderr, "    %ld.%03ld [log %d] %s\n", (long)ts.tv_sec,
                ts.tv_nsec / 1000000, level, msg);
    }
}

typedef struct fx {
    emu e;
    dval_client *client;
    dval_snapshot *snap;
} fx;

static void fx_open(fx *f)
{
    memset(f, 0, sizeof *f);
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":100}"), 200);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.log_fn = logfn;
    o.log_level = getenv("DVAL_STRESS_VERBOSE") ? DVAL_LOG_DEBUG
                                                : DVAL_LOG_WARN;
    f->client = emu_client(&f->e, NULL, 50, &o);
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "stress-snap";
    s.image = "debian:12-slim";
    int rc = dval_snapshot_ensure(&f->snap, f->client, &s, NULL, NULL);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "snapshot: %s: %s", dval_status_name(rc),
                dval_client_errmsg(f->client));
}

static void fx_close(fx *f)
{
    dval_snapshot_free(f->snap);
    dval_client_free(f->client);
    emu_stop(&f->e);
    fprintf(stderr, "    %d warnings (retries) logged\n",
            atomic_load(&warnings));
}

static void sb_opts(dval_sandbox_options *o, const char *name)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = name;
    o->snapshot = "stress-snap";
    o->release = DVAL_RELEASE_DELETE;
}

TEST(stress_daytona_shared_sandbox)
{
    fx f;
    fx_open(&f);
    dval_sandbox_options o;
    sb_opts(&o, "stress-shared");
    stress st;
    dval_sandbox *sb = stress_run_shared(&st, f.client, &o);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    stress_check(&st, "daytona shared sandbox");
    fx_close(&f);
}

TEST(stress_daytona_several_sandboxes_own_handles)
{
    fx f;
    fx_open(&f);
    static const char *const names[] = { "stress-0", "stress-1", "stress-2",
                                         "stress-3" };
    dval_sandbox_options o;
    sb_opts(&o, NULL);
    stress st;
    /* half the rounds: the shared test already runs the full size on the
     * one emulator process */
    stress_run_named(&st, f.client, &o, names, 4, 2);
    stress_check(&st, "daytona 4 sandboxes");
    fx_close(&f);
}
