/* Where the wall time of one isolation=sandbox validation goes, one at
 * a time through a pool of one slot (tests/bench/LOCALPERF.md): the
 * mean time between consecutive phase events of dval_pool_validate, and
 * from the last one ("close" done) to its return, which is the slot's
 * reset. 20 validations first, not counted (the slot's sandbox made, the
 * caches warm). Not a timed test.
 * Usage: poolphases N SOURCE_DIR  (POOLBENCH_STATE: the state dir) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dval.h"

#define WARM 20
#define STEPS 32

static double t_last, sum[STEPS];
static char names[STEPS][48];
static int nsteps;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The time since the last mark goes to the step named name. */
static void mark(const char *name)
{
    double t = now_us();
    int i = 0;
    while (i < nsteps && strcmp(names[i], name))
        i++;
    if (i == nsteps && nsteps < STEPS)
        snprintf(names[nsteps++], sizeof names[0], "%s", name);
    if (i < STEPS)
        sum[i] += t - t_last;
    t_last = t;
}

static int on_event(const dval_event *ev, void *ud)
{
    char name[48];
    (void)ud;
    if (ev->type == DVAL_EVENT_PHASE) {
        snprintf(name, sizeof name, "%s %s", ev->phase,
                 ev->done ? "done" : "start");
        mark(name);
    }
    return 0;
}

static int run(dval_pool *pool, const char *src, double *wall)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = src;
    req.isolation = DVAL_ISOLATION_SANDBOX;
    char *out = NULL;
    double t0 = now_us();
    t_last = t0;
    int rc = dval_pool_validate(pool, &req, on_event, NULL, &out);
    mark("return (the reset)");
    *wall += now_us() - t0;
    if (rc || !out || !strstr(out, "\"exit_code\":0"))
        fprintf(stderr, "poolphases: %s: %s\n", dval_status_name(rc),
                out ? out : "(no summary)");
    dval_free(out);
    return rc;
}

int main(int argc, char **argv)
{
    int n = argc == 3 ? atoi(argv[1]) : 0;
    if (n <= 0) {
        fprintf(stderr, "usage: poolphases N SOURCE_DIR\n");
        return 2;
    }
    dval_client *c = NULL;
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = getenv("POOLBENCH_STATE");
    co.local = &lo;
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.max_sandboxes = 1;
    po.release = DVAL_RELEASE_DELETE;
    dval_pool *pool = NULL;
    if (dval_client_new(&c, &co) || dval_pool_new(&pool, c, &po)) {
        fprintf(stderr, "poolphases: %s\n", c ? dval_client_errmsg(c) : "");
        return 1;
    }
    double wall = 0;
    int rc = 0;
    for (int i = 0; i < WARM + n && !rc; i++) {
        if (i == WARM) {
            memset(sum, 0, sizeof sum);
            wall = 0;
        }
        rc = run(pool, argv[2], &wall);
    }
    for (int i = 0; !rc && i < nsteps; i++)
        printf("%-24s %7.3f ms\n", names[i], sum[i] / n / 1000);
    if (!rc)
        printf("%-24s %7.3f ms\n", "validation", wall / n / 1000);
    dval_pool_free(pool);
    dval_client_free(c);
    return rc ? 1 : 0;
}
