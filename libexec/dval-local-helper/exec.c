/* "exec" mode: joins a sandbox's cgroups and namespaces, chroots into its
 * root and runs `sh -c command` in a new process group; the group's pid is
 * written to fd 3; exits with the command's code (128+N on signal N). */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ENV 256

static void join_ns(const char *pid)
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
    snprintf(p, sizeof p, "/proc/%s/root", pid);
    int root = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        die_fd(2, p);
    for (int i = 0; i < 6; i++) {
        if (setns(fds[i], 0) < 0) {
            /* the net namespace is the host's when network is allowed */
            if (errno != EINVAL)
                die_fd(2, kinds[i]);
        }
        close(fds[i]);
    }
    if (fchdir(root) < 0 || chroot(".") < 0)
        die_fd(2, "chroot");
    close(root);
}

static void set_limit(int res, const char *v)
{
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = strtoull(v, NULL, 10);
    if (setrlimit(res, &rl) < 0)
        die_fd(2, "setrlimit");
}

int helper_exec(int argc, char **argv)
{
    if (argc < 5) {
        write_str(2, "usage: exec <pid|-> <root> <cwd> [opts] -- cmd\n");
        return 125;
    }
    const char *pid = argv[0], *root = argv[1], *cwd = argv[2], *cmd = NULL;
    char *env[MAX_ENV + 8];
    int nenv = 0;
    env[nenv++] = "HOME=/home/daytona";
    env[nenv++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
                  ":/sbin:/bin";
    env[nenv++] = "LANG=C.UTF-8";
    join_cgroups(argc, argv);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--") && i + 1 < argc) {
            cmd = argv[i + 1];
            break;
        }
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], "-e") && nenv < MAX_ENV)
            env[nenv++] = argv[++i];
        else if (!strcmp(argv[i], "-c"))
            set_limit(RLIMIT_CPU, argv[++i]);
        else if (!strcmp(argv[i], "-m"))
            set_limit(RLIMIT_AS, argv[++i]);
        else if (!strcmp(argv[i], "-n"))
            set_limit(RLIMIT_NPROC, argv[++i]);
        else if (!strcmp(argv[i], "-g"))
            i++;
    }
    env[nenv] = NULL;
    if (!cmd) {
        write_str(2, "exec: missing -- command\n");
        return 125;
    }
    if (strcmp(pid, "-") != 0)
        join_ns(pid);
    else if (chdir(root) < 0)
        die_fd(2, root);
    pid_t child = fork();
    if (child < 0)
        die_fd(2, "fork");
    if (child == 0) {
        setpgid(0, 0);
        close(3);
        /* unisolated: cwd is relative to the sandbox directory */
        const char *dir = strcmp(pid, "-") ? cwd : cwd + (cwd[0] == '/');
        if (chdir(dir) < 0 && chdir(strcmp(pid, "-") ? "/" : ".") < 0)
            _exit(126);
        signal(SIGPIPE, SIG_DFL);
        if (strcmp(pid, "-") != 0 && drop_caps() < 0)
            _exit(125);
        char *const args[] = { "sh", "-c", (char *)cmd, NULL };
        execve("/bin/sh", args, env);
        _exit(127);
    }
    setpgid(child, child);
    char buf[32];
    snprintf(buf, sizeof buf, "%d\n", (int)child);
    write_str(3, buf);
    close(3);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    int st;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR)
            return 125;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
