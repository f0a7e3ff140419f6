/* Sandbox members of the local executor vtable (the state file and the init
 * process are in sandbox_state.c). A per-sandbox lock file
 * serialises state changes between threads and processes. */
#include "local.h"
#include "init_evict.h"
#include "upper_disk.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Locks the sandbox then loads it (refreshing its state). */
static int open_locked(lx *x, dval_call *c, const char *id, lx_sb *sb,
                       dval_sandbox_info *info, int *lockfd)
{
    char dir[4096], p[4200];
    int rc = lx_sb_path(x, c, id, dir, sizeof dir);
    if (rc != DVAL_OK)
        return rc;
    struct stat st;
    if (stat(dir, &st) < 0)
        return dval__call_fail(c, DVAL_ENOTFOUND, "sandbox %s not found", id);
    dval__fmt(p, sizeof p, "%s/lock", dir);
    *lockfd = lx_lock(c, p, 60000);
    if (*lockfd < 0)
        return *lockfd;
    rc = lx_sb_open_held(x, c, id, sb, info);
    if (rc != DVAL_OK) {
        lx_unlock(*lockfd);
        *lockfd = -1;
    }
    return rc;
}

int lx_sandbox_get(void *ud, dval_call *c, const char *id,
                   dval_sandbox_info *out)
{
    lx_sb sb;
    int rc = lx_sb_open(ud, c, id, &sb, out);
    if (rc != DVAL_OK)
        return rc;
    lx_sb_close(&sb);
    return rc;
}

static unsigned long long fnv(const char *a, const char *b)
{
    unsigned long long h = 1469598103934665603ULL;
    for (const char *s = a; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ '/') * 1099511628211ULL;
    for (const char *s = b; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int fill_new(lx *x, lx_sb *sb, const dval_sandbox_options *o)
{
    char cg[64];
    dval__fmt(cg, sizeof cg, "sb-%016llx", fnv(x->state_dir, o->name));
    int rc = lx_kv_setnum(&sb->kv, "format", LX_STATE_FORMAT);
    rc |= lx_kv_set(&sb->kv, "name", o->name);
    rc |= lx_kv_set(&sb->kv, "snapshot", o->snapshot ? o->snapshot : "");
    if (!(o->snapshot && *o->snapshot) && o->image && *o->image)
        rc |= lx_kv_set(&sb->kv, "image", o->image);
    rc |= lx_kv_set(&sb->kv, "state", "creating");
    rc |= lx_kv_set(&sb->kv, "cgroup", cg);
    rc |= lx_kv_setnum(&sb->kv, "network", o->network == DVAL_NETWORK_ALLOW);
    rc |= lx_kv_setnum(&sb->kv, "max_pids", o->max_pids > 0 ? o->max_pids
                                                              : 512);
    /* memory_gib is Daytona's unit; the byte field, when set, is finer */
    rc |= lx_kv_setnum(&sb->kv, "max_memory", o->max_memory_bytes > 0
                       ? o->max_memory_bytes : o->memory_gib > 0
                       ? (long long)o->memory_gib << 30 : 2LL << 30);
    rc |= lx_kv_setnum(&sb->kv, "max_cpu_ms", o->max_cpu_ms > 0
                       ? o->max_cpu_ms : 600000);
    if (o->disk_gib > 0)
        rc |= lx_kv_setnum(&sb->kv, "disk_gib", o->disk_gib);
    if (o->cpu > 0)
        rc |= lx_kv_setnum(&sb->kv, "cpu", o->cpu);
    rc |= lx_kv_setnum(&sb->kv, "auto_stop_minutes",
                       o->auto_stop_minutes > 0 ? o->auto_stop_minutes : 0);
    rc |= lx_kv_setnum(&sb->kv, "created", lx_wall_ms());
    for (const char *const *l = o->labels; l && *l; l++)
        rc |= lx_kv_add(&sb->kv, "label", *l);
    if (lx_owned(o)) /* its init removes it with its owner */
        rc |= lx_kv_set(&sb->kv, "owned", "1");
    for (const char *const *e = o->env; e && *e; e++)
        if (strchr(*e, '='))
            rc |= lx_kv_add(&sb->kv, "env", *e);
    return rc ? DVAL_ENOMEM : DVAL_OK;
}

/* Out of sight first (a concurrent get then sees "not found", never half
 * a tree), then removed. */
static int discard(lx *x, const char *dir, const char *name)
{
    char trash[4200];
    dval__fmt(trash, sizeof trash, "%s/sandboxes/.trash-%s-%d-%lld-%lu",
              x->state_dir, name, (int)getpid(), (long long)lx_wall_ms(),
              lx_seq());
    return rename(dir, trash) < 0 || lx_rmtree(trash) < 0 ? -1 : 0;
}

/* The snapshot must exist (with an image, for an isolated sandbox);
 * without one, the image must be a Debian image (it is built, or found in
 * the cache, when the sandbox starts). An unisolated sandbox runs on the
 * host: it needs an active snapshot only. */
static int check_root(lx *x, dval_call *c, const dval_sandbox_options *o)
{
    char layer[4096];
    int isolated;
    int rc = lx_isolation(x, c, &isolated);
    if (rc != DVAL_OK)
        return rc;
    if (o->snapshot && *o->snapshot && !isolated)
        return lx_snapshot_active(x, c, o->snapshot);
    if (o->snapshot && *o->snapshot)
        return lx_snapshot_layer(x, c, o->snapshot, NULL, layer,
                                 sizeof layer);
    lx_image img;
    return lx_image_unsnapshotted(c, o->image, &img);
}

/* The sandbox appears whole: its directory is prepared (state
 * "creating", lock held) under a temporary name and renamed into place,
 * so a concurrent get never finds a directory without a state file, and
 * a concurrent create of the same name fails the rename. The lock's fd
 * (held) in *lk. */
static int place_new(lx *x, dval_call *c, const dval_sandbox_options *o,
                     lx_sb *sb, int *lk)
{
    char tmp[4200], p[4300];
    dval__fmt(tmp, sizeof tmp, "%s/sandboxes/.new-%s-%d-%lu", x->state_dir,
              o->name, (int)getpid(), lx_seq());
    if (mkdir(tmp, 0700) < 0)
        return dval__call_fail(c, DVAL_EIO, "sandbox %s: mkdir %s: %s",
                               o->name, tmp, strerror(errno));
    dval__fmt(p, sizeof p, "%s/lock", tmp);
    *lk = lx_lock(c, p, 60000);
    int rc = *lk < 0 ? *lk : fill_new(x, sb, o);
    if (rc == DVAL_OK) {
        dval__fmt(p, sizeof p, "%s/state", tmp);
        rc = lx_kv_save(&sb->kv, p);
        if (rc != DVAL_OK)
            dval__call_fail(c, rc, "cannot write %s", p);
    }
    if (rc == DVAL_OK && rename(tmp, sb->dir) < 0) {
        int e = errno;
        rc = dval__call_fail(c, e == EEXIST || e == ENOTEMPTY ? DVAL_EEXISTS
                             : DVAL_EIO, "sandbox %s: %s", o->name,
                             e == ENOTEMPTY ? strerror(EEXIST) : strerror(e));
    }
    if (rc != DVAL_OK) {
        lx_rmtree(tmp);
        lx_unlock(*lk);
        *lk = -1;
    }
    return rc;
}

int lx_sandbox_create(void *ud, dval_call *c, const dval_sandbox_options *o,
                      dval_sandbox_info *out)
{
    lx *x = ud;
    lx_sb sb;
    memset(&sb, 0, sizeof sb);
    if (!o || !o->name)
        return dval__call_fail(c, DVAL_EINVAL, "sandbox name required");
    if (o->disk_gib > LX_DISK_GIB_MAX) /* was a 10 GiB disk, unsaid */
        return dval__call_fail(c, DVAL_EINVAL, "local executor: disk_gib %d "
                               "is over its largest disk, %d GiB",
                               (int)o->disk_gib, LX_DISK_GIB_MAX);
    int rc = lx_sb_path(x, c, o->name, sb.dir, sizeof sb.dir);
    rc = rc != DVAL_OK ? rc : check_root(x, c, o);
    rc = rc != DVAL_OK ? rc : lx_disk_room(x, c, o->disk_gib);
    if (rc != DVAL_OK)
        return rc;
    lx_sweep_leftovers(x->state_dir);
    int marked = lx_owned(o);
    if (marked) {
        lx_owner_sweep(x);
        marked = lx_owner_mark(x, o->name);
    }
    int lk = -1;
    rc = place_new(x, c, o, &sb, &lk);
    if (rc == DVAL_OK) {
        sb.locked = 1;
        rc = lx_sb_start(x, c, &sb);
        /* leave no trace of a sandbox that cannot be isolated */
        if (rc == DVAL_EISOLATION || rc == DVAL_ECANCELED)
            discard(x, sb.dir, o->name);
        if (rc == DVAL_OK)
            lx_sb_info(&sb, out);
        lx_unlock(lk);
    }
    struct stat st;
    if (rc != DVAL_OK && marked && stat(sb.dir, &st) < 0)
        lx_owner_unmark(x, o->name); /* no sandbox was left */
    lx_sb_close(&sb);
    return rc;
}

/* A member's work on a sandbox it holds the lock of. */
typedef int (*locked_fn)(lx *x, dval_call *c, lx_sb *sb, void *arg);

/* Locks and loads sandbox id, runs fn, reports its info into out. */
static int with_locked(void *ud, dval_call *c, const char *id,
                       dval_sandbox_info *out, locked_fn fn, void *arg)
{
    lx *x = ud;
    lx_sb sb;
    int lk = -1;
    int rc = open_locked(x, c, id, &sb, NULL, &lk);
    if (rc != DVAL_OK)
        return rc;
    /* the init as recorded, also when not started: stop, delete, reset
     * and recover kill it (lx_sb_kill checks its start time) */
    sb.pid = (pid_t)lx_kv_num(&sb.kv, "pid", 0);
    rc = fn(x, c, &sb, arg);
    lx_sb_info(&sb, out);
    lx_unlock(lk);
    lx_sb_close(&sb);
    return rc;
}

static int do_start(lx *x, dval_call *c, lx_sb *sb, void *arg)
{
    (void)arg;
    const char *st = lx_kv_get(&sb->kv, "state");
    if (!st || strcmp(st, "started") != 0)
        return lx_sb_start(x, c, sb);
    lx_sb_touch(sb);
    return DVAL_OK;
}

int lx_sandbox_start(void *ud, dval_call *c, const char *id,
                     dval_sandbox_info *out)
{
    return with_locked(ud, c, id, out, do_start, NULL);
}

static int do_stop(lx *x, dval_call *c, lx_sb *sb, void *arg)
{
    (void)arg;
    lx_sb_kill(x, sb);
    int rc = lx_sb_set_state(sb, DVAL_SANDBOX_STOPPED, NULL);
    if (rc != DVAL_OK)
        dval__call_fail(c, rc, "cannot save the state of %s",
                        lx_kv_get(&sb->kv, "name"));
    return rc;
}

int lx_sandbox_stop(void *ud, dval_call *c, const char *id,
                    dval_sandbox_info *out)
{
    return with_locked(ud, c, id, out, do_stop, NULL);
}

/* *arg: the sandbox's disk size, for the spare refilled after it. */
static int do_delete(lx *x, dval_call *c, lx_sb *sb, void *arg)
{
    lx_sb_kill(x, sb);
    *(int *)arg = lx_disk_gib(sb);
    /* before the directory goes: no sandbox of the same name can be
     * placed there yet and take the range back */
    lx_uid_range_drop(x, sb);
    if (discard(x, sb->dir, strrchr(sb->dir, '/') + 1) < 0)
        return dval__call_fail(c, DVAL_EIO, "cannot remove %s: %s", sb->dir,
                               strerror(errno));
    lx_owner_unmark(x, strrchr(sb->dir, '/') + 1);
    return DVAL_OK;
}

int lx_sandbox_delete(void *ud, dval_call *c, const char *id)
{
    lx *x = ud;
    int gib = 0;
    int rc = with_locked(ud, c, id, NULL, do_delete, &gib);
    if (!gib) /* not found, not locked: nothing was removed */
        return rc;
    lx_sweep_leftovers(x->state_dir);
    lx_disk_refill(x, gib);
    return rc;
}

/* What the host keeps of a sandbox's uses: its writable layer (never
 * reused), the uid table (thread ids → uids; emptied, or a sandbox reset
 * thousands of times would scan an ever longer table and run out of
 * slots) and the workdir claims (no run holds one: the pool resets
 * after its validation released it). */
int lx_sb_forget_uses(lx *x, dval_call *c, lx_sb *sb, int image)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/disk.img", sb->dir);
    if (image && unlink(p) < 0 && errno != ENOENT)
        return dval__call_fail(c, DVAL_EIO, "reset: cannot remove %s: %s",
                               p, strerror(errno));
    int rc = lx_uid_forget(c, sb->dir);
    if (rc != DVAL_OK)
        return rc;
    /* the directory stays (made again per validation it would be one
     * more new inode on the host's filesystem each time); its files go,
     * but one, which becomes the spare the next claim takes */
    dval__fmt(p, sizeof p, "%s/claims", sb->dir);
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, LX_CLAIM_SPARE) &&
            renameat2(dirfd(d), e->d_name, dirfd(d), LX_CLAIM_SPARE,
                      RENAME_NOREPLACE) < 0 &&
            unlinkat(dirfd(d), e->d_name, 0) < 0)
            LX_LOG(x, DVAL_LOG_DEBUG, "local executor: cannot remove %s/%s: "
                   "%s", p, e->d_name, strerror(errno));
    if (d)
        closedir(d);
    return DVAL_OK;
}

/* The guaranteed reset (struct dval_executor, sandbox_reset), one of two
 * ways: the fast one, which the init does itself and keeps it
 * (sandbox_reset.c); when that cannot be done, or fails, the full one
 * below. Killing the init ends its pid namespace, so every process of
 * the sandbox dies with it, and with them its mount, IPC, UTS and
 * network namespaces (/dev/shm, SysV objects, the overlay); the cgroup
 * sweep gets any straggler and the sessions go. The upper layer (and /tmp on it) is replaced by a fresh
 * image, never reused: a new init then starts as a create's would, on the
 * same snapshot, uid and state directory. *arg: the disk size for the
 * spare refilled after it. */
static int do_reset(lx *x, dval_call *c, lx_sb *sb, void *arg)
{
    if (!sb->isolated) /* a plain directory tree on the host: no guarantee */
        return dval__call_fail(c, DVAL_EUNSUPPORTED, "an unisolated sandbox "
                               "cannot be reset; delete it instead");
    *(int *)arg = lx_disk_gib(sb);
    const char *name = lx_kv_get(&sb->kv, "name");
    if (name)
        lx_sessions_drop(x, name);
    /* the init and its namespaces kept (sandbox_reset.c) */
    if (lx_sb_reset_fast(x, c, sb) == DVAL_OK &&
        lx_sb_forget_uses(x, c, sb, 0) == DVAL_OK) {
        /* still started, same init: the state file is as it was (a save
         * is a new inode on the host, which costs under churn) */
        lx_sb_touch(sb);
        return DVAL_OK;
    }
    lx_sb_kill(x, sb);
    int rc = lx_sb_forget_uses(x, c, sb, 1);
    if (rc != DVAL_OK) {
        lx_sb_set_state(sb, DVAL_SANDBOX_ERROR, "reset failed");
        return rc;
    }
    return lx_sb_start(x, c, sb);
}

int lx_sandbox_reset(void *ud, dval_call *c, const char *id)
{
    int gib = 0;
    int rc = with_locked(ud, c, id, NULL, do_reset, &gib);
    if (gib) /* the next reset or create only renames a spare */
        lx_disk_refill(ud, gib);
    return rc;
}

static int do_recover(lx *x, dval_call *c, lx_sb *sb, void *arg)
{
    (void)arg;
    const char *st = lx_kv_get(&sb->kv, "state");
    if (st && !strcmp(st, "started"))
        return DVAL_OK;
    lx_sb_kill(x, sb);
    return lx_sb_start(x, c, sb); /* files are kept */
}

int lx_sandbox_recover(void *ud, dval_call *c, const char *id,
                       dval_sandbox_info *out)
{
    return with_locked(ud, c, id, out, do_recover, NULL);
}

static int has_labels(const lx_kv *kv, const char *const *labels)
{
    for (const char *const *l = labels; l && *l; l++) {
        int found = 0;
        for (size_t i = 0; i < kv->n && !found; i++)
            found = !strcmp(kv->keys[i], "label") && !strcmp(kv->vals[i], *l);
        if (!found)
            return 0;
    }
    return 1;
}

int lx_sandbox_list(void *ud, dval_call *c, const char *const *labels,
                    dval_sandbox_info_fn each, void *each_ud)
{
    lx *x = ud;
    char dir[4200];
    dval__fmt(dir, sizeof dir, "%s/sandboxes", x->state_dir);
    DIR *d = opendir(dir);
    if (!d)
        return dval__call_fail(c, DVAL_EIO, "opendir %s: %s", dir,
                               strerror(errno));
    int rc = DVAL_OK;
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        lx_sb sb;
        dval_sandbox_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (lx_sb_open(x, NULL, e->d_name, &sb, &info) != DVAL_OK)
            continue;
        int match = has_labels(&sb.kv, labels);
        lx_sb_close(&sb);
        if (match && each && each(&info, each_ud) != 0)
            rc = dval__call_fail(c, DVAL_EABORTED, "list stopped by callback");
    }
    closedir(d);
    return rc;
}
