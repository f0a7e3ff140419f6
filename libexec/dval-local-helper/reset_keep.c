/* The fast reset's new layer (reset_inside.c): the sandbox's disk is kept
 * and the new overlay gets fresh upper, work and tmp directories on it,
 * the old ones removed once the old overlay is gone. No loop device, no
 * ext4 mount or unmount, no image copied or unlinked on the host.
 *
 * For that the init leaves the disk and each lower layer bound under
 * /dev/.dval of a small tmpfs that becomes the root of a mount namespace
 * of its own, the keeper (reset_root.c; only when the init is host
 * root: in a user namespace the commands are root there). The overlay is
 * built there from those paths: the kernel takes an overlay's layers
 * only from mounts of the caller's namespace. Commands never see these
 * binds (a bind's mount table entry names its host path).
 *
 * A disk the earlier use filled beyond a small budget (inodes, blocks)
 * is not walked: the reset then fails, and the library does the full
 * reset (a new init on a fresh image). The walk never follows a symlink
 * (every open is O_NOFOLLOW, relative to a directory fd) and never
 * leaves the disk (O_NOFOLLOW + the disk's device checked on every
 * directory). */
#include "helper.h"
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#define KEEP_DISK KEEP "/disk"
/* past these, a fresh image (the full reset) is bounded: the walk is not */
#define KEEP_MAX_INODES 4096
#define KEEP_MAX_BYTES (256LL << 20)
#define KEEP_MAX_DEPTH 512

static int bind_at(const char *src, const char *dst, int ro)
{
    if (mkdir(dst, 0700) < 0 && errno != EEXIST)
        return -1;
    if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
        return -1;
    return ro ? mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
                      MS_NOSUID | MS_NODEV, NULL) : 0;
}

/* The keeper's future root: a root-only tmpfs at <root>KEEPER_MNT with
 * dev/.dval (KEEP) in it. */
static int keeper_tmpfs(const char *root)
{
    char p[4200];
    snprintf(p, sizeof p, "%s" KEEPER_MNT, root);
    if (mkdir(p, 0700) < 0 ||
        mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=64k,mode=0700") < 0)
        return -1;
    snprintf(p, sizeof p, "%s" KEEPER_MNT "/dev", root);
    if (mkdir(p, 0700) < 0)
        return -1;
    snprintf(p, sizeof p, "%s" KEEPER_MNT KEEP, root);
    return mkdir(p, 0700);
}

/* The lowers as the keeper sees them, KEEP/l0:KEEP/l1:...: made here in
 * the init, which serves the resets that use them. */
static char kept_lowers[1024];

int reset_keep_layers(const char *root, const char *disk,
                      const char *lowers)
{
    char p[4200], l[4096];
    if (keeper_tmpfs(root) < 0)
        return -1;
    snprintf(p, sizeof p, "%s" KEEPER_MNT KEEP_DISK, root);
    if (bind_at(disk, p, 0) < 0)
        return -1;
    size_t k = 0;
    for (int i = 0; *lowers; i++) {
        size_t n = strcspn(lowers, ":");
        snprintf(l, sizeof l, "%.*s", (int)n, lowers);
        snprintf(p, sizeof p, "%s" KEEPER_MNT KEEP "/l%d", root, i);
        k += (size_t)snprintf(kept_lowers + k, sizeof kept_lowers - k,
                              "%s" KEEP "/l%d", k ? ":" : "", i);
        if (k >= sizeof kept_lowers || bind_at(l, p, 1) < 0)
            return -1;
        lowers += n + (lowers[n] == ':');
    }
    return k > 0 ? 0 : -1;
}

/* 0 when the disk is kept here and small enough to be walked. */
static int disk_small(void)
{
    struct statfs s;
    if (statfs(KEEP_DISK, &s) < 0)
        return -1;
    long long used_i = (long long)(s.f_files - s.f_ffree);
    long long used_b = (long long)(s.f_blocks - s.f_bfree) * s.f_bsize;
    return used_i <= KEEP_MAX_INODES && used_b <= KEEP_MAX_BYTES ? 0 : -1;
}

/* Fresh g<ns>/{upper,work,tmp} on the kept disk: gen gets its name. */
static int fresh_dirs(char *gen, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(gen, cap, "g%lld%09ld", (long long)ts.tv_sec, ts.tv_nsec);
    int d = open(KEEP_DISK, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0 || mkdirat(d, gen, 0755) < 0)
        goto fail;
    char p[300];
    static const char *sub[] = { "upper", "work", "tmp" };
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", gen, sub[i]);
        if (mkdirat(d, p, i == 2 ? 01777 : 0755) < 0 ||
            (i == 2 && fchmodat(d, p, 01777, 0) < 0))
            goto fail;
    }
    close(d);
    return 0;
fail:
    if (d >= 0)
        close(d);
    return -1;
}

int reset_keep_build(void *gen)
{
    struct keep_gen *g = gen;
    char up[400], wk[400], tp[400];
    if (disk_small() < 0 || fresh_dirs(g->name, sizeof g->name) < 0)
        return -1;
    snprintf(up, sizeof up, KEEP_DISK "/%s/upper", g->name);
    snprintf(wk, sizeof wk, KEEP_DISK "/%s/work", g->name);
    snprintf(tp, sizeof tp, KEEP_DISK "/%s/tmp", g->name);
    g->tmp = (int)syscall(SYS_open_tree, AT_FDCWD, tp, OPEN_TREE_CLONE |
                          OPEN_TREE_CLOEXEC);
    int fs = fsopen("overlay", FSOPEN_CLOEXEC), ov = -1;
    if (fs >= 0)
        overlay_volatile(fs);
    if (g->tmp >= 0 && fs >= 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", kept_lowers, 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", up, 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "workdir", wk, 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) == 0 &&
        fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
        ov = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV);
    if (fs >= 0)
        close(fs);
    if (ov < 0 && g->tmp >= 0)
        close(g->tmp);
    return ov;
}

/* One directory read straight with getdents64: readdir's fdopendir
 * costs two fstat and two fcntl per directory, and rewinding after each
 * removed subdirectory read it all again (a reset walks a dozen
 * directories, so these calls were a large share of the init's system
 * calls per validation). */
struct wipe_dent {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

#define WIPE_BUF 16384
/* a directory found not empty after its walk is walked again (an entry
 * the walk could have missed); past this, the reset fails safe */
#define WIPE_PASSES 3

static int wipe(int d, dev_t dev, int depth, const char *const *keep);

static int kept_name(const char *name, const char *const *keep)
{
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return 1;
    for (const char *const *k = keep; k && *k; k++)
        if (!strcmp(name, *k))
            return 1;
    return 0;
}

/* Removes the entry name of d: a file at once, a directory (known from
 * the entry's type, or from unlink's EISDIR) after its own walk. */
static int wipe_entry(int d, const struct wipe_dent *e, dev_t dev,
                      int depth)
{
    if (e->type != DT_DIR && unlinkat(d, e->name, 0) == 0)
        return 0;
    if ((e->type != DT_DIR && errno != EISDIR) || depth >= KEEP_MAX_DEPTH)
        return -1;
    for (int pass = 0; pass < WIPE_PASSES; pass++) {
        int sub = openat(d, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                         O_CLOEXEC);
        struct stat st;
        if (sub < 0 || fstat(sub, &st) < 0 || st.st_dev != dev) {
            if (sub >= 0)
                close(sub);
            return -1;
        }
        if (wipe(sub, dev, depth + 1, NULL) < 0)
            return -1;
        if (unlinkat(d, e->name, AT_REMOVEDIR) == 0)
            return 0;
        if (errno != ENOTEMPTY && errno != EEXIST)
            return -1;
    }
    return -1;
}

/* Removes everything under directory fd d (closed here) but the entries
 * named keep (NULL: none); never follows a symlink, never crosses onto
 * another filesystem (dev). Entries are removed as they are read: a
 * removal never moves the entries not read yet (ext4, tmpfs). */
static int wipe(int d, dev_t dev, int depth, const char *const *keep)
{
    char *buf = malloc(WIPE_BUF);
    int rc = buf ? 0 : -1;
    while (rc == 0) {
        long n = syscall(SYS_getdents64, d, buf, WIPE_BUF);
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        for (long off = 0; rc == 0 && off < n;) {
            const struct wipe_dent *e = (const void *)(buf + off);
            off += e->reclen;
            if (!kept_name(e->name, keep))
                rc = wipe_entry(d, e, dev, depth);
        }
        /* a short read ended the directory: below the top, an entry it
         * did not return would fail the directory's removal (walked
         * again) rather than cost every directory one more read */
        if (depth > 0 && n < WIPE_BUF - 512)
            break;
    }
    free(buf);
    close(d);
    return rc;
}

/* The walk from directory d (closed here), d -1 included. */
static int wipe_top(int d, const char *const *keep)
{
    struct stat st;
    if (d >= 0 && fstat(d, &st) == 0)
        return wipe(d, st.st_dev, 0, keep);
    if (d >= 0)
        close(d);
    return -1;
}

int wipe_tree(int d)
{
    return wipe_top(d, NULL);
}

int reset_keep_wipe(void *gen)
{
    const char *keep[] = { ((struct keep_gen *)gen)->name, "lost+found",
                           NULL };
    /* the top is never removed, so no ENOTEMPTY would tell of an entry
     * its walk missed: a second walk finds none (or removes it) */
    for (int pass = 0; pass < 2; pass++)
        if (wipe_top(open(KEEP_DISK, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                         O_CLOEXEC), keep) < 0)
            return -1;
    return 0;
}
