/* Mount work of the helper: overlays, a minimal /dev, the sandbox root. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* EINVAL: "/" is no mount point, i.e. a chroot of a plain directory;
 * pivot_root could not leave it either. Said in words: "Invalid
 * argument" alone sent a root caller looking for missing privileges. */
void make_root_private(int fd)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
        return;
    die_fd(fd, errno == EINVAL
                   ? "make / private (/ is not a mount point: in a chroot, "
                     "bind-mount its directory onto itself before entering "
                     "it)"
                   : "make / private");
}

int layer_fd_paths(const char *paths, char *out, size_t cap, int *fds,
                   int *nfds, int max)
{
    size_t len = 0;
    out[0] = 0;
    for (const char *s = paths; *s;) {
        size_t k = strcspn(s, ":");
        char p[4096];
        if (k >= sizeof p || *nfds >= max) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(p, s, k);
        p[k] = 0;
        int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        fds[(*nfds)++] = fd;
        int w = snprintf(out + len, cap - len, "%s/proc/self/fd/%d",
                         len ? ":" : "", fd);
        if (w < 0 || (size_t)w >= cap - len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        len += (size_t)w;
        s += k + (s[k] == ':');
    }
    return 0;
}

/* When an overlay goes, overlayfs syncs its upper filesystem: a reset's
 * old generation cost a writeback of the whole disk and a device flush
 * (three waits on the disk per reset) just before the reset removed it.
 * Nothing is lost on a stop: the disk's own unmount syncs it. A kernel
 * without the option (before 5.10) refuses the flag and the context
 * stays usable: the overlay is then mounted as before. */
void overlay_volatile(int fs)
{
    int e = errno;
    if (fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) < 0)
        errno = e;
}

/* A volatile mount leaves incompat/volatile/dirty under the work dir's
 * own "work" directory, and overlayfs refuses to mount that work dir
 * again while it is there (its way to say an upper layer may have missed
 * writes in a crash): removed before a later mount of the same
 * generation, a start after a stop. The work dir is out of the
 * commands' reach; the walk follows no symlink all the same. */
static void clear_volatile(const char *work)
{
    static const char *const steps[] = { "work", "incompat", "volatile" };
    int d[4] = { open(work, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
                 -1, -1, -1 };
    for (int n = 0; n < 3 && d[n] >= 0; n++)
        d[n + 1] = openat(d[n], steps[n], O_PATH | O_DIRECTORY | O_NOFOLLOW |
                                              O_CLOEXEC);
    if (d[3] >= 0) {
        unlinkat(d[3], "dirty", 0);
        unlinkat(d[2], "volatile", AT_REMOVEDIR);
    }
    for (int i = 0; i < 4; i++)
        if (d[i] >= 0)
            close(d[i]);
}

/* The layers by descriptor (layer_fd_paths): the options are what the
 * sandbox's mount table shows. */
int mount_overlay(const char *lower, const char *upper, const char *work,
                  const char *target, int ro)
{
    char lo[4096], up[64], wk[64], opts[8192];
    int fds[LAYER_FDS_MAX], n = 0, rc = -1;
    clear_volatile(work);
    if (layer_fd_paths(lower, lo, sizeof lo, fds, &n, LAYER_FDS_MAX - 2) ==
            0 &&
        layer_fd_paths(upper, up, sizeof up, fds, &n, LAYER_FDS_MAX) == 0 &&
        layer_fd_paths(work, wk, sizeof wk, fds, &n, LAYER_FDS_MAX) == 0) {
        snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,"
                 "userxattr", lo, up, wk);
        /* nodev: a device node in an image (an imported directory may
         * have any) opens nothing; /dev is a tmpfs of its own with bound
         * nodes */
        rc = mount("overlay", target, "overlay",
                   (ro ? MS_RDONLY : 0) | MS_NODEV, opts);
    }
    int e = errno;
    while (n > 0)
        close(fds[--n]);
    errno = e;
    return rc;
}

static int mkdir_in(const char *root, const char *rel, mode_t mode)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (mkdir(p, mode) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int bind_node(const char *root, const char *name)
{
    char src[64], dst[4096];
    snprintf(src, sizeof src, "/dev/%s", name);
    snprintf(dst, sizeof dst, "%s/dev/%s", root, name);
    int fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    close(fd);
    return mount(src, dst, NULL, MS_BIND, NULL);
}

int setup_dev(const char *root)
{
    /* no "tty": the host's /dev/tty is the caller's terminal (TIOCSTI) */
    static const char *nodes[] = { "null", "zero", "full", "random",
                                   "urandom" };
    static const char *links[][2] = {
        { "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
        { "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
        { "pts/ptmx", "ptmx" } };
    char p[4096];
    snprintf(p, sizeof p, "%s/dev", root);
    mkdir(p, 0755);
    if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
        return -1;
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
        if (bind_node(root, nodes[i]) < 0)
            return -1;
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(p, sizeof p, "%s/dev/%s", root, links[i][1]);
        if (symlink(links[i][0], p) < 0)
            return -1;
    }
    snprintf(p, sizeof p, "%s/dev/pts", root);
    mkdir(p, 0755);
    mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC,
          "newinstance,ptmxmode=0666,mode=0620"); /* optional */
    snprintf(p, sizeof p, "%s/dev/shm", root);
    mkdir(p, 01777);
    return mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
}

/* What Docker masks: host-wide kernel state (memory, keys of every user,
 * timers, scheduler, hardware) is covered by /dev/null or an empty
 * read-only tmpfs; the kernel's knobs are read-only. */
static int mask_proc(const char *root)
{
    static const char *masked[] = { "proc/kcore", "proc/keys",
        "proc/key-users", "proc/timer_list", "proc/timer_stats",
        "proc/sched_debug", "proc/latency_stats", "proc/scsi", "proc/acpi",
        "proc/asound", "proc/kallsyms", "proc/kmsg", "proc/sysvipc",
        "sys/firmware", "sys/devices/virtual/powercap", "sys/kernel/debug" };
    static const char *ro[] = { "proc/sys", "proc/sysrq-trigger", "proc/irq",
                                "proc/bus", "proc/fs" };
    char p[4096];
    struct stat st;
    for (size_t i = 0; i < sizeof masked / sizeof *masked; i++) {
        snprintf(p, sizeof p, "%s/%s", root, masked[i]);
        if (lstat(p, &st) < 0)
            continue;
        int rc = S_ISDIR(st.st_mode)
            ? mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV |
                    MS_NOEXEC, "size=4k,mode=0555")
            : mount("/dev/null", p, NULL, MS_BIND, NULL);
        if (rc < 0)
            return -1;
    }
    for (size_t i = 0; i < sizeof ro / sizeof *ro; i++) {
        snprintf(p, sizeof p, "%s/%s", root, ro[i]);
        if (access(p, F_OK) == 0 && bind_ro(p) < 0)
            return -1;
    }
    return 0;
}

/* The sandbox's own /proc; hidepid: a command sees only the processes of
 * its uid (not the init, the helpers or other validations). */
int mount_proc(const char *root)
{
    char p[4096];
    if (mkdir_in(root, "proc", 0555) < 0)
        return -1;
    snprintf(p, sizeof p, "%s/proc", root);
    unsigned long fl = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    if (mount("proc", p, "proc", fl, "hidepid=invisible") < 0 &&
        mount("proc", p, "proc", fl, "hidepid=2") < 0 &&
        mount("proc", p, "proc", fl, NULL) < 0)
        return -1;
    return mask_proc(root);
}

/* /sandbox is shared (sticky, like /tmp); /home/daytona belongs to the
 * sandbox range's first uid (uid_base): taken from root, or from a
 * range the sandbox had before. Root-owned files stay read-only to
 * commands. */
/* /sandbox shared, sticky and unlisted, /home/daytona the range's first
 * uid's (sandbox_dirs.c); as root only: in a user namespace with one id
 * there is nothing to hand out. */
static int own_dirs(const char *root, long uid_base)
{
    if (geteuid() != 0)
        return 0;
    int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = own_sandbox_dirs(fd, uid_base);
    close(fd);
    return rc;
}

/* The root is an image (possibly imported from a tarball): a mount point
 * that is a symlink there would be followed outside the new root while
 * it is set up, so such an image is refused. */
static int check_mountpoints(const char *root)
{
    static const char *mp[] = { "proc", "dev", "tmp", "sandbox", "home",
                                "home/daytona" };
    char p[4096];
    struct stat st;
    for (size_t i = 0; i < sizeof mp / sizeof *mp; i++) {
        snprintf(p, sizeof p, "%s/%s", root, mp[i]);
        if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
    }
    return 0;
}

/* /proc, /dev, /tmp, /sandbox, /home/daytona; the state directory (hide)
 * is covered by an empty read-only tmpfs so sandboxes cannot see it (with
 * an image root it is not there anyway; with the host-root opt-in it
 * could be under an allowed directory). */
int setup_sandbox_root(const char *root, const char *hide, long uid_base)
{
    char p[4096];
    if (check_mountpoints(root) < 0)
        return -1;
    if (mount_proc(root) < 0)
        return -1;
    if (setup_dev(root) < 0)
        return -1;
    if (mkdir_in(root, "tmp", 01777) < 0)
        return -1;
    snprintf(p, sizeof p, "%s/tmp", root);
    if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
        return -1;
    if (mkdir_in(root, "sandbox", 0777) < 0 ||
        mkdir_in(root, "home", 0755) < 0 ||
        mkdir_in(root, "home/daytona", 0755) < 0 ||
        own_dirs(root, uid_base) < 0)
        return -1;
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", root, hide);
    if (hide[0] == '/' && hide[1] && stat(p, &st) == 0 && S_ISDIR(st.st_mode))
        if (mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                  "size=4k,mode=0755") < 0)
            return -1;
    return 0;
}

int enter_root(const char *root)
{
    if (chdir(root) < 0)
        return -1;
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return -1;
    if (umount2(".", MNT_DETACH) < 0)
        return -1;
    return chdir("/");
}

int loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    close(s);
    return rc;
}

int drop_caps(void)
{
    /* Docker's default set, without mknod */
    static const int keep[] = { CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER,
                                CAP_FSETID, CAP_KILL, CAP_SETGID, CAP_SETUID,
                                CAP_SETPCAP, CAP_NET_BIND_SERVICE,
                                CAP_SYS_CHROOT, CAP_AUDIT_WRITE, CAP_SETFCAP };
    for (int cap = 0; cap <= 63; cap++) {
        int k = 0;
        for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
            k |= keep[i] == cap;
        if (!k && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
            return -1;
    }
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Read-only bind of a path over itself (e.g. /proc/sys). */
int bind_ro(const char *path)
{
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
        return -1;
    return mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
                 MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}
