/* The fast reset, done by the sandbox's init (init_reset.c): pid 1 of
 * its pid, mount, IPC, UTS and network namespaces, as host root.
 *
 * What a program of the earlier use can leave, and where it goes:
 * - processes (stopped, traced, forking in a loop, zombies): kill(-1)
 *   from inside the pid namespace signals every process of it but the
 *   init and the caller, atomically against fork (a fork that had not
 *   attached its child by then fails, its parent having SIGKILL
 *   pending); repeated until /proc shows no other pid (the init reaps);
 * - files anywhere (the upper layer, /tmp, /var/tmp, $HOME, fifos, deep
 *   trees, other uids' files): a new overlay on fresh directories of the
 *   kept disk (the old ones removed after the swap: reset_keep.c), /tmp
 *   a fresh directory of it, /dev/shm a fresh tmpfs; the old tree is
 *   detached; a disk filled past the walk's budget fails the reset;
 * - SysV IPC: every shm, queue and semaphore set removed, then counted;
 *   POSIX queues: unlinked through the namespace's own mqueue fs;
 * - the hostname: set again (commands cannot change it anyway);
 * - network: a netns with any socket left (a TIME_WAIT one included)
 *   refuses the fast path: the full reset makes a new namespace (the
 *   commands have no CAP_NET_ADMIN: links, addresses, routes and the
 *   netns's sysctls are as the init left them);
 * - mounts, keyrings, ptrace, namespaces: the commands' seccomp filter
 *   and dropped capabilities forbid them (privs.c, seccomp.c);
 * - profile services (their supervisors are the init's children): a
 *   sandbox that has one is reset the full way.
 * Every check that fails returns non-zero: the library then does the
 * full reset, which kills the init. */
#include "helper.h"
#include "reset.h"
#include "init_cmd.h"
#include "profile_service.h"
#include "executor/local/sandbox_ids.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/mount.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>

/* Pids in the sandbox's /proc other than the init's (ours). */
static int others(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]) && atoi(e->d_name) != 1)
            n++;
    closedir(d);
    return n;
}

/* Every process but the init gone (reaped): within ~2 s. */
static int kill_all(void)
{
    for (int us = 100, total = 0; total < 2000000; total += us) {
        if (kill(-1, SIGKILL) < 0 && errno != ESRCH)
            return -1;
        /* as the init the dead are ours to reap */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        int n = others();
        if (n <= 0)
            return n;
        usleep((useconds_t)us);
        us = us * 2 > 20000 ? 20000 : us * 2;
    }
    return -1;
}

/* Removes every SysV object of this IPC namespace; 0 when none is left.
 * The *_INFO calls return the highest index in use; *_STAT takes an
 * index and returns the object's id. */
static int sysv_clear(void)
{
    struct shm_info si;
    struct msginfo mi;
    struct seminfo ei;
    struct shmid_ds sd;
    struct msqid_ds md;
    union semun { int v; struct semid_ds *b; struct seminfo *i; } su;
    int top = shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&si);
    for (int i = 0, id; i <= top; i++)
        if ((id = shmctl(i, SHM_STAT, &sd)) >= 0)
            shmctl(id, IPC_RMID, NULL);
    top = msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&mi);
    for (int i = 0, id; i <= top; i++)
        if ((id = msgctl(i, MSG_STAT, &md)) >= 0)
            msgctl(id, IPC_RMID, NULL);
    su.i = &ei;
    top = semctl(0, 0, SEM_INFO, su);
    for (int i = 0, id; i <= top; i++) {
        struct semid_ds ed;
        su.b = &ed;
        if ((id = semctl(i, 0, SEM_STAT, su)) >= 0)
            semctl(id, 0, IPC_RMID);
    }
    su.i = &ei;
    if (shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&si) < 0 ||
        msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&mi) < 0 ||
        semctl(0, 0, SEM_INFO, su) < 0)
        return -1;
    return si.used_ids || mi.msgpool || ei.semusz ? -1 : 0;
}

/* The namespace's mqueue fs, mounted detached (attached nowhere) at the
 * first reset and held by this process from then on (close-on-exec; a
 * waiter closes everything of the init's): each mount's end would cost
 * an expedited RCU grace period, one per reset. The init's IPC namespace
 * is the same for its life. */
static int mq_root(void)
{
    static int root = -1;
    if (root >= 0)
        return root;
    int fs = fsopen("mqueue", FSOPEN_CLOEXEC), mnt = -1;
    if (fs >= 0 && fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
        mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
    if (fs >= 0)
        close(fs);
    root = mnt;
    return root;
}

/* Unlinks every POSIX message queue of this IPC namespace; the number
 * left (-1: the fs not reachable). */
static int mq_clear(void)
{
    int root = mq_root();
    int dfd = root < 0 ? -1 : openat(root, ".", O_RDONLY | O_DIRECTORY |
                                     O_CLOEXEC);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    int left = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            unlinkat(dirfd(d), e->d_name, 0) < 0)
            left++;
    closedir(d);
    return left;
}

/* 0 when this network namespace has no socket left: /proc/net/sockstat
 * (this process's netns) counts every user socket of the namespace
 * ("sockets: used", unix ones included; kernel sockets are not counted)
 * and the TCP TIME_WAIT ones ("tw"), which are not sockets any more but
 * would keep a port of the earlier use busy. (Reading /proc/net/tcp
 * instead walks the host's whole connection hash: a third of the reset's
 * CPU.) */
static int net_idle(void)
{
    char buf[1024];
    int fd = open("/proc/net/sockstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    long used = -1, tw = -1;
    const char *s = strstr(buf, "sockets: used ");
    if (s)
        used = atol(s + 14);
    s = strstr(buf, "TCP: ");
    s = s ? strstr(s, " tw ") : NULL;
    if (s)
        tw = atol(s + 4);
    return used == 0 && tw == 0 ? 0 : -1;
}

/* A new root on the kept disk swapped in. */
static int new_root(long uid_base)
{
    struct keep_gen g = { "", -1 };
    int root = reset_in_keeper(reset_keep_build, &g);
    if (root < 0)
        return 15;
    int rc = reset_swap_root(root, g.tmp, uid_base);
    /* attached now (or failed); held open, the next reset's old root
     * would outlive its unmount (and pin the files the wipe removes) */
    close(root);
    close(g.tmp);
    if (rc < 0)
        return 16;
    /* what cannot be removed (too deep, say) would stay on the disk of
     * the next use: the full reset then replaces it */
    return reset_in_keeper(reset_keep_wipe, &g) < 0 ? 17 : 0;
}

/* 1 when the root describes a profile service (lib/profile_service.h) */
static int has_services(void)
{
    DIR *d = opendir(DVAL_SERVICE_DIR);
    int n = 0;
    for (struct dirent *e; d && !n && (e = readdir(d));)
        n = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int reset_inside(int share_net, long uid_base)
{
    if (has_services())
        return LX_RESET_UNSUPPORTED;
    if (kill_all() != 0)
        return 10;
    if (sysv_clear() != 0)
        return 11;
    if (mq_clear() != 0)
        return 12;
    if (!share_net && net_idle() != 0)
        return 13;
    if (sethostname("sandbox", 7) < 0)
        return 14;
    return new_root(uid_base);
}

void reset_serve(int c, int share_net, long uid_base)
{
    char out[16];
    snprintf(out, sizeof out, "%d", reset_inside(share_net, uid_base));
    init_cmd_forget(); /* what the reset killed and reaped */
    write_str(c, out);
}
