/* Throughput of dval_pool_validate: C concurrent validations (threads) of
 * a trivial shell program, N in all, one isolation level, on the executor
 * of the environment (local, or daytona at DAYTONA_API_URL - the
 * emulator). Prints one JSON line: validations/s, p50/p99 wall per
 * validation, CPU ms per validation. Not a timed test: tests/bench/pool.sh
 * runs it. Usage: poolbench EXECUTOR session|sandbox C N SRCDIR */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dval.h"

static dval_pool *pool;
static const char *src;
static int isolation, total;
static atomic_int next, failed;
static int64_t *walls;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *worker(void *arg)
{
    (void)arg;
    int i;
    while ((i = atomic_fetch_add(&next, 1)) < total) {
        dval_validation req;
        dval_validation_init(&req, sizeof req);
        req.source_dir = src;
        req.allow_missing_results = 1;
        req.isolation = isolation;
        int64_t t0 = now_ms();
        int rc = dval_pool_validate(pool, &req, NULL, NULL, NULL);
        walls[i] = now_ms() - t0;
        if (rc && atomic_fetch_add(&failed, 1) < 3)
            fprintf(stderr, "poolbench: %s\n", dval_status_name(rc));
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

int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    isolation = !strcmp(argv[2], "sandbox");
    int conc = atoi(argv[3]);
    total = atoi(argv[4]);
    src = argv[5];
    walls = calloc((size_t)total, sizeof *walls);
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = argv[1];
    co.state_dir = getenv("POOLBENCH_STATE");
    dval_client *c = NULL;
    if (dval_client_new(&c, &co))
        return 1;
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.max_sandboxes = isolation ? conc : 1;
    po.max_per_sandbox = isolation ? 1 : conc;
    po.max_queue = -1;
    if (dval_pool_new(&pool, c, &po)) {
        fprintf(stderr, "poolbench: %s\n", dval_client_errmsg(c));
        return 1;
    }
    pthread_t th[256];
    double cpu0 = cpu_ms();
    int64_t t0 = now_ms();
    for (int i = 0; i < conc; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < conc; i++)
        pthread_join(th[i], NULL);
    int64_t el = now_ms() - t0;
    double cpu = cpu_ms() - cpu0;
    qsort(walls, (size_t)total, sizeof *walls, cmp);
    printf("{\"executor\":\"%s\",\"isolation\":\"%s\",\"concurrency\":%d,"
           "\"validations\":%d,\"failed\":%d,\"per_s\":%.1f,\"p50_ms\":%lld,"
           "\"p99_ms\":%lld,\"cpu_ms_per_validation\":%.1f}\n", argv[1],
           argv[2], conc, total, atomic_load(&failed),
           total * 1000.0 / (double)(el ? el : 1),
           (long long)walls[total / 2], (long long)walls[total * 99 / 100],
           cpu / total);
    dval_pool_free(pool);
    dval_client_free(c);
    return atomic_load(&failed) ? 1 : 0;
}
