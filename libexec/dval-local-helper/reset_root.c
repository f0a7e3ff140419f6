/* The fast reset's new root (reset_inside.c): pivoted into in the
 * sandbox's mount namespace, so the init (whose root is the old one)
 * moves with it.
 * /proc (the sandbox's pid namespace, its masks) and /dev (its nodes,
 * devpts) hold nothing a command can write as a non-root uid and are
 * moved over whole; /dev/shm is a fresh tmpfs (or the old one, empty and
 * untouched); everything else is new. */
#include "helper.h"
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
