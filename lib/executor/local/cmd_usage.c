/* The session_limits and command_usage members of the local executor:
 * a session's limits for its next commands (each then in a cgroup of its
 * own, cmd_cgroup.c), and what a finished command used, read from that
 * cgroup (then removed). */
#include "session.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int session_limits(void *ud, dval_call *c, const char *sb,
                          const char *sid, const dval_limits *lim)
{
    lx *x = ud;
    pthread_mutex_lock(&x->lock);
    struct lx_session *s = lx_session_find(x, sb, sid);
    if (s) {
        s->limited = lim != NULL;
        memset(&s->lim, 0, sizeof s->lim);
        if (lim)
            s->lim = *lim; /* the core's copy: this library's size */
    }
    pthread_mutex_unlock(&x->lock);
    return s ? DVAL_OK : dval__call_fail(c, DVAL_ENOTFOUND, "session %s not "
                                         "found", sid);
}

/* The value of key ("key value" lines) in dir/file, or -1. */
static long long keyed(const char *dir, const char *file, const char *key)
{
    char p[4200], line[256];
    dval__fmt(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "re");
    long long v = -1;
    size_t k = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, k) && line[k] == ' ')
            v = strtoll(line + k + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static long long number(const char *dir, const char *file)
{
    char p[4200], buf[64];
    dval__fmt(p, sizeof p, "%s/%s", dir, file);
    if (lx_read_text(p, buf, sizeof buf) < 0)
        return -1;
    return strtoll(buf, NULL, 10);
}

/* v1: cpuacct.usage is the exact total; its user/sys split is sampled
 * at ticks (~10 % off here), so the total is shared out in its ratio,
 * as the kernel does for a process's own times (cputime_adjust). */
static void read_v1(const lx_cmdcg *g, dval_usage *u)
{
    long long ns = number(g->dir[2], "cpuacct.usage");
    long long us = number(g->dir[2], "cpuacct.usage_user");
    long long sy = number(g->dir[2], "cpuacct.usage_sys");
    u->cpu_ms = ns < 0 ? -1 : ns / 1000000;
    if (ns >= 0 && us >= 0 && sy >= 0 && us + sy > 0) {
        u->user_ms = (int64_t)((double)u->cpu_ms * (double)us /
                               (double)(us + sy));
        u->sys_ms = u->cpu_ms - u->user_ms;
    }
    u->peak_memory_bytes = number(g->dir[0], "memory.max_usage_in_bytes");
    u->oom_kills = (int32_t)keyed(g->dir[0], "memory.oom_control",
                                  "oom_kill");
}

static void read_v2(const lx_cmdcg *g, dval_usage *u)
{
    long long us = keyed(g->dir[0], "cpu.stat", "usage_usec");
    long long user = keyed(g->dir[0], "cpu.stat", "user_usec");
    long long sys = keyed(g->dir[0], "cpu.stat", "system_usec");
    u->cpu_ms = us < 0 ? -1 : us / 1000;
    u->user_ms = user < 0 ? -1 : user / 1000;
    u->sys_ms = sys < 0 ? -1 : sys / 1000;
    u->peak_memory_bytes = number(g->dir[0], "memory.peak");
    u->oom_kills = (int32_t)keyed(g->dir[0], "memory.events", "oom_kill");
}

/* 1 when the CPU limit ended the command: it used the limit, or it was
 * killed as the CPU budget (helper cpu_budget.c: SIGXCPU) or RLIMIT_CPU
 * (SIGKILL) end one, near the limit. Near: RLIMIT_CPU counts a process's
 * time by ticks, which here ran ~10 % ahead of the cgroup's exact sum
 * (killed at 895 ms of a 1000 ms limit). */
static int cpu_ended(const lx_cmdcg *g, int code, long long cpu_ms)
{
    if (g->cpu_ms <= 0 || code == 0 || cpu_ms < 0)
        return 0;
    if (cpu_ms >= g->cpu_ms)
        return 1;
    int by_cpu = code == 128 + SIGXCPU || code == 128 + SIGKILL;
    return by_cpu && cpu_ms * 100 >= g->cpu_ms * 75;
}

/* Once the command finished: its usage, then its cgroup removed (a
 * second call finds none: all unknown). */
static int command_usage(void *ud, dval_call *c, const char *sb,
                         const char *sid, const char *cmd_id, dval_usage *u)
{
    lx *x = ud;
    pthread_mutex_lock(&x->lock);
    lx_cmd *m = lx_cmd_find(lx_session_find(x, sb, sid), cmd_id);
    lx_cmdcg *g = m && m->finished ? m->cg : NULL;
    int code = m ? m->code : 0;
    if (g)
        m->cg = NULL; /* ours now */
    pthread_mutex_unlock(&x->lock);
    if (!m)
        return dval__call_fail(c, DVAL_ENOTFOUND, "command %s not found",
                               cmd_id);
    if (!g)
        return DVAL_OK; /* all unknown (-1), as the core preset them */
    if (g->v2)
        read_v2(g, u);
    else
        read_v1(g, u);
    u->cpu_limit_hit = cpu_ended(g, code, u->cpu_ms);
    lx_cmd tmp = { .cg = g };
    lx_cmdcg_drop(&tmp);
    return DVAL_OK;
}

void lx_cmd_limits_install(struct dval_executor *ex)
{
    ex->session_limits = session_limits;
    ex->command_usage = command_usage;
}
