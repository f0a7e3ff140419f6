/* The system-call attacks of tests/local/test_hostile_syscalls.c: each
 * mode tries the dangerous use of calls the sandbox's seccomp filter
 * refuses or allows only in part. Compiled static; run inside a sandbox
 * and, for comparison, on the host. One line per attempt:
 * "<what> made" when the call did what it asked, else "<what> <ERRNO>";
 * "BROKEN <what> <ERRNO>" for a call the runtimes need that failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/ldt.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>

static void report(const char *what, long rc)
{
    if (rc >= 0)
        printf("%s made\n", what);
    else
        printf("%s %s\n", what, strerrorname_np(errno));
}

static void need(const char *what, long rc)
{
    if (rc < 0)
        printf("BROKEN %s %s\n", what, strerrorname_np(errno));
}

/* socket(af, type, 0) for every type: made, else the errno that tells
 * most (any but EAFNOSUPPORT: the kernel has the family). */
static void family(int af)
{
    static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET,
                                 SOCK_RAW, SOCK_RDM };
    char what[64];
    int best = EAFNOSUPPORT, fd = -1, sv[2];
    for (int i = 0; i < 5 && fd < 0; i++) {
        fd = socket(af, types[i], 0);
        if (fd < 0 && errno != EAFNOSUPPORT)
            best = errno;
    }
    errno = best;
    snprintf(what, sizeof what, "socket %d", af);
    report(what, fd);
    if (fd >= 0)
        close(fd);
    snprintf(what, sizeof what, "socketpair %d", af);
    int rc = socketpair(af, SOCK_STREAM, 0, sv);
    report(what, rc);
    if (rc == 0)
        close(sv[0]), close(sv[1]);
}

static void sockets(void)
{
    char what[64];
    for (int af = 0; af < AF_MAX + 4; af++)
        if (af != AF_UNIX && af != AF_INET && af != AF_INET6 &&
            af != AF_NETLINK)
            family(af);
    for (int p = 1; p < 32; p++) {
        snprintf(what, sizeof what, "netlink %d", p);
        int fd = socket(AF_NETLINK, SOCK_RAW, p);
        report(what, fd);
        if (fd >= 0)
            close(fd);
    }
    static const int protos[] = { 33 /* DCCP */, 115 /* L2TP */,
                                  IPPROTO_SCTP, 136 /* UDPLITE */,
                                  262 /* MPTCP */ };
    for (int i = 0; i < 5; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, protos[i]);
        if (fd < 0)
            fd = socket(AF_INET6, SOCK_SEQPACKET, protos[i]);
        if (fd < 0)
            fd = socket(AF_INET, SOCK_DGRAM, protos[i]);
        snprintf(what, sizeof what, "inet %d", protos[i]);
        report(what, fd);
        if (fd >= 0)
            close(fd);
    }
    int sv[2];
    need("unix stream", socket(AF_UNIX, SOCK_STREAM, 0));
    need("unix socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
    need("inet tcp", socket(AF_INET, SOCK_STREAM, IPPROTO_TCP));
    need("inet6 udp", socket(AF_INET6, SOCK_DGRAM, 0));
    need("netlink route", socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
}

static void personas(void)
{
    static const struct {
        unsigned long p;
        const char *name;
    } bad[] = {
        { ADDR_NO_RANDOMIZE, "personality ADDR_NO_RANDOMIZE" },
        { READ_IMPLIES_EXEC, "personality READ_IMPLIES_EXEC" },
        { UNAME26, "personality UNAME26" },
        { PER_LINUX32, "personality PER_LINUX32" },
        { MMAP_PAGE_ZERO, "personality MMAP_PAGE_ZERO" },
    };
    for (int i = 0; i < 5; i++) {
        long rc = personality(bad[i].p);
        if (rc >= 0 && personality(0xffffffff) != (int)bad[i].p)
            rc = -1, errno = EINVAL; /* accepted, not taken */
        report(bad[i].name, rc);
        personality(PER_LINUX);
    }
    need("personality query", personality(0xffffffff));
    need("personality PER_LINUX", personality(PER_LINUX));
}

static void prctls(void)
{
    report("prctl PR_SET_MM brk", prctl(PR_SET_MM, PR_SET_MM_BRK,
                                         (unsigned long)sbrk(0), 0, 0));
    report("prctl PR_SET_SECUREBITS", prctl(PR_SET_SECUREBITS, 0, 0, 0, 0));
    report("prctl PR_CAP_AMBIENT_RAISE", prctl(PR_CAP_AMBIENT,
                                               PR_CAP_AMBIENT_RAISE,
                                               12 /* CAP_NET_ADMIN */, 0, 0));
    report("prctl PR_SET_NO_NEW_PRIVS 0", prctl(PR_SET_NO_NEW_PRIVS, 0, 0,
                                                0, 0));
    need("prctl PR_SET_NAME", prctl(PR_SET_NAME, "hostile", 0, 0, 0));
}

/* A filter of its own that allows everything, then what the sandbox's
 * refuses: the stricter answer must still win. */
static void filters(void)
{
    struct sock_filter all[] = {
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
    struct sock_fprog prog = { 1, all };
    need("seccomp allow-all filter",
         syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
    report("after it: keyctl", syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */,
                                       -3, 0));
    report("after it: unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
    report("after it: socket(AF_VSOCK)", socket(40, SOCK_STREAM, 0));
}

/* ptrace's kin on our own child, the LDT, fanotify, and calls newer than
 * the filter's review (ENOSYS inside). */
static void kin(void)
{
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    int pfd = (int)syscall(SYS_pidfd_open, child, 0);
    need("pidfd_open", pfd);
    report("pidfd_getfd", syscall(SYS_pidfd_getfd, pfd, 0, 0));
    report("kcmp", syscall(SYS_kcmp, getpid(), child, 0 /* KCMP_FILE */,
                           0, 0));
    static char page[4096] __attribute__((aligned(4096)));
    struct iovec iov = { page, sizeof page };
    report("process_madvise", syscall(SYS_process_madvise, pfd, &iov, 1,
                                       20 /* MADV_COLD */, 0));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    struct user_desc desc = { .entry_number = 1, .limit = 0xfffff,
                              .seg_32bit = 1, .limit_in_pages = 1,
                              .useable = 1 };
    report("modify_ldt write", syscall(SYS_modify_ldt, 1, &desc,
                                       sizeof desc));
    report("fanotify_init", syscall(SYS_fanotify_init, 0, O_RDONLY));
    char what[32];
    for (int nr = 451; nr <= 470; nr++) {
        snprintf(what, sizeof what, "syscall %d", nr);
        report(what, syscall(nr, -1, 0, 0, 0, 0));
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "sockets"))
        sockets();
    else if (!strcmp(mode, "personality"))
        personas();
    else if (!strcmp(mode, "prctl"))
        prctls();
    else if (!strcmp(mode, "seccomp"))
        filters();
    else if (!strcmp(mode, "kin"))
        kin();
    else
        return 100;
    return 0;
}
