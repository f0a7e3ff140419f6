/* dval_pool's policies on the emulator (issue 14 item 1): waiters are
 * served strictly in order of arrival when every sandbox is busy and a
 * caller beyond max_queue gets DVAL_EBUSY at once; a sandbox idle past the
 * idle timeout is released by the release policy; a 409 "state change in
 * progress" on the pool sandbox's start (the acquire) and on its delete
 * (the release) is waited out and retried. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "pool.h"
#include "support_emulator.h"

typedef struct fx {
    emu e;
    dval_client *c;
    dval_pool *pool;
    char dir[64];
} fx;

static void fx_open(fx *f, const char *program, int max_queue,
                    int64_t idle_ms)
{
    memset(f, 0, sizeof *f);
    f->c = emu_fast(&f->e);
    emu_program(f->dir, program);
    dval_pool_options o;
    CHECK_INT(dval_pool_options_init(&o, sizeof o), DVAL_OK);
    o.profile = "shell";
    o.name = "pp";
    o.min_warm = 1;            /* pp-0 exists before the first lease */
    o.max_sandboxes = 1;
    o.max_per_sandbox = 1;
    o.max_queue = max_queue;
    o.idle_timeout_ms = idle_ms;
    o.release = DVAL_RELEASE_DELETE;
    int rc = dval_pool_new(&f->pool, f->c, &o);
    if (rc)
        th_fail(__FILE__, __LINE__, "pool: %s: %s", dval_status_name(rc),
                dval_client_errmsg(f->c));
}

static void fx_close(fx *f)
{
    dval_pool_free(f->pool);
    emu_program_rm(f->dir);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int validate(fx *f)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = f->dir;
    req.allow_missing_results = 1;
    return dval_pool_validate(f->pool, &req, NULL, NULL, NULL);
}

typedef struct caller {
    fx *f;
    int rc, served;            /* served: 1-based rank among finishers */
    atomic_int *rank;
} caller;

static void *call(void *arg)
{
    caller *c = arg;
    c->rc = validate(c->f);
    c->served = atomic_fetch_add(c->rank, 1) + 1;
    return NULL;
}

/* Waits (up to 10 s) until n callers wait in the pool's queue (busy: 0)
 * or, busy: 1, until slot 0 is leased. */
static void wait_pool(dval_pool *p, int busy, int n)
{
    int64_t end = now_ms() + 10000;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int k = busy ? p->slots[0].busy : p->nwaiting;
        pthread_mutex_unlock(&p->lock);
        if (k == n)
            return;
        if (now_ms() > end)
            th_fail(__FILE__, __LINE__, "%s %d, wanted %d", busy ? "busy"
                    : "queued", k, n);
        usleep(2000);
    }
}

#define WAITERS 4

/* One sandbox, one validation at a time: a holder runs, then WAITERS
 * callers arrive one after the other (each in the queue before the next
 * starts); they must finish in that order, the holder first. With the
 * queue full, one more caller is refused at once. */
TEST(pool__fifo_admission_and_full_queue_busy)
{
    fx f;
    fx_open(&f, "sleep 1\n", WAITERS, 0);
    atomic_int rank = 0;
    caller c[WAITERS + 1];
    pthread_t th[WAITERS + 1];
    for (int i = 0; i <= WAITERS; i++) {
        c[i] = (caller){.f = &f, .rank = &rank};
        CHECK(pthread_create(&th[i], NULL, call, &c[i]) == 0);
        /* the holder leases without queueing; caller i is the i-th waiter */
        wait_pool(f.pool, i == 0, i == 0 ? 1 : i);
    }
    int64_t t0 = now_ms();
    int rc = validate(&f);
    int64_t refused_ms = now_ms() - t0;
    CHECK_INT(rc, DVAL_EBUSY);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "queue full");
    CHECK(refused_ms < 100);   /* at once, not after a wait */
    for (int i = 0; i <= WAITERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i <= WAITERS; i++) {
        CHECK_INT(c[i].rc, DVAL_OK);
        if (c[i].served != i + 1)
            th_fail(__FILE__, __LINE__, "caller %d (arrival order) was "
                    "served %d-th", i, c[i].served);
    }
    fx_close(&f);
}

/* A sandbox unused past idle_timeout_ms is released (DELETE) at the next
 * lease, and the validation then gets a fresh one; within the timeout the
 * warm sandbox is reused. */
TEST(pool__idle_sandbox_released_by_policy)
{
    fx f;
    fx_open(&f, "echo hi\n", 0, 600);
    CHECK_INT(validate(&f), DVAL_OK);            /* within the timeout */
    CHECK_INT(emu_count(&f.e, "DELETE", "^/api/sandbox/"), 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    usleep(900 * 1000);                          /* idle past it */
    CHECK_INT(validate(&f), DVAL_OK);
    CHECK_INT(emu_count(&f.e, "DELETE", "^/api/sandbox/"), 1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 2);
    fx_close(&f);
}

#define CONFLICT "\"action\":\"status\",\"status\":409,\"body\":" \
    "\"{\\\"statusCode\\\":409,\\\"message\\\":\\\"Sandbox state change " \
    "in progress\\\",\\\"error\\\":\\\"Conflict\\\"}\",\"content_type\":" \
    "\"application/json\""

/* The pool sandbox is found stopped; its start gets 409 twice (another
 * change in flight): the lease's acquire waits and starts it again. */
TEST(pool__conflict_on_start_retried)
{
    fx f;
    fx_open(&f, "echo hi\n", 0, 0);
    CHECK_INT(emu_force(&f.e, "sandbox", "pp-0", "{\"state\":\"stopped\"}"),
              200);
    CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox/[^/]+/start$", 2,
                        CONFLICT), 200);
    int rc = validate(&f);
    if (rc)
        th_fail(__FILE__, __LINE__, "%s: %s", dval_status_name(rc),
                dval_client_errmsg(f.c));
    CHECK(emu_count(&f.e, "POST", "^/api/sandbox/[^/]+/start$") >= 3);
    /* the same sandbox, started: no second create */
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    fx_close(&f);
}

/* dval_pool_free's delete gets 409 once: retried, the sandbox is gone. */
TEST(pool__conflict_on_release_retried)
{
    fx f;
    fx_open(&f, "echo hi\n", 0, 0);
    CHECK_INT(validate(&f), DVAL_OK);
    CHECK_INT(emu_fault(&f.e, "DELETE", "^/api/sandbox/", 1, CONFLICT), 200);
    dval_pool_free(f.pool);
    f.pool = NULL;
    CHECK(emu_count(&f.e, "DELETE", "^/api/sandbox/") >= 2);
    /* gone once its destroying step has passed */
    int rc = DVAL_OK;
    for (int i = 0; i < 100 && rc != DVAL_ENOTFOUND; i++) {
        dval_sandbox *sb = NULL;
        rc = dval_sandbox_get(&sb, f.c, "pp-0");
        dval_sandbox_free(sb);
        if (rc != DVAL_ENOTFOUND)
            usleep(20000);
    }
    CHECK_INT(rc, DVAL_ENOTFOUND);
    fx_close(&f);
}

/* isolation=sandbox validations never create the pool's slot sandboxes
 * (each gets one of its own, deleted after it): dval_pool_free has
 * nothing to look up or release under the slot names. */
TEST(pool__sandbox_isolation_free_touches_no_slot_name)
{
    fx f;
    fx_open(&f, "echo hi\n", 0, 0);
    dval_pool_free(f.pool);             /* the fixture's warm pp-0 goes */
    dval_pool_options o;
    CHECK_INT(dval_pool_options_init(&o, sizeof o), DVAL_OK);
    o.profile = "shell";
    o.name = "pq";
    o.max_sandboxes = 2;
    o.release = DVAL_RELEASE_DELETE;
    CHECK_INT(dval_pool_new(&f.pool, f.c, &o), DVAL_OK);
    for (int i = 0; i < 2; i++) {
        dval_validation req;
        dval_validation_init(&req, sizeof req);
        req.source_dir = f.dir;
        req.allow_missing_results = 1;
        req.isolation = DVAL_ISOLATION_SANDBOX;
        CHECK_INT(dval_pool_validate(f.pool, &req, NULL, NULL, NULL), DVAL_OK);
    }
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 3);   /* pp-0 + 2 */
    dval_pool_free(f.pool);
    f.pool = NULL;
    CHECK_INT(emu_count(&f.e, NULL, "^/api/sandbox/pq-[0-9]+$"), 0);
    fx_close(&f);
}
