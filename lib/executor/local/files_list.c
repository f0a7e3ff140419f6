/* Host-side listing of a sandbox directory (the results of a validation)
 * and the per-thread-id claim of its working directory.
 *
 * The listing never runs anything inside the sandbox: a program there can
 * replace find, sh or any tool. It walks the sandbox's own root
 * (/proc/<init>/root) with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS) one component at a time, so a symlink anywhere
 * (`results -> /proc/1`) is refused, never followed; FIFOs, devices,
 * sockets and files with other hard links are reported with size -1 and
 * never opened. */
#include "files_list.h"
#include "fds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_DEPTH 32
#define MAX_ENTRIES 100000

typedef struct walk {
    dval_call *c;
    dval_file_list_fn each;
    void *ud;
    long entries;
} walk;

static int open_beneath(int dirfd, const char *rel, int flags)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                  RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* The root the sandbox's programs see: the init's root, or the plain
 * directory of an unisolated sandbox. */
static int sandbox_root(lx *x, dval_call *c, const char *sbid, char *sbdir,
                        size_t cap)
{
    lx_sb sb;
    int rc = lx_sb_open(x, c, sbid, &sb, NULL);
    if (rc != DVAL_OK)
        return rc;
    rc = lx_sb_require_started(c, &sb);
    char p[4200];
    int fd = -1;
    if (rc == DVAL_OK) {
        if (sb.isolated)
            dval__fmt(p, sizeof p, "/proc/%d/root", (int)sb.pid);
        else
            dval__fmt(p, sizeof p, "%s/plain", sb.dir);
        fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            rc = dval__call_fail(c, DVAL_EIO, "open %s: %s", p,
                                 strerror(errno));
    }
    if (sbdir)
        dval__strlcpy(sbdir, sb.dir, cap);
    lx_sb_close(&sb);
    return rc == DVAL_OK ? fd : rc;
}

static int report(walk *w, const char *rel, int64_t size)
{
    if (++w->entries > MAX_ENTRIES)
        return dval__call_fail(w->c, DVAL_ETOOBIG, "more than %d entries",
                               MAX_ENTRIES);
    if (w->each && w->each(rel, size, w->ud) != 0)
        return dval__call_fail(w->c, DVAL_EABORTED, "listing stopped by "
                               "the callback");
    return DVAL_OK;
}

static int walk_dir(walk *w, int dfd, const char *prefix, int depth);

static int walk_entry(walk *w, int dfd, const char *name, const char *rel,
                      int depth)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? DVAL_OK /* removed meanwhile */
               : dval__call_fail(w->c, DVAL_EIO, "%s: %s", rel,
                                 strerror(errno));
    if (S_ISREG(st.st_mode))
        return report(w, rel, st.st_nlink == 1 ? (int64_t)st.st_size : -1);
    if (!S_ISDIR(st.st_mode))
        return report(w, rel, -1); /* symlink, FIFO, device, socket */
    if (depth >= MAX_DEPTH)
        return dval__call_fail(w->c, DVAL_ETOOBIG, "%s: deeper than %d "
                               "levels", rel, MAX_DEPTH);
    int sub = open_beneath(dfd, name, O_RDONLY | O_DIRECTORY);
    if (sub < 0) /* swapped for a symlink since the stat: refused */
        return errno == ENOENT ? DVAL_OK : report(w, rel, -1);
    int rc = walk_dir(w, sub, rel, depth + 1);
    return rc;
}

/* Takes ownership of dfd. */
static int walk_dir(walk *w, int dfd, const char *prefix, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return dval__call_fail(w->c, DVAL_EIO, "opendir: %s",
                               strerror(errno));
    }
    int rc = DVAL_OK;
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char rel[4200];
        if (*prefix)
            dval__fmt(rel, sizeof rel, "%s/%s", prefix, e->d_name);
        else
            dval__fmt(rel, sizeof rel, "%s", e->d_name);
        rc = walk_entry(w, dirfd(d), e->d_name, rel, depth);
    }
    closedir(d);
    return rc;
}

int lx_file_list(void *ud, dval_call *c, const char *sbid, const char *dir,
                 dval_file_list_fn each, void *each_ud)
{
    char msg[256];
    if (!dir || dir[0] != '/' ||
        dval__check_remote_path(dir, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s",
                               dir && dir[0] == '/' ? msg
                               : "the directory must be an absolute path");
    int root = sandbox_root(ud, c, sbid, NULL, 0);
    if (root < 0)
        return root;
    const char *rel = dir;
    while (*rel == '/')
        rel++;
    int dfd = open_beneath(root, *rel ? rel : ".", O_RDONLY | O_DIRECTORY);
    int e = errno;
    close(root);
    if (dfd < 0 && e == ENOENT)
        return dval__call_fail(c, DVAL_ENOTFOUND, "%s does not exist", dir);
    if (dfd < 0 && (e == ELOOP || e == ENOTDIR || e == EXDEV))
        return dval__call_fail(c, DVAL_ERESULTS, "%s is not a directory "
                               "(a symbolic link or a file: refused)", dir);
    if (dfd < 0)
        return dval__call_fail(c, e == ENOSYS ? DVAL_EISOLATION : DVAL_EIO,
                               "%s: %s", dir, strerror(e));
    walk w = { c, each, each_ud, 0 };
    return walk_dir(&w, dfd, "", 0);
}

/* ---- claims: <sandbox dir>/claims/<thread id>, flock'd by the run */

/* The spare (LX_CLAIM_SPARE) as the claim at path, locked: it is taken
 * only once locked (a copy of an earlier claim's descriptor can outlive
 * its close, in a child another thread spawned that has not exec'd yet)
 * and never renamed over a claim that exists. -1: none to take. */
static int take_spare(const char *sbdir, const char *path)
{
    char spare[4300];
    dval__fmt(spare, sizeof spare, "%s/claims/" LX_CLAIM_SPARE, sbdir);
    int fd = open(spare, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 ||
        renameat2(AT_FDCWD, spare, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int lx_workdir_claim(void *ud, dval_call *c, const char *sbid,
                     const char *dir, void **claim)
{
    lx *x = ud;
    *claim = NULL;
    const char *name = strrchr(dir ? dir : "", '/');
    char msg[256], sbdir[4096], p[4300];
    name = name ? name + 1 : dir;
    if (!name || dval__check_component("working directory", name, msg,
                                       sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s", msg);
    int rc = lx_sb_path(x, c, sbid, sbdir, sizeof sbdir);
    if (rc != DVAL_OK)
        return rc;
    dval__fmt(p, sizeof p, "%s/claims", sbdir);
    if (mkdir(p, 0700) < 0 && errno != EEXIST)
        return dval__call_fail(c, errno == ENOENT ? DVAL_ENOTFOUND : DVAL_EIO,
                               "sandbox %s: mkdir %s: %s", sbid, p,
                               strerror(errno));
    dval__fmt(p, sizeof p, "%s/claims/%s", sbdir, name);
    int fd = take_spare(sbdir, p);
    if (fd < 0)
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return dval__call_fail(c, DVAL_EIO, "open %s: %s", p,
                               strerror(errno));
    /* flock belongs to this open file: a second claim conflicts even from
     * the same process, and the kernel drops it when the holder dies */
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EINTR)
            continue;
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return dval__call_fail(c, DVAL_EBUSY, "%s in sandbox %s is in "
                                   "use by another run", dir, sbid);
        return dval__call_fail(c, DVAL_EIO, "flock %s: %s", p, strerror(e));
    }
    int *h = dval__calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    }
    *h = fd;
    *claim = h;
    return DVAL_OK;
}

void lx_workdir_release(void *ud, void *claim)
{
    (void)ud;
    /* the file stays: unlinking it would let a third run lock a new inode
     * while a second still waits on the old one */
    lx_fds_release(claim, claim, 1);
}

void lx_files_list_install(struct dval_executor *ex)
{
    ex->file_list = lx_file_list;
    ex->workdir_claim = lx_workdir_claim;
    ex->workdir_release = lx_workdir_release;
}
