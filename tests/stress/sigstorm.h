/* A signal storm on one thread, as a Go host makes (its runtime preempts
 * goroutines with SIGURG, whose handler interrupts poll(), read() and
 * friends with EINTR) or a Python host with its own handlers: a thread
 * sends SIGURG to the target every ~50 us through a handler installed
 * without SA_RESTART. Header-only, shared by the local and the Daytona
 * suites (tests/local/test_exec.c, test_eintr_validate.c,
 * tests/integration/test_eintr.c). */
#ifndef DVAL_SIGSTORM_H
#define DVAL_SIGSTORM_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef struct sigstorm {
    pthread_t target, thread;
    atomic_int stop;
    struct sigaction old;
} sigstorm;

static atomic_long sigstorm_hits;

static void sigstorm_on(int sig)
{
    (void)sig;
    atomic_fetch_add(&sigstorm_hits, 1);
}

static void *sigstorm_loop(void *arg)
{
    sigstorm *s = arg;
    while (!atomic_load(&s->stop)) {
        pthread_kill(s->target, SIGURG);
        usleep(50);
    }
    return NULL;
}

/* Starts the storm on the calling thread; 0 on success. */
__attribute__((unused)) static int sigstorm_start(sigstorm *s)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sigstorm_on; /* no SA_RESTART */
    s->target = pthread_self();
    atomic_init(&s->stop, 0);
    if (sigaction(SIGURG, &sa, &s->old))
        return -1;
    return pthread_create(&s->thread, NULL, sigstorm_loop, s);
}

/* Stops it; returns how many signals were handled since the first start. */
__attribute__((unused)) static long sigstorm_stop(sigstorm *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    sigaction(SIGURG, &s->old, NULL);
    return atomic_load(&sigstorm_hits);
}


/* ---- whole validations under the storm (needs dval.h and harness.h) */
#ifdef DVAL_H
#include <stdio.h>
#include <stdlib.h>

typedef struct sigstorm_out {
    char text[256];
    size_t len;
} sigstorm_out;

static int sigstorm_on_event(const dval_event *ev, void *ud)
{
    sigstorm_out *o = ud;
    if (ev->type == DVAL_EVENT_RESTART)
        o->len = 0;
    if (ev->type == DVAL_EVENT_OUTPUT && ev->stream == DVAL_STDOUT &&
        o->len + ev->len < sizeof o->text) {
        memcpy(o->text + o->len, ev->data, ev->len);
        o->len += ev->len;
    }
    return 0;
}

/* One validation of prog (pool NULL: dval_validate on c); 0 when it ran,
 * printed "ok <tid>" and its results hold {"tid":"<tid>"}. */
static int sigstorm_one(dval_client *c, dval_pool *pool, const char *prog,
                        int isolation, const char *tid)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = prog;
    req.thread_id = tid;
    req.isolation = isolation;
    req.release = pool ? DVAL_RELEASE_KEEP : DVAL_RELEASE_DELETE;
    sigstorm_out o = { .len = 0 };
    char *json = NULL, want[160];
    int rc = pool ? dval_pool_validate(pool, &req, sigstorm_on_event, &o, &json)
                  : dval_validate(c, &req, sigstorm_on_event, &o, &json);
    snprintf(want, sizeof want, "ok %s\n", tid);
    int bad = rc != DVAL_OK || o.len != strlen(want) ||
              memcmp(o.text, want, o.len) || !json ||
              !strstr(json, "\"exit_code\":0,") || !strstr(json, tid);
    if (bad)
        fprintf(stderr, "%s: %s (%s), stdout %.*s, result %s\n", tid,
                dval_status_name(rc), dval_client_errmsg(c), (int)o.len,
                o.text, json ? json : "(none)");
    dval_free(json);
    return bad;
}

/* n validations each of session isolation, sandbox isolation and through
 * a pool of 2, all under the storm; returns how many went wrong. */
__attribute__((unused)) static int sigstorm_validations(dval_client *c, const char *name, int n)
{
    char prog[] = "/tmp/dval-storm-XXXXXX", p[64];
    if (!mkdtemp(prog))
        return -1;
    snprintf(p, sizeof p, "%s/run.sh", prog);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fputs("echo ok $DVAL_THREAD_ID\n"
          "printf '{\"tid\":\"%s\"}' \"$DVAL_THREAD_ID\" > \"$DVAL_RESULTS_DIR/r.json\"\n", f);
    fclose(f);
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.name = name;
    po.max_sandboxes = 2;
    po.release = DVAL_RELEASE_DELETE;
    dval_pool *pool = NULL;
    int bad = dval_pool_new(&pool, c, &po) != DVAL_OK;
    sigstorm storm;
    if (sigstorm_start(&storm))
        return -1;
    char tid[64];
    for (int i = 0; i < n; i++) {
        snprintf(tid, sizeof tid, "storm-s%d", i);
        bad += sigstorm_one(c, NULL, prog, DVAL_ISOLATION_SESSION, tid);
        snprintf(tid, sizeof tid, "storm-x%d", i);
        bad += sigstorm_one(c, NULL, prog, DVAL_ISOLATION_SANDBOX, tid);
        snprintf(tid, sizeof tid, "storm-p%d", i);
        bad += pool ? sigstorm_one(c, pool, prog, DVAL_ISOLATION_SESSION, tid) : 0;
    }
    long hits = sigstorm_stop(&storm);
    dval_pool_free(pool);
    snprintf(p, sizeof p, "rm -rf %s", prog);
    if (system(p) != 0)
        bad++;
    return hits > 0 ? bad : -1;
}
#endif

#endif
