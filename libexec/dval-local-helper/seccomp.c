/* The seccomp filter of every sandboxed command: a classic BPF program
 * written by hand (libseccomp is not a build dependency). Allowed are the
 * x86_64 system calls up to LAST_REVIEWED but those below; a call added
 * to the kernel later is ENOSYS until reviewed here (the C library then
 * falls back, as on an older kernel). Anything but x86_64 is killed: the
 * numbers are x86_64's; x32 calls (bit 30) are above LAST_REVIEWED.
 *
 * Refused: what a validation never needs and what widens the kernel
 * surface it reaches (keyrings, ptrace and its kin, mounts, namespaces,
 * BPF, perf, userfaultfd, kexec, modules, io_uring, the LDT). Allowed
 * with their arguments checked, each because a runtime needs it:
 *   clone, unshare  threads and processes; no namespace flag (clone3's
 *                   flags are out of BPF's reach: ENOSYS, glibc uses clone)
 *   ioctl           terminals, sockets, files; never TIOCSTI/TIOCLINUX
 *   socket          AF_UNIX (local IPC, the .NET diagnostics socket);
 *                   AF_INET, AF_INET6 with TCP, UDP or ICMP only: the
 *                   sandbox's network namespace holds only its loopback,
 *                   and other protocols load kernel modules; AF_NETLINK
 *                   NETLINK_ROUTE only (glibc's getaddrinfo and
 *                   if_nameindex, .NET's NetworkInterface). Every other
 *                   family (AF_VSOCK, AF_PACKET, AF_ALG, AF_XDP, ...)
 *                   reaches past the namespace or into rarely used code
 *   socketpair      AF_UNIX
 *   personality     PER_LINUX and the query (0xffffffff) that glibc and
 *                   the JVM make: no ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC
 *                   or UNAME26
 * Allowed as they are, and only as strong as the kernel's own checks:
 * prctl (thread names; what it could do to the sandbox needs capabilities
 * the command has not), seccomp (a filter added can only refuse more),
 * memfd_create, mprotect and membarrier (.NET's W^X double mapping and
 * JITs). tests/local/test_hostile_syscalls.c tries each. */
#include "helper.h"

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | \
                  CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | 0x80)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * 8)
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define ALLOW SECCOMP_RET_ALLOW
/* set_mempolicy_home_node, the last call of Linux 6.1 (Debian 12) */
#define LAST_REVIEWED 450

/* Refused with EPERM whatever their arguments. */
static const int denied[] = {
    SYS_keyctl, SYS_add_key, SYS_request_key, SYS_ptrace,
    SYS_process_vm_readv, SYS_process_vm_writev, SYS_pidfd_getfd, SYS_kcmp,
    SYS_process_madvise, SYS_mount, SYS_umount2,
    SYS_pivot_root, SYS_chroot, SYS_setns, SYS_bpf, SYS_perf_event_open,
    SYS_userfaultfd, SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
    SYS_finit_module, SYS_delete_module, SYS_io_uring_setup,
    SYS_io_uring_enter, SYS_io_uring_register, SYS_move_mount,
    SYS_open_tree, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
    SYS_mount_setattr, SYS_open_by_handle_at, SYS_name_to_handle_at,
    SYS_swapon, SYS_swapoff, SYS_reboot, SYS_acct, SYS_quotactl,
    SYS_quotactl_fd, SYS_iopl, SYS_ioperm, SYS_modify_ldt, SYS_lookup_dcookie,
    SYS_vhangup, SYS_uselib, SYS_syslog, SYS_fanotify_init,
};

static const unsigned inet_protos[] = { 0, IPPROTO_TCP, IPPROTO_UDP,
                                        IPPROTO_ICMP, IPPROTO_ICMPV6 };
static const unsigned netlink_protos[] = { NETLINK_ROUTE };
static const unsigned unix_only[] = { AF_UNIX };
static const unsigned personas[] = { 0 /* PER_LINUX */, 0xffffffffU };

#define N_DENIED (sizeof denied / sizeof *denied)
#define PROG_MAX (N_DENIED * 2 + 80)

static void put(struct sock_filter *f, int *n, unsigned short code,
                unsigned jt, unsigned jf, unsigned k)
{
    struct sock_filter s = { code, (unsigned char)jt, (unsigned char)jf, k };
    f[(*n)++] = s;
}

static void ret(struct sock_filter *f, int *n, unsigned k)
{
    put(f, n, BPF_RET | BPF_K, 0, 0, k);
}

static void load(struct sock_filter *f, int *n, unsigned off)
{
    put(f, n, BPF_LD | BPF_W | BPF_ABS, 0, 0, off);
}

/* A == k: on into the block that follows, else past it (fi patches the
 * jump once the block is emitted). Every block ends in a return. */
static int when(struct sock_filter *f, int *n, unsigned k)
{
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, k);
    return *n - 1;
}

static void fi(struct sock_filter *f, const int *n, int at)
{
    f[at].jf = (unsigned char)(*n - at - 1);
}

/* Argument i (its low 32 bits) one of v → allowed, else fail. */
static void allow_arg(struct sock_filter *f, int *n, int i,
                      const unsigned *v, size_t nv, unsigned fail)
{
    load(f, n, ARG_LO(i));
    for (size_t j = 0; j < nv; j++) {
        put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, v[j]);
        ret(f, n, ALLOW);
    }
    ret(f, n, fail);
}

#define ALLOW_ARG(f, n, i, v, fail) \
    allow_arg(f, n, i, v, sizeof v / sizeof *v, fail)

static void socket_rules(struct sock_filter *f, int *n)
{
    int at = when(f, n, SYS_socket);
    load(f, n, ARG_LO(0));
    int un = when(f, n, AF_UNIX);
    ret(f, n, ALLOW);
    fi(f, n, un);
    int nl = when(f, n, AF_NETLINK);
    ALLOW_ARG(f, n, 2, netlink_protos, RET_ERRNO(EPROTONOSUPPORT));
    fi(f, n, nl);
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AF_INET);
    int in = when(f, n, AF_INET6);
    ALLOW_ARG(f, n, 2, inet_protos, RET_ERRNO(EPROTONOSUPPORT));
    fi(f, n, in);
    ret(f, n, RET_ERRNO(EAFNOSUPPORT));
    fi(f, n, at);
    at = when(f, n, SYS_socketpair);
    ALLOW_ARG(f, n, 0, unix_only, RET_ERRNO(EAFNOSUPPORT));
    fi(f, n, at);
}

/* The calls allowed with their arguments checked (A holds nr before
 * each block; a block always returns). */
static void arg_rules(struct sock_filter *f, int *n)
{
    static const int ns_calls[] = { SYS_clone, SYS_unshare };
    for (int i = 0; i < 2; i++) {
        int at = when(f, n, (unsigned)ns_calls[i]);
        load(f, n, ARG_LO(0));
        put(f, n, BPF_JMP | BPF_JSET | BPF_K, 0, 1, NS_FLAGS);
        ret(f, n, RET_ERRNO(EPERM));
        ret(f, n, ALLOW);
        fi(f, n, at);
    }
    int at = when(f, n, SYS_clone3);
    ret(f, n, RET_ERRNO(ENOSYS));
    fi(f, n, at);
    at = when(f, n, SYS_ioctl);
    load(f, n, ARG_LO(1));
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, TIOCSTI);
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, TIOCLINUX);
    ret(f, n, ALLOW);
    ret(f, n, RET_ERRNO(EPERM));
    fi(f, n, at);
    at = when(f, n, SYS_personality);
    ALLOW_ARG(f, n, 0, personas, RET_ERRNO(EPERM));
    fi(f, n, at);
    socket_rules(f, n);
}

static int build(struct sock_filter *f)
{
    int n = 0;
    load(f, &n, offsetof(struct seccomp_data, arch));
    put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AUDIT_ARCH_X86_64);
    ret(f, &n, SECCOMP_RET_KILL_PROCESS);
    load(f, &n, offsetof(struct seccomp_data, nr));
    put(f, &n, BPF_JMP | BPF_JGT | BPF_K, 0, 1, LAST_REVIEWED);
    ret(f, &n, RET_ERRNO(ENOSYS));
    for (size_t i = 0; i < N_DENIED; i++) {
        put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (unsigned)denied[i]);
        ret(f, &n, RET_ERRNO(EPERM));
    }
    arg_rules(f, &n);
    ret(f, &n, ALLOW);
    return n;
}

int seccomp_install(void)
{
#if !defined(__x86_64__)
    errno = ENOSYS; /* fail closed: no filter for this architecture */
    return -1;
#else
    struct sock_filter f[PROG_MAX];
    int n = build(f);
    struct sock_fprog prog = { (unsigned short)n, f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_TSYNC, &prog);
#endif
}
