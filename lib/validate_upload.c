/* dval_validate's upload phase: a fresh working directory in the sandbox,
 * then the source tree, file by file, keeping its shape. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "validate.h"
#include "workdir.h"

#define MAX_DEPTH 64

static int bad(dval__vctx *v, int rc, const char *msg)
{
    return dval__validate_fail(v, rc, "upload", msg);
}

/* size: what the lstat or stat before the upload saw (a second stat
 * after it would cost a system call per file for a counter) */
static int upload_one(dval__vctx *v, const char *local, const char *rel,
                      off_t size)
{
    char remote[PATH_MAX + 300];
    dval__fmt(remote, sizeof remote, "%s/%s", v->workdir, rel);
    int rc = dval_sandbox_upload_file(v->sb, remote, local);
    if (rc) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "%s: %s", rel, dval_sandbox_errmsg(v->sb));
        return bad(v, rc, m);
    }
    v->bytes += (size_t)size;
    v->files++;
    return DVAL_OK;
}

/* A symlink is uploaded as the file it points to, but only when that file
 * lies inside the source directory: machine-generated trees must not be
 * able to pull host files (~/.ssh, /etc) into a sandbox. Links to
 * directories inside the tree are skipped; the real directory is walked. */
static int upload_link(dval__vctx *v, const char *path, const char *rel)
{
    char real[PATH_MAX];
    size_t n = strlen(v->root);
    char m[PATH_MAX + 100];
    if (!realpath(path, real) || strncmp(real, v->root, n) ||
        (real[n] != '/' && real[n] != '\0')) {
        dval__fmt(m, sizeof m, "symlink %s points outside the source "
                  "directory (or nowhere)", rel);
        return bad(v, DVAL_EINVAL, m);
    }
    struct stat st;
    if (stat(real, &st))
        return bad(v, DVAL_EIO, strerror(errno));
    if (S_ISREG(st.st_mode))
        return upload_one(v, real, rel, st.st_size);
    return DVAL_OK;
}

static int walk(dval__vctx *v, const char *dir, const char *rel, int depth);

/* One directory entry: a directory is walked, a file uploaded, a link
 * followed inside the tree; fifos, sockets and devices have no content. */
static int upload_entry(dval__vctx *v, const char *dir, const char *rel,
                        const char *name, int depth)
{
    char path[PATH_MAX], r[PATH_MAX];
    dval__fmt(path, sizeof path, "%s/%s", dir, name);
    if (*rel)
        dval__fmt(r, sizeof r, "%s/%s", rel, name);
    else
        dval__fmt(r, sizeof r, "%s", name);
    struct stat st;
    if (lstat(path, &st))
        return bad(v, DVAL_EIO, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return walk(v, path, r, depth + 1);
    if (S_ISREG(st.st_mode))
        return upload_one(v, path, r, st.st_size);
    if (S_ISLNK(st.st_mode))
        return upload_link(v, path, r);
    return DVAL_OK;
}

static int walk(dval__vctx *v, const char *dir, const char *rel, int depth)
{
    if (depth > MAX_DEPTH)
        return bad(v, DVAL_EINVAL, "source tree is too deep");
    DIR *d = opendir(dir);
    if (!d) {
        char m[PATH_MAX + 100];
        dval__fmt(m, sizeof m, "%s: %s", dir, strerror(errno));
        return bad(v, DVAL_EIO, m);
    }
    int rc = DVAL_OK;
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        /* results/ is the program's output directory: a local copy left by
         * an earlier run must not pass for this run's results */
        if (depth == 0 && !strcmp(e->d_name, "results"))
            continue;
        rc = upload_entry(v, dir, rel, e->d_name, depth);
    }
    closedir(d);
    return rc;
}

/* Claims the thread id's working directory until close: a second run on
 * the same thread id is refused (DVAL_EBUSY) before it can empty the
 * directory under the first. */
static int claim_workdir(dval__vctx *v)
{
    int rc = dval__sandbox_claim(v->sb, v->workdir, &v->claim);
    if (rc == DVAL_EBUSY) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "thread id %s: %s", v->thread_id,
                  dval_sandbox_errmsg(v->sb));
        return bad(v, rc, m);
    }
    return rc ? bad(v, rc, dval_sandbox_errmsg(v->sb)) : DVAL_OK;
}

/* A fresh workdir each time: a sandbox is reused across runs, and a rerun
 * with the same thread id must not see the last run's files. The executor
 * makes the directory (the local one gives it the validation's own uid),
 * the clean-up runs inside it, as its owner. A workdir nobody can have
 * used gets its results directory from the executor instead: one file
 * request, not a command (a session, a process, a log stream), and only
 * one: dval_sandbox_mkdir makes missing parents (PROTOCOL 7.5, and the
 * local executor with the same owner), so the results directory brings
 * the workdir with it. */
static int fresh_workdir(dval__vctx *v)
{
    int rc;
    if (v->workdir_unused) {
        v->workdir_unused = 0;   /* a second upload here cleans up */
        rc = dval_sandbox_mkdir(v->sb, v->resdir);
        return rc ? bad(v, rc, dval_sandbox_errmsg(v->sb)) : DVAL_OK;
    }
    rc = dval_sandbox_mkdir(v->sb, v->workdir);
    if (rc)
        return bad(v, rc, dval_sandbox_errmsg(v->sb));
    dval__buf cmd = {0};
    /* the last run may have left its own directories unwritable to itself
     * (chmod 0555): its owner can always give the rights back (chmod -R
     * does not follow symbolic links). Paths relative to the workdir, the
     * command's cwd: an executor may give the sandbox's paths other names
     * on its side (an unisolated local sandbox is a host directory). */
    rc = dval__buf_appendf(&cmd, "chmod -R u+rwx . 2>/dev/null; "
                           "find . -mindepth 1 -delete && mkdir -p "
                           DVAL__RESULTS_NAME);
    int code = -1;
    if (rc) {
        dval__buf_free(&cmd);
        return bad(v, rc, NULL);
    }
    rc = dval__validate_quiet_exec(v, cmd.data, v->workdir, NULL, &code);
    dval__buf_free(&cmd);
    if (rc)
        return bad(v, rc, dval_session_errmsg(v->sess));
    if (code != 0)
        return bad(v, DVAL_EEXEC, "could not create the working directory "
                   "in the sandbox");
    return DVAL_OK;
}

int dval__validate_upload(dval__vctx *v)
{
    int rc = claim_workdir(v);
    if (rc == DVAL_OK)
        rc = fresh_workdir(v);
    if (rc)
        return rc;
    v->sb->cancel_fd = dval__cancel_fd(v->req.cancel); /* a long upload */
    rc = walk(v, v->root, "", 0);
    /* after the tree: a file of its own by that name does not replace it */
    rc = rc ? rc : dval__inputs_upload(v);
    v->sb->cancel_fd = -1;
    return rc;
}
