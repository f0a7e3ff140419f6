/* Concurrency stress driver shared by tests/local/test_stress_local.c and
 * tests/integration/test_stress_daytona.c (header-only: the Makefile links
 * only a directory's own support_*.c into its tests).
 *
 * One dval_client is shared by T threads; every thread runs R rounds, one
 * session per round (open → exec with output → check exit code, stdout and
 * stderr → close → free). All threads meet at a barrier after each round;
 * one of them samples the open descriptors (/proc/self/fd) and VmRSS while
 * nothing runs, so rounds can be compared (leaks show up as growth).
 *
 * Size: 32 threads × 20 sessions; 8 × 5 when DVAL_STRESS_SMALL=1, and by
 * default in sanitizer or valgrind runs (DVAL_STRESS_SMALL=0 forces full);
 * DVAL_STRESS_THREADS / DVAL_STRESS_ROUNDS override either. */
#ifndef DVAL_STRESS_H
#define DVAL_STRESS_H

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRESS_SANITIZED 1
#endif
#endif
#ifndef STRESS_SANITIZED
#define STRESS_SANITIZED 0
#endif

#define STRESS_MAX_ROUNDS 64
#define STRESS_MAX_ERRS 8

typedef struct stress {
    /* inputs */
    int threads, rounds;
    dval_client *client;
    /* Either every thread uses sandboxes[t % nsandboxes] (shared handles),
     * or, with acquire set, every thread acquires its own handle of the
     * sandbox named by acquire->name = names[t % nsandboxes]. */
    dval_sandbox **sandboxes;
    const char *const *names;
    const dval_sandbox_options *acquire;
    int nsandboxes;
    /* outputs */
    atomic_long ok, failed;
    long fds[STRESS_MAX_ROUNDS];    /* after each round */
    long rss_kb[STRESS_MAX_ROUNDS];
    double seconds;
    /* internal */
    pthread_barrier_t done, go;
    pthread_mutex_t lock;
    int nerrs;
    char errs[STRESS_MAX_ERRS][512];
} stress;

/* Threads and rounds for this run. */
static inline void stress_size(int *threads, int *rounds)
{
    const char *s = getenv("DVAL_STRESS_SMALL");
    const char *scale = getenv("DVAL_TEST_TIMEOUT_SCALE");
    int small = s ? atoi(s) != 0
                  : STRESS_SANITIZED || (scale && atoi(scale) > 1);
    *threads = small ? 8 : 32;
    *rounds = small ? 5 : 20;
    /* for investigations: DVAL_STRESS_THREADS, DVAL_STRESS_ROUNDS */
    const char *t = getenv("DVAL_STRESS_THREADS");
    const char *r = getenv("DVAL_STRESS_ROUNDS");
    if (t && atoi(t) > 0)
        *threads = atoi(t);
    if (r && atoi(r) >= 3)
        *rounds = atoi(r) < STRESS_MAX_ROUNDS ? atoi(r) : STRESS_MAX_ROUNDS;
}

static inline long stress_fd_count(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    if (d)
        closedir(d);
    return n - 1; /* the directory stream's own descriptor */
}

static inline long stress_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static inline void stress_err(stress *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void stress_err(stress *st, const char *fmt, ...)
{
    atomic_fetch_add(&st->failed, 1);
    pthread_mutex_lock(&st->lock);
    if (st->nerrs < STRESS_MAX_ERRS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->errs[st->nerrs++], sizeof st->errs[0], fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&st->lock);
}

typedef struct stress_out {
    char out[128], err[128];
    size_t nout, nerr;
    int bad;
} stress_out;

static inline int stress_sink(int stream, const char *channel,
                              const char *data, size_t len, void *ud)
{
    stress_out *o = ud;
    (void)channel;
    char *dst = stream == DVAL_STDOUT ? o->out : o->err;
    size_t *n = stream == DVAL_STDOUT ? &o->nout : &o->nerr;
    if (stream != DVAL_STDOUT && stream != DVAL_STDERR)
        o->bad = 1;
    if (*n + len >= sizeof o->out) {
        o->bad = 1;
        return 0;
    }
    memcpy(dst + *n, data, len);
    *n += len;
    dst[*n] = 0;
    return 0;
}

/* One session: returns 0 when everything matched. */
static inline int stress_one(stress *st, dval_sandbox *sb, int t, int r)
{
    dval_session *s = NULL;
    int rc = dval_session_open(&s, sb);
    if (rc != DVAL_OK) {
        stress_err(st, "t%d r%d open: %s: %s", t, r, dval_status_name(rc),
                   dval_sandbox_errmsg(sb));
        return -1;
    }
    char cmd[160], want_out[64], want_err[64];
    int want_code = (t + r) % 4;
    snprintf(cmd, sizeof cmd, "echo out-%d-%d; echo err-%d-%d >&2; exit %d",
             t, r, t, r, want_code);
    snprintf(want_out, sizeof want_out, "out-%d-%d\n", t, r);
    snprintf(want_err, sizeof want_err, "err-%d-%d\n", t, r);
    stress_out o;
    memset(&o, 0, sizeof o);
    int code = -1, bad = 0;
    rc = dval_session_exec(s, cmd, NULL, stress_sink, &o, &code);
    if (rc != DVAL_OK) {
        stress_err(st, "t%d r%d exec: %s: %s", t, r, dval_status_name(rc),
                   dval_session_errmsg(s));
        bad = 1;
    } else if (code != want_code || o.bad || strcmp(o.out, want_out) ||
               strcmp(o.err, want_err)) {
        stress_err(st, "t%d r%d: exit %d (want %d), stdout \"%s\", stderr "
                   "\"%s\"", t, r, code, want_code, o.out, o.err);
        bad = 1;
    }
    rc = dval_session_close(s);
    if (rc != DVAL_OK) {
        stress_err(st, "t%d r%d close: %s: %s", t, r, dval_status_name(rc),
                   dval_session_errmsg(s));
        bad = 1;
    }
    dval_session_free(s);
    if (!bad)
        atomic_fetch_add(&st->ok, 1);
    return bad ? -1 : 0;
}

typedef struct stress_thread {
    stress *st;
    int t;
} stress_thread;

static inline void stress_sample(stress *st, int r)
{
    int b = pthread_barrier_wait(&st->done);
    if (b == PTHREAD_BARRIER_SERIAL_THREAD) {
        st->fds[r] = stress_fd_count();
        st->rss_kb[r] = stress_rss_kb();
    }
    pthread_barrier_wait(&st->go);
}

static inline void *stress_main(void *arg)
{
    stress_thread *a = arg;
    stress *st = a->st;
    int i = a->t % st->nsandboxes;
    dval_sandbox *sb = NULL, *own = NULL;
    if (st->acquire) {
        dval_sandbox_options o = *st->acquire;
        o.name = st->names[i];
        int rc = dval_sandbox_acquire(&own, st->client, &o);
        if (rc != DVAL_OK)
            stress_err(st, "t%d acquire %s: %s: %s", a->t, o.name,
                       dval_status_name(rc), dval_client_errmsg(st->client));
        sb = own;
    } else {
        sb = st->sandboxes[i];
    }
    for (int r = 0; r < st->rounds; r++) {
        if (sb)
            stress_one(st, sb, a->t, r);
        else
            atomic_fetch_add(&st->failed, 1);
        stress_sample(st, r);
    }
    dval_sandbox_free(own);
    return NULL;
}

/* Runs the stress; fills ok/failed/fds/rss/seconds. */
static inline void stress_run(stress *st)
{
    CHECK(st->rounds >= 3 && st->rounds <= STRESS_MAX_ROUNDS);
    atomic_init(&st->ok, 0);
    atomic_init(&st->failed, 0);
    pthread_mutex_init(&st->lock, NULL);
    pthread_barrier_init(&st->done, NULL, (unsigned)st->threads);
    pthread_barrier_init(&st->go, NULL, (unsigned)st->threads);
    pthread_t *tids = calloc((size_t)st->threads, sizeof *tids);
    stress_thread *args = calloc((size_t)st->threads, sizeof *args);
    CHECK(tids && args);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int t = 0; t < st->threads; t++) {
        args[t].st = st;
        args[t].t = t;
        CHECK_INT(pthread_create(&tids[t], NULL, stress_main, &args[t]), 0);
    }
    for (int t = 0; t < st->threads; t++)
        pthread_join(tids[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->seconds = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    free(tids);
    free(args);
    pthread_barrier_destroy(&st->done);
    pthread_barrier_destroy(&st->go);
    pthread_mutex_destroy(&st->lock);
}

/* The shared-sandbox form: acquires the sandbox of o, then every thread
 * runs on that one handle. Returns the handle (the caller checks and
 * releases it), after the run. */
static inline dval_sandbox *stress_run_shared(stress *st, dval_client *c,
                                              const dval_sandbox_options *o)
{
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, c, o);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "acquire: %s: %s", dval_status_name(rc),
                dval_client_errmsg(c));
    memset(st, 0, sizeof *st);
    stress_size(&st->threads, &st->rounds);
    st->client = c;
    st->sandboxes = &sb;
    st->nsandboxes = 1;
    stress_run(st);
    return sb;
}

/* The own-handles form: every thread acquires its own handle of names[t %
 * n] with o; the sandboxes are deleted after the run. rounds_div (1 or
 * more) shortens the run (at least 3 rounds). */
static inline void stress_run_named(stress *st, dval_client *c,
                                    dval_sandbox_options *o,
                                    const char *const *names, int n,
                                    int rounds_div)
{
    memset(st, 0, sizeof *st);
    stress_size(&st->threads, &st->rounds);
    st->rounds = st->rounds / rounds_div < 3 ? 3 : st->rounds / rounds_div;
    st->client = c;
    st->names = names;
    st->acquire = o;
    st->nsandboxes = n;
    stress_run(st);
    for (int i = 0; i < n; i++) {
        dval_sandbox *sb = NULL;
        o->name = names[i];
        CHECK_INT(dval_sandbox_acquire(&sb, c, o), DVAL_OK);
        CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
        dval_sandbox_free(sb);
    }
}

/* Prints the figures and checks: every session succeeded, and no growth
 * of descriptors (exact, +2 slack) or RSS (8 MiB; not checked in
 * sanitizer builds, whose allocators keep freed memory) from the second
 * round to the last. */
static inline void stress_check(stress *st, const char *label)
{
    long total = (long)st->threads * st->rounds;
    long ok = atomic_load(&st->ok), failed = atomic_load(&st->failed);
    int last = st->rounds - 1;
    fprintf(stderr, "    %s: %d threads x %d sessions: %ld/%ld ok, %ld "
            "failed, %.1f s, %.1f sessions/s\n", label, st->threads,
            st->rounds, ok, total, failed, st->seconds,
            st->seconds > 0 ? (double)ok / st->seconds : 0.0);
    fprintf(stderr, "    %s: fds after round 1/2/last: %ld/%ld/%ld; RSS "
            "KiB: %ld/%ld/%ld\n", label, st->fds[0], st->fds[1],
            st->fds[last], st->rss_kb[0], st->rss_kb[1], st->rss_kb[last]);
    for (int i = 0; i < st->nerrs; i++)
        fprintf(stderr, "    %s: error: %s\n", label, st->errs[i]);
    CHECK_INT(failed, 0);
    CHECK_INT(ok, total);
    if (st->fds[last] > st->fds[1] + 2)
        th_fail(__FILE__, __LINE__, "%s: descriptors grew from %ld to %ld",
                label, st->fds[1], st->fds[last]);
    if (!STRESS_SANITIZED && st->rss_kb[last] > st->rss_kb[1] + 8192)
        th_fail(__FILE__, __LINE__, "%s: RSS grew from %ld to %ld KiB",
                label, st->rss_kb[1], st->rss_kb[last]);
}

#endif
