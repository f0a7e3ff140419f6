/* An isolation=sandbox sandbox dies with its owner (init -o): the process
 * that started its init, which alone uses it. The init holds the owner's
 * pidfd; when it reads as ended (a SIGKILLed caller never deletes), the
 * init kills the rest of its namespace, removes its cgroups and its state
 * directory (the disk image among it) and the owner's marker
 * (lib/executor/local/sandbox.c), then exits: its mount namespace goes,
 * with it the overlay, the disk's mount and its loop device. After
 * pivot_root nothing of the host is reachable by path: the sandboxes
 * directory and each cgroup hierarchy are held open from before. */
#include "helper.h"
#include "init_owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "executor/local/cgroup_path.h"
#include "executor/local/protocol.h"

/* v1: memory, pids, cpu (the -g ones), cpuacct (the commands' own) */
#define MAX_CG 4

static struct {
    int pidfd, dir;             /* the owner; the sandboxes directory */
    int cg[MAX_CG];             /* each cgroup's hierarchy */
    int ncg;
    long owner;
    char name[256];             /* the sandbox's directory there */
    char cgrel[MAX_CG][300];    /* daytona-validate/<key> in each */
} o = { -1, -1, { -1, -1, -1, -1 }, 0, 0, "", { "" } };

/* fd kept apart from the init's fixed ones (64 up), close-on-exec */
static int high(int fd)
{
    int h = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 64);
    if (fd >= 0)
        close(fd);
    return h;
}

static int hold_root(const char *root, const char *rel)
{
    if (o.ncg == MAX_CG)
        return -1;
    snprintf(o.cgrel[o.ncg], sizeof o.cgrel[0], "%s", rel);
    o.cg[o.ncg] = high(open(root, O_PATH | O_DIRECTORY | O_CLOEXEC));
    return o.cg[o.ncg++] < 0 ? -1 : 0;
}

/* The hierarchy of a -g cgroup.procs and the sandbox's cgroup in it
 * (v2: the init's leaf's parent, the commands' cgroups beside the leaf) */
static int hold_cgroup(const char *procs)
{
    char root[4096], rel[300];
    if (lx_cg_split(procs, root, sizeof root, rel, sizeof rel) < 0)
        return -1;
    return hold_root(root, rel);
}

/* v1 (the first -g in memory/): the commands' own cgroups are in
 * cpuacct too (the library's cmd_cgroup.c), below a sandbox directory
 * no -g names. Where cpuacct is cpu's hierarchy it is held twice: the
 * second removal finds nothing. */
static int hold_cpuacct(const char *first)
{
    static const char v1[] = "/sys/fs/cgroup/memory/";
    if (!first || strncmp(first, v1, sizeof v1 - 1) ||
        access("/sys/fs/cgroup/cpuacct", F_OK) < 0)
        return 0;
    return hold_root("/sys/fs/cgroup/cpuacct", o.cgrel[0]);
}

int owner_open(int argc, char **argv, const char *sbdir)
{
    int on = 0;
    for (int i = 0; i + 1 < argc; i++)
        on |= !strcmp(argv[i], LX_OPT_OWNED);
    const char *slash = strrchr(sbdir, '/');
    if (!on)
        return 0;
    if (!slash || slash == sbdir || strlen(slash + 1) >= sizeof o.name) {
        errno = EINVAL;
        return -1;
    }
    o.owner = (long)getppid();
    o.pidfd = high((int)syscall(SYS_pidfd_open, (pid_t)o.owner, 0));
    if (o.pidfd < 0 || getppid() != (pid_t)o.owner)
        return -1;
    snprintf(o.name, sizeof o.name, "%s", slash + 1);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - sbdir), sbdir);
    o.dir = high(open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC));
    const char *first = NULL;
    for (int i = 0; o.dir >= 0 && i + 1 < argc; i++)
        if (!strcmp(argv[i], LX_OPT_CGROUP)) {
            first = first ? first : argv[i + 1];
            if (hold_cgroup(argv[i + 1]) < 0)
                return -1;
        }
    return o.dir < 0 || hold_cpuacct(first) < 0 ? -1 : 0;
}

int owner_keep(int first)
{
    int *fds[2 + MAX_CG] = { &o.pidfd, &o.dir, &o.cg[0], &o.cg[1],
                             &o.cg[2], &o.cg[3] };
    for (int i = 0; i < 2 + MAX_CG; i++)
        if (*fds[i] >= 0 && (*fds[i] = dup3(*fds[i], first++, O_CLOEXEC)) < 0)
            return -1;
    return first - 1;
}

int owner_fd(void)
{
    return o.pidfd;
}

static void pause_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

/* rel below hierarchy fd removed once its last process, dying, has
 * left it (at most ~2 s) */
static void remove_group(int fd, const char *rel)
{
    for (int tries = 0; tries < 200 && unlinkat(fd, rel, AT_REMOVEDIR) < 0 &&
         errno == EBUSY; tries++)
        pause_ms(10);
}

/* The commands' own cgroups below the sandbox's (cmd_cgroup.c): their
 * caller removes them after each command, a killed owner never did, and
 * a cgroup with a child cannot be removed (EBUSY) */
static void drop_children(int i)
{
    int d = openat(o.cg[i], o.cgrel[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = d < 0 ? NULL : fdopendir(d);
    struct dirent *e;
    while (dir && (e = readdir(dir)))
        if (e->d_type == DT_DIR && e->d_name[0] != '.')
            remove_group(d, e->d_name);
    if (dir)
        closedir(dir);
    else if (d >= 0)
        close(d);
}

/* Out of the cgroup first (the root takes any process), then removed
 * with the commands' cgroups below it. */
static void drop_cgroups(void)
{
    for (int i = 0; i < o.ncg; i++) {
        int fd = openat(o.cg[i], "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            write_str(fd, "0");
            close(fd);
        }
        drop_children(i);
        remove_group(o.cg[i], o.cgrel[i]);
    }
}

void owner_remove(void)
{
    kill(-1, SIGKILL); /* every other process of this namespace */
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
    drop_cgroups();
    /* out of sight first, as the library deletes (a .trash the library
     * sweeps should this end half way) */
    char trash[400], mark[300];
    snprintf(trash, sizeof trash, ".trash-%s-%ld-0-0", o.name, o.owner);
    snprintf(mark, sizeof mark, LX_OWNER_MARK "%s", o.name);
    if (renameat(o.dir, o.name, o.dir, trash) == 0) {
        int d = openat(o.dir, trash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                       O_CLOEXEC);
        if (d >= 0 && wipe_tree(d) == 0)
            unlinkat(o.dir, trash, AT_REMOVEDIR);
    }
    unlinkat(o.dir, mark, 0);
    _exit(0);
}
