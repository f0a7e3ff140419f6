/* Resource limits of a sandbox: cgroup v2 when it has the memory and pids
 * controllers, else cgroup v1 memory + pids, else setrlimit in each
 * command; CPU time is always RLIMIT_CPU (cgroups only throttle CPU). A
 * CPU count (resources cpu) becomes a CFS quota of that many CPUs (v2
 * cpu.max, v1 cpu.cfs_quota_us and cpu.shares) where the kernel has the
 * cpu controller. */
#include "local.h"
#include "protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static int put(const char *dir, const char *file, const char *val)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/%s", dir, file);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, val, strlen(val));
    close(fd);
    return n == (ssize_t)strlen(val) ? 0 : -1;
}

static int has_controllers(const char *root)
{
    char p[4200], buf[512] = "";
    dval__fmt(p, sizeof p, "%s/cgroup.controllers", root);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return strstr(buf, "memory") && strstr(buf, "pids");
}

static const char *v2_root(void)
{
    static const char *roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
    for (int i = 0; i < 2; i++) {
        struct statfs sf;
        if (statfs(roots[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC &&
            has_controllers(roots[i]))
            return roots[i];
    }
    return NULL;
}

static int make_group(const char *parent, const char *key, char *dir,
                      size_t cap)
{
    char base[4200];
    dval__fmt(base, sizeof base, "%s/daytona-validate", parent);
    if (mkdir(base, 0755) < 0 && errno != EEXIST)
        return -1;
    dval__fmt(dir, cap, "%s/%s", base, key);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int setup_v2(const char *root, const char *key, lx_limits *l)
{
    char dir[4096], base[4200], v[32];
    dval__fmt(base, sizeof base, "%s/daytona-validate", root);
    put(root, "cgroup.subtree_control", "+memory +pids");
    if (make_group(root, key, dir, sizeof dir) < 0)
        return -1;
    put(base, "cgroup.subtree_control", "+memory +pids");
    if (l->cpus > 0) {
        put(root, "cgroup.subtree_control", "+cpu");
        put(base, "cgroup.subtree_control", "+cpu");
        dval__fmt(v, sizeof v, "%d 100000", l->cpus * 100000);
        if (put(dir, "cpu.max", v) < 0)
            l->cpus = -1; /* reported by the caller */
    }
    dval__fmt(v, sizeof v, "%lld", l->mem);
    if (put(dir, "memory.max", v) < 0)
        return -1;
    put(dir, "memory.swap.max", "0");
    dval__fmt(v, sizeof v, "%lld", l->pids);
    if (put(dir, "pids.max", v) < 0)
        return -1;
    /* the processes in a leaf, so each command may have a cgroup beside
     * it with the controllers (cmd_cgroup.c: no internal processes) */
    put(dir, "cgroup.subtree_control", l->cpus > 0 ? "+memory +pids +cpu"
                                                   : "+memory +pids");
    dval__fmt(base, sizeof base, "%s/sandbox", dir);
    if (mkdir(base, 0755) < 0 && errno != EEXIST)
        return -1;
    dval__fmt(l->procs[l->nprocs++], sizeof l->procs[0], "%s/cgroup.procs",
              base);
    return 0;
}

static int setup_v1(const char *ctl, const char *file, long long val,
                    const char *key, lx_limits *l)
{
    char root[64], dir[4096], v[32];
    dval__fmt(root, sizeof root, "/sys/fs/cgroup/%s", ctl);
    if (make_group(root, key, dir, sizeof dir) < 0)
        return -1;
    dval__fmt(v, sizeof v, "%lld", val);
    if (put(dir, file, v) < 0)
        return -1;
    if (!strcmp(ctl, "memory"))
        put(dir, "memory.memsw.limit_in_bytes", v); /* absent without swap
                                                       accounting */
    dval__fmt(l->procs[l->nprocs++], sizeof l->procs[0], "%s/cgroup.procs",
              dir);
    return 0;
}

/* v1: the quota is the hard bound, shares weigh sandboxes against each
 * other under contention. */
static int setup_v1_cpu(int cpus, const char *key, lx_limits *l)
{
    char dir[4096], v[32];
    if (make_group("/sys/fs/cgroup/cpu", key, dir, sizeof dir) < 0 ||
        put(dir, "cpu.cfs_period_us", "100000") < 0)
        return -1;
    dval__fmt(v, sizeof v, "%d", cpus * 100000);
    if (put(dir, "cpu.cfs_quota_us", v) < 0)
        return -1;
    dval__fmt(v, sizeof v, "%d", cpus * 1024);
    put(dir, "cpu.shares", v);
    dval__fmt(l->procs[l->nprocs++], sizeof l->procs[0], "%s/cgroup.procs",
              dir);
    return 0;
}

static void report_cpu(lx *x, const lx_limits *l, int ok)
{
    if (!ok)
        LX_LOG(x, DVAL_LOG_WARN, "local executor: no cpu cgroup; the CPU "
               "quota (%d) is not enforced (CPU time still is)", l->cpus);
}

void lx_limits_setup(lx *x, const char *key, lx_limits *l)
{
    l->nprocs = 0;
    l->rl_as = l->rl_nproc = 0;
    int cpus = l->cpus;
    const char *v2 = v2_root();
    if (v2 && setup_v2(v2, key, l) == 0) {
        if (cpus > 0)
            report_cpu(x, l, l->cpus > 0);
        l->cpus = cpus;
        return;
    }
    l->nprocs = 0;
    l->cpus = cpus;
    int mem = setup_v1("memory", "memory.limit_in_bytes", l->mem, key, l) == 0;
    int pids = setup_v1("pids", "pids.max", l->pids, key, l) == 0;
    if (cpus > 0)
        report_cpu(x, l, setup_v1_cpu(cpus, key, l) == 0);
    if (!mem) {
        l->rl_as = 1;
        LX_LOG(x, DVAL_LOG_WARN, "local executor: no memory cgroup; the "
               "memory limit is enforced per process (RLIMIT_AS)");
    }
    if (!pids) {
        if (geteuid() != 0) {
            l->rl_nproc = 1;
            LX_LOG(x, DVAL_LOG_WARN, "local executor: no pids cgroup; the "
                   "process limit is per user (RLIMIT_NPROC)");
        } else {
            LX_LOG(x, DVAL_LOG_WARN, "local executor: no pids cgroup; the "
                   "process limit (%lld) is NOT enforced", l->pids);
        }
    }
}

static void remove_dir(const char *dir)
{
    /* EBUSY: a killed process is still leaving (cgroup.procs no longer
     * lists it) */
    for (int us = 100, t = 0; rmdir(dir) < 0 && errno == EBUSY &&
         t < 1000000; t += us, us = us < 5000 ? us * 2 : us)
        usleep((useconds_t)us);
}

/* The cgroups below dir first: the v2 leaf, the commands' own (a
 * command's is removed when its usage is read or its session ends;
 * what a killed caller left is removed here) */
static void remove_tree(const char *dir)
{
    char sub[4500];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_DIR && e->d_name[0] != '.') {
            dval__fmt(sub, sizeof sub, "%s/%s", dir, e->d_name);
            remove_dir(sub);
        }
    if (d)
        closedir(d);
    remove_dir(dir);
}

void lx_limits_remove(const char *key)
{
    static const char *roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified",
                                   "/sys/fs/cgroup/memory",
                                   "/sys/fs/cgroup/pids",
                                   "/sys/fs/cgroup/cpu",
                                   "/sys/fs/cgroup/cpuacct" };
    char dir[4200];
    for (int i = 0; i < 6; i++) {
        dval__fmt(dir, sizeof dir, "%s/daytona-validate/%s", roots[i], key);
        remove_tree(dir);
    }
}

/* max_cpu_ms twice: RLIMIT_CPU bounds each process (rounded up to a
 * second), the command's watcher (the init or its waiter) its processes
 * together (red team A13: forking multiplied a per-process limit). */
void lx_limits_args(const lx_limits *l, char **argv, int *n,
                    char bufs[4][32])
{
    dval__fmt(bufs[0], 32, "%lld", (l->cpu_ms + 999) / 1000);
    argv[(*n)++] = LX_OPT_CPU_S;
    argv[(*n)++] = bufs[0];
    dval__fmt(bufs[3], 32, "%lld", l->cpu_ms);
    argv[(*n)++] = LX_OPT_CPU_MS;
    argv[(*n)++] = bufs[3];
    if (l->rl_as) {
        dval__fmt(bufs[1], 32, "%lld", l->mem);
        argv[(*n)++] = LX_OPT_MEM;
        argv[(*n)++] = bufs[1];
    }
    if (l->rl_nproc) {
        dval__fmt(bufs[2], 32, "%lld", l->pids);
        argv[(*n)++] = LX_OPT_NPROC;
        argv[(*n)++] = bufs[2];
    }
}
