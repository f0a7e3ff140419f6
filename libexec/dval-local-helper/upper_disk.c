/* The sandbox's writable layer on a filesystem of its own: an ext4 image
 * on a loop device (made by the library, see lib/executor/local/
 * upper_disk.c) or, when loop devices are out of reach, a sized tmpfs.
 * The mount exists only in the sandbox's mount namespace: when the last
 * process of the sandbox dies, the kernel unmounts it and the loop device
 * (LO_FLAGS_AUTOCLEAR) lets go of the image, so nothing is left mounted
 * on the host after a crash. */
#include "upper_disk.h"
#include "executor/local/protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int upper_disk_gib(int argc, char **argv)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], LX_OPT_DISK_GIB))
            return atoi(argv[i + 1]);
    return 0;
}

/* A free loop device bound to img; its fd, or -1. */
static int loop_attach(int img, char *dev, size_t cap)
{
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0)
        return -1;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        if (n < 0)
            break;
        snprintf(dev, cap, "/dev/loop%d", n);
        fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT &&
            mknod(dev, S_IFBLK | 0600, makedev(7, (unsigned)n)) == 0)
            fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            break;
        struct loop_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.fd = (unsigned)img;
        cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0)
            break;
        int e = errno;
        close(fd);
        fd = -1;
        if (e != EBUSY) { /* EBUSY: another process took it first */
            errno = e;
            break;
        }
    }
    int e = errno;
    close(ctl);
    errno = e;
    return fd;
}

/* The directory of the disk that holds upper/, work/ and tmp/: after a
 * fast reset that kept the disk, its fresh g<n>/ (reset_keep.c; the only
 * entry then, with lost+found), so a restart finds the current files;
 * else the disk's root (""). */
static void current(int root, char *sub, size_t cap)
{
    int d = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = d < 0 ? NULL : fdopendir(d);
    struct dirent *e;
    sub[0] = 0;
    while (dir && (e = readdir(dir)))
        if (e->d_name[0] == 'g' && e->d_type == DT_DIR)
            snprintf(sub, cap, "%s/", e->d_name);
    if (dir)
        closedir(dir);
    else if (d >= 0)
        close(d);
}

/* The library's images come with these; a tmpfs gets them here. */
static int make_dirs(int root)
{
    char sub[300];
    current(root, sub, sizeof sub);
    if (sub[0])
        return 0;
    struct stat st;
    if ((mkdirat(root, "upper", 0755) < 0 && errno != EEXIST) ||
        (mkdirat(root, "work", 0755) < 0 && errno != EEXIST) ||
        (mkdirat(root, "tmp", 01777) < 0 && errno != EEXIST) ||
        fstatat(root, "tmp", &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    return (st.st_mode & 07777) == 01777 ? 0
           : fchmodat(root, "tmp", 01777, 0);
}

/* 1 while a loop device is still backed by path: the previous init's
 * mount lives on until the last process that entered its mount namespace
 * has exited, and a second ext4 mount of the same image (through another
 * loop device, which the kernel cannot tell apart) would corrupt it. */
static int attached(const char *path)
{
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    int found = 0;
    size_t n = strlen(path);
    while (d && !found && (e = readdir(d))) {
        if (strncmp(e->d_name, "loop", 4))
            continue;
        char p[300], buf[4200];
        snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", e->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[r > 0 ? r : 0] = 0;
        found = r > 0 && !strncmp(buf, path, n) &&
                (buf[n] == '\n' || buf[n] == 0);
    }
    if (d)
        closedir(d);
    return found;
}

/* 1 when the ext4 image was never mounted: its superblock (at 1024)
 * still has the mount count (0x34) and last mount time (0x2c) mkfs left,
 * both 0. A mount writes them (through the loop device, into the file)
 * before it returns, so an image that a previous init may still hold
 * never reads as unmounted here; a fresh image (every new sandbox's)
 * skips the scan of every loop device on the host (attached(), a
 * visible part of a creation's CPU). */
static int never_mounted(int ifd)
{
    unsigned char sb[0x38];
    if (pread(ifd, sb, sizeof sb, 1024) != (ssize_t)sizeof sb)
        return 0;
    for (int i = 0x2c; i < 0x30; i++)
        if (sb[i])
            return 0;
    return !sb[0x34] && !sb[0x35];
}

/* The layer's journal (run_mkfs in the library) commits without a cache
 * flush: through the loop device each flush is an fsync of the image on
 * the host, and the layer is disposable (a crash discards it). Refused
 * (an image without a journal, an older kernel): flushes stay. */
static int no_barrier(int fs)
{
    int e = errno;
    if (fsconfig(fs, FSCONFIG_SET_FLAG, "nobarrier", NULL, 0) < 0)
        errno = e;
    return 0;
}

int upper_disk_open(const char *sbdir)
{
    char img[4096], real[4096], dev[64];
    snprintf(img, sizeof img, "%s/disk.img", sbdir);
    int ifd = open(img, O_RDWR | O_CLOEXEC);
    if (ifd < 0)
        return -1;
    if (!never_mounted(ifd) && realpath(img, real)) {
        for (int i = 0; i < 1000 && attached(real); i++)
            usleep(5000);
        if (attached(real)) {
            close(ifd);
            errno = EBUSY;
            return -1;
        }
    }
    int lfd = loop_attach(ifd, dev, sizeof dev);
    close(ifd);
    if (lfd < 0)
        return -1;
    int mfd = -1, fs = fsopen("ext4", FSOPEN_CLOEXEC);
    if (fs >= 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "source", dev, 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_FLAG, "noinit_itable", NULL, 0) == 0 &&
        no_barrier(fs) == 0 &&
        fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
        mfd = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID |
                      MOUNT_ATTR_NODEV);
    int e = errno;
    if (fs >= 0)
        close(fs);
    close(lfd); /* the mount holds the device now (autoclear after it) */
    if (mfd >= 0 && make_dirs(mfd) < 0) {
        e = errno;
        close(mfd);
        mfd = -1;
    }
    errno = e;
    return mfd;
}

int upper_disk_attach(int mfd, const char *sbdir, int gib, char *upper,
                      char *work, size_t cap)
{
    char disk[4096], opts[64];
    snprintf(disk, sizeof disk, "%s/disk", sbdir);
    if (mkdir(disk, 0700) < 0 && errno != EEXIST)
        return -1;
    if (mfd >= 0) {
        if (move_mount(mfd, "", AT_FDCWD, disk, MOVE_MOUNT_F_EMPTY_PATH) < 0)
            return -1;
        close(mfd);
    } else {
        snprintf(opts, sizeof opts, "size=%dg,mode=0755", gib);
        if (mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
            return -1;
        int root = open(disk, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int rc = root < 0 ? -1 : make_dirs(root);
        if (root >= 0)
            close(root);
        if (rc < 0)
            return -1;
    }
    char sub[300];
    int d = open(disk, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return -1;
    current(d, sub, sizeof sub);
    close(d);
    snprintf(upper, cap, "%s/%supper", disk, sub);
    snprintf(work, cap, "%s/%swork", disk, sub);
    return 0;
}

int upper_disk_tmp(const char *sbdir, const char *root)
{
    char src[4500], dst[4096], disk[4096], sub[300];
    snprintf(disk, sizeof disk, "%s/disk", sbdir);
    int d = open(disk, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return -1;
    current(d, sub, sizeof sub);
    close(d);
    snprintf(src, sizeof src, "%s/%stmp", disk, sub);
    snprintf(dst, sizeof dst, "%s/tmp", root);
    return mount(src, dst, NULL, MS_BIND, NULL);
}
