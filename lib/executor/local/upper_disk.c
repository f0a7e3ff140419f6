/* The bounded writable layer of a sandbox: a sparse ext4 image file
 * (<sandbox>/disk.img, disk_gib GiB, default 10) that the helper's init
 * loop-mounts as the overlay's upper and work directories and as /tmp, so
 * writes past the size fail inside with ENOSPC while the host keeps its
 * space, and deleting the sandbox directory leaves no layer behind.
 *
 * mkfs.ext4 is a process start and a filesystem written, too much for
 * every acquire: each size is made once as a template
 * (<state>/disks/f<format>/ext4-<N>g.img, metadata only) and copied
 * sparsely (SEEK_DATA/copy_file_range, so only that metadata); a delete
 * leaves one such copy ready (spare-<N>g.img beside it) for the next
 * creation, which then only renames it. The templates of another state
 * format (local.h) are never used: the next template made removes them.
 * Only root can
 * attach loop devices; for other callers the helper bounds the layer
 * with a tmpfs of the same size instead. */
#include "local.h"
#include "upper_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* skel: a directory whose upper/, work/ and tmp/ go into the image, so
 * the init writes nothing to a fresh image (a write costs a flush at the
 * first mount). */
static int run_mkfs(const char *path, const char *skel, int gib, char *err,
                    size_t cap)
{
    char size[32];
    dval__fmt(size, sizeof size, "%dG", gib);
    /* a journal, the smallest (4 MiB, never zeroed): without one, ext4
     * skips every inode freed in the last 60-360 s when it allocates one,
     * reading each one's deletion time, and a sandbox reset several
     * times a second frees a dozen each time (its allocations then took
     * a growing share of the machine's CPU, more by the minute).
     * Few inodes: a smaller inode table, never zeroed (lazy init, and the
     * init mounts with noinit_itable) */
    /* no resize inode and no backup superblocks (the layer never grows
     * and is never repaired): the template then holds far less data,
     * which every sandbox copies */
    char *argv[] = { "mkfs.ext4", "-q", "-F", "-t", "ext4", "-O",
                     "has_journal,^resize_inode,sparse_super2", "-J",
                     "size=4", "-E", "nodiscard,lazy_itable_init=1,"
                     "lazy_journal_init=1,num_backup_sb=0",
                     "-m", "0", "-i", "65536", "-L", "dval-upper",
                     "-d", (char *)skel, (char *)path, size, NULL };
    char *envp[] = { "PATH=/usr/sbin:/sbin:/usr/bin:/bin", "LC_ALL=C", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* sbin is often not on a caller's PATH */
    static const char *const paths[] = { "/usr/sbin/mkfs.ext4",
                                         "/sbin/mkfs.ext4", NULL };
    const char *prog = "mkfs.ext4";
    for (int i = 0; paths[i]; i++)
        if (access(paths[i], X_OK) == 0) {
            prog = paths[i];
            break;
        }
    pid_t pid;
    int rc = posix_spawnp(&pid, prog, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        dval__fmt(err, cap, "mkfs.ext4: %s (install e2fsprogs)",
                  strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    dval__fmt(err, cap, "mkfs.ext4 %s failed (status %d)", path, st);
    return -1;
}

/* Copies the data extents of src into a new file of the same size. */
static int sparse_copy(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    struct stat st;
    int rc = out < 0 || fstat(in, &st) < 0 || ftruncate(out, st.st_size) < 0;
    off_t pos = 0;
    while (!rc && pos < st.st_size) {
        off_t data = lseek(in, pos, SEEK_DATA);
        if (data < 0)
            break; /* ENXIO: only a hole is left */
        off_t hole = lseek(in, data, SEEK_HOLE);
        if (hole < 0)
            hole = st.st_size;
        loff_t a = data, b = data;
        while (!rc && a < hole) {
            ssize_t n = copy_file_range(in, &a, out, &b, (size_t)(hole - a),
                                        0);
            rc = n <= 0 && !(n < 0 && errno == EINTR); /* a host's signal */
        }
        pos = hole;
    }
    int e = errno;
    close(in);
    if (out >= 0 && close(out) < 0)
        rc = 1;
    errno = e;
    return rc ? -1 : 0;
}

/* Where this format's disk images are: <state>/disks/f<format>. */
static void disks_dir(lx *x, char *dst, size_t cap)
{
    dval__fmt(dst, cap, "%s/" LX_DISKS, x->state_dir);
}

/* <disks_dir>/ext4-<gib>g.img, made once (under a lock) and kept. */
static int template(lx *x, dval_call *c, int gib, char *path, size_t cap)
{
    char dir[4200], lock[4300], tmp[4400];
    disks_dir(x, dir, sizeof dir);
    dval__fmt(path, cap, "%s/ext4-%dg.img", dir, gib);
    if (access(path, F_OK) == 0)
        return DVAL_OK;
    if (lx_mkdirs(dir, 0700) < 0)
        return dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", dir,
                               strerror(errno));
    dval__fmt(lock, sizeof lock, "%s/lock", dir);
    int lk = lx_lock(c, lock, 60000);
    if (lk < 0)
        return lk;
    int rc = DVAL_OK;
    char err[512] = "";
    if (access(path, F_OK) != 0) {
        char top[4200], skel[4400], sub[4500];
        dval__fmt(top, sizeof top, "%s/disks", x->state_dir);
        lx_empty_dir(top, "f" LX_STR(LX_STATE_FORMAT)); /* other formats' */
        dval__fmt(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
        dval__fmt(skel, sizeof skel, "%s/skel", dir);
        const char *names[] = { "upper", "work", "tmp" };
        for (int i = 0; i < 3; i++) {
            dval__fmt(sub, sizeof sub, "%s/%s", skel, names[i]);
            lx_mkdirs(sub, 0755);
        }
        chmod(sub, 01777); /* tmp */
        if (run_mkfs(tmp, skel, gib, err, sizeof err) < 0 ||
            rename(tmp, path) < 0)
            rc = dval__call_fail(c, DVAL_EISOLATION, "cannot make the "
                                 "sandbox disk image: %s", err[0] ? err
                                 : strerror(errno));
        unlink(tmp);
    }
    lx_unlock(lk);
    return rc;
}

int lx_disk_gib(const lx_sb *sb)
{
    long long g = lx_kv_num(&sb->kv, "disk_gib", LX_DISK_GIB);
    return g > 0 && g <= LX_DISK_GIB_MAX ? (int)g : LX_DISK_GIB;
}

static void spare_path(lx *x, int gib, char *dst, size_t cap)
{
    char dir[4200];
    disks_dir(x, dir, sizeof dir);
    dval__fmt(dst, cap, "%s/spare-%dg.img", dir, gib);
}

void lx_disk_refill(lx *x, int gib)
{
    char dir[4200], tpl[4300], spare[4200], tmp[4400];
    spare_path(x, gib, spare, sizeof spare);
    disks_dir(x, dir, sizeof dir);
    dval__fmt(tpl, sizeof tpl, "%s/ext4-%dg.img", dir, gib);
    if (geteuid() != 0 || access(tpl, F_OK) != 0 || access(spare, F_OK) == 0)
        return;
    dval__fmt(tmp, sizeof tmp, "%s.%d.%lu.tmp", spare, (int)getpid(),
              lx_seq());
    /* link(): of two refills at once, one spare wins, the other goes */
    if (sparse_copy(tpl, tmp) == 0 && link(tmp, spare) < 0 &&
        errno != EEXIST)
        LX_LOG(x, DVAL_LOG_DEBUG, "local executor: spare disk %s: %s",
               spare, strerror(errno));
    unlink(tmp);
}

int lx_disk_room(lx *x, dval_call *c, int gib)
{
    struct statvfs v;
    if (geteuid() != 0 || statvfs(x->state_dir, &v) < 0)
        return DVAL_OK;
    if (gib <= 0)
        gib = LX_DISK_GIB;
    unsigned long long avail = (unsigned long long)v.f_bavail * v.f_frsize,
                       need = (unsigned long long)(gib + LX_DISK_MARGIN_GIB)
                              << 30;
    if (avail >= need)
        return DVAL_OK;
    return dval__call_fail(c, DVAL_EQUOTA, "local executor: %s has %.1f GiB "
                           "free; a sandbox with a %d GiB disk needs %d GiB "
                           "(free space, or a smaller disk_gib)",
                           x->state_dir, (double)avail / (1 << 30), gib,
                           gib + LX_DISK_MARGIN_GIB);
}

int lx_disk_prepare(lx *x, dval_call *c, lx_sb *sb)
{
    char img[4200], tmp[4300], tpl[4200];
    dval__fmt(img, sizeof img, "%s/disk.img", sb->dir);
    if (geteuid() != 0 || access(img, F_OK) == 0)
        return DVAL_OK; /* not root: tmpfs; else kept across restarts */
    spare_path(x, lx_disk_gib(sb), tpl, sizeof tpl);
    if (rename(tpl, img) == 0)
        return DVAL_OK; /* the spare a delete left: it is ours now */
    dval_call tc;
    memset(&tc, 0, sizeof tc);
    tc.cancel_fd = c ? c->cancel_fd : -1;
    if (template(x, &tc, lx_disk_gib(sb), tpl, sizeof tpl) != DVAL_OK) {
        /* still bounded: the helper falls back to a tmpfs of that size */
        LX_LOG(x, DVAL_LOG_WARN, "local executor: %s; the writable layer "
               "is a tmpfs instead", tc.errmsg);
        return DVAL_OK;
    }
    dval__fmt(tmp, sizeof tmp, "%s.tmp", img);
    if (sparse_copy(tpl, tmp) < 0 || rename(tmp, img) < 0) {
        int e = errno;
        unlink(tmp);
        return dval__call_fail(c, DVAL_EIO, "sandbox disk %s: %s", img,
                               strerror(e));
    }
    return DVAL_OK;
}
