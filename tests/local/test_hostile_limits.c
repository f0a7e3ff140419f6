/* CPU: resources cpu becomes a CFS quota of that many CPUs on the
 * sandbox's cgroup (v1 cpu.cfs_quota_us, v2 cpu.max), which its processes
 * are in; without cpu, no quota. max_cpu_ms bounds a command's processes
 * together, not each (red team A13: forking multiplied it). */
#include "hostile.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void read_file(const char *p, char *buf, size_t cap)
{
    buf[0] = 0;
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

static void state_key(const hx *h, const char *key, char *out, size_t cap)
{
    char p[900], line[512];
    size_t n = strlen(key);
    out[0] = 0;
    snprintf(p, sizeof p, "%s/sandboxes/sb/state", h->dir);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == '=') {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, cap, "%s", line + n + 1);
        }
    if (f)
        fclose(f);
}

TEST(test_hostile_limits__cpu_quota_applied)
{
    hx h;
    hx_open(&h, "lim-cpu");
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "sb";
    o.cpu = 1;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h.client, &o), DVAL_OK);
    char cg[128], pid[32], p[600], buf[4096];
    state_key(&h, "cgroup", cg, sizeof cg);
    state_key(&h, "pid", pid, sizeof pid);
    snprintf(p, sizeof p, "/sys/fs/cgroup/cpu/daytona-validate/%s", cg);
    struct stat st;
    if (stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &st) == 0) {
        read_file(strcat(p, "/cpu.cfs_quota_us"), buf, sizeof buf);
        CHECK_INT(atoi(buf), 100000);
        snprintf(p, sizeof p, "/sys/fs/cgroup/cpu/daytona-validate/%s/"
                 "cgroup.procs", cg);
    } else if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
        snprintf(p, sizeof p, "/sys/fs/cgroup/daytona-validate/%s/cpu.max",
                 cg);
        read_file(p, buf, sizeof buf);
        CHECK_CONTAINS(buf, "100000 100000");
        snprintf(p, sizeof p, "/sys/fs/cgroup/daytona-validate/%s/"
                 "cgroup.procs", cg);
    } else {
        th_skip("no cpu cgroup controller");
    }
    read_file(p, buf, sizeof buf);
    char want[40];
    snprintf(want, sizeof want, "%s\n", pid);
    CHECK_CONTAINS(buf, want);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Eight busy loops under a 1 s limit: with a limit per process they burn
 * 8 s of CPU (4 s on two cores) and the shell goes on; with one for the
 * command's processes together the command is ended at about 1 s of CPU,
 * as RLIMIT_CPU ends a process (128 + SIGXCPU). The session's next
 * command starts with a budget of its own. */
TEST(test_hostile_limits__cpu_limit_is_for_a_command_s_processes_together)
{
    hx h;
    hx_open(&h, "lim-cputotal");
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    so.max_cpu_ms = 1000;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h.client, &so), DVAL_OK);
    hx_out o1;
    long long t0 = now_ms();
    int code = hx_sh(sb, "i=0; while [ $i -lt 8 ]; do "
                     "(while :; do :; done) & i=$((i+1)); done; wait; "
                     "echo WENT-ON", &o1);
    long long wall = now_ms() - t0;
    fprintf(stderr, "    exit %d after %lld ms: %s\n", code, wall, o1.text);
    CHECK_INT(code, 128 + SIGXCPU);
    CHECK(!strstr(o1.text, "WENT-ON"));
    CHECK(wall < 3000);
    hx_out o2;
    CHECK_INT(hx_sh(sb, "sleep 0.3; echo again", &o2), 0);
    CHECK_CONTAINS(o2.text, "again");
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}

/* The honest command: ~900 short processes, two loops in parallel
 * (ORPHAN: each loop's second /bin/true is orphaned, reaped by the
 * waiter; the calibration waits for it instead). */
#define MANY(ORPHAN) "for j in 1 2; do (i=0; while [ $i -lt 150 ]; " \
    "do /bin/true; (/bin/true " ORPHAN "); sleep 0.01; i=$((i+1)); done) " \
    "& done; wait; times; echo many-ok"

/* CPU ms the shell and its reaped descendants used: the two lines of
 * `times` that start the text (user and system time of the shell, then
 * of its children, each as NmS.SSSs); -1 when they are not there */
static long long times_ms(const char *text)
{
    int m[4];
    double sec[4];
    if (sscanf(text, "%dm%lfs %dm%lfs %dm%lfs %dm%lfs", &m[0], &sec[0],
               &m[1], &sec[1], &m[2], &sec[2], &m[3], &sec[3]) != 8)
        return -1;
    double sum = 0;
    for (int k = 0; k < 4; k++)
        sum += m[k] * 60 + sec[k];
    return (long long)(sum * 1000);
}

static dval_sandbox *cpu_sandbox(hx *h, const char *name, int max_cpu_ms)
{
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = name;
    so.max_cpu_ms = max_cpu_ms;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h->client, &so), DVAL_OK);
    return sb;
}

/* Many short processes, for seconds of wall time (the waiter looks
 * several times), reaped by their parents or, orphaned, by the waiter,
 * under a budget of 1.5 times what they cost on this machine (measured
 * first, without a budget: process creation costs 3-4 times more on
 * some machines than on others), at least 1 s. A count that took their
 * time twice (a parent's reaped children and the children themselves)
 * would end it. */
TEST(test_hostile_limits__many_short_processes_within_the_budget_run)
{
    hx h;
    hx_open(&h, "lim-cpumany");
    dval_sandbox *cal = cpu_sandbox(&h, "cal", 0);
    hx_out o1;
    CHECK_INT(hx_sh(cal, MANY("& wait"), &o1), 0);
    long long cost = times_ms(o1.text);
    fprintf(stderr, "    without a budget: %lld ms of CPU\n", cost);
    CHECK(cost > 0);
    CHECK_INT(dval_sandbox_delete(cal), DVAL_OK);
    dval_sandbox_free(cal);
    long long budget = cost * 3 / 2 > 1000 ? cost * 3 / 2 : 1000;
    dval_sandbox *sb = cpu_sandbox(&h, "sb", (int)budget);
    hx_out o2;
    CHECK_INT(hx_sh(sb, MANY("&"), &o2), 0);
    fprintf(stderr, "    budget %lld ms: %s", budget, o2.text);
    CHECK_CONTAINS(o2.text, "many-ok");
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}
