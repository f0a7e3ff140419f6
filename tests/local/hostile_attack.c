/* The hostile program of tests/local/test_hostile_*.c, compiled static on
 * the host and uploaded into the sandbox. Each mode tries one attack and
 * prints "ESCAPED: ..." for every step that worked; the exit code is the
 * number of escapes (0: everything was refused). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int escapes;

static void result(const char *what, long rc)
{
    if (rc >= 0) {
        printf("ESCAPED: %s\n", what);
        escapes++;
    } else {
        printf("refused: %s: %s\n", what, strerror(errno));
    }
}

static void tiocsti(void)
{
    char c = 'x';
    for (int fd = 0; fd < 3; fd++) {
        char what[64];
        snprintf(what, sizeof what, "TIOCSTI on fd %d", fd);
        result(what, ioctl(fd, TIOCSTI, &c));
    }
    int tty = open("/dev/tty", O_RDWR);
    result("open /dev/tty", tty);
    if (tty >= 0)
        result("TIOCSTI on /dev/tty", ioctl(tty, TIOCSTI, &c));
    char sub = 2; /* TIOCLINUX subcode 2: set selection */
    result("TIOCLINUX on fd 0", ioctl(0, TIOCLINUX, &sub));
}

static void keys(const char *serial)
{
    char buf[256];
    long id = serial ? strtol(serial, NULL, 10) : 0;
    result("keyctl read of the host key",
           syscall(SYS_keyctl, 11 /* KEYCTL_READ */, id, buf, sizeof buf));
    result("add_key to the session keyring",
           syscall(SYS_add_key, "user", "dval-escape", "x", 1, -3));
    result("add_key to the user keyring",
           syscall(SYS_add_key, "user", "dval-escape", "x", 1, -4));
    result("request_key", syscall(SYS_request_key, "user", "dval-canary",
                                  NULL, 0));
}

static void namespaces(void)
{
    result("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
    result("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
    long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    result("clone(CLONE_NEWUSER)", pid);
    result("setns", setns(open("/proc/self/ns/mnt", O_RDONLY), 0));
    result("mount tmpfs", mount("x", "/tmp", "tmpfs", 0, NULL));
    result("umount /proc", umount2("/proc", MNT_DETACH));
    result("io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL));
    result("bpf", syscall(SYS_bpf, 0, NULL, 0));
    result("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1,
                                      0));
    result("userfaultfd", syscall(SYS_userfaultfd, 0));
    result("init_module", syscall(SYS_init_module, NULL, 0, ""));
    result("kexec_load", syscall(SYS_kexec_load, 0, 0, NULL, 0));
}

static void trace(void)
{
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    result("ptrace attach to own child",
           ptrace(PTRACE_ATTACH, child, NULL, NULL));
    result("ptrace attach to the parent",
           ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
    kill(child, 9);
    waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "tiocsti"))
        tiocsti();
    else if (!strcmp(mode, "keys"))
        keys(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(mode, "ns"))
        namespaces();
    else if (!strcmp(mode, "ptrace"))
        trace();
    else
        return 100;
    fflush(stdout);
    return escapes;
}
