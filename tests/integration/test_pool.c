/* dval_pool on the emulator: 32 threads × 20 validations through one pool
 * of 8 sandboxes × 4 validations (none lost, each sees its own output, no more sandboxes
 * than allowed, descriptors flat), a full queue refused at once, a caller
 * canceled while queued, the pool's label on its sandboxes. */
#include <dirent.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_emulator.h"

typedef struct fx {
    emu e;
    dval_client *c;
    dval_pool *pool;
    char dir[64];
} fx;

/* Open descriptors; *sockets gets how many are sockets (the HTTP
 * connection cache, which may grow with concurrency up to its bound). */
static int count_fds(int *sockets)
{
    int n = 0;
    *sockets = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[300], t[300];
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        t[k > 0 ? k : 0] = 0;
        if (!strncmp(t, "socket:", 7))
            (*sockets)++;
        else
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void fx_open(fx *f, const char *program, int max_sb, int per_sb,
                    int max_queue)
{
    memset(f, 0, sizeof *f);
    f->c = emu_fast(&f->e);
    emu_program(f->dir, program);
    dval_pool_options o;
    CHECK_INT(dval_pool_options_init(&o, sizeof o), DVAL_OK);
    o.profile = "shell";
    o.name = "tp";
    o.min_warm = 1;
    o.max_sandboxes = max_sb;
    o.max_per_sandbox = per_sb;
    o.max_queue = max_queue;
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

typedef struct out {
    char text[256];
} out;

static int on_event(const dval_event *ev, void *ud)
{
    out *o = ud;
    if (ev->type == DVAL_EVENT_OUTPUT) {
        size_t have = strlen(o->text), n = ev->len;
        if (n > sizeof o->text - have - 1)
            n = sizeof o->text - have - 1;
        memcpy(o->text + have, ev->data, n);
        o->text[have + n] = 0;
    }
    return 0;
}

typedef struct worker {
    fx *f;
    int id, rounds;
    atomic_int *ok, *bad;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < w->rounds; r++) {
        char tid[64];
        snprintf(tid, sizeof tid, "t%d-r%d", w->id, r);
        dval_validation req;
        dval_validation_init(&req, sizeof req);
        req.source_dir = w->f->dir;
        req.thread_id = tid;
        req.allow_missing_results = 1;
        out o = {{0}};
        char *sum = NULL;
        int rc = dval_pool_validate(w->f->pool, &req, on_event, &o, &sum);
        char want[80];
        snprintf(want, sizeof want, "id=%s\n", tid);
        if (rc == DVAL_OK && strstr(o.text, want) && sum &&
            strstr(sum, "\"exit_code\":0"))
            atomic_fetch_add(w->ok, 1);
        else if (atomic_fetch_add(w->bad, 1) < 5)
            fprintf(stderr, "    %s: %s (%s) out=[%s]\n", tid,
                    dval_status_name(rc), dval_client_errmsg(w->f->c), o.text);
        dval_free(sum);
    }
    return NULL;
}

static void run_workers(fx *f, int threads, int rounds, atomic_int *ok,
                        atomic_int *bad)
{
    pthread_t th[64];
    worker w[64];
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){.f = f, .id = i, .rounds = rounds, .ok = ok,
                        .bad = bad};
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
}

static dval_pool_stats stats_of(fx *f)
{
    dval_pool_stats st;
    CHECK_INT(dval_pool_stats_get(f->pool, &st, sizeof st), DVAL_OK);
    return st;
}

/* Waits (up to 20 s) until the pool has `running` validations on its
 * slots and `waiting` callers queued. */
static void wait_for(fx *f, int running, int waiting)
{
    for (int i = 0; i < 2000; i++) {
        dval_pool_stats st = stats_of(f);
        if (st.running == running && st.waiting == waiting)
            return;
        usleep(10000);
    }
    dval_pool_stats st = stats_of(f);
    th_fail(__FILE__, __LINE__, "running %d waiting %d, wanted %d %d",
            st.running, st.waiting, running, waiting);
}

typedef struct sampler {
    dval_pool *pool;
    atomic_int stop;
    int samples, bad, max_running;
} sampler;

/* Reads the pool's counts while the workers run: they must agree with
 * each other and with the pool's bounds (8 slots × 4) at every moment. */
static void *sample(void *arg)
{
    sampler *sm = arg;
    while (!atomic_load(&sm->stop)) {
        dval_pool_stats st;
        if (dval_pool_stats_get(sm->pool, &st, sizeof st) != DVAL_OK ||
            st.busy_sandboxes > 8 || st.running > 4 * st.busy_sandboxes ||
            st.running < st.busy_sandboxes || st.waiting < 0 ||
            st.failed > st.completed)
            sm->bad++;
        if (st.running > sm->max_running)
            sm->max_running = st.running;
        sm->samples++;
        usleep(1000);
    }
    return NULL;
}

TEST(pool__32_threads_x_20_validations)
{
    int small = getenv("DVAL_STRESS_SMALL") != NULL;
    int threads = small ? 8 : 32, rounds = small ? 5 : 20;
    fx f;
    fx_open(&f, "echo id=$DVAL_THREAD_ID\n", 8, 4, -1);
    atomic_int ok = 0, bad = 0;
    /* two rounds first: every slot and pooled connection exists */
    run_workers(&f, threads, 2, &ok, &bad);
    int socks0, socks1;
    int fds0 = count_fds(&socks0);
    sampler sm = {.pool = f.pool};
    pthread_t ts;
    CHECK(pthread_create(&ts, NULL, sample, &sm) == 0);
    run_workers(&f, threads, rounds - 2, &ok, &bad);
    atomic_store(&sm.stop, 1);
    pthread_join(ts, NULL);
    CHECK_INT(sm.bad, 0);
    CHECK(sm.samples > 0 && sm.max_running > 1);
    dval_pool_stats st = stats_of(&f);
    CHECK_INT(st.completed, threads * rounds);
    CHECK_INT(st.failed + st.refused + st.canceled_waiting, 0);
    CHECK_INT(st.running + st.waiting + st.busy_sandboxes, 0);
    CHECK_INT(st.max_sandboxes, 8);
    CHECK_INT(atomic_load(&bad), 0);
    CHECK_INT(atomic_load(&ok), threads * rounds);
    int fds1 = count_fds(&socks1);
    /* files, pipes, eventfds: flat; sockets: the connection cache may
     * still grow when the timing gives more concurrent calls than in the
     * first rounds, but by less than one per thread (a leak of one per
     * validation would be hundreds) */
    if (fds1 > fds0 + 2)
        th_fail(__FILE__, __LINE__, "descriptors grew: %d → %d", fds0, fds1);
    if (socks1 > socks0 + threads)
        th_fail(__FILE__, __LINE__, "sockets: %d → %d", socks0, socks1);
    /* at most max_sandboxes were ever created, each with the pool label */
    int creates = emu_count(&f.e, "POST", "^/api/sandbox$");
    CHECK(creates >= 1 && creates <= 8);
    char *reqs = emu_get(&f.e, "/_emu/requests");
    CHECK(reqs && strstr(reqs, "dval.pool") && strstr(reqs, "tp"));
    free(reqs);
    fprintf(stderr, "    %d validations, %d sandboxes created, other fds %d → "
            "%d, sockets %d → %d\n", threads * rounds, creates, fds0, fds1,
            socks0, socks1);
    fx_close(&f);
    /* dval_pool_free deleted them (release DELETE) */
}

typedef struct one {
    fx *f;
    dval_cancel *cancel;
    int rc;
} one;

static void *validate_one(void *arg)
{
    one *o = arg;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = o->f->dir;
    req.allow_missing_results = 1;
    req.cancel = o->cancel;
    o->rc = dval_pool_validate(o->f->pool, &req, NULL, NULL, NULL);
    return NULL;
}

TEST(pool__full_queue_refused_and_canceled_waiter_leaves)
{
    fx f;
    /* a holds the only sandbox until the test lets it go */
    char gate[] = "/tmp/dval-pool-gate-XXXXXX";
    CHECK(mkdtemp(gate) != NULL);
    char program[200];
    snprintf(program, sizeof program,
             "i=0; while [ ! -e %s/go ] && [ $i -lt 600 ]; do "
             "sleep 0.05; i=$((i+1)); done\n", gate);
    fx_open(&f, program, 1, 1, 1);
    one a = {.f = &f}, b = {.f = &f}, c = {.f = &f};
    CHECK_INT(dval_cancel_new(&b.cancel), DVAL_OK);
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, validate_one, &a) == 0);
    wait_for(&f, 1, 0);
    CHECK(pthread_create(&tb, NULL, validate_one, &b) == 0);
    wait_for(&f, 1, 1);        /* b waits: the queue (1) is full */
    validate_one(&c);
    CHECK_INT(c.rc, DVAL_EBUSY);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "queue full");
    /* b's wait lasts long enough to be counted in whole ms */
    usleep(20 * 1000);
    dval_cancel_fire(b.cancel);
    pthread_join(tb, NULL);
    CHECK_INT(b.rc, DVAL_ECANCELED);
    char go[80];
    snprintf(go, sizeof go, "%s/go", gate);
    FILE *g = fopen(go, "w");
    CHECK(g != NULL);
    fclose(g);
    pthread_join(ta, NULL);
    CHECK_INT(a.rc, DVAL_OK);
    /* the canceled waiter left the queue: the next caller gets in */
    one d = {.f = &f};
    validate_one(&d);
    CHECK_INT(d.rc, DVAL_OK);
    dval_pool_stats st = stats_of(&f);
    CHECK_INT(st.refused, 1);
    CHECK_INT(st.canceled_waiting, 1);
    CHECK_INT(st.completed, 2);   /* a and d; b and c never held a slot */
    CHECK_INT(st.failed, 0);
    CHECK(st.wait_ms_max > 0 && st.wait_ms_total >= st.wait_ms_max);
    CHECK_INT(st.running + st.waiting + st.busy_sandboxes, 0);
    dval_cancel_free(b.cancel);
    unlink(go);
    rmdir(gate);
    fx_close(&f);
}

/* An older caller's smaller struct gets the fields it has and no byte
 * more; one too small for the counts of now, or NULLs, are refused. */
TEST(pool__stats_for_an_older_struct_and_bad_arguments)
{
    fx f;
    fx_open(&f, "echo hi\n", 2, 1, 4);
    one a = {.f = &f};
    validate_one(&a);
    CHECK_INT(a.rc, DVAL_OK);
    unsigned char buf[sizeof(dval_pool_stats) + 8];
    memset(buf, 0xab, sizeof buf);
    size_t old = offsetof(dval_pool_stats, completed) + sizeof(int64_t);
    CHECK_INT(dval_pool_stats_get(f.pool, (dval_pool_stats *)buf, old),
              DVAL_OK);
    dval_pool_stats head;
    memcpy(&head, buf, old);
    CHECK_INT(head.struct_size, old);
    CHECK_INT(head.max_sandboxes, 2);
    CHECK_INT(head.completed, 1);
    for (size_t i = old; i < sizeof buf; i++)
        CHECK_INT(buf[i], 0xab);
    CHECK_INT(dval_pool_stats_get(f.pool, (dval_pool_stats *)buf,
                                  offsetof(dval_pool_stats, waiting)),
              DVAL_EABI);
    CHECK_INT(dval_pool_stats_get(NULL, (dval_pool_stats *)buf, old),
              DVAL_EINVAL);
    CHECK_INT(dval_pool_stats_get(f.pool, NULL, old), DVAL_EINVAL);
    fx_close(&f);
}

/* Every pool sandbox carries a TTL (a leak backstop); an older server
 * that refuses the field gets the create again without it. */
TEST(pool__ttl_sent_and_tolerated_when_refused)
{
    for (int refuse = 0; refuse < 2; refuse++) {
        fx f;
        fx_open(&f, "echo id=$DVAL_THREAD_ID\n", 1, 1, 0);
        dval_pool_free(f.pool);   /* again, after the config below */
        f.pool = NULL;
        if (refuse)
            CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"refuse_ttl\":true}"),
                      200);
        dval_pool_options o;
        dval_pool_options_init(&o, sizeof o);
        o.profile = "shell";
        o.name = "tq";
        o.max_sandboxes = 1;
        CHECK_INT(dval_pool_new(&f.pool, f.c, &o), DVAL_OK);
        one a = {.f = &f};
        validate_one(&a);
        CHECK_INT(a.rc, DVAL_OK);
        char *reqs = emu_get(&f.e, "/_emu/requests");
        CHECK(reqs && strstr(reqs, "ttlMinutes"));
        CHECK(strstr(reqs, "1440") != NULL);
        free(reqs);
        /* tp-0 (fx_open's warm one), then tq-0; refused: tq-0's create
         * once more, without the field */
        CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), refuse ? 3 : 2);
        fx_close(&f);
    }
}

static int occurrences(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

/* A sandbox warmed by dval_pool_new carries the same labels as one a
 * validation creates (the profile's was missing: `sandbox ls --label
 * dval.profile=shell` did not find it). */
TEST(pool__warm_sandbox_has_the_profile_label)
{
    fx f;
    fx_open(&f, "echo hi\n", 2, 1, -1);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    char *reqs = emu_get(&f.e, "/_emu/requests");
    CHECK(reqs != NULL);
    CHECK_CONTAINS(reqs, "dval.profile");
    CHECK_CONTAINS(reqs, "dval.managed-by");
    CHECK_CONTAINS(reqs, "dval.pool");
    free(reqs);
    /* and one an isolation=sandbox validation creates: the same two,
     * the pool's and the request's labels, its isolation */
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = f.dir;
    req.profile = "shell";
    req.thread_id = "lbl";
    req.allow_missing_results = 1;
    req.isolation = DVAL_ISOLATION_SANDBOX;
    const char *mine[] = { "team=blue", NULL };
    req.labels = mine;
    char *sum = NULL;
    CHECK_INT(dval_validate(f.c, &req, NULL, NULL, &sum), DVAL_OK);
    dval_free(sum);
    reqs = emu_get(&f.e, "/_emu/requests");
    CHECK(reqs != NULL);
    CHECK_INT(occurrences(reqs, "team"), 1);
    CHECK_INT(occurrences(reqs, "dval.isolation"), 1);
    CHECK_INT(occurrences(reqs, "dval.managed-by"), 2);
    CHECK_INT(occurrences(reqs, "dval.profile"), 2);
    free(reqs);
    fx_close(&f);
}
