/* Snapshots of the local executor: an image (image.c: a cached Debian 12
 * root, or an imported one) plus an overlay upper layer produced by
 * running the build commands inside that image (helper "build"), cached
 * under snapshots/<name>/ with a Daytona-like state file, the build log
 * and "lower" (the image's path). A lock file makes concurrent creates
 * build once. A snapshot without build commands costs no helper run. */
#include "dockerfile.h"
#include "local.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int snap_dir(lx *x, dval_call *c, const char *name, char *dir,
                    size_t cap)
{
    char msg[256], enc[1024];
    if (dval__check_name("snapshot", name, 1, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s", msg);
    lx_encode_name(enc, sizeof enc, name);
    dval__fmt(dir, cap, "%s/snapshots/%s", x->state_dir, enc);
    return DVAL_OK;
}

/* A snapshot's one-line record <dir>/<name>: "lower" (the image's path),
 * "image" (the image chosen, image_choice.c). */
static int read_record(const char *dir, const char *name, char *dst,
                       size_t cap)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/%s", dir, name);
    return lx_read_text(p, dst, cap);
}

/* The first line of a snapshot's /etc/dval/runtime (its layer's, else its
 * image's), then the image chosen for it where a name has two sources
 * (image_choice.c), printable ASCII only; "" when it has neither. */
static void read_runtime(const char *dir, char *dst, size_t cap)
{
    char p[4200], lower[4096], img[300];
    read_record(dir, "lower", lower, sizeof lower);
    dval__fmt(p, sizeof p, "%s/layer/etc/dval/runtime", dir);
    if (lx_read_text(p, dst, cap) < 0 && lower[0] == '/' &&
        !strchr(lower, ':')) {
        dval__fmt(p, sizeof p, "%s/etc/dval/runtime", lower);
        lx_read_text(p, dst, cap);
    }
    read_record(dir, "image", img, sizeof img);
    size_t n = strlen(dst);
    if (img[0])
        dval__fmt(dst + n, cap - n, n ? " (image %s)" : "image %s", img);
    for (char *q = dst; *q; q++)
        if (*q < 0x20 || *q > 0x7e)
            *q = '?';
}

static int load(lx *x, dval_call *c, const char *name, char *dir, size_t cap,
                lx_kv *kv, dval_snapshot_info *out)
{
    int rc = snap_dir(x, c, name, dir, cap);
    if (rc != DVAL_OK)
        return rc;
    char p[4200];
    dval__fmt(p, sizeof p, "%s/state", dir);
    rc = lx_kv_load(kv, p);
    if (rc != DVAL_OK)
        return dval__call_fail(c, rc, rc == DVAL_ENOTFOUND
                               ? "snapshot %s not found"
                               : "cannot read snapshot %s", name);
    if (!lx_kv_format_ok(kv)) { /* a cache: never run, built anew */
        lx_kv_free(kv);
        return dval__call_fail(c, DVAL_ENOTFOUND, "snapshot %s was made by "
                               "another format of the local executor's "
                               "state: the next create builds it anew",
                               name);
    }
    if (out) {
        const char *r = lx_kv_get(kv, "error_reason");
        dval__strlcpy(out->id, name, sizeof out->id);
        dval__strlcpy(out->name, name, sizeof out->name);
        out->state = dval_snapshot_state_parse(lx_kv_get(kv, "state"));
        dval__strlcpy(out->error_reason, r ? r : "",
                      sizeof out->error_reason);
        if (out->struct_size >= offsetof(dval_snapshot_info, runtime) +
                                   sizeof out->runtime)
            read_runtime(dir, out->runtime, sizeof out->runtime);
    }
    return DVAL_OK;
}

static int save_state(const char *dir, const char *name, int state,
                      const char *reason)
{
    lx_kv kv = { 0 };
    char p[4200];
    int rc = lx_kv_set(&kv, "name", name);
    rc |= lx_kv_setnum(&kv, "format", LX_STATE_FORMAT);
    rc |= lx_kv_set(&kv, "state", dval_snapshot_state_name(state));
    rc |= lx_kv_set(&kv, "error_reason", reason ? reason : "");
    rc |= lx_kv_setnum(&kv, "updated", lx_wall_ms());
    dval__fmt(p, sizeof p, "%s/state", dir);
    if (rc == DVAL_OK)
        rc = lx_kv_save(&kv, p);
    lx_kv_free(&kv);
    return rc;
}

/* The directory of snapshot name, which exists (in this format). */
static int locate(lx *x, dval_call *c, const char *name, char *dir,
                  size_t cap, dval_snapshot_info *out)
{
    lx_kv kv;
    int rc = load(x, c, name, dir, cap, &kv, out);
    if (rc == DVAL_OK)
        lx_kv_free(&kv);
    return rc;
}

int lx_snapshot_get(void *ud, dval_call *c, const char *id,
                    dval_snapshot_info *out)
{
    char dir[4096];
    return locate(ud, c, id, dir, sizeof dir, out);
}

int lx_snapshot_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out)
{
    return lx_snapshot_get(ud, c, id, out); /* local snapshots never idle */
}

/* The directory of snapshot name, which is active. */
static int locate_active(lx *x, dval_call *c, const char *name, char *dir,
                         size_t cap)
{
    /* state only: a zero struct_size skips the runtime file */
    dval_snapshot_info info = { .struct_size = 0 };
    int rc = locate(x, c, name, dir, cap, &info);
    if (rc == DVAL_OK && info.state != DVAL_SNAPSHOT_ACTIVE)
        rc = dval__call_fail(c, DVAL_ESTATE, "snapshot %s is %s, not active",
                             name, dval_snapshot_state_name(info.state));
    return rc;
}

int lx_snapshot_active(lx *x, dval_call *c, const char *name)
{
    char dir[4096];
    return locate_active(x, c, name, dir, sizeof dir);
}

int lx_snapshot_layer(lx *x, dval_call *c, const char *name,
                      const char *image, char *dst, size_t cap)
{
    if (!name || !*name)
        return lx_default_root(x, c, image, dst, cap);
    char dir[4096], lower[4096];
    int rc = locate_active(x, c, name, dir, sizeof dir);
    if (rc == DVAL_OK && read_record(dir, "lower", lower, sizeof lower) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "cannot read %s/lower: %s", dir,
                             strerror(errno));
    if (rc == DVAL_OK && !strcmp(lower, LX_LOWER_NONE))
        rc = dval__call_fail(c, DVAL_ESTATE, "snapshot %s was built without "
                             "isolation (allow_unisolated): an isolated "
                             "sandbox cannot start from it; delete it and "
                             "create it again", name);
    if (rc != DVAL_OK)
        return rc;
    if (!strcmp(lower, LX_ROOT_HOST))
        dval__fmt(dst, cap, LX_ROOT_HOST ":%s/layer", dir);
    else
        dval__fmt(dst, cap, "%s/layer:%s", dir, lower);
    return DVAL_OK;
}

int lx_snapshot_delete(void *ud, dval_call *c, const char *id)
{
    lx *x = ud;
    char dir[4096], p[4200];
    int rc = locate(x, c, id, dir, sizeof dir, NULL);
    if (rc != DVAL_OK)
        return rc;
    dval__fmt(p, sizeof p, "%s/lock", dir);
    int lk = lx_lock(c, p, c && c->timeout_ms > 0 ? c->timeout_ms : 60000);
    if (lk < 0)
        return lk;
    dval__fmt(p, sizeof p, "%s/snapshots/.trash-%d-%lld-%lu",
              x->state_dir, (int)getpid(), (long long)lx_wall_ms(), lx_seq());
    char svc[4200]; /* the shared services' tmpfs (services.c) */
    dval__fmt(svc, sizeof svc, "%s/services", dir);
    umount2(svc, MNT_DETACH);
    if (rename(dir, p) < 0 || lx_rmtree(p) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "cannot remove %s: %s", dir,
                             strerror(errno));
    lx_unlock(lk);
    return rc;
}

/* Replays build.log from `from`; follows it while another process is
 * still building. */
int lx_snapshot_logs(void *ud, dval_call *c, const char *id, uint64_t from,
                     dval_chunk_fn log, void *log_ud)
{
    char dir[4096], p[4200], buf[65536];
    int rc = locate(ud, c, id, dir, sizeof dir, NULL);
    if (rc != DVAL_OK)
        return rc;
    dval__fmt(p, sizeof p, "%s/build.log", dir);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return DVAL_OK; /* nothing logged yet */
    int64_t end = c && c->timeout_ms > 0 ? dval__now_ms() + c->timeout_ms : 0;
    off_t off = (off_t)from;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n > 0) {
            off += n;
            if (log && log(DVAL_STDOUT, buf, (size_t)n, log_ud) != 0) {
                rc = dval__call_fail(c, DVAL_EABORTED, "log callback");
                break;
            }
            continue;
        }
        /* state only: a zero struct_size skips the runtime file */
        dval_snapshot_info info = { .struct_size = 0 };
        if (lx_snapshot_get(ud, NULL, id, &info) != DVAL_OK ||
            (info.state != DVAL_SNAPSHOT_BUILDING &&
             info.state != DVAL_SNAPSHOT_PENDING))
            break;
        if (end && dval__now_ms() >= end) {
            rc = dval__call_fail(c, DVAL_ETIMEOUT, "build still running");
            break;
        }
        if (dval__sleep_ms(100, c ? c->cancel_fd : -1) != 0) {
            rc = dval__call_fail(c, DVAL_ECANCELED, "canceled");
            break;
        }
    }
    close(fd);
    return rc;
}

/* The image under the snapshot's layer, written to <dir>/lower: the
 * host-root opt-in ("host") unless the image names a local source, else
 * a cached Debian image or an imported root. */
static int pick_root(lx *x, dval_call *c, const char *dir,
                     const dval_snapshot_spec *s, int64_t end,
                     lx_build_io *io, char *lower, size_t cap)
{
    lx_image img;
    int rc = lx_image_parse(c, s->image, &img);
    if (rc != DVAL_OK)
        return rc;
    if (lx_image_is_debian(img.kind) && lx_host_root_opt_in(x)) {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: DVAL_LOCAL_HOST_ROOT=1: "
               "snapshot %s runs over the host's system directories "
               "(image %s not used)", s->name, s->image ? s->image : "-");
        dval__fmt(lower, cap, LX_ROOT_HOST);
    } else if (img.kind == LX_IMG_DOTNET) { /* the registry's, or not */
        rc = lx_image_choose(x, c, dir, img.path, end, io, lower, cap);
    } else if (lx_image_is_debian(img.kind)) {
        rc = lx_image_debian(x, c, img.kind, end, io, lower, cap);
    } else {
        rc = lx_image_import(x, c, dir, &img, end, io, lower, cap);
    }
    if (rc != DVAL_OK)
        return rc;
    char p[4200];
    dval__fmt(p, sizeof p, "%s/lower", dir);
    return lx_write_text(c, p, lower);
}

static int build(lx *x, dval_call *c, const char *dir,
                 const dval_snapshot_spec *s, int64_t end,
                 lx_build_io *io, int *code)
{
    char layer[4200], work[4200], mnt[4200], skel[4200], lower[4096];
    dval__fmt(layer, sizeof layer, "%s/layer", dir);
    dval__fmt(work, sizeof work, "%s/work", dir);
    dval__fmt(mnt, sizeof mnt, "%s/mnt", dir);
    dval__fmt(skel, sizeof skel, "%s/skel", dir);
    lx_rmtree(layer);
    lx_rmtree(work);
    if (lx_mkdirs(layer, 0755) < 0 || lx_mkdirs(work, 0700) < 0 ||
        lx_mkdirs(mnt, 0700) < 0 || lx_mkdirs(skel, 0755) < 0)
        return dval__call_fail(c, DVAL_EIO, "mkdir in %s: %s", dir,
                               strerror(errno));
    size_t n = 0;
    for (const char *const *b = s->build_commands; b && *b; b++)
        n++;
    *code = 0;
    int isolated;
    int rc = lx_isolation(x, c, &isolated);
    if (rc != DVAL_OK)
        return rc;
    if (!isolated) { /* the steps on the host, in the layer: no image */
        dval__fmt(lower, sizeof lower, "%s/lower", dir);
        rc = lx_write_text(c, lower, LX_LOWER_NONE);
        dval__fmt(lower, sizeof lower, "%s", LX_ROOT_PLAIN);
    } else {
        rc = pick_root(x, c, dir, s, end, io, lower, sizeof lower);
    }
    if (rc != DVAL_OK || n == 0)
        return rc;
    char **argv = dval__calloc(n + 8, sizeof *argv);
    if (!argv)
        return DVAL_ENOMEM;
    int host = !strcmp(lower, LX_ROOT_HOST), plain = !isolated;
    argv[1] = LX_VERB_BUILD;
    argv[2] = host ? skel : lower;
    argv[3] = plain ? LX_ROOT_PLAIN : host ? LX_ROOT_HOST : LX_ROOT_IMAGE;
    argv[4] = layer;
    argv[5] = work;
    argv[6] = mnt;
    for (size_t i = 0; i < n; i++)
        argv[7 + i] = (char *)s->build_commands[i];
    rc = lx_run_step(x, c, argv, end, io, code);
    dval__free(argv);
    return rc;
}

/* Under the lock: a state file already there means the name is taken (a
 * build left pending/building by a dead process is marked failed); one
 * of another format is cleared away. */
static int taken(const char *dir, const char *name)
{
    char p[4200];
    lx_kv kv;
    dval__fmt(p, sizeof p, "%s/state", dir);
    if (lx_kv_load(&kv, p) != DVAL_OK)
        return 0;
    if (!lx_kv_format_ok(&kv)) { /* built anew in its place */
        lx_kv_free(&kv);
        dval__fmt(p, sizeof p, "%s/services", dir); /* services.c's tmpfs */
        umount2(p, MNT_DETACH);
        lx_empty_dir(dir, "lock");
        return 0;
    }
    const char *st = lx_kv_get(&kv, "state");
    if (st && (!strcmp(st, "building") || !strcmp(st, "pending")))
        save_state(dir, name, DVAL_SNAPSHOT_BUILD_FAILED,
                   "build interrupted (the building process exited)");
    lx_kv_free(&kv);
    return 1;
}

/* The build's budget: the spec's timeout, capped by the call's. */
static int64_t build_budget(const dval_call *c, const dval_snapshot_spec *s)
{
    int64_t budget = s->build_timeout_ms > 0 ? s->build_timeout_ms : 3600000;
    if (c && c->timeout_ms > 0 && c->timeout_ms < budget)
        budget = c->timeout_ms;
    return budget;
}

/* Statuses of a build that never began: isolation missing, refused,
 * stopped by the caller, or an image that could not be pulled (the
 * registry unreachable, refusing, or sending what does not verify: the
 * next create tries again, with whatever blobs were verified cached). */
static int nothing_built(int rc)
{
    static const int none[] = {
        DVAL_EISOLATION, DVAL_ECANCELED, DVAL_EABORTED, DVAL_EUNSUPPORTED,
        DVAL_EINVAL, DVAL_ENETWORK, DVAL_ESERVER, DVAL_ERATELIMIT,
        DVAL_EAUTH, DVAL_EFORBIDDEN, DVAL_ENOTFOUND, DVAL_EPROTOCOL,
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        if (rc == none[i])
            return 1;
    return 0;
}

/* Under the lock: builds into dir, logging to its build.log, and records
 * the outcome in its state (active, or build_failed and why); a build
 * that never started (no isolation, refused) or that the caller stopped
 * (canceled, its log callback) leaves no trace. */
static int build_and_record(lx *x, dval_call *c, const char *dir,
                            const dval_snapshot_spec *s, int64_t end,
                            lx_build_io *io)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/build.log", dir);
    io->logfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = io->logfd < 0 ? dval__call_fail(c, DVAL_EIO, "open %s", p)
             : DVAL_OK;
    if (rc == DVAL_OK)
        rc = save_state(dir, s->name, DVAL_SNAPSHOT_BUILDING, NULL);
    int code = 0;
    if (rc == DVAL_OK) {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: building snapshot %s",
               s->name);
        rc = build(x, c, dir, s, end, io, &code);
    }
    if (io->logfd >= 0)
        close(io->logfd);
    if (nothing_built(rc)) {
        /* nothing was built, or the caller stopped it: leave no trace
         * (a build_failed one would stay until removed by hand) */
        lx_rmtree(dir);
    } else if (rc != DVAL_OK || code != 0) {
        char why[DVAL_REASON_MAX];
        dval__fmt(why, sizeof why, "%s", rc != DVAL_OK && c ? c->errmsg
                  : io->last[0] ? io->last : "build failed");
        save_state(dir, s->name, DVAL_SNAPSHOT_BUILD_FAILED, why);
    } else {
        save_state(dir, s->name, DVAL_SNAPSHOT_ACTIVE, NULL);
    }
    return rc;
}

/* Under the lock: a new snapshot built from s (whose image was checked). */
static int create_locked(lx *x, dval_call *c, const char *dir,
                         const dval_snapshot_spec *s, int64_t end,
                         dval_snapshot_info *out, dval_chunk_fn log,
                         void *log_ud)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/lock", dir);
    int64_t left = end - dval__now_ms();
    int lk = lx_lock(c, p, left > 0 ? left : 1); /* 0 would wait forever */
    if (lk < 0)
        return lk;
    if (taken(dir, s->name)) {
        lx_unlock(lk);
        lx_snapshot_get(x, NULL, s->name, out);
        return dval__call_fail(c, DVAL_EEXISTS, "snapshot %s exists",
                               s->name);
    }
    lx_build_io io = { .logfd = -1, .log = log, .log_ud = log_ud };
    int rc = build_and_record(x, c, dir, s, end, &io);
    lx_unlock(lk);
    if (rc == DVAL_OK && out)
        rc = lx_snapshot_get(x, c, s->name, out);
    return rc;
}

int lx_snapshot_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log,
                       void *log_ud)
{
    lx *x = ud;
    char dir[4096];
    if (!s || !s->name)
        return dval__call_fail(c, DVAL_EINVAL, "snapshot name required");
    int64_t end = dval__now_ms() + build_budget(c, s);
    int rc = snap_dir(x, c, s->name, dir, sizeof dir);
    /* a Dockerfile replaces image and build_commands, as on Daytona */
    dval_snapshot_spec eff = *s;
    lx_dockerfile df = {0};
    if (rc == DVAL_OK && s->dockerfile) {
        rc = lx_dockerfile_parse(c, s->dockerfile, &df);
        eff.image = df.image;
        eff.build_commands = (const char *const *)df.commands;
        eff.dockerfile = NULL;
    }
    lx_image img;
    if (rc == DVAL_OK) /* an unsupported image is refused before any work */
        rc = lx_image_parse(c, eff.image, &img);
    if (rc == DVAL_OK && lx_mkdirs(dir, 0755) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", dir,
                             strerror(errno));
    if (rc == DVAL_OK)
        rc = create_locked(x, c, dir, &eff, end, out, log, log_ud);
    lx_dockerfile_free(&df);
    return rc;
}
