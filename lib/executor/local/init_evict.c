/* Eviction of a sandbox's processes: the init that holds <sandbox>/
 * init.lock (see libexec/dval-local-helper/init_lock.c), even one whose
 * pid the state file never recorded because its creator was killed, and
 * every process left in the sandbox's cgroups (the sweep). Run before an
 * init is started and whenever a sandbox is stopped or deleted, so a
 * sandbox never has two inits and nothing of a dead caller lingers. */
#include "init_evict.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* 1 when pid's command line names dir (so a reused pid is never hit). */
static int runs_for(pid_t pid, const char *dir)
{
    char buf[8192];
    ssize_t n = lx_read_proc(pid, "cmdline", buf, sizeof buf);
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[n] = 0;
    return strstr(buf, dir) != NULL;
}

int lx_init_evict(lx *x, const char *sbdir)
{
    char p[4200], buf[32];
    dval__fmt(p, sizeof p, "%s/init.lock", sbdir);
    int fd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0; /* no init ever started here */
    int us = 100, killed = 0;
    for (int64_t end = dval__now_ms() + 3000; dval__now_ms() < end;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            flock(fd, LOCK_UN);
            close(fd);
            return killed;
        }
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = 0;
        pid_t pid = (pid_t)atoi(buf);
        if (pid > 1 && runs_for(pid, sbdir) && kill(pid, SIGKILL) == 0 &&
            !killed++)
            LX_LOG(x, DVAL_LOG_WARN, "local executor: killed a stray init "
                   "(pid %d) of %s", (int)pid, sbdir);
        lx_pause_us(&us);
    }
    close(fd);
    LX_LOG(x, DVAL_LOG_WARN, "local executor: an init of %s does not let "
           "go of its lock", sbdir);
    return -1;
}

static int kill_one(int pid, void *unused)
{
    (void)unused;
    if (pid <= 1 || pid == getpid())
        return 0;
    kill(pid, SIGKILL);
    return 1;
}

/* Kills every pid listed in a cgroup.procs file and in the cgroups of
 * the sandbox's commands; the number found. */
static int kill_listed(const char *procs)
{
    return lx_cg_each_pid(procs, kill_one, NULL);
}

void lx_cgroup_sweep(lx *x, const lx_limits *l)
{
    int us = 100, total = 0;
    for (int64_t end = dval__now_ms() + 2000; dval__now_ms() < end;) {
        int found = 0;
        for (int i = 0; i < l->nprocs; i++)
            found += kill_listed(l->procs[i]);
        if (!found)
            break;
        total += found;
        lx_pause_us(&us);
    }
    if (total)
        LX_LOG(x, DVAL_LOG_DEBUG, "local executor: cgroup sweep killed %d "
               "leftover process(es)", total);
}
