/* File transfer confined to a sandbox's root: every path is resolved with
 * openat2(RESOLVE_IN_ROOT) from the root of the sandbox's mount namespace
 * (/proc/<init>/root), so "..", absolute symlinks and links pointing out
 * all stay inside. Data is streamed in 64 KiB chunks. */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox_ids.h"

#define CHUNK 65536

int lx_open_in(int root, const char *rel, int flags, mode_t mode)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(flags | O_CLOEXEC);
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, root, rel[0] ? rel : ".", &how,
                        sizeof how);
}

static int canceled(dval_call *c)
{
    struct pollfd p = { c ? c->cancel_fd : -1, POLLIN, 0 };
    return c && c->cancel_fd >= 0 && poll(&p, 1, 0) > 0 &&
           (p.revents & POLLIN);
}

/* A path of one transfer, inside a sandbox's root. */
typedef struct confined {
    int root;                   /* the sandbox's root (O_PATH) */
    long owner;                 /* uid new entries get (-1: their
                                 * directory's, see give()) */
    char rel[4200];             /* the path, relative to root */
} confined;

/* Opens the sandbox's root into t and turns path into one relative to it
 * (relative paths are relative to /home/daytona). file: 1 a file to
 * write, 0 a folder, -1 only reading (no owner needed). */
static int confine(lx *x, dval_call *c, const char *sbid, const char *path,
                   int file, confined *t)
{
    char msg[256], p[4200];
    if (dval__check_remote_path(path, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s", msg);
    lx_sb sb;
    int rc = lx_sb_open(x, c, sbid, &sb, NULL);
    if (rc != DVAL_OK)
        return rc;
    rc = lx_sb_require_started(c, &sb);
    if (rc == DVAL_OK) {
        lx_sb_touch(&sb);
        if (sb.isolated)
            dval__fmt(p, sizeof p, "/proc/%d/root", (int)sb.pid);
        else
            dval__fmt(p, sizeof p, "%s/plain", sb.dir);
        t->root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (t->root < 0)
            rc = dval__call_fail(c, DVAL_EIO, "open %s: %s", p,
                                 strerror(errno));
    }
    char top[256];
    lx_top_of(path, file, top, sizeof top);
    t->owner = -1;
    if (rc == DVAL_OK && top[0] && file >= 0) {
        rc = lx_uid_for(x, c, &sb, t->root, top, &t->owner);
        if (rc != DVAL_OK)
            close(t->root);
    }
    lx_sb_close(&sb);
    if (rc != DVAL_OK)
        return rc;
    int abs = path[0] == '/';
    while (*path == '/')
        path++;
    dval__fmt(t->rel, sizeof t->rel, "%s%s", abs ? "" : "home/daytona/",
              path);
    return DVAL_OK;
}

/* ENOSYS: no openat2 (Linux < 5.6, or valgrind): without it files cannot
 * be confined to the sandbox, so fail closed. */
static int errno_status(int e)
{
    return e == ENOENT || e == ENOTDIR ? DVAL_ENOTFOUND
           : e == EACCES || e == EPERM || e == EXDEV ? DVAL_EFORBIDDEN
           : e == ENOSYS ? DVAL_EISOLATION
           : DVAL_EIO;
}

/* New entries belong to the sandbox's commands, not to root (the library
 * writes as root): an entry inherits the owner of its directory, and
 * what is made in the shared, root-owned /sandbox goes to the default
 * sandbox uid. Elsewhere under root-owned directories root stays owner
 * (the system root is read-only to commands). Only a root caller with an
 * isolated sandbox has other ids to give. */
static uid_t owner_for(int parent, const char *parent_rel, long owner)
{
    struct stat st;
    if (owner > 0)
        return (uid_t)owner;
    if (geteuid() != 0 || fstat(parent, &st) < 0)
        return 0;
    if (st.st_uid == 0 && !strcmp(parent_rel, "sandbox"))
        return (uid_t)LX_UID_DEFAULT;
    return st.st_uid;
}

/* Best effort: an entry left to root is read-only to commands. */
static void give(int parent, const char *parent_rel, long owner, int fd)
{
    uid_t uid = owner_for(parent, parent_rel, owner);
    if (uid != 0)
        (void)fchown(fd, uid, uid);
}

static void give_at(int parent, const char *parent_rel, long owner,
                    const char *name)
{
    uid_t uid = owner_for(parent, parent_rel, owner);
    if (uid != 0)
        (void)fchownat(parent, name, uid, uid, AT_SYMLINK_NOFOLLOW);
}

/* mkdir -p of rel inside root. */
static int mkdirs_in(dval_call *c, int root, const char *rel, long owner)
{
    char prefix[4200];
    size_t len = strlen(rel);
    for (size_t i = 0; i <= len; i++) {
        if (rel[i] != '/' && rel[i] != 0)
            continue;
        if (i == 0 || rel[i - 1] == '/')
            continue;
        dval__fmt(prefix, sizeof prefix, "%.*s", (int)i, rel);
        int fd = lx_open_in(root, prefix, O_PATH | O_DIRECTORY, 0);
        if (fd >= 0) {
            close(fd);
            continue;
        }
        if (errno != ENOENT)
            return dval__call_fail(c, errno_status(errno), "%s: %s", prefix,
                                   strerror(errno));
        char *slash = strrchr(prefix, '/');
        const char *name = slash ? slash + 1 : prefix;
        if (slash)
            *slash = 0;
        int parent = lx_open_in(root, slash ? prefix : "",
                                O_PATH | O_DIRECTORY, 0);
        if (parent < 0)
            return dval__call_fail(c, errno_status(errno), "%s: %s", prefix,
                                   strerror(errno));
        int r = mkdirat(parent, name, 0755);
        int e = errno;
        if (r == 0)
            give_at(parent, slash ? prefix : "", owner, name);
        close(parent);
        if (r < 0 && e != EEXIST)
            return dval__call_fail(c, errno_status(e), "mkdir %s: %s", rel,
                                   strerror(e));
    }
    return DVAL_OK;
}

int lx_folder_create(void *ud, dval_call *c, const char *sbid,
                     const char *path)
{
    confined t;
    int rc = confine(ud, c, sbid, path, 0, &t);
    if (rc != DVAL_OK)
        return rc;
    rc = mkdirs_in(c, t.root, t.rel, t.owner);
    close(t.root);
    return rc;
}

static int write_from(dval_call *c, int fd, dval_read_fn src, void *src_ud)
{
    char buf[CHUNK];
    for (;;) {
        if (canceled(c))
            return dval__call_fail(c, DVAL_ECANCELED, "canceled");
        size_t n = 0;
        if (src(buf, sizeof buf, &n, src_ud) != 0)
            return dval__call_fail(c, DVAL_EABORTED, "upload source stopped");
        if (n == 0)
            return DVAL_OK;
        for (size_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return dval__call_fail(c, errno == ENOSPC || errno == EDQUOT
                                       ? DVAL_ETOOBIG : DVAL_EIO,
                                       "write: %s", strerror(errno));
            off += (size_t)w;
        }
    }
}

/* Hands a just-written file (rel inside root) to its directory's owner
 * unless it already belongs to someone other than root. */
static void give_file(int root, char *rel, long owner, int fd)
{
    struct stat st;
    if (geteuid() != 0 || fstat(fd, &st) < 0 || st.st_uid != 0)
        return;
    char *slash = strrchr(rel, '/');
    if (slash)
        *slash = 0;
    int parent = lx_open_in(root, slash ? rel : "", O_PATH | O_DIRECTORY, 0);
    if (parent >= 0) {
        give(parent, slash ? rel : "", owner, fd);
        close(parent);
    }
    if (slash)
        *slash = '/';
}

int lx_file_upload(void *ud, dval_call *c, const char *sbid, const char *path,
                   dval_read_fn src, void *src_ud, int64_t size)
{
    (void)size;
    confined t;
    int rc = confine(ud, c, sbid, path, 1, &t);
    if (rc != DVAL_OK)
        return rc;
    char *slash = strrchr(t.rel, '/');
    if (!t.rel[0] || (slash && !slash[1])) {
        close(t.root);
        return dval__call_fail(c, DVAL_EINVAL, "%s is not a file path", path);
    }
    if (slash) {
        *slash = 0;
        rc = mkdirs_in(c, t.root, t.rel, t.owner);
        *slash = '/';
    }
    int fd = -1;
    if (rc == DVAL_OK) {
        fd = lx_open_in(t.root, t.rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            rc = dval__call_fail(c, errno_status(errno), "%s: %s", path,
                                 strerror(errno));
    }
    if (fd >= 0)
        give_file(t.root, t.rel, t.owner, fd);
    if (rc == DVAL_OK)
        rc = write_from(c, fd, src, src_ud);
    if (fd >= 0 && close(fd) < 0 && rc == DVAL_OK)
        rc = dval__call_fail(c, DVAL_EIO, "close: %s", strerror(errno));
    close(t.root);
    return rc;
}

int lx_file_download(void *ud, dval_call *c, const char *sbid,
                     const char *path, dval_data_fn sink, void *sink_ud)
{
    char buf[CHUNK];
    confined t;
    int rc = confine(ud, c, sbid, path, -1, &t);
    if (rc != DVAL_OK)
        return rc;
    /* Downloads carry results: no symlink anywhere on the path, no FIFO
     * (O_NONBLOCK: opening one must not hang), nothing with a second hard
     * link (it may be another validation's file). */
    struct open_how how = { .flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                                     O_CLOEXEC,
                            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
                                       RESOLVE_NO_MAGICLINKS };
    int fd = (int)syscall(SYS_openat2, t.root, t.rel[0] ? t.rel : ".", &how,
                          sizeof how);
    close(t.root);
    if (fd < 0 && errno == ELOOP)
        return dval__call_fail(c, DVAL_ENOTFOUND, "%s: a symbolic link "
                               "(refused)", path);
    if (fd < 0)
        return dval__call_fail(c, errno_status(errno), "%s: %s", path,
                               strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
        close(fd);
        return dval__call_fail(c, S_ISREG(st.st_mode) ? DVAL_EFORBIDDEN
                               : DVAL_ENOTFOUND, "%s is not a plain file%s",
                               path, S_ISREG(st.st_mode) ? " (it has other "
                               "hard links: refused)" : "");
    }
    if (c->struct_size >= offsetof(dval_call, size_hint) + sizeof c->size_hint)
        c->size_hint = st.st_size;   /* a download into memory: one block */
    for (;;) {
        if (canceled(c)) {
            rc = dval__call_fail(c, DVAL_ECANCELED, "canceled");
            break;
        }
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = dval__call_fail(c, DVAL_EIO, "read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (sink && sink(buf, (size_t)n, sink_ud) != 0) {
            rc = dval__call_fail(c, DVAL_EABORTED, "download sink stopped");
            break;
        }
    }
    close(fd);
    return rc;
}
