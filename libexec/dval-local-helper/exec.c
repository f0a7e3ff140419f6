/* "exec" mode: joins a sandbox's cgroups and namespaces, chroots into its
 * root and runs `sh -c command`. Its own pid (the session and process
 * group it leads: kill(-pid) ends the command) is written to fd
 * LX_FD_PGID; it
 * exits with the command's code (128+N on signal N).
 *
 * Isolated, the processes are:
 *   helper (host pid ns, root; dies with the library thread: pdeathsig)
 *    └ waiter (sandbox pid ns, root, child subreaper, its own group,
 *       double-forked so the sandbox's init is its parent; watches a
 *       pipe only the helper holds): when the command exits or the
 *       helper is gone it kills every process the command left, however
 *       it detached itself (setsid, double fork)
 *       └ sh -c command: own session, unprivileged uid, seccomp
 * A pid namespace per command would do the same, but a /proc for it
 * needs a mount namespace whose teardown waits for RCU, a wait paid by
 * every command.
 * The waiter's first parent and the command are vforked (they share
 * their parent's memory until they exit or exec): of the three process
 * starts only the waiter copies page tables; see start_vforked.
 * An init with a socket starts the waiter itself (init_exec.c), or runs
 * the command as its own child with no waiter when no other command
 * runs (init_cmd.c): this verb is then only the way for the others. */
#include "helper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"

/* One setns(pidfd) for every kind at once (Linux >= 5.8): six opens
 * under /proc/<pid>/ns are path walks through procfs, the costly part.
 * Atomic: on failure nothing was joined. Joining one's own user
 * namespace is EINVAL (root joins none): then again without it. */
static int join_ns_pidfd(const char *pid)
{
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)atol(pid), 0);
    if (fd < 0)
        return -1;
    int all = CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET |
              CLONE_NEWPID | CLONE_NEWNS;
    int rc = setns(fd, all);
    if (rc < 0 && errno == EINVAL)
        rc = setns(fd, all & ~CLONE_NEWUSER);
    close(fd);
    return rc;
}

/* The same, one namespace file at a time (kernels without pidfd setns) */
static void join_ns_files(const char *pid)
{
    static const char *kinds[] = { "user", "ipc", "uts", "net", "pid", "mnt" };
    int fds[6];
    char p[64];
    for (int i = 0; i < 6; i++) {
        snprintf(p, sizeof p, "/proc/%s/ns/%s", pid, kinds[i]);
        fds[i] = open(p, O_RDONLY | O_CLOEXEC);
        if (fds[i] < 0)
            die_fd(2, p);
    }
    for (int i = 0; i < 6; i++) {
        if (setns(fds[i], 0) < 0) {
            /* the net namespace is the host's when network is allowed */
            if (errno != EINVAL)
                die_fd(2, kinds[i]);
        }
        close(fds[i]);
    }
}

static void join_ns(const char *pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%s/root", pid);
    int root = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        die_fd(2, p);
    if (join_ns_pidfd(pid) < 0)
        join_ns_files(pid);
    if (fchdir(root) < 0 || chroot(".") < 0)
        die_fd(2, "chroot");
    close(root);
}

/* Kept for the command's process: the one starting it (the waiter,
 * the init) must not be bound by the command's limits. */
static void set_limit(struct exec_req *r, int res, const char *v)
{
    if (r->nlim == MAX_LIMITS)
        return;
    r->lim[r->nlim].res = res;
    r->lim[r->nlim++].v = strtoull(v, NULL, 10);
}

static void apply_limits(const struct exec_req *r)
{
    for (int i = 0; i < r->nlim; i++) {
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = r->lim[i].v;
        if (setrlimit(r->lim[i].res, &rl) < 0)
            die_fd(2, "setrlimit");
    }
}

/* Adds NAME=value, replacing an earlier NAME (a default such as HOME). */
static int set_env(char **env, int n, char *kv)
{
    size_t len = strcspn(kv, "=") + 1;
    for (int i = 0; i < n; i++)
        if (!strncmp(env[i], kv, len)) {
            env[i] = kv;
            return n;
        }
    env[n] = kv;
    return n + 1;
}

int exec_parse(int argc, char **argv, struct exec_req *r)
{
    int nenv = 0;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < MAX_CMD_CG; i++)
        r->cg[i] = -1;
    r->caller = -1;
    r->out = r->err = -1;
    r->pid = argv[0];
    r->root = argv[1];
    r->cwd = argv[2];
    r->uid = -1;
    r->env[nenv++] = "HOME=/home/daytona";
    r->env[nenv++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
                     ":/sbin:/bin";
    r->env[nenv++] = "LANG=C.UTF-8";
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], LX_OPT_END) && i + 1 < argc) {
            r->cmd = argv[i + 1];
            break;
        }
        if (!strcmp(argv[i], LX_OPT_ARGV) && i + 1 < argc && *argv[i + 1]) {
            r->argv = &argv[i + 1];
            break;
        }
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], LX_OPT_ENV) && nenv < MAX_ENV)
            nenv = set_env(r->env, nenv, argv[++i]);
        else if (!strcmp(argv[i], LX_OPT_CPU_S))
            set_limit(r, RLIMIT_CPU, argv[++i]);
        else if (!strcmp(argv[i], LX_OPT_MEM))
            set_limit(r, RLIMIT_AS, argv[++i]);
        else if (!strcmp(argv[i], LX_OPT_NPROC))
            set_limit(r, RLIMIT_NPROC, argv[++i]);
        else if (!strcmp(argv[i], LX_OPT_CPU_MS))
            r->cpu_ms = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], LX_OPT_UID))
            r->uid = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], LX_OPT_CGROUP))
            i++;
        else if (!strcmp(argv[i], LX_OPT_CMD_CGROUP) && r->ncg < MAX_CMD_CG)
            r->cg_path[r->ncg++] = argv[++i];
        else if (!strcmp(argv[i], LX_OPT_CG_VIEW))
            r->cg_view = atoi(argv[++i]);
    }
    /* a program run without a shell sees the PWD a shell's cd sets;
     * unisolated, its cwd is below root on the host (see run_command) */
    static char pwd[8400];
    const char *base = strcmp(r->pid, LX_ARG_NO_INIT) ? "" : r->root;
    if (r->argv && nenv < MAX_ENV &&
        snprintf(pwd, sizeof pwd, "PWD=%s%s%s", base,
                 *base && r->cwd[0] != '/' ? "/" : "", r->cwd) <
            (int)sizeof pwd)
        nenv = set_env(r->env, nenv, pwd);
    r->env[nenv] = NULL;
    return r->cmd || r->argv ? 0 : -1;
}

/* pdeathsig, then a check that the parent did not die before it was set:
 * `alive` is a pipe whose other end only the parent holds. */
static void die_with_parent(int alive, int sig)
{
    if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) < 0)
        _exit(125);
    struct pollfd p = { alive, POLLIN, 0 };
    if (poll(&p, 1, 0) != 0)
        _exit(125);
    close(alive);
}

/* The PATH the command sees (its environment's, not the helper's) */
static const char *command_path(char *const *env)
{
    for (; *env; env++)
        if (!strncmp(*env, "PATH=", 5))
            return *env + 5;
    return "/usr/bin:/bin";
}

/* execve, and for a file the kernel cannot run (ENOEXEC: no "#!") a
 * shell reading it, as a shell's exec does. Returns with errno set. */
static void exec_file(const char *file, char *const *argv, char *const *env)
{
    execve(file, argv, env);
    if (errno != ENOEXEC)
        return;
    size_t n = 0;
    while (argv[n])
        n++;
    const char *sh[n + 2];
    sh[0] = "sh";
    sh[1] = file;
    for (size_t i = 1; i <= n; i++)
        sh[i + 1] = argv[i];
    execve("/bin/sh", (char *const *)sh, env);
    errno = ENOEXEC;
}

static void exec_failed(const char *name, const char *why, int code)
{
    char msg[512];
    snprintf(msg, sizeof msg, "dval-local-helper: %.300s: %s\n", name, why);
    write_str(2, msg);
    _exit(code);
}

/* Runs argv[0] found through the command's PATH (a name with a '/' as
 * it is); the exit codes of a shell: 126 found but not runnable, 127
 * not found. Runs in a vforked child: stack buffers only. */
static void exec_program(char *const *argv, char *const *env)
{
    const char *name = argv[0];
    int denied = 0;
    if (strchr(name, '/')) {
        exec_file(name, argv, env);
        denied = errno != ENOENT && errno != ENOTDIR;
    } else {
        char file[4200];
        for (const char *p = command_path(env), *e; ; p = e + 1) {
            e = strchr(p, ':');
            int len = e ? (int)(e - p) : (int)strlen(p);
            if (snprintf(file, sizeof file, "%.*s/%s", len, len ? p : ".",
                         name) < (int)sizeof file) {
                exec_file(file, argv, env);
                denied |= errno == EACCES || errno == ENOEXEC;
            }
            if (!e)
                break;
        }
    }
    exec_failed(name, denied ? strerror(errno == ENOENT ? EACCES : errno)
                             : "not found", denied ? 126 : 127);
}

static void run_command(const struct exec_req *r, int isolated)
{
    const char *dir = isolated ? r->cwd : r->cwd + (r->cwd[0] == '/');
    dir = *dir ? dir : ".";
    /* shell text starts in the default directory and changes itself;
     * a program's own directory is entered below, as its uid */
    if (!r->argv && chdir(dir) < 0 && chdir(isolated ? "/" : ".") < 0)
        _exit(126);
    apply_limits(r);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* a cgroup namespace of its own: /proc/self/cgroup shows "/", not
     * the host's tree and the sandbox's cgroup name (red team A9); a
     * kernel without them (EINVAL) only shows more */
    if (isolated && unshare(CLONE_NEWCGROUP) < 0 && errno != EINVAL)
        _exit(126);
    if (isolated && r->ncg && r->cg_view)
        cgroup_view(r->cg_view == 2);
    if (isolated && drop_privileges(r->uid) < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "dval-local-helper: cannot drop "
                 "privileges: %s\n", strerror(errno));
        write_str(2, msg);
        _exit(125);
    }
    if (r->argv) {
        /* as the command's uid, as a shell's "cd DIR &&" would: root
         * would follow a link the program planted into a directory its
         * uid cannot enter. Failing, exit 2, as that cd does. */
        if (chdir(dir) < 0)
            exec_failed(r->cwd, "cannot change to this directory", 2);
        exec_program(r->argv, r->env);
    }
    char *const args[] = { "sh", "-c", (char *)r->cmd, NULL };
    execve("/bin/sh", args, r->env);
    _exit(127);
}

/* A process started by vfork: it shares our memory (we are suspended
 * until it execs or exits), so it makes system calls only, writes no
 * memory we use afterwards and never returns. */
typedef void (*vforked_fn)(const struct exec_req *r, int fd);

/* Starts fn(r, fd) in a vforked child; its pid, or -1. Why not fork: a
 * fork copies this process's page tables and the child's exit (or exec)
 * tears them down again, CPU spent on every command for a process
 * that lives only to exit (the waiter's first parent) or to exec (the
 * command). Kept tiny: nothing of ours lives across the vfork. */
static pid_t start_vforked(vforked_fn fn, const struct exec_req *r, int fd)
{
    pid_t pid = vfork();
    if (pid == 0) {
        fn(r, fd);
        _exit(125);
    }
    return pid;
}

int exec_open_cgroups(struct exec_req *r)
{
    for (int i = 0; i < r->ncg; i++)
        if ((r->cg[i] = open(r->cg_path[i], O_WRONLY | O_CLOEXEC)) < 0)
            return -1;
    return 0;
}

/* Moves the calling process into its own cgroup ("0": the writer), before
 * it starts anything: whatever it forks is born there. Vforked: no
 * memory written. A cgroup it cannot join fails it (fail closed). */
static void join_own_cgroups(const struct exec_req *r)
{
    for (int i = 0; i < r->ncg; i++)
        if (r->cg[i] < 0 || write(r->cg[i], "0", 1) != 1)
            exec_failed("cgroup", "cannot join the command's own cgroup",
                        125);
}

/* The command: its output on 1 and 2 when it came on other descriptors
 * (the init's case: nothing of the init's may reach it), every signal
 * unblocked (the waiter and the init block SIGCHLD for their
 * signalfds), then sh. */
static void command_child(const struct exec_req *r, int unused)
{
    (void)unused;
    if (r->out >= 0 && (dup2(r->out, 1) < 0 || dup2(r->err, 2) < 0))
        _exit(125);
    join_own_cgroups(r);
    if (r->out >= 0 && syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
        for (int i = 3; i < 1024; i++)
            close(i);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    run_command(r, 1);
}

pid_t exec_start_command(const struct exec_req *r)
{
    return start_vforked(command_child, r, -1);
}

/* The waiter lets go of the command's output pipes, so the stream ends
 * when the command's processes end, not when the waiter is done. */
static void drop_stdio(void)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0)
        _exit(125);
    for (int i = 0; i < 3; i++)
        if (dup2(null, i) < 0)
            _exit(125);
    close(null);
}

/* From /proc/thread-self/children, else (a kernel without it) by
 * scanning every process's parent. */
void exec_list_children(char *buf, size_t cap)
{
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = 0;
    if (n >= 0)
        return;
    DIR *d = opendir("/proc");
    struct dirent *e;
    size_t len = 0;
    while (d && (e = readdir(d)) && len + 16 < cap) {
        char p[300], st[512];
        snprintf(p, sizeof p, "/proc/%.*s/stat", 200, e->d_name);
        int s = e->d_name[0] >= '1' && e->d_name[0] <= '9'
                    ? open(p, O_RDONLY | O_CLOEXEC) : -1;
        ssize_t k = s >= 0 ? read(s, st, sizeof st - 1) : -1;
        if (s >= 0)
            close(s);
        st[k > 0 ? k : 0] = 0;
        char *r = strrchr(st, ')');
        if (r && atol(r + 4) == (long)getpid())
            len += (size_t)snprintf(buf + len, cap - len, "%s ", e->d_name);
    }
    if (d)
        closedir(d);
}

/* Kills every descendant: as a child subreaper, whatever the command
 * started (setsid, double fork, nohup) is a child of ours or below a
 * living one; each round kills the current children, whose orphans then
 * become children. Done when there are no children at all. */
static void kill_descendants(void)
{
    char buf[16384];
    for (;;) {
        exec_list_children(buf, sizeof buf);
        for (char *s = buf, *e; *s; s = e) {
            long pid = strtol(s, &e, 10);
            if (e == s)
                break;
            if (pid > 0)
                kill((pid_t)pid, SIGKILL);
        }
        if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
            return;
    }
}

/* Reaps what has exited; 1 once the command (cmd) is among them. */
static int reap(pid_t cmd, int *code)
{
    int st, done = 0;
    pid_t w;
    while ((w = waitpid(-1, &st, WNOHANG)) > 0)
        if (w == cmd) {
            *code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            done = 1;
        }
    return done || (w < 0 && errno == ECHILD);
}

/* The waiter is the command's child subreaper: everything the command
 * started is its child (reaped or not) or below one. */
static long long waiter_cpu_ms(void *unused)
{
    (void)unused;
    return tree_cpu_ms();
}

/* A child subreaper whose parent is the sandbox's init (so it is reaped
 * there, whatever happens to the helper: a zombie parented outside would
 * hold the namespace open); see exec.h. */
void exec_waiter(const struct exec_req *r, int alive)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC);
    /* its own group: the library's kill(-helper) ends the helper only */
    if (sfd < 0 || setpgid(0, 0) < 0 ||
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        die_fd(2, "subreaper");
    pid_t cmd = start_vforked(command_child, r, -1);
    if (cmd < 0)
        die_fd(2, "fork");
    drop_stdio();
    int code = 125, gone = 0;
    struct budget cpu;
    budget_start(&cpu, r->cpu_ms, r->ncpu);
    while (!reap(cmd, &code)) {
        if (budget_spent(&cpu, waiter_cpu_ms, NULL)) { /* as RLIMIT_CPU ends one process */
            code = 128 + SIGXCPU;
            break;
        }
        struct pollfd p[3] = { { sfd, POLLIN, 0 }, { alive, POLLIN, 0 },
                               { r->caller, POLLIN, 0 } };
        if (poll(p, 3, budget_wait(&cpu)) < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo si;
        if ((p[0].revents & POLLIN) && read(sfd, &si, sizeof si) < 0)
            break;
        if (p[1].revents || p[2].revents) {
            gone = 1;
            break;
        }
    }
    kill_descendants();
    unsigned char b = (unsigned char)code;
    if (gone || write(r->report, &b, 1) != 1)
        _exit(125);
    _exit(code);
}

/* Double fork: the waiter's parent exits at once, so the waiter belongs
 * to the sandbox's init (the reaper of its pid namespace). Run vforked
 * (start_vforked): the fork here gives the waiter its own copy of the
 * memory; this process only exits. */
static void start_waiter(const struct exec_req *r, int alive)
{
    pid_t w = fork();
    if (w == 0)
        exec_waiter(r, alive);
    _exit(w < 0 ? 125 : 0);
}

/* The helper's child: vforked, so its closes are of its own fd table
 * (a copy) and it ends in an exit or an exec. */
static void first_child(const struct exec_req *r, int alive)
{
    close(r->close_a);
    close(r->close_b);
    if (r->isolated)
        start_waiter(r, alive);
    die_with_parent(alive, SIGKILL);
    join_own_cgroups(r);
    run_command(r, 0);
}

int helper_exec(int argc, char **argv)
{
    struct exec_req r;
    if (argc < 5 ||
        (join_cgroups(argc, argv), exec_parse(argc, argv, &r) < 0)) {
        write_str(2, "usage: " LX_VERB_EXEC " <pid|" LX_ARG_NO_INIT
                  "> <root> <cwd> [opts] " LX_OPT_END " cmd | " LX_OPT_ARGV
                  " program [arg...]\n");
        return 125;
    }
    int isolated = strcmp(r.pid, LX_ARG_NO_INIT) != 0;
    if (isolated && r.uid <= 0 && getuid() == 0 && geteuid() == 0) {
        /* root joins no user namespace: never run a command as root */
        r.uid = LX_UID_DEFAULT;
    }
    r.ncpu = sysconf(_SC_NPROCESSORS_CONF); /* /sys: before the chroot */
    if (exec_open_cgroups(&r) < 0)
        die_fd(2, "the command's cgroup");
    if (isolated)
        join_ns(r.pid);
    else if (chdir(r.root) < 0)
        die_fd(2, r.root);
    int life[2], report[2];
    if (pipe2(life, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0)
        die_fd(2, "pipe");
    r.report = report[1];
    char buf[32];
    snprintf(buf, sizeof buf, "%d\n", (int)getpid());
    write_str(LX_FD_PGID, buf);
    close(LX_FD_PGID);
    /* the child must not hold our ends: they are O_CLOEXEC, but the
     * waiter never execs; closing them in a vforked child closes its
     * copies only */
    r.isolated = isolated;
    r.close_a = life[1];
    r.close_b = report[0];
    pid_t child = start_vforked(first_child, &r, life[0]);
    if (child < 0)
        die_fd(2, "fork");
    close(life[0]);
    close(report[1]);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    if (!isolated)
        return wait_code(child);
    wait_code(child); /* the first fork, gone at once */
    /* the waiter reports the code once the command's processes are all
     * dead; no report: it was killed (the sandbox went away) */
    unsigned char b;
    ssize_t n;
    while ((n = read(report[0], &b, 1)) < 0 && errno == EINTR)
        ;
    return n == 1 ? b : 128 + SIGKILL;
}
