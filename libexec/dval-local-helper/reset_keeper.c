/* The fast reset's kept mounts out of the commands' sight (red team A9).
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
 * be attached in any namespace).
 *
 * setns() puts a process at the top of the namespace, which is the
 * sandbox's root only when the library runs at the top of its own (not
 * in a chroot): so each switch also goes back to the root it means. */
#include "helper.h"
#include "reset.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

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

int reset_in_keeper(const struct keeper *k, int (*fn)(void *), void *arg)
{
    int back[2] = { mnt_ns_fd(), root_fd() };
    if (back[0] < 0 || back[1] < 0 || enter(k->ns, k->root) < 0) {
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

int reset_keeper_at(int ns, int root, struct keeper *k)
{
    k->ns = k->root = -1;
    struct stat st;
    if (ioctl(ns, NS_GET_NSTYPE) != CLONE_NEWNS || fstat(root, &st) < 0 ||
        !S_ISDIR(st.st_mode))
        return -1;
    k->ns = ns;
    k->root = root;
    return 0;
}
