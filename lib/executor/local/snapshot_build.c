/* Snapshots of the local executor: an overlay upper layer produced by
 * running the build commands over the host's read-only root (helper
 * "build"), cached under snapshots/<name>/ with a Daytona-like state file
 * and the build log. A lock file makes concurrent creates build once. */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
    if (out) {
        const char *r = lx_kv_get(kv, "error_reason");
        dval__strlcpy(out->id, name, sizeof out->id);
        dval__strlcpy(out->name, name, sizeof out->name);
        out->state = dval_snapshot_state_parse(lx_kv_get(kv, "state"));
        dval__strlcpy(out->error_reason, r ? r : "",
                      sizeof out->error_reason);
    }
    return DVAL_OK;
}

static int save_state(const char *dir, const char *name, int state,
                      const char *reason)
{
    lx_kv kv = { 0 };
    char p[4200];
    int rc = lx_kv_set(&kv, "name", name);
    rc |= lx_kv_set(&kv, "state", dval_snapshot_state_name(state));
    rc |= lx_kv_set(&kv, "error_reason", reason ? reason : "");
    rc |= lx_kv_setnum(&kv, "updated", lx_wall_ms());
    dval__fmt(p, sizeof p, "%s/state", dir);
    if (rc == DVAL_OK)
        rc = lx_kv_save(&kv, p);
    lx_kv_free(&kv);
    return rc;
}

int lx_snapshot_get(void *ud, dval_call *c, const char *id,
                    dval_snapshot_info *out)
{
    char dir[4096];
    lx_kv kv;
    int rc = load(ud, c, id, dir, sizeof dir, &kv, out);
    if (rc == DVAL_OK)
        lx_kv_free(&kv);
    return rc;
}

int lx_snapshot_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out)
{
    return lx_snapshot_get(ud, c, id, out); /* local snapshots never idle */
}

int lx_snapshot_layer(lx *x, dval_call *c, const char *name, char *dst,
                      size_t cap)
{
    char dir[4096];
    lx_kv kv;
    int rc = load(x, c, name, dir, sizeof dir, &kv, NULL);
    if (rc != DVAL_OK)
        return rc;
    const char *st = lx_kv_get(&kv, "state");
    if (!st || strcmp(st, "active") != 0)
        rc = dval__call_fail(c, DVAL_ESTATE, "snapshot %s is %s, not active",
                             name, st ? st : "unknown");
    lx_kv_free(&kv);
    dval__fmt(dst, cap, "%s/layer", dir);
    return rc;
}

int lx_snapshot_delete(void *ud, dval_call *c, const char *id)
{
    lx *x = ud;
    char dir[4096], p[4200];
    lx_kv kv;
    int rc = load(x, c, id, dir, sizeof dir, &kv, NULL);
    if (rc != DVAL_OK)
        return rc;
    lx_kv_free(&kv);
    dval__fmt(p, sizeof p, "%s/lock", dir);
    int lk = lx_lock(c, p, c && c->timeout_ms > 0 ? c->timeout_ms : 60000);
    if (lk < 0)
        return lk;
    dval__fmt(p, sizeof p, "%s/snapshots/.trash-%d-%lld-%lu",
              x->state_dir, (int)getpid(), (long long)lx_wall_ms(), lx_seq());
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
    lx_kv kv;
    int rc = load(ud, c, id, dir, sizeof dir, &kv, NULL);
    if (rc != DVAL_OK)
        return rc;
    lx_kv_free(&kv);
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
        dval_snapshot_info info;
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

struct build_io {
    int logfd;
    dval_chunk_fn log;
    void *log_ud;
    char last[512];             /* last line, for error_reason */
};

static void note_last(struct build_io *io, const char *d, size_t n)
{
    /* keep the last complete non-empty line */
    size_t end = n;
    while (end > 0 && d[end - 1] == '\n')
        end--;
    if (end == 0)
        return;
    size_t start = end;
    while (start > 0 && d[start - 1] != '\n')
        start--;
    dval__fmt(io->last, sizeof io->last, "%.*s", (int)(end - start),
              d + start);
}

/* Pumps the build output until EOF, deadline or cancel. */
static int pump(dval_call *c, int fd, int64_t end, struct build_io *io)
{
    char buf[65536];
    for (;;) {
        int64_t left = end - dval__now_ms();
        if (left <= 0)
            return dval__call_fail(c, DVAL_ETIMEOUT, "build timed out");
        struct pollfd p[2] = { { fd, POLLIN, 0 },
                               { c ? c->cancel_fd : -1, POLLIN, 0 } };
        if (poll(p, 2, left > 1000 ? 1000 : (int)left) < 0 && errno != EINTR)
            return dval__call_fail(c, DVAL_EEXEC, "poll: %s", strerror(errno));
        if (p[1].revents & POLLIN)
            return dval__call_fail(c, DVAL_ECANCELED, "build canceled");
        if (!p[0].revents)
            continue;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return DVAL_OK;
        if (write(io->logfd, buf, (size_t)n) != n)
            return dval__call_fail(c, DVAL_EIO, "cannot write the build log");
        note_last(io, buf, (size_t)n);
        if (io->log && io->log(DVAL_STDOUT, buf, (size_t)n, io->log_ud) != 0)
            return dval__call_fail(c, DVAL_EABORTED, "build log callback "
                                   "stopped the build");
    }
}

/* Runs one helper invocation, output into the log; *code is its exit. */
static int run_step(lx *x, dval_call *c, char **argv, int64_t end,
                    struct build_io *io, int *code)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return dval__call_fail(c, DVAL_EEXEC, "pipe: %s", strerror(errno));
    int fds[4] = { -1, p[1], p[1], -1 };
    pid_t pid;
    int rc = lx_spawn(x, c, argv, fds, &pid, 1);
    close(p[1]);
    if (rc == DVAL_OK) {
        rc = pump(c, p[0], end, io);
        if (rc != DVAL_OK)
            kill(-pid, SIGKILL); /* the helper's group holds the build ns */
        lx_wait(pid, code);
    }
    close(p[0]);
    return rc;
}

static int build(lx *x, dval_call *c, const char *dir,
                 const dval_snapshot_spec *s, int64_t end,
                 struct build_io *io, int *code)
{
    char layer[4200], work[4200], mnt[4200];
    dval__fmt(layer, sizeof layer, "%s/layer", dir);
    dval__fmt(work, sizeof work, "%s/work", dir);
    dval__fmt(mnt, sizeof mnt, "%s/mnt", dir);
    lx_rmtree(layer);
    lx_rmtree(work);
    if (lx_mkdirs(layer, 0755) < 0 || lx_mkdirs(work, 0700) < 0 ||
        lx_mkdirs(mnt, 0700) < 0)
        return dval__call_fail(c, DVAL_EIO, "mkdir in %s: %s", dir,
                               strerror(errno));
    size_t n = 0;
    for (const char *const *b = s->build_commands; b && *b; b++)
        n++;
    *code = 0;
    int isolated;
    int rc = lx_isolation(x, c, &isolated);
    if (rc != DVAL_OK || n == 0)
        return rc;
    if (!isolated) {
        /* unisolated: each step runs plainly with the layer as its cwd */
        for (size_t i = 0; i < n && rc == DVAL_OK && *code == 0; i++) {
            char *argv[] = { NULL, "exec", "-", layer, "/", "--",
                             (char *)s->build_commands[i], NULL };
            rc = run_step(x, c, argv, end, io, code);
        }
        return rc;
    }
    char **argv = dval__calloc(n + 6, sizeof *argv);
    if (!argv)
        return DVAL_ENOMEM;
    argv[1] = "build";
    argv[2] = layer;
    argv[3] = work;
    argv[4] = mnt;
    for (size_t i = 0; i < n; i++)
        argv[5 + i] = (char *)s->build_commands[i];
    rc = run_step(x, c, argv, end, io, code);
    dval__free(argv);
    return rc;
}

/* Under the lock: a state file already there means the name is taken (a
 * build left pending/building by a dead process is marked failed). */
static int taken(const char *dir, const char *name)
{
    char p[4200];
    lx_kv kv;
    dval__fmt(p, sizeof p, "%s/state", dir);
    if (lx_kv_load(&kv, p) != DVAL_OK)
        return 0;
    const char *st = lx_kv_get(&kv, "state");
    if (st && (!strcmp(st, "building") || !strcmp(st, "pending")))
        save_state(dir, name, DVAL_SNAPSHOT_BUILD_FAILED,
                   "build interrupted (the building process exited)");
    lx_kv_free(&kv);
    return 1;
}

int lx_snapshot_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log,
                       void *log_ud)
{
    lx *x = ud;
    char dir[4096], p[4200];
    if (!s || !s->name)
        return dval__call_fail(c, DVAL_EINVAL, "snapshot name required");
    int rc = snap_dir(x, c, s->name, dir, sizeof dir);
    if (rc != DVAL_OK)
        return rc;
    if (s->image)
        LX_LOG(x, DVAL_LOG_DEBUG, "local executor: image %s ignored; "
               "snapshots layer over the host's root", s->image);
    if (s->dockerfile)
        LX_LOG(x, DVAL_LOG_WARN, "local executor: dockerfile ignored; only "
               "build_commands are run");
    int64_t budget = s->build_timeout_ms > 0 ? s->build_timeout_ms : 3600000;
    if (c && c->timeout_ms > 0 && c->timeout_ms < budget)
        budget = c->timeout_ms;
    int64_t end = dval__now_ms() + budget;
    if (lx_mkdirs(dir, 0755) < 0)
        return dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", dir,
                               strerror(errno));
    dval__fmt(p, sizeof p, "%s/lock", dir);
    int lk = lx_lock(c, p, budget);
    if (lk < 0)
        return lk;
    if (taken(dir, s->name)) {
        lx_unlock(lk);
        lx_snapshot_get(x, NULL, s->name, out);
        return dval__call_fail(c, DVAL_EEXISTS, "snapshot %s exists",
                               s->name);
    }
    struct build_io io = { -1, log, log_ud, "" };
    dval__fmt(p, sizeof p, "%s/build.log", dir);
    io.logfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    rc = io.logfd < 0 ? dval__call_fail(c, DVAL_EIO, "open %s", p) : DVAL_OK;
    if (rc == DVAL_OK)
        rc = save_state(dir, s->name, DVAL_SNAPSHOT_BUILDING, NULL);
    int code = 0;
    if (rc == DVAL_OK) {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: building snapshot %s",
               s->name);
        rc = build(x, c, dir, s, end, &io, &code);
    }
    if (io.logfd >= 0)
        close(io.logfd);
    if (rc == DVAL_EISOLATION || rc == DVAL_ECANCELED) {
        lx_rmtree(dir); /* nothing was built: leave no trace */
    } else if (rc != DVAL_OK || code != 0) {
        char why[DVAL_REASON_MAX];
        dval__fmt(why, sizeof why, "%s", rc != DVAL_OK && c ? c->errmsg
                  : io.last[0] ? io.last : "build failed");
        save_state(dir, s->name, DVAL_SNAPSHOT_BUILD_FAILED, why);
    } else {
        save_state(dir, s->name, DVAL_SNAPSHOT_ACTIVE, NULL);
    }
    lx_unlock(lk);
    if (rc == DVAL_OK && out)
        rc = lx_snapshot_get(x, c, s->name, out);
    return rc;
}
