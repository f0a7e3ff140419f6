/* The fast reset's roots (reset_inside.c).
 *
 * The keeper: the kept mounts out of the commands' sight (red team A9).
 * A bind's entry in a mount table names its source's path on the host's
 * filesystem, so the binds of the disk and the lowers (reset_keep.c) told
 * every command the caller's state directory and home. Once the init's
 * root is set up, its mount namespace is split in two:
 *   the keeper: the small tmpfs holding dev/.dval/{disk,l0,..} (the paths
 *     reset_keep.c uses) is its root where the sandbox's was; the init
 *     holds it at KEEPER_FD, and that root at KEEPER_ROOT_FD;
 *   the commands': the sandbox's root without that tmpfs; the init lives
 *     there, so commands (exec.c) land there.
 * The reset builds the new overlay and wipes the old generation in the
 * keeper, and swaps the root in the commands' one (detached mounts may
 * be attached in any namespace). setns() puts a process at the top of
 * the namespace, which is the sandbox's root only when the library runs
 * at the top of its own (not in a chroot): so each switch also goes back
 * to the root it means.
 *
 * The swap: the new root is pivoted into in the commands' namespace, so
 * the init (whose root is the old one) moves with it. /proc (the
 * sandbox's pid namespace, its masks) and /dev (its nodes, devpts) hold
 * nothing a command can write as a non-root uid and are moved over
 * whole; /dev/shm is a fresh tmpfs (or the old one, empty and
 * untouched); everything else is new. */
#include "helper.h"
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mnt_ns_fd(void)
{
    return open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
}

static int root_fd(void)
{
    return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Into mount namespace ns, at root (a directory of one of its mounts). */
static int enter(int ns, int root)
{
    return setns(ns, CLONE_NEWNS) < 0 || fchdir(root) < 0 ||
           chroot(".") < 0 || chdir("/") < 0 ? -1 : 0;
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

int reset_keeper_split(struct keeper *k)
{
    /* the keeper's namespace and root (this one, the sandbox's root in
     * it), then the commands' copy of both */
    int fd[4] = { mnt_ns_fd(), root_fd(), -1, -1 };
    k->ns = k->root = -1;
    if (fd[0] < 0 || fd[1] < 0 || unshare(CLONE_NEWNS) < 0 ||
        (fd[2] = mnt_ns_fd()) < 0 || (fd[3] = root_fd()) < 0 ||
        enter(fd[0], fd[1]) < 0 || enter_root(KEEPER_MNT) < 0 ||
        (k->root = root_fd()) < 0 || enter(fd[2], fd[3]) < 0 ||
        umount2(KEEPER_MNT, MNT_DETACH) < 0 || rmdir(KEEPER_MNT) < 0) {
        close_all(fd, 4);
        if (k->root >= 0)
            close(k->root);
        k->root = -1;
        return -1;
    }
    k->ns = fd[0];
    close_all(fd + 1, 3);
    return 0;
}

int reset_in_keeper(int (*fn)(void *), void *arg)
{
    int back[2] = { mnt_ns_fd(), root_fd() };
    if (back[0] < 0 || back[1] < 0 || enter(KEEPER_FD, KEEPER_ROOT_FD) < 0) {
        close_all(back, 2);
        return -1;
    }
    int rc = fn(arg);
    /* stuck in the keeper, commands would find no /bin/sh: fail closed */
    if (enter(back[0], back[1]) < 0)
        _exit(125);
    close_all(back, 2);
    return rc;
}

/* /dev/shm as the init made it: root's, mode 1777, nothing in it. Its
 * commands cannot chmod, chown or mount it (not its owner, no
 * capabilities) and are all dead by now, so an empty one holds nothing
 * of theirs: it stays, which saves an unmount (an expedited RCU grace
 * period) per reset. */
static int shm_untouched(void)
{
    struct stat st;
    int fd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                  O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int clean = fstat(fd, &st) == 0 && st.st_uid == 0 && st.st_gid == 0 &&
                (st.st_mode & 07777) == 01777;
    struct dirent *e;
    while (clean && (e = readdir(d)))
        clean = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return clean;
}

static int fresh_shm(void)
{
    if (shm_untouched())
        return 0;
    if (umount2("/dev/shm", MNT_DETACH) < 0 && errno != EINVAL)
        return -1;
    return mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                 "mode=1777");
}

static int moved(int from, const char *fp, int to, const char *tp,
                 unsigned flags)
{
    return (int)syscall(SYS_move_mount, from, fp, to, tp, flags);
}

int reset_swap_root(int root, int tmp, long uid_base)
{
    mkdirat(root, "proc", 0555);
    mkdirat(root, "dev", 0755);
    mkdirat(root, "tmp", 01777);
    if (own_sandbox_dirs(root, uid_base) < 0 || fresh_shm() < 0)
        return -1;
    /* over the old root first: then the old /proc and /dev (paths from
     * this process's root, still the old one) move onto it, and the
     * pivot finds a mount point */
    if (moved(root, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
        moved(AT_FDCWD, "/proc", root, "proc", 0) < 0 ||
        moved(AT_FDCWD, "/dev", root, "dev", 0) < 0 ||
        moved(tmp, "", root, "tmp", MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return -1;
    if (fchdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
        umount2(".", MNT_DETACH) < 0)
        return -1;
    return chdir("/");
}
