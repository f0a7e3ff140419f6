/* Sandbox acquire: the recovery ladder (PROTOCOL §3.4, §9.2). Observe the
 * state, act on it, wait until it is stable, repeat. */
#include <string.h>

#include "executor.h"
#include "refs.h"
#include "sandbox_acquire.h"
#include "sandbox_opts.h"

#define ZOMBIE_ROUNDS 2   /* recoveries of a broken sandbox per acquire */

static int is_transitional(int st)
{
    switch (st) {
    case DVAL_SANDBOX_STARTED: case DVAL_SANDBOX_STOPPED:
    case DVAL_SANDBOX_ARCHIVED: case DVAL_SANDBOX_PAUSED:
    case DVAL_SANDBOX_ERROR: case DVAL_SANDBOX_BUILD_FAILED:
    case DVAL_SANDBOX_DESTROYED:
        return 0;
    default:
        return 1;
    }
}

static void set_state(dval_sandbox *sb, const dval_sandbox_info *info)
{
    int old = sb->info.state;
    sb->info = *info;
    if (old != info->state) {
        DVAL__LOG(sb->client, DVAL_LOG_INFO, "sandbox %s: %s",
                  sb->opts.name, dval_sandbox_state_name(info->state));
        if (sb->opts.on_state) {
            const dval_client *prev = dval__cb_enter(sb->client);
            sb->opts.on_state(sb->opts.name, info->state,
                              sb->opts.state_userdata);
            dval__cb_leave(prev);
        }
    }
}

static int fail(dval_sandbox *sb, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(dval_sandbox *sb, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(sb->errmsg, sizeof sb->errmsg, fmt, ap);
    va_end(ap);
    return rc;
}

/* Prepares a sandbox call whose failures are worded on the handle. */
static dval__ex_op *op_init(dval__ex_op *op, dval_sandbox *sb, const char *what,
                            int flags, int64_t timeout)
{
    dval__ex_op_init(op, what, flags, sb->errmsg, sizeof sb->errmsg);
    op->cancel_fd = sb->cancel_fd;
    op->subject = sb->opts.name;
    op->timeout_ms = timeout;
    return op;
}

/* Runs one info-returning sandbox member; fresh info updates the handle. */
typedef int (*sb_member)(dval_client *c, dval__ex_op *op, const char *id,
                         dval_sandbox_info *out);

static int call_op(dval_sandbox *sb, const char *what, sb_member member,
                   const char *id, int64_t timeout)
{
    dval__ex_op op;
    dval_sandbox_info info;
    op_init(&op, sb, what, DVAL__IDEMPOTENT, timeout)->quiet = DVAL_ENOTFOUND;
    int rc = member(sb->client, &op, id, &info);
    if (rc == DVAL_OK && info.state != DVAL_SANDBOX_UNKNOWN)
        set_state(sb, &info);
    return rc;
}

static int do_get(dval_sandbox *sb)
{
    const char *key = sb->info.id[0] ? sb->info.id : sb->opts.name;
    return call_op(sb, "get sandbox", dval__ex_sandbox_get, key, 0);
}

static int do_create(dval_sandbox *sb)
{
    dval__ex_op op;
    dval_sandbox_info info;
    op_init(&op, sb, "create sandbox", DVAL__NAMED_CREATE,
            sb->opts.create_timeout_ms)->quiet = DVAL_EEXISTS;
    int rc = dval__ex_sandbox_create(sb->client, &op, &sb->opts, &info);
    if (rc == DVAL_OK) {
        sb->info.id[0] = '\0';
        set_state(sb, &info);
    }
    return rc;
}

static int64_t next_poll(int64_t interval, int64_t waited)
{
    /* 100 ms for the first 5 s, then x1.1 per poll, capped at 1 s */
    if (waited < 5000)
        return 100;
    interval = interval + interval / 10;
    return interval > 1000 ? 1000 : interval;
}

/* Polls until the state is stable (or gone), within timeout. */
static int wait_stable(dval_sandbox *sb, int64_t timeout)
{
    int64_t start = dval__now_ms(), interval = 100;
    while (is_transitional(sb->info.state)) {
        int64_t waited = dval__now_ms() - start;
        if (waited >= timeout)
            return fail(sb, DVAL_ETIMEOUT, "sandbox %s still %s after %lld ms",
                        sb->opts.name,
                        dval_sandbox_state_name(sb->info.state),
                        (long long)waited);
        interval = next_poll(interval, waited);
        if (dval__sleep_ms(interval, sb->cancel_fd) == DVAL_ECANCELED)
            return fail(sb, DVAL_ECANCELED, "canceled while sandbox %s was "
                        "%s", sb->opts.name,
                        dval_sandbox_state_name(sb->info.state));
        int rc = do_get(sb);
        if (rc == DVAL_ENOTFOUND) {
            sb->info.state = DVAL_SANDBOX_DESTROYED;
            return DVAL_OK;
        }
        if (rc)
            return rc;
    }
    return DVAL_OK;
}

static int do_start(dval_sandbox *sb)
{
    int rc = call_op(sb, "start sandbox", dval__ex_sandbox_start, sb->info.id,
                     sb->opts.start_timeout_ms);
    if (rc == DVAL_ECONFLICT)
        return DVAL_OK; /* a change is in flight: wait and look again */
    return rc;
}

/* One delete request with transient retries. ENOTFOUND (already gone)
 * counts as done; ECONFLICT (a change in flight) is returned as is. The
 * message of any other failure is on the handle. */
static int delete_remote(dval_sandbox *sb)
{
    dval__ex_op op;
    op_init(&op, sb, "delete sandbox", DVAL__IDEMPOTENT | DVAL__GONE_DONE,
            0)->quiet = DVAL_ECONFLICT;
    return dval__ex_sandbox_delete(sb->client, &op, sb->info.id);
}

/* error/build_failed: recover server-side, else delete, pause, recreate. */
static int fix_zombie(dval_sandbox *sb, int *rounds)
{
    if (++*rounds > ZOMBIE_ROUNDS)
        return fail(sb, DVAL_ESTATE, "sandbox %s is %s after %d recoveries: "
                    "%s", sb->opts.name,
                    dval_sandbox_state_name(sb->info.state), ZOMBIE_ROUNDS,
                    sb->info.error_reason[0] ? sb->info.error_reason
                                             : "no reason given");
    DVAL__LOG(sb->client, DVAL_LOG_WARN, "sandbox %s is %s (%s): recovering",
              sb->opts.name, dval_sandbox_state_name(sb->info.state),
              sb->info.error_reason);
    if (sb->info.recoverable && !sb->opts.no_recover &&
        DVAL__EX_HAS(sb->client, sandbox_recover) &&
        sb->info.state == DVAL_SANDBOX_ERROR) {
        int rc = call_op(sb, "recover sandbox", dval__ex_sandbox_recover,
                         sb->info.id, sb->opts.start_timeout_ms);
        if (rc == DVAL_OK || rc == DVAL_ECONFLICT)
            return DVAL_OK;
        DVAL__LOG(sb->client, DVAL_LOG_WARN, "sandbox %s: recover failed (%s); "
                  "deleting it", sb->opts.name, sb->errmsg);
    }
    int rc = delete_remote(sb);
    if (rc == DVAL_ECONFLICT)
        return DVAL_OK; /* not deletable yet: wait for the state to settle */
    if (rc)
        return rc;
    if (sb->opts.zombie_pause_ms > 0)
        dval__sleep_ms(sb->opts.zombie_pause_ms, sb->cancel_fd);
    sb->info.id[0] = '\0';
    sb->info.state = DVAL_SANDBOX_DESTROYED;
    return DVAL_OK;
}

/* acquire: anything goes (create, recover, start); start only: a broken or
 * vanished sandbox is reported, never deleted or re-created behind the
 * caller's back. fresh: the caller made the name for this acquire alone
 * (sandbox_acquire.h), so the lookup before the create would always be a
 * 404: the ladder creates right away; should the name exist after all,
 * the create's 409 leads to the lookup as before (PROTOCOL 9.2), so the
 * outcome cannot change, only a request is saved. */
static int acquire_ladder(dval_sandbox *sb, int start_only, int fresh)
{
    int rounds = 0, rc = DVAL_ENOTFOUND;
    if (start_only || sb->info.id[0] || !fresh)
        rc = do_get(sb);
    if (rc == DVAL_ENOTFOUND)
        sb->info.state = DVAL_SANDBOX_DESTROYED;
    else if (rc)
        return rc;
    for (int step = 0; step < 32; step++) {
        switch (sb->info.state) {
        case DVAL_SANDBOX_STARTED:
            return DVAL_OK;
        case DVAL_SANDBOX_STOPPED:
        case DVAL_SANDBOX_ARCHIVED:
        case DVAL_SANDBOX_PAUSED:
            rc = do_start(sb);
            break;
        case DVAL_SANDBOX_ERROR:
        case DVAL_SANDBOX_BUILD_FAILED:
            if (start_only)
                return fail(sb, DVAL_ESTATE, "sandbox %s is %s (%s); "
                            "dval_sandbox_acquire recovers it", sb->opts.name,
                            dval_sandbox_state_name(sb->info.state),
                            sb->info.error_reason[0] ? sb->info.error_reason
                                                     : "no reason given");
            rc = fix_zombie(sb, &rounds);
            break;
        case DVAL_SANDBOX_DESTROYED:
            if (start_only)
                return fail(sb, DVAL_ENOTFOUND, "sandbox %s no longer exists",
                            sb->opts.name);
            rc = do_create(sb);
            if (rc == DVAL_EEXISTS) { /* someone else created it */
                sb->info.id[0] = '\0';
                rc = do_get(sb);
                if (rc == DVAL_ENOTFOUND)
                    rc = DVAL_OK; /* destroyed meanwhile: try again */
            }
            break;
        default:
            rc = DVAL_OK; /* transitional: just wait */
            break;
        }
        if (!rc)
            rc = wait_stable(sb, sb->opts.start_timeout_ms);
        if (rc)
            return rc;
    }
    return fail(sb, DVAL_ESTATE, "sandbox %s never reached started",
                sb->opts.name);
}

/* A handle holding a checked copy of opts and a client reference. */
static int new_handle(dval_sandbox **out, dval_client *c,
                      const dval_sandbox_options *opts)
{
    dval_sandbox *sb = dval__calloc(1, sizeof *sb);
    if (!sb)
        return DVAL_ENOMEM;
    char msg[DVAL_ERRMSG_MAX] = "";
    int rc = dval__sandbox_opts_take(sb, c, opts, msg, sizeof msg);
    if (rc) {
        dval__client_seterr(c, "%s", msg[0] ? msg : dval_strerror(rc));
        dval__sandbox_opts_free(sb);
        dval__free(sb);
        return rc;
    }
    atomic_init(&sb->refs, 1);
    sb->cancel_fd = -1;
    sb->client = c;
    dval__client_ref(c);
    *out = sb;
    return DVAL_OK;
}

/* A handle on the sandbox the caller saw started a moment ago, made
 * without asking the server: a stop or a deletion since then shows up on
 * the first call on it (toolbox 400 or 404), which the caller recovers
 * from (dval__sandbox_lost, then a real acquire). */
static void adopt(dval_sandbox *sb, const dval_sandbox_info *known)
{
    dval_sandbox_info info = *known;
    dval__strlcpy(info.name, sb->opts.name, sizeof info.name);
    set_state(sb, &info);
}

int dval__sandbox_acquire(dval_sandbox **out, dval_client *c,
                          const dval_sandbox_options *opts,
                          const dval__acquire_hint *hint)
{
    if (out)
        *out = NULL;
    if (!out || !c || !opts)
        return dval__null_arg(c, "dval_sandbox_acquire");
    DVAL__NO_REENTRY(c);
    dval_sandbox *sb;
    int rc = new_handle(&sb, c, opts);
    if (rc)
        return rc;
    dval__strlcpy(sb->info.name, sb->opts.name, sizeof sb->info.name);
    const dval_sandbox_info *known = hint ? hint->known : NULL;
    sb->cancel_fd = dval__cancel_fd(hint ? hint->cancel : NULL);
    if (known && known->id[0] && known->state == DVAL_SANDBOX_STARTED) {
        adopt(sb, known);
    } else if ((rc = acquire_ladder(sb, 0, hint && hint->fresh))) {
        dval__client_seterr(c, "%s", sb->errmsg);
        dval_sandbox_free(sb);
        return rc;
    }
    sb->cancel_fd = -1; /* the token ended the acquire's waits only */
    *out = sb;
    return DVAL_OK;
}

DVAL_API int dval_sandbox_acquire(dval_sandbox **out, dval_client *c,
                                  const dval_sandbox_options *opts)
{
    return dval__sandbox_acquire(out, c, opts, NULL);
}

DVAL_API int dval_sandbox_get(dval_sandbox **out, dval_client *c,
                              const char *name_or_id)
{
    if (out)
        *out = NULL;
    if (!out || !c)
        return dval__null_arg(c, "dval_sandbox_get");
    DVAL__NO_REENTRY(c);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name_or_id;
    dval_sandbox *sb;
    int rc = new_handle(&sb, c, &o);
    if (rc)
        return rc;
    rc = do_get(sb);
    if (rc == DVAL_ENOTFOUND)
        dval__client_seterr(c, "sandbox %s not found", name_or_id);
    else if (rc)
        dval__client_seterr(c, "%s", sb->errmsg);
    if (rc) {
        dval_sandbox_free(sb);
        return rc;
    }
    /* looked up by id: name the handle (and its sessions) by its name */
    if (sb->info.name[0] && strcmp(sb->info.name, sb->opts.name) &&
        dval__sandbox_opts_rename(sb, sb->info.name) != DVAL_OK) {
        dval_sandbox_free(sb);
        return DVAL_ENOMEM;
    }
    *out = sb;
    return DVAL_OK;
}

void dval__sandbox_ref(dval_sandbox *sb)
{
    dval__refs_take(&sb->refs);
}

static void sandbox_destroy(void *handle)
{
    dval_sandbox *sb = handle;
    dval_client *c = sb->client;
    dval__sandbox_opts_free(sb);
    dval__free(sb);
    dval__client_unref(c);
}

void dval__sandbox_unref(dval_sandbox *sb)
{
    if (sb)
        dval__refs_drop(&sb->refs, sandbox_destroy, sb);
}

DVAL_API void dval_sandbox_free(dval_sandbox *sb)
{
    dval__sandbox_unref(sb);
}

DVAL_API int dval_sandbox_refresh(dval_sandbox *sb)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    int rc = do_get(sb);
    if (rc == DVAL_ENOTFOUND) {
        sb->info.state = DVAL_SANDBOX_DESTROYED;
        fail(sb, rc, "sandbox %s no longer exists", sb->opts.name);
    }
    return rc;
}

DVAL_API int dval_sandbox_state(const dval_sandbox *sb)
{
    return sb ? sb->info.state : DVAL_SANDBOX_UNKNOWN;
}

DVAL_API const char *dval_sandbox_id(const dval_sandbox *sb)
{
    return sb ? sb->info.id : "";
}

DVAL_API const char *dval_sandbox_name(const dval_sandbox *sb)
{
    return sb ? sb->opts.name : "";
}

DVAL_API const char *dval_sandbox_errmsg(const dval_sandbox *sb)
{
    return sb ? sb->errmsg : "no sandbox";
}

DVAL_API int dval_sandbox_start(dval_sandbox *sb)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    sb->errmsg[0] = '\0';
    return acquire_ladder(sb, 1, 0);
}

/* After a stop or delete request: its failure, except a change already
 * in flight (DVAL_ECONFLICT), else the wait for the state to settle. */
static int settle(dval_sandbox *sb, int rc)
{
    if (rc && rc != DVAL_ECONFLICT)
        return rc;
    return wait_stable(sb, sb->opts.start_timeout_ms);
}

DVAL_API int dval_sandbox_stop(dval_sandbox *sb)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    sb->errmsg[0] = '\0';
    for (int i = 0; i < 8; i++) {
        int rc = call_op(sb, "stop sandbox", dval__ex_sandbox_stop,
                         sb->info.id, sb->opts.start_timeout_ms);
        if (rc == DVAL_ENOTFOUND)
            return fail(sb, rc, "sandbox %s no longer exists", sb->opts.name);
        if ((rc = settle(sb, rc)))
            return rc;
        if (sb->info.state == DVAL_SANDBOX_STOPPED ||
            sb->info.state == DVAL_SANDBOX_DESTROYED)
            return DVAL_OK;
    }
    return fail(sb, DVAL_ESTATE, "sandbox %s did not stop (state %s)",
                sb->opts.name, dval_sandbox_state_name(sb->info.state));
}

DVAL_API int dval_sandbox_delete(dval_sandbox *sb)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    for (int i = 0; i < 8; i++) {
        int rc = delete_remote(sb);
        if (rc == DVAL_OK) {
            sb->info.state = DVAL_SANDBOX_DESTROYED;
            return DVAL_OK;
        }
        if ((rc = settle(sb, rc)))
            return rc;
    }
    return fail(sb, DVAL_ECONFLICT, "sandbox %s: state change never settled",
                sb->opts.name);
}

DVAL_API int dval_sandbox_release(dval_sandbox *sb)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    switch (sb->opts.release) {
    case DVAL_RELEASE_STOP:
        return dval_sandbox_stop(sb);
    case DVAL_RELEASE_DELETE:
        return dval_sandbox_delete(sb);
    default:
        return DVAL_OK;
    }
}

typedef struct list_ctx {
    dval_sandbox_list_fn each;
    void *ud;
    const dval_client *client;
} list_ctx;

static int list_each(const dval_sandbox_info *info, void *ud)
{
    list_ctx *l = ud;
    const dval_client *prev = dval__cb_enter(l->client);
    int rc = l->each(info->id, info->name, info->state, l->ud);
    dval__cb_leave(prev);
    return rc;
}

DVAL_API int dval_sandbox_list(dval_client *c, const char *const *labels,
                               dval_sandbox_list_fn each, void *userdata)
{
    if (!c || !each)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(c);
    list_ctx l = { each, userdata, c };
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op; /* no retry: the callback has seen the first page */
    dval__ex_op_init(&op, "list sandboxes", DVAL__NO_RETRY, msg, sizeof msg);
    int rc = dval__ex_sandbox_list(c, &op, labels, list_each, &l);
    if (rc)
        dval__client_seterr(c, "%s", msg);
    return rc;
}
