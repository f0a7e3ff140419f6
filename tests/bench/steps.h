/* Timing of one step at a time for the local-executor step benches
 * (localsteps.c, localreset.c): wall and tree CPU ms per item, one JSON
 * line per step. Tree CPU is read from the cpuacct.usage file of the
 * bench's own cgroup (localsteps.sh makes it), so the helpers, inits and
 * programs count too; without one it reads 0. Header-only. */
#ifndef DVAL_BENCH_STEPS_H
#define DVAL_BENCH_STEPS_H

#include <stdio.h>
#include <time.h>

static const char *usage_file;  /* the cgroup's cpuacct.usage, or NULL */
static double w0, c0;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double tree_cpu_ms(void)
{
    FILE *f = usage_file ? fopen(usage_file, "r") : NULL;
    unsigned long long ns = 0;
    if (f) {
        if (fscanf(f, "%llu", &ns) != 1)
            ns = 0;
        fclose(f);
    }
    return ns / 1e6;
}

static void step_begin(void)
{
    w0 = now_ms();
    c0 = tree_cpu_ms();
}

static void step_end(const char *name, int n)
{
    printf("{\"step\":\"%s\",\"n\":%d,\"wall_ms\":%.2f,\"cpu_ms\":%.2f}\n",
           name, n, (now_ms() - w0) / n, (tree_cpu_ms() - c0) / n);
}

#endif
