/* "services" mode: a snapshot's shared profile services (service.c: the
 * descriptions with "shared 1", e.g. the java compile service), run once
 * for every sandbox of the snapshot instead of once in each: a sandbox
 * of its own then costs a validation no JVM start.
 *
 *   services <base> <lowers>
 *
 * A compile service only reads sources sent as data and sends class
 * files back; it runs no code of a validation. So it can live outside
 * every sandbox: here, in namespaces of its own (mount, pid, IPC, UTS, a
 * network with only its loopback) over the snapshot's layers mounted
 * read-only, as its own uid under the supervisor of service.c. Its
 * socket directory is <base>/<name> on the host, bound writable here and
 * read-only into each sandbox of the snapshot (its init's -S), so a
 * sandbox reaches the socket and nothing else of it.
 *
 * One per snapshot: <base>/lock is held for its life (a second start
 * exits at once). <base> is a small tmpfs the library mounts
 * (lib/executor/local/services.c). It ends when no sandbox of the
 * snapshot is left (or <base> is removed): each init holds a shared
 * lock on <base>/users for its life, and an exclusive one that can be
 * taken twice in a row, IDLE_CHECK_S apart, means none is left. The
 * library starts it after each sandbox start, so a sandbox that comes
 * just as it ends finds the next one. */
#include "helper.h"
#include "service.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IDLE_CHECK_S 10

struct host_args {
    const char *base, *lowers;
};

/* The root: the snapshot read-only, its own /proc, /dev and /tmp, the
 * shared services' directories bound writable. */
static int host_root(const struct host_args *a, char *root, size_t cap)
{
    char lo[4096], opts[4200];
    int fds[LAYER_FDS_MAX], n = 0, rc = -1;
    snprintf(root, cap, "%s/root", a->base);
    if (mkdir(root, 0755) < 0 && errno != EEXIST)
        return -1;
    if (layer_fd_paths(a->lowers, lo, sizeof lo, fds, &n, LAYER_FDS_MAX) == 0) {
        snprintf(opts, sizeof opts, "lowerdir=%s", lo);
        rc = mount("overlay", root, "overlay", MS_RDONLY | MS_NODEV |
                   MS_NOSUID, opts);
    }
    while (n > 0)
        close(fds[--n]);
    if (rc < 0 || services_bind(root, a->base, 1) < 0 ||
        mount_proc(root) < 0 || setup_dev(root) < 0)
        return -1;
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s/tmp", root);
    return mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
}

static int host_child(void *p)
{
    char root[4200];
    make_root_private(2);
    if (host_root(p, root, sizeof root) < 0 || loopback_up() < 0 ||
        enter_root(root) < 0)
        die_fd(2, "set up the services host");
    sethostname("services", 8);
    if (services_start(1) == 0)
        return 0;
    for (;;) /* pid 1: reap whatever ends here */
        if (wait(NULL) < 0 && errno == ECHILD)
            pause();
}

/* 1 once no sandbox holds <base>/users */
static int unused(int users)
{
    if (flock(users, LOCK_EX | LOCK_NB) < 0)
        return 0;
    flock(users, LOCK_UN);
    return 1;
}

static _Noreturn void host_watch(const struct host_args *a, int users)
{
    int base = open(a->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    pid_t kid = spawn_ns(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                         CLONE_NEWUTS | CLONE_NEWNET, host_child, (void *)a);
    for (int idle = 0; kid > 0 && base >= 0;) {
        struct timespec ts = { IDLE_CHECK_S, 0 };
        nanosleep(&ts, NULL);
        struct stat st;
        idle = unused(users) ? idle + 1 : 0;
        if (waitpid(kid, NULL, WNOHANG) == kid)
            break;
        if (idle >= 2 || fstat(base, &st) < 0 || st.st_nlink == 0) {
            kill(kid, SIGKILL); /* its pid namespace goes with it */
            waitpid(kid, NULL, 0);
            break;
        }
    }
    _exit(0);
}

int helper_services(int argc, char **argv)
{
    if (argc < 2 || argv[0][0] != '/') {
        write_str(2, "usage: services <base> <lowers>\n");
        return 2;
    }
    pid_t pid = fork(); /* the library waits for this process only */
    if (pid != 0)
        return pid < 0 ? 1 : 0;
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    struct host_args a = { argv[0], argv[1] };
    char p[4200];
    snprintf(p, sizeof p, "%s/lock", a.base);
    int lk = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    snprintf(p, sizeof p, "%s/users", a.base);
    int users = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (lk < 0 || users < 0 || flock(lk, LOCK_EX | LOCK_NB) < 0)
        _exit(0); /* one runs already */
    host_watch(&a, users);
}
