/* PROTOCOL 10.1/10.3 through the public API on the emulator: a 429 seen by
 * one thread holds back every thread of the client; quota errors are
 * DVAL_EQUOTA, not retried, with an actionable message, in both error
 * shapes; the structured envelope is classified on its code; a reset
 * keep-alive connection is retried once for an idempotent request; a
 * snapshot in `snapshotting` is waited for. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "harness.h"
#include "support_emulator.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct fx {
    emu e;
    dval_client *c;
    dval_snapshot *snap;
} fx;

static void fx_open(fx *f, int with_snapshot)
{
    memset(f, 0, sizeof *f);
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":100}"), 200);
    f->c = emu_client(&f->e, NULL, 50, NULL);
    if (!with_snapshot)
        return;
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "bp-snap";
    s.image = "debian:12-slim";
    CHECK_INT(dval_snapshot_ensure(&f->snap, f->c, &s, NULL, NULL), DVAL_OK);
}

static void fx_close(fx *f)
{
    dval_snapshot_free(f->snap);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static int acquire(fx *f, const char *name, dval_sandbox **out)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    o.snapshot = "bp-snap";
    return dval_sandbox_acquire(out, f->c, &o);
}

typedef struct job {
    fx *f;
    const char *name;
    int rc;
    int64_t t_end;
} job;

static void *get_job(void *arg)
{
    job *j = arg;
    dval_sandbox *sb = NULL;
    j->rc = dval_sandbox_get(&sb, j->f->c, j->name);
    j->t_end = now_ms();
    dval_sandbox_free(sb);
    return NULL;
}

TEST(backpressure__a_429_holds_back_every_thread)
{
    fx f;
    fx_open(&f, 1);
    dval_sandbox *a = NULL, *b = NULL;
    CHECK_INT(acquire(&f, "bp-a", &a), DVAL_OK);
    CHECK_INT(acquire(&f, "bp-b", &b), DVAL_OK);
    /* the organization's limit: the first GET of bp-a is refused for 1 s */
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/bp-a$", 1,
                        "\"action\":\"status\",\"status\":429,\"headers\":"
                        "{\"Retry-After-sandbox-lifecycle\":\"1\"}"), 200);
    int64_t t0 = now_ms();
    int64_t held0 = atomic_load(&f.c->hold_until_ms);
    job first = {.f = &f, .name = "bp-a"};
    pthread_t th0, th[3];
    CHECK(pthread_create(&th0, NULL, get_job, &first) == 0);
    /* the others start once the client has taken the 429 in (not after a
     * guessed delay: a loaded machine may take longer to read it) */
    for (int i = 0; i < 2000 && atomic_load(&f.c->hold_until_ms) == held0;
         i++)
        usleep(5000);
    CHECK(atomic_load(&f.c->hold_until_ms) > held0);
    /* three other threads ask for another sandbox: no fault of their own */
    job others[3];
    for (int i = 0; i < 3; i++) {
        others[i] = (job){.f = &f, .name = "bp-b"};
        CHECK(pthread_create(&th[i], NULL, get_job, &others[i]) == 0);
    }
    pthread_join(th0, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    CHECK_INT(first.rc, DVAL_OK);
    CHECK(first.t_end - t0 >= 950);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(others[i].rc, DVAL_OK);
        /* held until the hint ran out, not answered at once */
        if (others[i].t_end - t0 < 900)
            th_fail(__FILE__, __LINE__, "thread %d ended after %lld ms", i,
                    (long long)(others[i].t_end - t0));
    }
    dval_sandbox_free(a);
    dval_sandbox_free(b);
    fx_close(&f);
}

static void quota_case(const char *rest)
{
    fx f;
    fx_open(&f, 1);
    CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox$", 5, rest), 200);
    dval_sandbox *sb = NULL;
    int rc = acquire(&f, "bp-q", &sb);
    CHECK_INT(rc, DVAL_EQUOTA);
    CHECK_STR(dval_status_name(rc), "DVAL_EQUOTA");
    CHECK_CONTAINS(dval_client_errmsg(f.c), "quota");
    CHECK_CONTAINS(dval_client_errmsg(f.c), "sandbox ls");
    /* not a transient capacity failure: one create, no hammering */
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    dval_sandbox_free(sb);
    fx_close(&f);
}

TEST(backpressure__quota_is_its_own_status_old_shape)
{
    quota_case("\"action\":\"status\",\"status\":403,\"body\":\"{\\\"statusCode"
               "\\\":403,\\\"message\\\":\\\"Total CPU limit exceeded. Maximum "
               "allowed: 10\\\",\\\"error\\\":\\\"Forbidden\\\"}\"");
}

TEST(backpressure__quota_is_its_own_status_envelope)
{
    quota_case("\"action\":\"status\",\"status\":400,\"body\":\"{\\\"statusCode"
               "\\\":400,\\\"message\\\":\\\"Sandbox resource limit reached (10)"
               "\\\",\\\"code\\\":\\\"BAD_REQUEST\\\",\\\"source\\\":\\\"DAYTONA_API"
               "\\\",\\\"path\\\":\\\"/api/sandbox\\\",\\\"method\\\":\\\"POST\\\"}\"");
}

TEST(envelope__classified_on_code)
{
    fx f;
    fx_open(&f, 0);
    /* a 400 whose envelope says the sandbox is not found */
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/env-x$", 1,
                        "\"action\":\"status\",\"status\":400,\"body\":\"{"
                        "\\\"statusCode\\\":400,\\\"message\\\":\\\"Sandbox with "
                        "ID or name env-x not found\\\",\\\"code\\\":\\\"SANDBOX_NOT_"
                        "FOUND\\\",\\\"source\\\":\\\"DAYTONA_API\\\"}\""), 200);
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_get(&sb, f.c, "env-x"), DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "not found");
    /* the old shape (no code) keeps its 8.1 mapping */
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/env-y$", 1,
                        "\"action\":\"status\",\"status\":403"), 200);
    CHECK_INT(dval_sandbox_get(&sb, f.c, "env-y"), DVAL_EFORBIDDEN);
    fx_close(&f);
}

TEST(keepalive__reset_idempotent_request_retried_once)
{
    fx f;
    fx_open(&f, 1);
    dval_sandbox *sb = NULL, *again = NULL;
    CHECK_INT(acquire(&f, "bp-k", &sb), DVAL_OK);
    /* the edge resets the idle pooled connection: no response at all */
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/bp-k$", 1,
                        "\"action\":\"reset\""), 200);
    CHECK_INT(dval_sandbox_get(&again, f.c, "bp-k"), DVAL_OK);
    CHECK_INT(dval_sandbox_state(again), DVAL_SANDBOX_STARTED);
    dval_sandbox_free(again);
    dval_sandbox_free(sb);
    fx_close(&f);
}

static void *activate_later(void *arg)
{
    fx *f = arg;
    usleep(400000);
    emu_force(&f->e, "snapshot", "bp-snap", "{\"state\":\"active\"}");
    return NULL;
}

TEST(snapshot__snapshotting_is_waited_for)
{
    fx f;
    fx_open(&f, 1);
    CHECK_INT(emu_force(&f.e, "snapshot", "bp-snap",
                        "{\"state\":\"snapshotting\",\"stuck\":true}"), 200);
    CHECK_INT(dval_snapshot_state_parse("snapshotting"),
              DVAL_SNAPSHOT_SNAPSHOTTING);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, activate_later, &f) == 0);
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "bp-snap";
    s.image = "debian:12-slim";
    dval_snapshot *again = NULL;
    int64_t t0 = now_ms();
    CHECK_INT(dval_snapshot_ensure(&again, f.c, &s, NULL, NULL), DVAL_OK);
    CHECK(now_ms() - t0 >= 350);
    CHECK_INT(dval_snapshot_state(again), DVAL_SNAPSHOT_ACTIVE);
    pthread_join(th, NULL);
    dval_snapshot_free(again);
    fx_close(&f);
}
