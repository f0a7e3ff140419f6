/* "reset" mode: the fast sandbox reset, which keeps the init and its
 * namespaces (pid, mount, IPC, UTS, network) and gives the sandbox a new
 * writable layer:
 *   reset <initpid> <sbdir> <lowers> <net 0|1> keep|fresh
 * A child joins the sandbox's namespaces and does the work
 * (reset_inside.c): every process but the init killed, IPC objects
 * removed, the hostname set, and a new root pivoted into. That root is
 * a new overlay over the same lowers, on
 *   keep:  fresh directories of the sandbox's kept disk (reset_keep.c);
 *          exit 4 (LX_RESET_FRESH) when it cannot be reused;
 *   fresh: a fresh disk image (<sbdir>/disk.img, placed by the library),
 *          mounted here, still in the host's mount namespace, and the
 *          overlay built over it, both detached.
 * Exit 0: reset; 3 (LX_RESET_UNSUPPORTED): nothing was done that the
 * full reset (a new init) does not redo, use it; other: failed, the
 * library falls back to the full reset too. */
#include "helper.h"
#include "reset.h"
#include "upper_disk.h"
#include "executor/local/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The new root: an overlay of lowers (named by descriptor, as the mount
 * table shows them: layer_fd_paths) under the fresh disk's upper/ and
 * work/, detached; *tmp gets a detached bind of the disk's tmp/, *dfd
 * the disk's mount. */
static int build_root(const char *sbdir, const char *lowers, int *tmp,
                      int *dfd)
{
    int disk = upper_disk_open(sbdir);
    *dfd = disk;
    if (disk < 0)
        return -1;
    char lo[4096];
    int lfd[LAYER_FDS_MAX], nl = 0;
    if (layer_fd_paths(lowers, lo, sizeof lo, lfd, &nl, LAYER_FDS_MAX) < 0) {
        while (nl > 0)
            close(lfd[--nl]);
        return -1;
    }
    int up = openat(disk, "upper", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int wk = openat(disk, "work", O_PATH | O_DIRECTORY | O_CLOEXEC);
    *tmp = (int)syscall(SYS_open_tree, disk, "tmp", OPEN_TREE_CLONE |
                        OPEN_TREE_CLOEXEC);
    int fs = fsopen("overlay", FSOPEN_CLOEXEC), ov = -1;
    if (fs >= 0)
        overlay_volatile(fs);
    if (up >= 0 && wk >= 0 && *tmp >= 0 && fs >= 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", lo, 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, up) == 0 &&
        fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, wk) == 0 &&
        fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) == 0 &&
        fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
        ov = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV);
    int e = errno;
    while (nl > 0)
        close(lfd[--nl]);
    for (int fd, i = 0; i < 3; i++)
        if ((fd = (int[]){ up, wk, fs }[i]) >= 0)
            close(fd);
    if (ov < 0 && *tmp >= 0)
        close(*tmp);
    errno = e;
    return ov;
}

/* Joins the init's namespaces and its root: setns(CLONE_NEWNS) puts us
 * at the root of the mount namespace, which is the sandbox's only when
 * the library runs at the top of its own (not in a chroot: there the
 * sandbox's root sits on the chroot's directory, and "/proc" would be
 * the host's). */
static int join(pid_t init, int share_net)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/root", (int)init);
    int root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int pfd = root < 0 ? -1 : (int)syscall(SYS_pidfd_open, init, 0);
    int kinds = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                (share_net ? 0 : CLONE_NEWNET);
    int rc = pfd < 0 || setns(pfd, kinds) < 0 || fchdir(root) < 0 ||
             chroot(".") < 0 ? -1 : 0;
    if (pfd >= 0)
        close(pfd);
    if (root >= 0)
        close(root);
    return rc;
}

int helper_reset(int argc, char **argv)
{
    if (argc < 5) {
        write_str(2, "usage: " LX_VERB_RESET " <initpid> <sbdir> <lowers> "
                  "<net> " LX_RESET_KEEP "|" LX_RESET_NEW "\n");
        return 2;
    }
    struct reset_req r = { (pid_t)atol(argv[0]), -1, -1, -1,
                           *argv[3] == *LX_NET_HOST,
                           sandbox_uid_base(argc, argv), { -1, -1 } };
    if (r.uid_base < 0) {
        write_str(2, "reset: -u names no sandbox uid range\n");
        return 2;
    }
    /* an unprivileged caller's sandbox (a user namespace whose root the
     * commands are) or the host-root opt-in: the full reset */
    if (geteuid() != 0 || r.init <= 1 || argv[2][0] != '/')
        return LX_RESET_UNSUPPORTED;
    if (!strcmp(argv[4], LX_RESET_NEW) &&
        (r.root = build_root(argv[1], argv[2], &r.tmp, &r.disk)) < 0)
        die_fd(2, "build the new root");
    /* from the host's /proc, before the join (an older init has none) */
    reset_keeper_of(r.init, &r.keeper);
    if (join(r.init, r.share_net) < 0)
        die_fd(2, "join the sandbox");
    /* the pid namespace is the child's, not ours (setns) */
    pid_t pid = fork();
    if (pid < 0)
        die_fd(2, "fork");
    if (pid == 0)
        _exit(reset_inside(&r));
    return wait_code(pid);
}
