/* How a sandbox's command runs (init_exec.c, init_cmd.c: the init starts
 * every command, in every kind of sandbox):
 *   init (the sandbox's pid 1; unisolated, a host process, the child
 *   subreaper of what its commands leave)
 *    └ waiter (root, child subreaper, its own group): when the command
 *       exits, or the library lets go of its connection, or the library's
 *       process ends, it kills every process the command left, however
 *       it detached itself (setsid, double fork)
 *       └ sh -c command: own cgroup, rlimits, own session, unprivileged
 *         uid, seccomp (isolated)
 * or, while no other command runs, the command as the init's own child
 * with no waiter (init_cmd.c).
 * A pid namespace per command would do the same, but a /proc for it
 * needs a mount namespace whose teardown waits for RCU, a wait paid by
 * every command. The command is vforked (exec_start_command). */
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

int exec_parse(int argc, char **argv, const char *root, struct exec_req *r)
{
    int nenv = 0;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < MAX_CMD_CG; i++)
        r->cg[i] = -1;
    r->caller = -1;
    r->out = r->err = -1;
    r->root = root;
    r->cwd = argv[0];
    r->uid = -1;
    r->env[nenv++] = "HOME=/home/daytona";
    r->env[nenv++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
                     ":/sbin:/bin";
    r->env[nenv++] = "LANG=C.UTF-8";
    for (int i = 1; i < argc; i++) {
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
        else if (!strcmp(argv[i], LX_OPT_CMD_CGROUP) && r->ncg < MAX_CMD_CG)
            r->cg_path[r->ncg++] = argv[++i];
        else if (!strcmp(argv[i], LX_OPT_CG_VIEW))
            r->cg_view = atoi(argv[++i]);
    }
    /* a program run without a shell sees the PWD a shell's cd sets;
     * unisolated, its cwd is below root on the host (see run_command) */
    static char pwd[8400];
    const char *base = root ? root : "";
    if (r->argv && nenv < MAX_ENV &&
        snprintf(pwd, sizeof pwd, "PWD=%s%s%s", base,
                 *base && r->cwd[0] != '/' ? "/" : "", r->cwd) <
            (int)sizeof pwd)
        nenv = set_env(r->env, nenv, pwd);
    r->env[nenv] = NULL;
    return r->cmd || r->argv ? 0 : -1;
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

static void run_command(const struct exec_req *r)
{
    int isolated = !r->root;
    /* unisolated: the sandbox's directories are below its root */
    if (!isolated && chdir(r->root) < 0)
        _exit(126);
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
static void command_child(const struct exec_req *r)
{
    if (r->out >= 0 && (dup2(r->out, 1) < 0 || dup2(r->err, 2) < 0))
        _exit(125);
    join_own_cgroups(r);
    if (r->out >= 0 && syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
        for (int i = 3; i < 1024; i++)
            close(i);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    run_command(r);
}

/* Vforked: the child shares our memory (we are suspended until it
 * execs or exits), so it makes system calls only, writes no memory we
 * use afterwards and never returns. Why not fork: a fork copies this
 * process's page tables and the child's exec tears them down again, CPU
 * spent on every command. */
pid_t exec_start_command(const struct exec_req *r)
{
    pid_t pid = vfork();
    if (pid == 0) {
        command_child(r);
        _exit(125);
    }
    return pid;
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

/* A child subreaper, the init's child; see exec.h. */
void exec_waiter(const struct exec_req *r, int alive)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC);
    /* its own group, not the init's */
    if (sfd < 0 || setpgid(0, 0) < 0 ||
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        die_fd(2, "subreaper");
    pid_t cmd = exec_start_command(r);
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
