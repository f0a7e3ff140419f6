/* A cgroup per command, inside the sandbox's (issue 39): a validation's
 * limits hold for its own processes even in a shared sandbox, the kernel
 * counts what they used (CPU, peak memory) and whether it killed one at
 * the memory limit (its OOM count), and the runtimes inside read their
 * limit from it. The library makes and bounds it as root; the command
 * joins it itself before it runs anything (helper exec.c, -G), so no
 * process of it starts outside.
 *   v1 (this machine's kind): memory/, pids/ and cpuacct/
 *      daytona-validate/<sandbox>/c-<pid>-<n>
 *   v2: <root>/daytona-validate/<sandbox>/c-<pid>-<n>, beside the leaf
 *      "sandbox" that holds the init (limits.c) */
#include "session.h"
#include "protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const v1_roots[3] = { "/sys/fs/cgroup/memory",
                                         "/sys/fs/cgroup/pids",
                                         "/sys/fs/cgroup/cpuacct" };

static int put(const char *dir, const char *file, long long v)
{
    char p[4200], val[32];
    dval__fmt(p, sizeof p, "%s/%s", dir, file);
    dval__fmt(val, sizeof val, "%lld", v);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, val, strlen(val));
    close(fd);
    return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* The sandbox's cgroup kind from where its init was placed: 1 v1, 2 v2,
 * 0 none a command can have a cgroup below (no cgroups, or v1 without
 * the memory controller). */
static int sandbox_kind(lx *x, const lx_sb *sb, char *v2dir, size_t cap)
{
    lx_limits l;
    lx_sb_limits(x, sb, &l);
    if (!l.nprocs)
        return 0;
    if (!strncmp(l.procs[0], "/sys/fs/cgroup/memory/", 22))
        return 1;
    const char *leaf = "/sandbox/cgroup.procs";
    size_t n = strlen(l.procs[0]), k = strlen(leaf);
    if (n <= k || strcmp(l.procs[0] + n - k, leaf))
        return 0;
    dval__fmt(v2dir, cap, "%.*s", (int)(n - k), l.procs[0]);
    return 2;
}

static int limit_v1(lx_cmdcg *g, const dval_limits *lim)
{
    long long mem = lim->memory_bytes;
    if (mem > 0 && (put(g->dir[0], "memory.limit_in_bytes", mem) < 0 ||
                    (put(g->dir[0], "memory.memsw.limit_in_bytes", mem) < 0 &&
                     errno != ENOENT)))
        return -1;
    put(g->dir[0], "memory.swappiness", 0);
    return lim->max_processes > 0
           ? put(g->dir[1], "pids.max", lim->max_processes) : 0;
}

static int limit_v2(lx_cmdcg *g, const dval_limits *lim)
{
    if (lim->memory_bytes > 0 &&
        (put(g->dir[0], "memory.max", lim->memory_bytes) < 0 ||
         put(g->dir[0], "memory.swap.max", 0) < 0))
        return -1;
    return lim->max_processes > 0
           ? put(g->dir[0], "pids.max", lim->max_processes) : 0;
}

/* The directories named in g, made (v1: the sandbox's own directory in
 * cpuacct too, which the sandbox itself does not use) */
static int make_dirs(lx_cmdcg *g)
{
    for (int i = 0; i < g->n; i++) {
        char *slash = strrchr(g->dir[i], '/');
        *slash = 0;
        int rc = lx_mkdirs(g->dir[i], 0755);
        *slash = '/';
        if (rc < 0 || (mkdir(g->dir[i], 0755) < 0 && errno != EEXIST))
            return -1;
    }
    return 0;
}

static void remove_dirs(const lx_cmdcg *g)
{
    for (int i = 0; i < g->n; i++)
        /* EBUSY: a killed process is still leaving */
        for (int us = 100, t = 0; rmdir(g->dir[i]) < 0 && errno == EBUSY &&
             t < 1000000; t += us, us = us < 5000 ? us * 2 : us)
            usleep((useconds_t)us);
}

static void name_dirs(lx_cmdcg *g, int kind, const char *v2dir,
                      const char *key, const char *cmd)
{
    g->v2 = kind == 2;
    g->n = g->v2 ? 1 : 3;
    for (int i = 0; i < g->n; i++)
        if (g->v2)
            dval__fmt(g->dir[i], sizeof g->dir[i], "%s/c-%d-%s", v2dir,
                      (int)getpid(), cmd);
        else
            dval__fmt(g->dir[i], sizeof g->dir[i], "%s/daytona-validate/%s/"
                      "c-%d-%s", v1_roots[i], key, (int)getpid(), cmd);
}

int lx_cmdcg_make(lx *x, dval_call *c, const lx_sb *sb,
                  const dval_limits *lim, lx_cmd *m)
{
    char v2dir[4096];
    const char *key = lx_kv_get(&sb->kv, "cgroup");
    int kind = sb->isolated && geteuid() == 0 && key && *key
                   ? sandbox_kind(x, sb, v2dir, sizeof v2dir) : 0;
    if (!kind) {
        if (lim->memory_bytes || lim->max_processes)
            LX_LOG(x, DVAL_LOG_WARN, "local executor: sandbox %s has no "
                   "cgroup a command's own can go below; its memory and "
                   "process limits are not enforced", sb->dir);
        return DVAL_OK;
    }
    lx_cmdcg *g = dval__calloc(1, sizeof *g);
    if (!g)
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    name_dirs(g, kind, v2dir, key, m->id);
    g->cpu_ms = lim->cpu_ms;
    g->view = lim->memory_bytes > 0;
    int e = 0;
    if (make_dirs(g) < 0 ||
        (g->v2 ? limit_v2(g, lim) : limit_v1(g, lim)) < 0)
        e = errno;
    if (e) {
        remove_dirs(g);
        dval__free(g);
        return dval__call_fail(c, DVAL_EISOLATION, "the command's cgroup "
                               "cannot be made or bounded: %s", strerror(e));
    }
    m->cg = g;
    return DVAL_OK;
}

void lx_cmdcg_args(const lx_cmdcg *g, char **argv, int *n, char bufs[3][4200])
{
    for (int i = 0; g && i < g->n; i++) {
        dval__fmt(bufs[i], sizeof bufs[i], "%s/cgroup.procs", g->dir[i]);
        argv[(*n)++] = LX_OPT_CMD_CGROUP;
        argv[(*n)++] = bufs[i];
    }
    if (g && g->view) {
        argv[(*n)++] = LX_OPT_CG_VIEW;
        argv[(*n)++] = g->v2 ? "2" : "1";
    }
}

void lx_cmdcg_drop(lx_cmd *m)
{
    if (!m->cg)
        return;
    remove_dirs(m->cg);
    dval__free(m->cg);
    m->cg = NULL;
}

static int each_in(const char *procs, int (*fn)(int pid, void *ud), void *ud)
{
    FILE *f = fopen(procs, "re");
    int sum = 0, pid;
    while (f && fscanf(f, "%d", &pid) == 1)
        sum += fn(pid, ud);
    if (f)
        fclose(f);
    return sum;
}

/* procs's directory and those below it; v2: the "sandbox" leaf's
 * parent, whose children are the leaf and the commands' cgroups */
int lx_cg_each_pid(const char *procs, int (*fn)(int pid, void *ud),
                   void *ud)
{
    char dir[4096], p[4400];
    const char *slash = strrchr(procs, '/');
    if (!slash)
        return 0;
    dval__fmt(dir, sizeof dir, "%.*s", (int)(slash - procs), procs);
    char *leaf = strrchr(dir, '/');
    int sum = 0;
    if (leaf && !strcmp(leaf, "/sandbox"))
        *leaf = 0;
    else
        sum = each_in(procs, fn, ud);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_DIR && e->d_name[0] != '.') {
            dval__fmt(p, sizeof p, "%s/%s/cgroup.procs", dir, e->d_name);
            sum += each_in(p, fn, ud);
        }
    if (d)
        closedir(d);
    return sum;
}
