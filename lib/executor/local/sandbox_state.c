/* Sandboxes of the local executor: each is a directory with a state file
 * and an init process (started by the helper) that holds its namespaces.
 * The init's pid and start time are persisted so that a fresh process can
 * tell a live init from a dead one (error) or a reused pid. */
#include "local.h"
#include "upper_disk.h"
#include "init_evict.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lx_sb_path(lx *x, dval_call *c, const char *id, char *dir, size_t cap)
{
    char msg[256];
    if (dval__check_name("sandbox", id, 0, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s", msg);
    dval__fmt(dir, cap, "%s/sandboxes/%s", x->state_dir, id);
    return DVAL_OK;
}

void lx_sb_info(const lx_sb *sb, dval_sandbox_info *info)
{
    if (!info)
        return;
    const char *name = lx_kv_get(&sb->kv, "name");
    const char *reason = lx_kv_get(&sb->kv, "error_reason");
    dval__strlcpy(info->id, name ? name : "", sizeof info->id);
    dval__strlcpy(info->name, name ? name : "", sizeof info->name);
    info->state = dval_sandbox_state_parse(lx_kv_get(&sb->kv, "state"));
    /* a restart keeps the uid table: one out of uids must be replaced */
    info->recoverable = info->state == DVAL_SANDBOX_ERROR &&
                        !lx_uids_used_up(sb);
    dval__strlcpy(info->error_reason, reason ? reason : "",
                  sizeof info->error_reason);
}

static int sb_save(lx_sb *sb)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/state", sb->dir);
    return lx_kv_save(&sb->kv, p);
}

int lx_sb_set_state(lx_sb *sb, int state, const char *reason)
{
    lx_kv_set(&sb->kv, "state", dval_sandbox_state_name(state));
    lx_kv_set(&sb->kv, "error_reason", reason ? reason : "");
    return sb_save(sb);
}

void lx_sb_touch(lx_sb *sb)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/activity", sb->dir);
    if (utimensat(AT_FDCWD, p, NULL, 0) == 0 || errno != ENOENT)
        return;
    /* first activity: a new file has the current mtime (a sandbox deleted
     * meanwhile has no directory left: nothing is created) */
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* Last activity: the later of the state's stamp (start) and the activity
 * file's mtime (sessions, commands, files). */
static long long last_activity(const lx_sb *sb)
{
    char p[4200];
    struct stat st;
    long long last = lx_kv_num(&sb->kv, "last_activity", 0);
    dval__fmt(p, sizeof p, "%s/activity", sb->dir);
    if (stat(p, &st) == 0) {
        long long m = (long long)st.st_mtim.tv_sec * 1000 +
                      st.st_mtim.tv_nsec / 1000000;
        if (m > last)
            last = m;
    }
    return last;
}

void lx_sb_kill(lx *x, lx_sb *sb)
{
    const char *name = lx_kv_get(&sb->kv, "name");
    if (sb->pid > 0) {
        unsigned long long st = lx_pid_start(sb->pid);
        if (st && st == (unsigned long long)lx_kv_num(&sb->kv, "pid_start",
                                                       0))
            kill(sb->pid, SIGKILL);
        /* the init dies within a millisecond or two: look every 0.2 ms
         * at first, backing off to 10 ms (at most ~2 s in all); a fixed
         * 10 ms step made every delete and stop take 10 ms or more */
        for (int us = 200, total = 0; total < 2000000 && st &&
             lx_pid_start(sb->pid) == st; total += us)
            lx_pause_us(&us);
    }
    sb->pid = 0;
    lx_kv_set(&sb->kv, "pid", "0");
    /* an init the state lost (its creator was killed) and whatever is
     * left in the sandbox's cgroups go too */
    lx_init_evict(x, sb->dir);
    lx_limits l;
    lx_sb_limits(x, sb, &l);
    lx_cgroup_sweep(x, &l);
    if (name) {
        lx_sessions_drop(x, name);
        const char *cg = lx_kv_get(&sb->kv, "cgroup");
        if (cg && *cg) /* never rmdir the parent "daytona-validate/" */
            lx_limits_remove(cg);
    }
}

/* What refresh would change: 0 nothing, 1 the init is gone (error),
 * 2 idle past auto-stop (stopped), 5 every per-validation uid given
 * (error), 3 "creating" (its
 * creator holds the lock until the sandbox is started or failed: wait for
 * it; found so under the lock, the creator died). Sets sb->pid for a
 * started sandbox. */
static int stale(const lx_sb *sb, pid_t *pid)
{
    const char *state = lx_kv_get(&sb->kv, "state");
    *pid = 0;
    if (state && !strcmp(state, "creating"))
        return 3;
    if (!state || strcmp(state, "started") != 0)
        return 0;
    *pid = (pid_t)lx_kv_num(&sb->kv, "pid", 0);
    unsigned long long st = *pid > 0 ? lx_pid_start(*pid) : 0;
    if (!st || st != (unsigned long long)lx_kv_num(&sb->kv, "pid_start", 0))
        return 1;
    if (lx_kv_num(&sb->kv, "init_proto", 1) != LX_INIT_PROTO)
        return 6;
    if (sb->isolated && lx_uids_used_up(sb))
        return 5;
    long long minutes = lx_kv_num(&sb->kv, "auto_stop_minutes", 0);
    if (minutes > 0 && lx_wall_ms() - last_activity(sb) > minutes * 60000)
        return 2;
    return 0;
}

/* A sandbox of another state format holds a user's files, and maybe a
 * running init of the version that made it: neither is touched. */
static int other_format(dval_call *c, const char *id, const char *dir)
{
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "sandbox %s: %s holds "
                           "state of another format (not format %d of this "
                           "library): it is left as it is; use it with the "
                           "version that made it, or remove that directory "
                           "(its files go with it) and create it anew", id,
                           dir, LX_STATE_FORMAT);
}

static int load(lx *x, dval_call *c, const char *id, lx_sb *sb)
{
    memset(sb, 0, sizeof *sb);
    int rc = lx_sb_path(x, c, id, sb->dir, sizeof sb->dir);
    if (rc != DVAL_OK)
        return rc;
    char p[4200];
    dval__fmt(p, sizeof p, "%s/state", sb->dir);
    rc = lx_kv_load(&sb->kv, p);
    if (rc == DVAL_ENOTFOUND)
        return dval__call_fail(c, rc, "sandbox %s not found", id);
    if (rc != DVAL_OK)
        return dval__call_fail(c, rc, "cannot read %s", p);
    if (!lx_kv_get(&sb->kv, "state")) {
        lx_kv_free(&sb->kv);
        return dval__call_fail(c, DVAL_EIO, "%s has no state", p);
    }
    if (!lx_kv_format_ok(&sb->kv)) {
        lx_kv_free(&sb->kv);
        return other_format(c, id, sb->dir);
    }
    sb->isolated = (int)lx_kv_num(&sb->kv, "isolated", 1);
    return DVAL_OK;
}

/* Dead init while "started" → error; an init of an older request format
 * or idle past auto-stop → stopped. The
 * change is made under the sandbox's lock: without it, reload and look
 * again (a stop/start may have replaced the init since we read). */
static int refresh(lx *x, dval_call *c, const char *id, lx_sb *sb)
{
    int why = stale(sb, &sb->pid);
    if (!why)
        return DVAL_OK;
    if (!sb->locked) {
        char p[4200];
        dval__fmt(p, sizeof p, "%s/lock", sb->dir);
        /* a slow creation is reported as "creating" after 2 s (the core
         * polls); a quick one is waited for, not polled every 100 ms */
        int lk = lx_lock(NULL, p, why == 3 ? 2000 : 60000);
        if (lk < 0)
            return DVAL_OK; /* report what was read; the next call retries */
        lx_kv_free(&sb->kv);
        int rc = load(x, c, id, sb);
        if (rc == DVAL_OK) {
            sb->locked = 1;
            rc = refresh(x, c, id, sb);
            sb->locked = 0;
        }
        lx_unlock(lk);
        return rc;
    }
    if (why == 3) {
        lx_sb_set_state(sb, DVAL_SANDBOX_ERROR, "its creation was "
                        "interrupted");
    } else if (why == 6) {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: sandbox %s: its init is "
               "of an older version; stopping it (its files stay)", id);
        lx_sb_kill(x, sb);
        lx_sb_set_state(sb, DVAL_SANDBOX_STOPPED, NULL);
    } else if (why == 5) {
        lx_sb_kill(x, sb);
        lx_sb_set_state(sb, DVAL_SANDBOX_ERROR, "every per-validation uid "
                        "of the sandbox was given: it must be replaced");
    } else if (why == 1) {
        char msg[128];
        dval__fmt(msg, sizeof msg, "the sandbox's init process (pid %d) "
                  "is gone", (int)sb->pid);
        sb->pid = 0;
        lx_sb_kill(x, sb);
        lx_sb_set_state(sb, DVAL_SANDBOX_ERROR, msg);
    } else {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: sandbox %s idle for more "
               "than %lld minutes; stopping it", id,
               lx_kv_num(&sb->kv, "auto_stop_minutes", 0));
        lx_sb_kill(x, sb);
        lx_sb_set_state(sb, DVAL_SANDBOX_STOPPED, NULL);
    }
    return DVAL_OK;
}

static int sb_open(lx *x, dval_call *c, const char *id, lx_sb *sb,
                   dval_sandbox_info *info, int locked)
{
    int rc = load(x, c, id, sb);
    if (rc != DVAL_OK)
        return rc;
    sb->locked = locked;
    rc = refresh(x, c, id, sb);
    if (rc != DVAL_OK) {
        lx_sb_close(sb);
        return rc;
    }
    lx_sb_info(sb, info);
    return DVAL_OK;
}

int lx_sb_open(lx *x, dval_call *c, const char *id, lx_sb *sb,
               dval_sandbox_info *info)
{
    return sb_open(x, c, id, sb, info, 0);
}

int lx_sb_open_held(lx *x, dval_call *c, const char *id, lx_sb *sb,
                    dval_sandbox_info *info)
{
    return sb_open(x, c, id, sb, info, 1);
}

void lx_sb_close(lx_sb *sb)
{
    lx_kv_free(&sb->kv);
}

int lx_sb_require_started(dval_call *c, const lx_sb *sb)
{
    const char *st = lx_kv_get(&sb->kv, "state");
    if (st && !strcmp(st, "started"))
        return DVAL_OK;
    const char *name = lx_kv_get(&sb->kv, "name");
    if (!name) /* never print "(null)": the directory is the name */
        name = strrchr(sb->dir, '/') ? strrchr(sb->dir, '/') + 1 : sb->dir;
    return dval__call_fail(c, DVAL_ESTATE, "sandbox %s is %s, not started",
                           name, st ? st : "unknown");
}

void lx_sb_limits(lx *x, const lx_sb *sb, lx_limits *l)
{
    (void)x;
    memset(l, 0, sizeof *l);
    l->pids = lx_kv_num(&sb->kv, "max_pids", 512);
    l->mem = lx_kv_num(&sb->kv, "max_memory", 2LL << 30);
    l->cpu_ms = lx_kv_num(&sb->kv, "max_cpu_ms", 600000);
    l->cpus = (int)lx_kv_num(&sb->kv, "cpu", 0);
    const char *procs = lx_kv_get(&sb->kv, "cgroup_procs");
    for (const char *s = procs; s && *s && l->nprocs < 3;) {
        size_t n = strcspn(s, ":");
        dval__fmt(l->procs[l->nprocs++], sizeof l->procs[0], "%.*s", (int)n,
                  s);
        s += n + (s[n] == ':');
    }
    l->rl_as = (int)lx_kv_num(&sb->kv, "rl_as", 0);
    l->rl_nproc = (int)lx_kv_num(&sb->kv, "rl_nproc", 0);
}

/* The sandbox's cgroups (recorded in its state for the commands). */
static int setup_limits(lx *x, dval_call *c, lx_sb *sb, lx_limits *l)
{
    lx_sb_limits(x, sb, l);
    const char *cg = lx_kv_get(&sb->kv, "cgroup");
    if (!cg || !*cg) /* every state names it from its creation on */
        return dval__call_fail(c, DVAL_EIO, "sandbox %s: its state names "
                               "no cgroup", sb->dir);
    lx_limits_setup(x, cg, l);
    dval__buf procs = { 0 };
    for (int i = 0; i < l->nprocs; i++)
        dval__buf_appendf(&procs, "%s%s", i ? ":" : "", l->procs[i]);
    lx_kv_set(&sb->kv, "cgroup_procs", procs.data ? procs.data : "");
    dval__buf_free(&procs);
    lx_kv_setnum(&sb->kv, "rl_as", l->rl_as);
    lx_kv_setnum(&sb->kv, "rl_nproc", l->rl_nproc);
    return DVAL_OK;
}

/* Runs "helper init" and reads its "pid N" reply into *ipid. */
static int spawn_init(lx *x, dval_call *c, lx_sb *sb, char *layer,
                      const lx_limits *l, int *ipid)
{
    char hide[4096], gib[16], uid[24], svc[4300];
    dval__fmt(hide, sizeof hide, "%s", x->state_dir);
    dval__fmt(gib, sizeof gib, "%d", lx_disk_gib(sb));
    dval__fmt(uid, sizeof uid, "%ld", lx_uid_base(sb));
    char *argv[24] = { NULL, LX_VERB_INIT, sb->dir, layer,
                       lx_kv_num(&sb->kv, "network", 0) ? LX_NET_HOST
                       : LX_NET_NONE, hide, LX_OPT_DISK_GIB, gib,
                       LX_OPT_UID, uid };
    int n = 10, shared = lx_services_base(layer, svc, sizeof svc) == 0;
    if (shared) {
        argv[n++] = LX_OPT_SERVICES;
        argv[n++] = svc;
    }
    for (int i = 0; i < l->nprocs; i++) {
        argv[n++] = LX_OPT_CGROUP;
        argv[n++] = (char *)l->procs[i];
    }
    if (lx_kv_num(&sb->kv, "owned", 0)) { /* whoever starts it owns it */
        lx_owner_unmark(x, lx_kv_get(&sb->kv, "name"));
        lx_owner_mark(x, lx_kv_get(&sb->kv, "name"));
        argv[n++] = LX_OPT_OWNED;
        argv[n++] = "1";
    }
    char out[1024];
    int code, rc = lx_helper_reply(x, c, argv, out, sizeof out, &code);
    if (rc != DVAL_OK)
        return dval__call_fail(c, rc, "sandbox init did not start");
    if (sscanf(out, LX_REPLY_PID "%d", ipid) != 1 || *ipid <= 0) {
        out[strcspn(out, "\n")] = 0;
        return dval__call_fail(c, DVAL_EEXEC, "sandbox init failed: %s", out);
    }
    if (shared) /* after the init: it is already the host's user */
        lx_services_start(x, c, svc, layer);
    const char *note = strstr(out, LX_REPLY_NOTE);
    size_t skip = strlen(LX_REPLY_NOTE);
    if (note) /* still bounded, but not on disk: say so */
        LX_LOG(x, DVAL_LOG_WARN, "local executor: sandbox %s: %.*s",
               lx_kv_get(&sb->kv, "name"), (int)strcspn(note + skip, "\n"),
               note + skip);
    return DVAL_OK;
}

/* The directories the sandbox's init needs: an isolated one's overlay
 * mount point (upper and work live on the sandbox's bounded disk,
 * upper_disk.c; the helper makes lower/ in the host-root mode: each
 * directory made here is an inode allocated on the host's filesystem,
 * which costs under churn), an unisolated one's plain tree. */
static int make_dirs(dval_call *c, const lx_sb *sb)
{
    char d[4200];
    dval__fmt(d, sizeof d, "%s/root", sb->dir);
    int bad = sb->isolated && mkdir(d, 0755) < 0 && errno != EEXIST;
    if (!sb->isolated) {
        dval__fmt(d, sizeof d, "%s/plain/home/daytona", sb->dir);
        bad = lx_mkdirs(d, 0755) < 0;
        dval__fmt(d, sizeof d, "%s/plain/sandbox", sb->dir);
        bad |= lx_mkdirs(d, 0755) < 0;
    }
    return bad ? dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", d,
                                 strerror(errno)) : DVAL_OK;
}

/* An isolated sandbox's root, its uids and disk; unisolated, none. */
static int prepare(lx *x, dval_call *c, lx_sb *sb, char *layer, size_t cap)
{
    if (!sb->isolated) {
        dval__fmt(layer, cap, "%s", LX_ROOT_PLAIN);
        return DVAL_OK;
    }
    /* no snapshot: the default root (image.c), never the host's */
    int rc = lx_snapshot_layer(x, c, lx_kv_get(&sb->kv, "snapshot"),
                               lx_kv_get(&sb->kv, "image"), layer, cap);
    if (rc == DVAL_OK)
        rc = lx_uid_range_take(x, c, sb);
    if (rc == DVAL_OK)
        rc = lx_sb_boot_check(x, c, sb);
    return rc == DVAL_OK ? lx_disk_prepare(x, c, sb) : rc;
}

static int start_init(lx *x, dval_call *c, lx_sb *sb)
{
    char layer[4096] = "-";
    int rc = make_dirs(c, sb);
    if (rc != DVAL_OK)
        return rc;
    /* exactly one init: a stray one (from a killed creation) is killed
     * before this one mounts the same layer */
    if (lx_init_evict(x, sb->dir) < 0)
        return dval__call_fail(c, DVAL_EEXEC, "a previous init of %s "
                               "cannot be stopped", sb->dir);
    rc = prepare(x, c, sb, layer, sizeof layer);
    lx_limits l;
    if (rc == DVAL_OK)
        rc = setup_limits(x, c, sb, &l);
    int ipid = 0;
    if (rc == DVAL_OK)
        rc = spawn_init(x, c, sb, layer, &l, &ipid);
    if (rc != DVAL_OK)
        return rc;
    sb->pid = ipid;
    lx_kv_setnum(&sb->kv, "pid", ipid);
    lx_kv_setnum(&sb->kv, "pid_start", (long long)lx_pid_start(ipid));
    lx_kv_setnum(&sb->kv, "init_proto", LX_INIT_PROTO);
    return DVAL_OK;
}

int lx_sb_start(lx *x, dval_call *c, lx_sb *sb)
{
    int isolated;
    int rc = lx_isolation(x, c, &isolated);
    if (rc != DVAL_OK)
        return rc;
    sb->isolated = isolated;
    lx_kv_setnum(&sb->kv, "isolated", isolated);
    rc = start_init(x, c, sb);
    if (rc != DVAL_OK) {
        if (rc != DVAL_ECANCELED && rc != DVAL_EISOLATION)
            lx_sb_set_state(sb, DVAL_SANDBOX_ERROR, c ? c->errmsg : "start failed");
        return rc;
    }
    lx_kv_setnum(&sb->kv, "last_activity", lx_wall_ms());
    return lx_sb_set_state(sb, DVAL_SANDBOX_STARTED, NULL);
}
