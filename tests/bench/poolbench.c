/* Throughput of dval_pool_validate: C concurrent validations (threads) of
 * a one-line shell program that writes a results JSON, N in all, one
 * isolation level, on the executor of the environment (local, or daytona
 * at DAYTONA_API_URL - the emulator). One untimed validation first (the
 * snapshot, and for session isolation the shared sandbox, exist before the
 * window, as for the SDK side in sdk_pool.js). Prints one JSON line:
 * validations/s, p50/p99 wall per validation, CPU ms per validation of
 * this process, and with POOLBENCH_EMU=http://127.0.0.1:PORT the
 * emulator's counts over the window (requests, TCP connections,
 * WebSockets, sandboxes created; the window ends after dval_pool_free, so
 * a sandbox-per-validation run's deletes count too). POOLBENCH_WARM=1
 * times a warm pool instead (warm_round); POOLBENCH_RUN=TEXT runs that
 * instead of the shell profile's run command (to compare two). The
 * first and the last tenth of the window's completions give a rate each
 * (first_tenth_per_s, last_tenth_per_s): a pool that slows down as it
 * runs (a long soak: POOL_SOAK in pool.sh) shows there. Not a timed test:
 * tests/bench/pool.sh runs it. Usage: poolbench EXECUTOR session|sandbox C N
 * SRCDIR */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dval.h"
#include "emustats.h"

#define MAX_THREADS 256

static dval_pool *pool;
static const char *src;
static int isolation, total, warm;
static atomic_int next, failed, done;
static int64_t *walls, *ends, t_start;


static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* the last failed phase of this thread's validation, for the report */
static _Thread_local char failed_phase[256];

static int on_event(const dval_event *ev, void *ud)
{
    (void)ud;
    if (ev->type == DVAL_EVENT_PHASE && ev->done && ev->status)
        snprintf(failed_phase, sizeof failed_phase, "%s %s after %lld ms: %s",
                 ev->phase, dval_status_name(ev->status),
                 (long long)ev->elapsed_ms, ev->detail ? ev->detail : "");
    return 0;
}

/* One validation; a failure is a wrong status, a non-zero exit or a
 * summary without the program's results JSON. */
static int validate_one(void)
{
    failed_phase[0] = 0;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = src;
    req.isolation = isolation;
    req.run_command = getenv("POOLBENCH_RUN"); /* NULL: the profile's */
    char *sum = NULL;
    int rc = dval_pool_validate(pool, &req, on_event, NULL, &sum);
    int ok = rc == DVAL_OK && sum && strstr(sum, "\"exit_code\":0") &&
             strstr(sum, "\"r.json\"");
    if (!ok && atomic_fetch_add(&failed, 1) < 3)
        fprintf(stderr, "poolbench: %s: %s (%s)\n", dval_status_name(rc),
                sum ? sum : "(no summary)", failed_phase);
    dval_free(sum);
    return ok ? 0 : -1;
}

static void *worker(void *arg)
{
    (void)arg;
    int i;
    while ((i = atomic_fetch_add(&next, 1)) < total) {
        int64_t t0 = now_ms();
        validate_one();
        walls[i] = now_ms() - t0;
        ends[atomic_fetch_add(&done, 1)] = now_ms() - t_start;
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
           ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}



static int open_pool(dval_client **c, const char *executor, int conc)
{
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = executor;
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = getenv("POOLBENCH_STATE");
    co.local = &lo;
    if (dval_client_new(c, &co))
        return -1;
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.max_sandboxes = isolation ? conc : 1;
    po.max_per_sandbox = isolation ? 1 : conc;
    po.max_queue = -1;
    po.release = DVAL_RELEASE_DELETE;
    if (dval_pool_new(&pool, *c, &po)) {
        fprintf(stderr, "poolbench: %s\n", dval_client_errmsg(*c));
        return -1;
    }
    return 0;
}

static void report(char **argv, int conc, int64_t el, double cpu,
                   emu_stats s0, emu_stats s1)
{
    qsort(walls, (size_t)total, sizeof *walls, cmp);
    printf("{\"executor\":\"%s\",\"isolation\":\"%s\",\"concurrency\":%d,"
           "\"warm\":%s,\"validations\":%d,\"failed\":%d,\"per_s\":%.2f,\"p50_ms\":%lld,"
           "\"p99_ms\":%lld,\"cpu_ms_per_validation\":%.2f",
           argv[1], argv[2], conc, warm ? "true" : "false", total,
           atomic_load(&failed),
           total * 1000.0 / (double)(el ? el : 1),
           (long long)walls[total / 2], (long long)walls[total * 99 / 100],
           cpu / total);
    int tenth = total / 10;
    if (tenth > 0) {
        qsort(ends, (size_t)total, sizeof *ends, cmp);
        int64_t a = ends[tenth - 1], b = ends[total - 1] -
                    ends[total - tenth - 1];
        printf(",\"first_tenth_per_s\":%.2f,\"last_tenth_per_s\":%.2f",
               tenth * 1000.0 / (double)(a ? a : 1),
               tenth * 1000.0 / (double)(b ? b : 1));
    }
    if (s0.reqs >= 0 && s1.reqs >= 0)
        printf(",\"requests\":%ld,\"conns\":%ld,\"websockets\":%ld,"
               "\"sandboxes_created\":%ld", s1.reqs - s0.reqs,
               s1.conns - s0.conns, s1.ws - s0.ws, s1.created - s0.created);
    printf("}\n");
}

/* POOLBENCH_WARM=1: a pool's steady state. A round of conc validations
 * at once, untimed, before the window: every slot has its sandbox (with
 * isolation=sandbox, made by a create), so the window sees the recycling
 * (a reset per validation) a long-running pool does. */
static int warm_round(pthread_t *th, int conc)
{
    int keep = total;
    total = conc;
    for (int i = 0; i < conc; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < conc; i++)
        pthread_join(th[i], NULL);
    total = keep;
    atomic_store(&next, 0);
    atomic_store(&done, 0);
    return atomic_load(&failed) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    isolation = !strcmp(argv[2], "sandbox");
    int conc = atoi(argv[3]);
    total = atoi(argv[4]);
    src = argv[5];
    warm = getenv("POOLBENCH_WARM") && atoi(getenv("POOLBENCH_WARM"));
    if (conc < 1 || conc > MAX_THREADS || total < 1)
        return 2;
    walls = calloc((size_t)(total > conc ? total : conc), sizeof *walls);
    ends = calloc((size_t)(total > conc ? total : conc), sizeof *ends);
    dval_client *c = NULL;
    if (!walls || !ends || open_pool(&c, argv[1], conc))
        return 1;
    if (validate_one()) /* warm-up: snapshot, shared sandbox */
        return 1;
    pthread_t th[MAX_THREADS];
    if (warm && warm_round(th, conc))
        return 1;
    emu_stats s0 = emu_stats_get(getenv("POOLBENCH_EMU"));
    double cpu0 = cpu_ms();
    int64_t t0 = t_start = now_ms();
    for (int i = 0; i < conc; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < conc; i++)
        pthread_join(th[i], NULL);
    int64_t el = now_ms() - t0;
    double cpu = cpu_ms() - cpu0;
    dval_pool_free(pool);
    emu_stats s1 = emu_stats_get(getenv("POOLBENCH_EMU"));
    report(argv, conc, el, cpu, s0, s1);
    dval_client_free(c);
    return atomic_load(&failed) ? 1 : 0;
}
