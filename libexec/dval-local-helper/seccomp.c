/* The seccomp filter of every sandboxed command: a classic BPF program
 * written by hand (libseccomp is not a build dependency). It refuses what
 * a validation never needs and what widens the kernel surface it can
 * reach: keyrings, ptrace, mounts, new namespaces, BPF, perf, userfaultfd,
 * kexec, modules, io_uring and typing into a terminal (TIOCSTI/TIOCLINUX).
 * Anything but x86_64 (and x32 on it) is killed: the numbers below are
 * x86_64's, so on another ABI the filter would be meaningless. */
#include "helper.h"

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | \
                  CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | 0x80)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * 8)
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* Refused with EPERM whatever their arguments. */
static const int denied[] = {
    SYS_keyctl, SYS_add_key, SYS_request_key, SYS_ptrace,
    SYS_process_vm_readv, SYS_process_vm_writev, SYS_mount, SYS_umount2,
    SYS_pivot_root, SYS_chroot, SYS_setns, SYS_bpf, SYS_perf_event_open,
    SYS_userfaultfd, SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
    SYS_finit_module, SYS_delete_module, SYS_io_uring_setup,
    SYS_io_uring_enter, SYS_io_uring_register, SYS_move_mount,
    SYS_open_tree, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
    SYS_mount_setattr, SYS_open_by_handle_at, SYS_name_to_handle_at,
    SYS_swapon, SYS_swapoff, SYS_reboot, SYS_acct, SYS_quotactl,
    SYS_iopl, SYS_ioperm, SYS_lookup_dcookie, SYS_vhangup, SYS_uselib,
    SYS_syslog,
};

#define N_DENIED (sizeof denied / sizeof *denied)
/* header 6, denied 2 each, clone/unshare 5 each, clone3 2, ioctl 7 */
#define PROG_MAX (6 + 2 * N_DENIED + 10 + 2 + 7)

static void put(struct sock_filter *f, int *n, unsigned short code,
                unsigned jt, unsigned jf, unsigned k)
{
    struct sock_filter s = { code, (unsigned char)jt, (unsigned char)jf, k };
    f[(*n)++] = s;
}

/* nr == sys → return ret; otherwise fall through. */
static void deny_nr(struct sock_filter *f, int *n, int sys, unsigned ret)
{
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (unsigned)sys);
    put(f, n, BPF_RET | BPF_K, 0, 0, ret);
}

/* nr == sys && (args[0] & NS_FLAGS) → EPERM (reloads nr afterwards). */
static void deny_ns_flags(struct sock_filter *f, int *n, int sys)
{
    put(f, n, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, (unsigned)sys);
    put(f, n, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(0));
    put(f, n, BPF_JMP | BPF_JSET | BPF_K, 0, 1, NS_FLAGS);
    put(f, n, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
    put(f, n, BPF_LD | BPF_W | BPF_ABS, 0, 0,
        offsetof(struct seccomp_data, nr));
}

static int build(struct sock_filter *f)
{
    int n = 0;
    put(f, &n, BPF_LD | BPF_W | BPF_ABS, 0, 0,
        offsetof(struct seccomp_data, arch));
    put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AUDIT_ARCH_X86_64);
    put(f, &n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
    put(f, &n, BPF_LD | BPF_W | BPF_ABS, 0, 0,
        offsetof(struct seccomp_data, nr));
    /* x32 system calls (bit 30) reach the same code with other numbers */
    put(f, &n, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000U);
    put(f, &n, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
    for (size_t i = 0; i < N_DENIED; i++)
        deny_nr(f, &n, denied[i], RET_ERRNO(EPERM));
    deny_ns_flags(f, &n, SYS_clone);
    deny_ns_flags(f, &n, SYS_unshare);
    /* clone3 passes its flags in memory BPF cannot read: ENOSYS makes the
     * C library fall back to clone, whose flags are checked above */
    deny_nr(f, &n, SYS_clone3, RET_ERRNO(ENOSYS));
    put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 0, 5, SYS_ioctl);
    put(f, &n, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(1));
    put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, TIOCSTI);
    put(f, &n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, TIOCLINUX);
    put(f, &n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
    put(f, &n, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
    put(f, &n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
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
