/* "init" mode: creates the sandbox's namespaces and root, then stays as its
 * pid 1 (reaping orphans, serving the socket that starts its commands)
 * after the launching process has exited. An unisolated sandbox's init
 * (layer LX_ROOT_PLAIN) is a host process in the sandbox's cgroups with
 * no namespaces, there only to start the commands the same way. */
#include "helper.h"
#include "upper_disk.h"
#include "init_lock.h"
#include "service.h"
#include "reset.h"
#include "init_cmd.h"
#include "init_owner.h"
#include "executor/local/protocol.h"

/* the init keeps its state directory open here (INIT_LOCK_FD is 3) */
#define WATCH_FD LX_FD_INIT_WATCH
#define RESET_FD LX_FD_INIT_RESET

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct init_args {
    const char *sbdir, *layer, *hide;
    int share_net;
    int status[2];
    int disk_gib, disk_fd;      /* the bounded layer (upper_disk.c) */
    int reset_fd;               /* the reset requests' socket, or -1 */
    long uid_base;              /* the sandbox range's first uid */
    const char *svc;            /* -S: the snapshot's shared services */
    int users;                  /* their users lock, held shared */
    int plain;                  /* unisolated: no namespaces, no root */
};

static int plain_init;
/* Only an init that kept the layers does the fast reset: every init has
 * the socket (for its commands), and a reset elsewhere (kill_all in an
 * unisolated sandbox's init, on the host) must never run. */
static int can_reset;

int init_resets(void)
{
    return can_reset;
}

/* SIGTERM ends the sandbox when it comes from outside its
 * pid namespace (the host: a shutdown, an administrator, a test's
 * cleanup): the sender's pid is not visible here, so si_pid is 0, and
 * kill() gives SI_USER. Processes inside the sandbox see their own pids
 * and cannot queue SI_USER to another process (rt_sigqueueinfo needs
 * si_code < 0), so they cannot stop their sandbox this way (without a
 * handler the kernel drops the signal for a namespace's init, from inside
 * and from the host alike). Exiting kills everything in the namespace;
 * the sandbox then reads as error (init gone) and recovers by restart. */
static void on_term(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (si && si->si_code == SI_USER && si->si_pid == 0)
        _exit(128 + sig);
}

/* The sandbox's state directory (held open from before pivot_root) was
 * deleted: nobody can reach or stop this sandbox any more. */
static int state_gone(int dirfd)
{
    struct stat st;
    return fstat(dirfd, &st) < 0 || st.st_nlink == 0;
}

/* Reaps orphans; every second (no signal timers: a timed wait) checks
 * that the state directory still exists, and exits when it is gone;
 * serves the library's reset and command requests (init_reset.c) on
 * RESET_FD. */
static void reap_forever(int dirfd, int share_net, long uid_base)
{
    sigset_t block;
    struct sigaction sa;
    /* every reset's wipe opens a directory per level (32 KiB each):
     * without this the heap's top went back to the kernel at each close
     * and came back as fresh zeroed pages at the next open */
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_term;
    sa.sa_flags = SA_SIGINFO;
    if (!plain_init) /* a host process: SIGTERM's default, it has no pid 1's */
        sigaction(SIGTERM, &sa, NULL);
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, NULL);
    int chld = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
    struct stat st;
    int have_reset = fstat(RESET_FD, &st) == 0 && S_ISSOCK(st.st_mode);
    for (;;) {
        init_cmd_reap();
        if (state_gone(dirfd))
            _exit(0);
        struct pollfd p[5] = { { chld, POLLIN, 0 },
                               { have_reset ? RESET_FD : -1, POLLIN, 0 } };
        init_cmd_pollfds(p + 2);
        p[4] = (struct pollfd){ owner_fd(), POLLIN, 0 };
        if (chld < 0) { /* no signalfd: the timed wait alone */
            struct timespec ts = { 1, 0 };
            sigtimedwait(&block, NULL, &ts);
            continue;
        }
        int ready = poll(p, 5, init_cmd_timeout(1000));
        if (ready > 0 && p[4].revents)
            owner_remove();
        struct signalfd_siginfo si;
        while (read(chld, &si, sizeof si) == (ssize_t)sizeof si)
            ;
        init_cmd_reap();
        init_cmd_events(p + 2); /* also on a timeout: the CPU budget */
        if (ready > 0 && (p[1].revents & POLLIN))
            init_reset_serve(RESET_FD, share_net, uid_base);
    }
}

/* The layer argument: "<dir>[:<dir>...]" (a snapshot's layer over its
 * image, or an image alone) or "host[:<layer>]" (the host-root opt-in:
 * the layers over an empty skeleton in lower/, the allow-list bound on
 * top). Anything else is refused (sandbox_lower). */
static int is_host_root(const char *layer)
{
    return !strncmp(layer, LX_ROOT_HOST, 4) &&
           (!layer[4] || layer[4] == ':');
}

static int sandbox_lower(const char *layer, char *lower, size_t cap)
{
    if (!is_host_root(layer)) {
        if (layer[0] != '/') {
            errno = EINVAL;
            return -1;
        }
        snprintf(lower, cap, "%s", layer);
        return 0;
    }
    if (host_skeleton(lower) < 0)
        return -1;
    char skel[4096];
    snprintf(skel, sizeof skel, "%s", lower);
    if (layer[4] == ':' &&
        snprintf(lower, cap, "%s:%s", layer + 5, skel) >= (int)cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* The init's descriptors once the sandbox is up: stdio on /dev/null,
 * INIT_LOCK_FD (3), the lock that lives as long as this init, WATCH_FD
 * (4), the state directory whose removal ends it, RESET_FD (5), the
 * reset requests' socket when there is one, KEEPER_FD (6), the fast
 * reset's keeper (reset_root.c) and KEEPER_ROOT_FD (7), its root,
 * when there is one, then the owner's (init_owner.c), if any; nothing
 * else. The keeper's fds are above them all (init_child). */
static void keep_init_fds(int fd, int null, int watch, int reset_fd,
                          const struct keeper *k, int users)
{
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (watch != WATCH_FD && (dup2(watch, WATCH_FD) < 0 || close(watch) < 0))
        die_fd(fd, "keep the state directory open");
    if (reset_fd >= 0 && reset_fd != RESET_FD &&
        (dup2(reset_fd, RESET_FD) < 0 || close(reset_fd) < 0))
        die_fd(fd, "keep the reset socket");
    if (k->ns >= 0 && (dup3(k->ns, KEEPER_FD, O_CLOEXEC) < 0 ||
                       dup3(k->root, KEEPER_ROOT_FD, O_CLOEXEC) < 0))
        die_fd(fd, "keep the reset's keeper");
    int keep = k->ns >= 0 ? KEEPER_ROOT_FD
               : reset_fd >= 0 ? RESET_FD : WATCH_FD;
    if ((keep = owner_keep(keep + 1)) < 0)
        die_fd(fd, "keep the owner's pidfd");
    if (users >= 0 && (keep = dup3(users, keep + 1, O_CLOEXEC)) < 0)
        die_fd(fd, "keep the shared services' users lock");
    if (syscall(SYS_close_range, (unsigned)keep + 1U, ~0U, 0U) < 0)
        for (int i = keep + 1; i < 1024; i++)
            close(i);
}

/* Reads the child's setup status into buf (NUL-terminated) until its
 * "ok" line, EOF or a full buffer; returns the length read. */
static size_t read_setup_status(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n >= 3 && !memcmp(buf, LX_REPLY_OK, 3))
            break;
        if (n == cap - 1)
            break;
    }
    buf[n] = 0;
    return n;
}

static int init_child(void *p)
{
    struct init_args *a = p;
    int fd = a->status[1];
    char lower[4096], upper[4096], work[4096], root[4096];
    close(a->status[0]);
    snprintf(lower, sizeof lower, "%s/lower", a->sbdir);
    snprintf(upper, sizeof upper, "%s/upper", a->sbdir);
    snprintf(work, sizeof work, "%s/work", a->sbdir);
    snprintf(root, sizeof root, "%s/root", a->sbdir);
    make_root_private(fd);
    if (sandbox_lower(a->layer, lower, sizeof lower) < 0)
        die_fd(fd, "sandbox root image");
    if (a->disk_gib > 0 && upper_disk_attach(a->disk_fd, a->sbdir,
                                             a->disk_gib, upper, work,
                                             sizeof upper) < 0)
        die_fd(fd, "mount the sandbox disk");
    if (mount_overlay(lower, upper, work, root, 0) < 0)
        die_fd(fd, "mount sandbox overlay");
    if (is_host_root(a->layer) && host_root_binds(root) < 0)
        die_fd(fd, "bind the host allow-list");
    if (setup_sandbox_root(root, a->hide, a->uid_base) < 0)
        die_fd(fd, "set up sandbox root");
    if (a->disk_gib > 0 && upper_disk_tmp(a->sbdir, root) < 0)
        die_fd(fd, "bind /tmp to the sandbox disk");
    if (a->svc && services_bind(root, a->svc, 0) < 0)
        die_fd(fd, "bind the snapshot's shared services");
    /* the fast reset's kept layers (reset_keep.c): host root only, where
     * no command is root */
    char disk[4200];
    snprintf(disk, sizeof disk, "%s/disk", a->sbdir);
    int keep = a->disk_gib > 0 && geteuid() == 0 && !is_host_root(a->layer);
    can_reset = keep;
    if (keep && reset_keep_layers(root, disk, lower) < 0)
        die_fd(fd, "keep the layers for the reset");
    if (!a->share_net && loopback_up() < 0)
        die_fd(fd, "bring up lo");
    sethostname("sandbox", 7);
    int watch = open(a->sbdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (watch < 0)
        die_fd(fd, "open the state directory");
    if (enter_root(root) < 0)
        die_fd(fd, "pivot_root");
    struct keeper split = { -1, -1 }, k = { -1, -1 };
    if (keep && reset_keeper_split(&split) < 0)
        die_fd(fd, "split off the reset's keeper");
    if (keep && ((k.ns = fcntl(split.ns, F_DUPFD_CLOEXEC, 64)) < 0 ||
                 (k.root = fcntl(split.root, F_DUPFD_CLOEXEC, 64)) < 0))
        die_fd(fd, "keep the reset's keeper");
    int null = open("/dev/null", O_RDWR);
    if (null < 0)
        die_fd(fd, "open /dev/null");
    write_str(fd, LX_REPLY_OK);
    keep_init_fds(fd, null, watch, a->reset_fd, &k, a->users);
    if (services_start(0) > 0) /* a service lives with the sandbox */
        init_cmd_service();
    reap_forever(WATCH_FD, a->share_net, a->uid_base);
    return 0;
}

/* An unisolated sandbox's init: the child subreaper of what its
 * commands leave, as a pid 1 is of its namespace's orphans. */
static int plain_child(void *p)
{
    struct init_args *a = p;
    int fd = a->status[1];
    close(a->status[0]);
    plain_init = 1;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 || chdir("/") < 0)
        die_fd(fd, "become the commands' subreaper");
    int watch = open(a->sbdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int null = open("/dev/null", O_RDWR);
    if (watch < 0 || null < 0)
        die_fd(fd, "open the state directory");
    write_str(fd, LX_REPLY_OK);
    struct keeper none = { -1, -1 };
    keep_init_fds(fd, null, watch, a->reset_fd, &none, a->users);
    reap_forever(WATCH_FD, 1, a->uid_base);
    return 0;
}

/* The socket that starts the commands (and resets, init_reset.c), made
 * in the host's namespaces, then the init: its pid, or -1. */
static pid_t start_init(struct init_args *a)
{
    if ((a->reset_fd = init_reset_listen(a->sbdir)) < 0)
        return -1;
    init_exec_ncpu(sysconf(_SC_NPROCESSORS_CONF)); /* /sys: not inside */
    init_exec_mode(a->plain ? a->sbdir : NULL, geteuid() == 0);
    if (a->plain) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(plain_child(a));
        return pid;
    }
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
    if (!a->share_net)
        flags |= CLONE_NEWNET;
    return spawn_ns(flags, init_child, a);
}

/* -S base: the snapshot's shared services (services_host.c) are bound
 * in, and their host sees this sandbox as a user for the init's life. */
static int shared_services(int argc, char **argv, struct init_args *a)
{
    a->svc = NULL;
    a->users = -1;
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], LX_OPT_SERVICES) && argv[i + 1][0] == '/')
            a->svc = argv[i + 1];
    if (!a->svc)
        return 0;
    char p[4200];
    snprintf(p, sizeof p, "%s/users", a->svc);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    a->users = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 100);
    if (fd >= 0)
        close(fd);
    return a->users < 0 || flock(a->users, LOCK_SH) < 0 ? -1 : 0;
}

int helper_init(int argc, char **argv)
{
    if (argc < 4) {
        write_str(2, "usage: " LX_VERB_INIT " <sbdir> <layer> <net> <hide>\n");
        return 2;
    }
    struct init_args a = { argv[0], argv[1], argv[3], *argv[2] == *LX_NET_HOST,
                           { -1, -1 }, upper_disk_gib(argc, argv), -1, -1,
                           sandbox_uid_base(argc, argv), NULL, -1,
                           !strcmp(argv[1], LX_ROOT_PLAIN) };
    if (a.plain)
        a.disk_gib = 0;
    if (a.uid_base < 0)
        return write_str(2, "init: -u names no sandbox uid range\n"), 2;
    setsid();
    join_cgroups(argc, argv);
    if (shared_services(argc, argv, &a) < 0)
        die_fd(1, "hold the shared services' users lock");
    if (init_lock(a.sbdir) < 0)
        die_fd(1, errno == EWOULDBLOCK ? "another init runs for this "
               "sandbox" : "lock the sandbox's init");
    if (owner_open(argc, argv, a.sbdir) < 0)
        die_fd(1, "hold the sandbox's owner");
    /* the image is mounted while still host root (ext4 cannot be mounted
     * inside a user namespace); without one, a sized tmpfs */
    char disk_note[160] = "";
    if (a.disk_gib > 0 && (a.disk_fd = upper_disk_open(a.sbdir)) < 0 &&
        errno != ENOENT)
        snprintf(disk_note, sizeof disk_note, LX_REPLY_NOTE "the sandbox "
                 "disk image cannot be mounted (%s); its layer is a tmpfs\n",
                 strerror(errno));
    if (pipe(a.status) < 0)
        die_fd(1, "pipe");
    pid_t pid = start_init(&a);
    if (pid < 0)
        die_fd(1, a.reset_fd < 0 ? "listen on the init's socket"
                                 : "create namespaces");
    init_lock_pid(pid);
    close(a.status[1]);
    if (a.reset_fd >= 0)
        close(a.reset_fd);
    if (a.disk_fd >= 0)
        close(a.disk_fd);
    char buf[600];
    size_t n = read_setup_status(a.status[0], buf, sizeof buf);
    if (n >= 3 && !memcmp(buf, LX_REPLY_OK, 3)) {
        char out[256];
        snprintf(out, sizeof out, LX_REPLY_PID "%d\n%s", (int)pid, disk_note);
        write_str(1, out);
        return 0;
    }
    write_str(1, n ? buf : LX_REPLY_ERR "init exited during setup\n");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 1;
}
