/* dval-local-helper entry point and shared helpers (see helper.h). */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"

#define STACK_SIZE (256 * 1024)

void die_fd(int fd, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, LX_REPLY_ERR "%s: %s\n", what,
             strerror(errno));
    write_str(fd, msg);
    _exit(1);
}

int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int write_str(int fd, const char *s)
{
    return write_all(fd, s, strlen(s));
}

int write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = write_str(fd, s);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

struct ns_start {
    ns_child_fn fn;
    void *arg;
    int sync[2];
    int userns;
};

static int ns_trampoline(void *p)
{
    struct ns_start *st = p;
    char c;
    close(st->sync[1]);
    if (read(st->sync[0], &c, 1) != 1)
        _exit(1);
    close(st->sync[0]);
    if (st->userns && (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0))
        _exit(1);
    return st->fn(st->arg);
}

/* Maps root inside the user namespace to id outside (every id, as is,
 * when we are root). */
static int write_map(pid_t pid, const char *file, unsigned id, int root)
{
    char path[64], map[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    if (root)
        snprintf(map, sizeof map, "0 0 4294967295");
    else
        snprintf(map, sizeof map, "0 %u 1", id);
    return write_file(path, map);
}

static int write_maps(pid_t pid)
{
    uid_t uid = geteuid();
    if (uid != 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
        if (write_file(path, "deny") < 0)
            return -1;
    }
    if (write_map(pid, "uid_map", (unsigned)uid, uid == 0) < 0)
        return -1;
    return write_map(pid, "gid_map", (unsigned)getegid(), uid == 0);
}

pid_t spawn_ns(int flags, ns_child_fn fn, void *arg)
{
    static struct ns_start st;
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    st.fn = fn;
    st.arg = arg;
    /* A user namespace only when not root: overlayfs cannot take the host
     * root as lower layer inside one (its submounts are locked). As root,
     * drop_caps() confines the sandbox instead. */
    st.userns = geteuid() != 0;
    if (pipe(st.sync) < 0)
        return -1;
    pid_t pid = clone(ns_trampoline, stack + STACK_SIZE,
                      flags | (st.userns ? CLONE_NEWUSER : 0) | SIGCHLD,
                      &st);
    close(st.sync[0]);
    if (pid < 0) {
        close(st.sync[1]);
        return -1;
    }
    if (st.userns && write_maps(pid) < 0) {
        int e = errno;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(st.sync[1]);
        errno = e;
        return -1;
    }
    if (write(st.sync[1], "g", 1) != 1) {
        close(st.sync[1]);
        return -1;
    }
    close(st.sync[1]);
    return pid;
}

void join_cgroups(int argc, char **argv)
{
    char me[32];
    snprintf(me, sizeof me, "%d", (int)getpid());
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], LX_OPT_CGROUP))
            if (write_file(argv[i + 1], me) < 0)
                die_fd(2, argv[i + 1]);
}

int wait_code(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 125;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int probe_child(void *p)
{
    char **argv = p, mnt[4096], up[4096], wk[4096];
    snprintf(mnt, sizeof mnt, "%s/m", argv[0]);
    snprintf(up, sizeof up, "%s/u", argv[0]);
    snprintf(wk, sizeof wk, "%s/w", argv[0]);
    make_root_private(1);
    if (mount_overlay("/", up, wk, mnt, 0) < 0)
        die_fd(1, "overlayfs");
    /* what every command needs: dropping to an unprivileged uid (or all
     * capabilities), a fresh keyring, the seccomp filter, which must
     * then refuse a denied call */
    pid_t kid = fork();
    if (kid == 0) {
        long uid = geteuid() == 0 ? LX_UID_DEFAULT : -1;
        if (drop_privileges(uid) < 0)
            die_fd(1, "seccomp filter or unprivileged uid");
        if (syscall(SYS_keyctl, 0L, -3L, 0L) >= 0 || errno != EPERM ||
            unshare(CLONE_NEWUSER) == 0)
            die_fd(1, "seccomp filter not enforced");
        _exit(0);
    }
    if (kid < 0 || wait_code(kid) != 0)
        return 1;
    write_str(1, LX_REPLY_OK);
    return 0;
}

int helper_probe(int argc, char **argv)
{
    if (argc < 1)
        return 2;
    pid_t pid = spawn_ns(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
                         CLONE_NEWIPC | CLONE_NEWUTS, probe_child, argv);
    if (pid < 0)
        die_fd(1, "user/pid/net namespaces");
    return wait_code(pid);
}

/* Sanitizer builds (make asan): LeakSanitizer's exit-time check cannot
 * stop the world in a process that entered a sandbox's namespaces, and
 * spins forever at 100% CPU. The helper is short-lived: no leak check.
 * Unused otherwise. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return 1;
}

static const struct {
    const char *verb;
    int (*run)(int argc, char **argv);
} verbs[] = {
    { LX_VERB_BUILD, helper_build },     { LX_VERB_INIT, helper_init },
    { LX_VERB_PROBE, helper_probe },     { LX_VERB_MKIMAGE, helper_mkimage },
    { LX_VERB_IMPORT, helper_import },   { LX_VERB_SERVICES, helper_services },
};

/* The kernel's copy of our arguments, [args_lo, args_hi): what
 * /proc/<pid>/cmdline shows (helper_retitle). */
static char *args_lo, *args_hi;

void helper_retitle(const char *const *words)
{
    size_t cap = args_lo ? (size_t)(args_hi - args_lo) : 0, n = 0;
    if (!cap)
        return;
    memset(args_lo, 0, cap);
    for (; *words; words++) {
        size_t len = strlen(*words);
        if (n + len + 1 > cap)
            break;
        memcpy(args_lo + n, *words, len);
        n += len + 1;
    }
}

int main(int argc, char **argv)
{
    args_lo = argv[0];
    args_hi = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    /* Nothing of the host process should leak into the sandbox */
    syscall(SYS_close_range, (unsigned)LX_FD_SPAWNED, ~0U, 0U);
    if (argc < 2) {
        write_str(2, "usage: dval-local-helper " LX_VERB_BUILD "|"
                  LX_VERB_INIT "|" LX_VERB_PROBE "|"
                  LX_VERB_MKIMAGE "|" LX_VERB_IMPORT " ...\n");
        return 2;
    }
    signal(SIGPIPE, SIG_DFL);
    /* Die with the library thread that spawned us (a SIGKILLed caller
     * leaves nothing running); it names itself so a parent that died
     * before this line is noticed too. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    const char *parent = getenv(LX_ENV_PARENT);
    if (parent && atol(parent) != (long)getppid())
        return 125;
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        if (!strcmp(argv[1], verbs[i].verb))
            return verbs[i].run(argc - 2, argv + 2);
    write_str(2, "dval-local-helper: unknown mode\n");
    return 2;
}
