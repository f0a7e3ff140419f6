/* A release policy on a shared sandbox applies when the last validation
 * using it ends (issue 40): threads of one client sharing the profile's
 * sandbox with release=delete once failed when the first to finish
 * deleted the sandbox the others still ran in. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support_emulator.h"

#define QUICK "mkdir -p results && echo '{\"ok\":1}' > results/r.json\n"
#define SLOW "sleep 1.5 && " QUICK

typedef struct job {
    dval_client *c;
    const char *dir;
    int rc;
    char *summary;
} job;

static void *validate(void *arg)
{
    job *j = arg;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = j->dir;
    req.release = DVAL_RELEASE_DELETE;
    j->rc = dval_validate(j->c, &req, NULL, NULL, &j->summary);
    return NULL;
}

TEST(concurrent__delete_waits_for_the_last_user)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char quick[32], slow[32];
    emu_program(quick, QUICK);
    emu_program(slow, SLOW);
    /* the sandbox exists before the threads start: all of them find it */
    job warm = { c, quick, -1, NULL };
    validate(&warm);
    CHECK_INT(warm.rc, DVAL_OK);
    dval_free(warm.summary);
    int deletes0 = emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$");

    enum { N = 4 };
    job jobs[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        /* the quick one ends first, while the slow ones still run */
        jobs[i] = (job){ c, i == 0 ? quick : slow, -1, NULL };
        CHECK(pthread_create(&t[i], NULL, validate, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].rc != DVAL_OK || !strstr(jobs[i].summary,
                                             "\"verdict\":\"passed\""))
            th_fail(__FILE__, __LINE__, "validation %d: rc %d %s", i,
                    jobs[i].rc, jobs[i].summary ? jobs[i].summary : "");
        dval_free(jobs[i].summary);
    }
    /* deleted once, by the last of them (the warm-up deleted it too) */
    CHECK_INT(emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$") - deletes0, 1);
    emu_program_rm(quick);
    emu_program_rm(slow);
    dval_client_free(c);
    emu_stop(&e);
}

/* The first to end closes its session slowly while it still counts as a
 * user: the last one, ending meanwhile, must not take that session for
 * another run's and keep the sandbox for good (nobody would delete it).
 * Each validation's session is closed before it stops counting. */
TEST(concurrent__a_slow_session_close_leaves_no_sandbox)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char quick[32], slow[32];
    emu_program(quick, QUICK);
    emu_program(slow, "sleep 0.6 && " QUICK);
    job warm = { c, quick, -1, NULL };
    validate(&warm);
    CHECK_INT(warm.rc, DVAL_OK);
    dval_free(warm.summary);
    int deletes0 = emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$");
    /* the quick one's session close takes 1.5 s */
    CHECK_INT(emu_fault(&e, "DELETE", "/process/session/[^/]+$", 1,
                        "\"action\":\"delay\",\"delay_ms\":1500"), 200);
    job jobs[2] = { { c, quick, -1, NULL }, { c, slow, -1, NULL } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, validate, &jobs[i]) == 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(jobs[i].rc, DVAL_OK);
        dval_free(jobs[i].summary);
    }
    CHECK_INT(emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$") - deletes0, 1);
    emu_program_rm(quick);
    emu_program_rm(slow);
    dval_client_free(c);
    emu_stop(&e);
}

/* Two clients know nothing of each other's validations (as two processes,
 * two hosts): the one that ends first sees the other's session open in
 * the sandbox and keeps it; the last one deletes it. */
TEST(concurrent__another_clients_session_keeps_the_sandbox)
{
    emu e;
    dval_client *c = emu_fast(&e);
    dval_client *other = emu_client(&e, NULL, 20, NULL);
    char quick[32], slow[32];
    emu_program(quick, QUICK);
    emu_program(slow, SLOW);
    job warm = { c, quick, -1, NULL };
    validate(&warm);
    CHECK_INT(warm.rc, DVAL_OK);
    dval_free(warm.summary);
    int deletes0 = emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$");
    job jobs[2] = { { other, slow, -1, NULL }, { c, quick, -1, NULL } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&t[i], NULL, validate, &jobs[i]) == 0);
        usleep(400000); /* the slow one is in its program first */
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].rc != DVAL_OK || !strstr(jobs[i].summary,
                                             "\"verdict\":\"passed\""))
            th_fail(__FILE__, __LINE__, "validation %d: rc %d %s", i,
                    jobs[i].rc, jobs[i].summary ? jobs[i].summary : "");
        dval_free(jobs[i].summary);
    }
    CHECK_INT(emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$") - deletes0, 1);
    /* created by the warm-up and once again by the slow one: a sandbox
     * deleted under it would have been created a third time (a re-run) */
    CHECK_INT(emu_count(&e, "POST", "^/api/sandbox$"), 2);
    emu_program_rm(quick);
    emu_program_rm(slow);
    dval_client_free(other);
    dval_client_free(c);
    emu_stop(&e);
}

/* The java profile's service runs in a session of its own that is never
 * closed (closing it would kill the service): it is no validation, and
 * the stop of the last validation's release policy happens all the same
 * (it was kept for good while every open session counted). */
TEST(concurrent__a_service_session_is_no_user)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char dir[32];
    emu_program(dir, QUICK);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "java";
    req.source_dir = dir;
    req.run_command = "mkdir -p results && echo {} > results/r.json";
    req.release = DVAL_RELEASE_STOP;
    char *sum = NULL;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_OK);
    dval_free(sum);
    /* its service was started: a session left open in the sandbox */
    CHECK(emu_count(&e, "POST", "/process/session$") >= 2);
    CHECK_INT(emu_count(&e, "POST", "^/api/sandbox/[^/]+/stop$"), 1);
    emu_program_rm(dir);
    dval_client_free(c);
    emu_stop(&e);
}

TEST(concurrent__a_failed_acquire_is_not_a_user)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char dir[32];
    emu_program(dir, QUICK);
    /* the first acquire fails: it must not count as a user forever,
     * which would keep the next validation's delete from happening */
    CHECK_INT(emu_fault(&e, "POST", "^/api/sandbox$", 5,
                        "\"action\":\"status\",\"status\":400,"
                        "\"body\":\"{\\\"message\\\":\\\"no\\\"}\""), 200);
    job j = { c, dir, -1, NULL };
    validate(&j);
    CHECK(j.rc != DVAL_OK);
    dval_free(j.summary);
    CHECK_INT(emu_clear_faults(&e), 200);
    int deletes0 = emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$");
    j = (job){ c, dir, -1, NULL };
    validate(&j);
    CHECK_INT(j.rc, DVAL_OK);
    dval_free(j.summary);
    CHECK_INT(emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$") - deletes0, 1);
    emu_program_rm(dir);
    dval_client_free(c);
    emu_stop(&e);
}

typedef struct pooled {
    dval_pool *p;
    const char *dir;
    int rc;
    int64_t ms;
} pooled;

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *pool_validate(void *arg)
{
    pooled *j = arg;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = j->dir;
    int64_t t0 = ms_now();
    j->rc = dval_pool_validate(j->p, &req, NULL, NULL, NULL);
    j->ms = ms_now() - t0;
    return NULL;
}

/* A cold pool's one sandbox, 4 validations on it: a slow first one
 * holds the others back only until the sandbox exists, not until it
 * ends (head-of-line blocking: they waited for it). */
TEST(concurrent__a_slow_first_validation_holds_no_one_back)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char quick[32], slow[32];
    emu_program(quick, QUICK);
    emu_program(slow, "sleep 4 && " QUICK);
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.max_sandboxes = 1;
    po.max_per_sandbox = 4;
    dval_pool *p = NULL;
    CHECK_INT(dval_pool_new(&p, c, &po), DVAL_OK);
    pooled jobs[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (pooled){ p, i ? quick : slow, -1, 0 };
        CHECK(pthread_create(&t[i], NULL, pool_validate, &jobs[i]) == 0);
        if (!i)
            usleep(100000); /* the slow one leases the slot first */
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++)
        CHECK_INT(jobs[i].rc, DVAL_OK);
    CHECK(jobs[0].ms >= 4000);
    for (int i = 1; i < 4; i++)
        if (jobs[i].ms >= 3500)
            th_fail(__FILE__, __LINE__, "validation %d waited for the slow "
                    "one: %lld ms", i, (long long)jobs[i].ms);
    /* they did not race to create the sandbox either */
    CHECK_INT(emu_count(&e, "POST", "^/api/sandbox$"), 1);
    dval_pool_free(p);
    emu_program_rm(quick);
    emu_program_rm(slow);
    dval_client_free(c);
    emu_stop(&e);
}
