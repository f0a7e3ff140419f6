/* Commands started by the sandbox's init itself, on a request from the
 * library over the init's socket (init_reset.c, LX_INIT_EXEC_MAX): the
 * init runs the command as its own child while no other one does
 * (init_cmd.c), else forks the command's waiter (exec.c): no helper
 * exec'd, no namespaces joined, the waiter born where it must live. It
 * is the one way a command starts, in every kind of sandbox.
 *
 * The connection is the command's life line, held by the waiter alone:
 * "ok" once the request is accepted, then the exit code as one byte once
 * every process of the command is gone. When the library closes or shuts
 * down its end (a cancel, a deleted session, the caller's death), or the
 * caller's process ends (a pidfd sent with the request: a child the
 * caller forked may still hold a copy of the connection), the waiter
 * kills everything the command left, as when the helper died. */
#include "helper.h"
#include "exec.h"
#include "reset.h"
#include "init_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"

#define MAX_ARGS 1024

static long ncpu = 1;
static int host_root = 1;
static char plain_root[4200]; /* unisolated: <sbdir>/plain; "": isolated */

void init_exec_ncpu(long n)
{
    ncpu = n > 0 ? n : 1;
}

void init_exec_mode(const char *sbdir, int root)
{
    host_root = root;
    if (sbdir) /* a path: it fits, with "/plain" */
        snprintf(plain_root, sizeof plain_root, "%s/plain", sbdir);
}

/* 0 stays the init's /dev/null; 1 and 2 become the command's output, 3
 * the connection and 4 the caller's pidfd, if any (both close-on-exec:
 * the command never holds them); nothing of the init's survives (its
 * lock, its state directory, its socket: a command must reach none of
 * them). Returns the pidfd's number, or -1. */
static int waiter_fds(int c, const int fds[INIT_EXEC_FDS])
{
    int cg[MAX_CMD_CG]; /* 5.. next: first out of the way of 1..7 */
    for (int i = 0; i < MAX_CMD_CG; i++)
        cg[i] = fds[3 + i] >= 0 ? fcntl(fds[3 + i], F_DUPFD_CLOEXEC, 64)
                                : -1;
    if (dup2(fds[0], 1) < 0 || dup2(fds[1], 2) < 0 ||
        dup3(c, 3, O_CLOEXEC) < 0 ||
        (fds[2] >= 0 && dup3(fds[2], 4, O_CLOEXEC) < 0))
        _exit(125);
    for (int i = 0; i < MAX_CMD_CG; i++)
        if (cg[i] >= 0 && dup3(cg[i], 5 + i, O_CLOEXEC) < 0)
            _exit(125);
    if (syscall(SYS_close_range, 5U + MAX_CMD_CG, ~0U, 0U) < 0)
        for (int i = 5 + MAX_CMD_CG; i < 1024; i++)
            close(i);
    for (int i = 0; i < MAX_CMD_CG; i++)
        if (cg[i] < 0)
            close(5 + i);
    if (fds[2] < 0)
        close(4);
    return fds[2] >= 0 ? 4 : -1;
}

/* The init's signal state is not the waiter's: SIGCHLD blocked (for its
 * signalfd) and a SIGTERM handler; the waiter starts from the defaults. */
static void default_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* args (n bytes, each string NUL-terminated) into argv; their count, or
 * -1 when the last is not terminated or there are too many. */
static int split(char *args, size_t n, char **argv, int max)
{
    int argc = 0;
    if (!n || args[n - 1])
        return -1;
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
        if (argc == max - 1)
            return -1;
        argv[argc++] = args + i;
    }
    argv[argc] = NULL;
    return argc;
}

/* The request's words into r, as the waiter and the init run them;
 * -1 when malformed. argv (MAX_ARGS) holds the words r points to. */
static int parse(char *args, size_t n, struct exec_req *r, char **argv,
                 const int cg[MAX_CMD_CG])
{
    int argc = split(args, n, argv, MAX_ARGS);
    if (argc < 1 ||
        exec_parse(argc, argv, plain_root[0] ? plain_root : NULL, r) < 0)
        return -1;
    for (int i = 0; i < r->ncg; i++)
        if ((r->cg[i] = cg[i]) < 0)
            return -1; /* named, not sent */
    /* host root joins no user namespace: never run as root */
    if (!r->root && host_root && r->uid <= 0)
        r->uid = LX_UID_DEFAULT;
    r->ncpu = ncpu;
    return 0;
}

static void waiter_main(int c, char *args, size_t n,
                        const int fds[INIT_EXEC_FDS])
{
    static char *argv[MAX_ARGS];
    static const char *const title[] = { "dval-local-helper", "waiter",
                                         NULL };
    helper_retitle(title);
    default_signals();
    int caller = waiter_fds(c, fds);
    static const int cg[MAX_CMD_CG] = { 5, 6, 7 };
    struct exec_req r;
    if (parse(args, n, &r, argv, cg) < 0) {
        write_str(3, LX_REPLY_ERR "exec: a malformed request\n");
        _exit(125);
    }
    r.report = 3;
    r.caller = caller;
    if (write_str(3, LX_REPLY_OK) < 0)
        _exit(125);
    exec_waiter(&r, 3);
}

/* The command as the init's own child; 1 when c and fds[2] are the
 * init's now (fds[2] then -1). */
static int run_here(int c, char *args, size_t n, int fds[INIT_EXEC_FDS])
{
    static char *argv[MAX_ARGS];
    struct exec_req r;
    if (parse(args, n, &r, argv, fds + 3) < 0) {
        write_str(c, LX_REPLY_ERR "exec: a malformed request\n");
        return 0;
    }
    r.out = fds[0];
    r.err = fds[1];
    r.caller = fds[2];
    if (!init_cmd_run(c, &r))
        return 0;
    fds[2] = -1;
    return 1;
}

/* 1 when fd is no pidfd: the waiter would take any readable fd (a
 * /dev/null) for the caller's death and end the command at once. A
 * signal 0 through it tells (EBADF only for a file that is not one; the
 * caller being out of this pid namespace's reach is EINVAL); a kernel
 * without the call (ENOSYS) takes it on trust. */
static int not_a_pidfd(int fd)
{
    return fd >= 0 &&
           syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0U) < 0 &&
           errno == EBADF;
}

/* The request's count of LX_OPT_CMD_CGROUP options */
static int cgroups_named(const char *args, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i += strlen(args + i) + 1)
        k += !strcmp(args + i, LX_OPT_CMD_CGROUP);
    return k;
}

/* The fds as received (out, err, the pidfd if any, the cgroups') into
 * their places: fds[2] the pidfd or -1, fds[3..] the cgroups'; -1 when
 * there are more than the request names. Too few are left for
 * init_exec_start to say so. */
static int sort_fds(const char *args, size_t n, int fds[INIT_EXEC_FDS])
{
    int got = 0, ncg = cgroups_named(args, n);
    while (got < INIT_EXEC_FDS && fds[got] >= 0)
        got++;
    int base = got - ncg;
    if (ncg > MAX_CMD_CG || base > 3)
        return -1;
    if (base < 2)
        return 0;
    int cg[MAX_CMD_CG] = { -1, -1, -1 };
    for (int i = 0; i < ncg; i++)
        cg[i] = fds[base + i];
    if (base == 2)
        fds[2] = -1;
    for (int i = 0; i < MAX_CMD_CG; i++)
        fds[3 + i] = cg[i];
    return 0;
}

int init_exec_start(int c, char *args, size_t n, int fds[INIT_EXEC_FDS])
{
    if (sort_fds(args, n, fds) < 0) {
        write_str(c, LX_REPLY_ERR "exec: more descriptors than the request "
                  "names\n");
        return 0;
    }
    if (fds[0] < 0 || fds[1] < 0) {
        write_str(c, LX_REPLY_ERR "exec: no output descriptors\n");
        return 0;
    }
    if (not_a_pidfd(fds[2])) {
        write_str(c, LX_REPLY_ERR "exec: the third descriptor is not the "
                  "caller's pidfd\n");
        return 0;
    }
    if (init_cmd_free())
        return run_here(c, args, n, fds);
    if (init_cmd_reserve() < 0) {
        write_str(c, LX_REPLY_ERR "exec: out of memory\n");
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0)
        waiter_main(c, args, n, fds);
    if (pid < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, LX_REPLY_ERR "fork: %s\n", strerror(errno));
        write_str(c, msg);
    } else {
        init_cmd_waiter(pid);
    }
    return 0;
}
