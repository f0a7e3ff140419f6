/* Snapshot ensure: the get-or-create ladder (PROTOCOL §9.1) inside the
 * retry policy (attempts with base*2^n backoff; a server hint first). */
#include <string.h>

#include "executor.h"

#define SNAP_POLL_MS 1000

DVAL_API int dval_snapshot_spec_init(dval_snapshot_spec *s, size_t size)
{
    return dval__opts_init(s, size, sizeof *s);
}

typedef struct ensure {
    dval_client *c;
    dval_snapshot_spec spec;
    dval_data_fn on_log;
    void *log_ud;
    uint64_t log_offset;     /* bytes of build log already delivered */
    int log_aborted;
    int we_built;            /* a failed state is ours: rebuild it */
    int64_t deadline;
    dval_snapshot_info info;
    char msg[DVAL_ERRMSG_MAX];  /* why the last step failed */
    int64_t retry_after_ms;     /* the last call's server hint (-1 none) */
    int cancel_fd;              /* the caller's token (-1: none) */
} ensure;

static int log_sink(int stream, const char *data, size_t len, void *ud)
{
    ensure *e = ud;
    (void)stream;
    e->log_offset += len;
    if (!e->on_log)
        return 0;
    if (dval__cb_data(e->c, e->on_log, data, len, e->log_ud)) {
        e->log_aborted = 1;
        return 1;
    }
    return 0;
}

static int fail(ensure *e, int rc, const char *fmt, const char *arg)
{
    dval__fmt(e->msg, sizeof e->msg, fmt, arg);
    return rc;
}

/* One executor call of the ladder, worded into e->msg. */
static dval__ex_op *op_init(dval__ex_op *op, ensure *e, const char *what,
                            int flags)
{
    dval__ex_op_init(op, what, flags, e->msg, sizeof e->msg);
    op->cancel_fd = e->cancel_fd;
    return op;
}

static int op_done(ensure *e, const dval__ex_op *op, int rc)
{
    e->retry_after_ms = op->call.retry_after_ms;
    return rc;
}

static int x_get(ensure *e, const char *name)
{
    char key[DVAL_ID_MAX]; /* name may point into e->info, cleared below */
    dval__strlcpy(key, name, sizeof key);
    int prev = e->info.state;
    dval__ex_op op;
    op_init(&op, e, "get snapshot", DVAL__IDEMPOTENT);
    int rc = dval__ex_snapshot_get(e->c, &op, key, &e->info);
    if (rc == DVAL_ENOTFOUND)
        e->info.state = prev; /* remember what vanished (e.g. removing) */
    return op_done(e, &op, rc);
}

static int x_create(ensure *e)
{
    dval__ex_op op;
    op_init(&op, e, "create snapshot", DVAL__NAMED_CREATE);
    e->we_built = 1;
    DVAL__LOG(e->c, DVAL_LOG_INFO, "snapshot %s: creating", e->spec.name);
    int rc = dval__ex_snapshot_create(e->c, &op, &e->spec, &e->info, log_sink,
                                      e);
    return op_done(e, &op, rc);
}

static int x_activate(ensure *e)
{
    dval__ex_op op;
    op_init(&op, e, "activate snapshot", DVAL__IDEMPOTENT);
    int rc = dval__ex_snapshot_activate(e->c, &op, e->info.id, &e->info);
    return op_done(e, &op, rc);
}

/* Follows build logs for up to ms, or sleeps when there are none. */
static void wait_a_while(ensure *e, int64_t ms)
{
    int building = e->info.state == DVAL_SNAPSHOT_BUILDING ||
                   e->info.state == DVAL_SNAPSHOT_PULLING;
    if (building && DVAL__EX_HAS(e->c, snapshot_logs) && e->info.id[0] &&
        !e->log_aborted) {
        int64_t t0 = dval__now_ms();
        dval__ex_op op; /* no retry: a failure falls back to sleeping */
        dval__ex_op_init(&op, "follow snapshot logs", DVAL__NO_RETRY, NULL, 0);
        op.timeout_ms = ms;
        op.cancel_fd = e->cancel_fd;
        int rc = dval__ex_snapshot_logs(e->c, &op, e->info.id, e->log_offset,
                                        log_sink, e);
        if (rc == DVAL_OK || rc == DVAL_ETIMEOUT) {
            int64_t left = ms - (dval__now_ms() - t0);
            if (left > 0 && rc == DVAL_OK)
                dval__sleep_ms(left, e->cancel_fd);
            return;
        }
    }
    dval__sleep_ms(ms, e->cancel_fd);
}

static int wait_terminal(ensure *e)
{
    const char *name = e->spec.name;
    for (;;) {
        switch (e->info.state) {
        case DVAL_SNAPSHOT_ACTIVE:
            return DVAL_OK;
        case DVAL_SNAPSHOT_ERROR:
        case DVAL_SNAPSHOT_BUILD_FAILED:
            dval__fmt(e->msg, sizeof e->msg,
                      "snapshot %s is %s: %s", name,
                      dval_snapshot_state_name(e->info.state),
                      e->info.error_reason[0] ? e->info.error_reason
                                              : "no reason given");
            return DVAL_EBUILD;
        default:
            break;
        }
        if (e->log_aborted)
            return fail(e, DVAL_EABORTED, "build log callback stopped %s",
                        name);
        if (dval__now_ms() >= e->deadline)
            return fail(e, DVAL_ETIMEOUT, "snapshot %s did not become active "
                        "in time", name);
        wait_a_while(e, SNAP_POLL_MS);
        if (dval__fd_readable(e->cancel_fd))   /* dval_cancel fired */
            return fail(e, DVAL_ECANCELED, "canceled while waiting for "
                        "snapshot %s", name);
        int rc = x_get(e, e->info.id[0] ? e->info.id : name);
        if (rc == DVAL_ENOTFOUND && e->info.state == DVAL_SNAPSHOT_REMOVING)
            return DVAL_ENOTFOUND;
        if (rc)
            return rc;
    }
}

static int wait_gone(ensure *e)
{
    for (;;) {
        if (dval__now_ms() >= e->deadline)
            return fail(e, DVAL_ETIMEOUT, "snapshot %s was not removed in time",
                        e->spec.name);
        dval__sleep_ms(SNAP_POLL_MS, e->cancel_fd);
        int rc = x_get(e, e->spec.name);
        if (rc == DVAL_ENOTFOUND)
            return DVAL_OK;
        if (rc)
            return rc;
    }
}

static int delete_failed(ensure *e)
{
    DVAL__LOG(e->c, DVAL_LOG_INFO, "snapshot %s: deleting the failed build "
              "to rebuild it", e->spec.name);
    char id[DVAL_ID_MAX];
    dval__strlcpy(id, e->info.id, sizeof id);
    dval__ex_op op;
    op_init(&op, e, "delete snapshot", DVAL__IDEMPOTENT | DVAL__GONE_DONE);
    int rc = op_done(e, &op, dval__ex_snapshot_delete(e->c, &op, id));
    if (rc)
        return rc;
    return wait_gone(e);
}

/* One pass of the ladder. */
static int ensure_once(ensure *e)
{
    for (int step = 0; step < 8; step++) {
        int rc = x_get(e, e->spec.name);
        if (rc == DVAL_ENOTFOUND) {
            rc = x_create(e);
            if (rc == DVAL_EEXISTS)
                continue; /* created concurrently: get it */
            if (rc)
                return rc;
            return wait_terminal(e);
        }
        if (rc)
            return rc;
        switch (e->info.state) {
        case DVAL_SNAPSHOT_INACTIVE:
            rc = x_activate(e);
            if (rc)
                return rc;
            return wait_terminal(e);
        case DVAL_SNAPSHOT_ERROR:
        case DVAL_SNAPSHOT_BUILD_FAILED:
            if (!e->we_built && !e->spec.rebuild_failed)
                return wait_terminal(e); /* reports errorReason */
            rc = delete_failed(e);
            if (rc)
                return rc;
            continue;
        case DVAL_SNAPSHOT_REMOVING:
            rc = wait_gone(e);
            if (rc)
                return rc;
            continue;
        default: /* active, or transitional: wait */
            rc = wait_terminal(e);
            if (rc == DVAL_ENOTFOUND)
                continue;
            return rc;
        }
    }
    return fail(e, DVAL_ESTATE, "snapshot %s keeps changing state",
                e->spec.name);
}

/* Another pass of the ladder: for our own failed build (a pre-existing
 * failure is final) and a state change in flight (409). Transient call
 * failures (429, 5xx, resets) were already retried by the dispatch layer
 * with the client's attempts: retrying them here would multiply requests. */
static int pass_retryable(const ensure *e, int rc)
{
    return (rc == DVAL_EBUILD && e->we_built) || rc == DVAL_ECONFLICT;
}

static int check_spec(dval_client *c, ensure *e, const dval_snapshot_spec *spec)
{
    int rc = dval__opts_copy(&e->spec, sizeof e->spec, spec, sizeof(size_t));
    if (rc) {
        dval__client_seterr(c, "snapshot spec: struct_size %zu not supported",
                            spec->struct_size);
        return rc;
    }
    char msg[256];
    rc = dval__check_name("snapshot name", e->spec.name, 1, msg, sizeof msg);
    if (rc) {
        dval__client_seterr(c, "%s", msg);
        return rc;
    }
    return DVAL_OK;
}

/* Turns what the ladder found into a handle; frees e either way. */
static int new_handle(dval_snapshot **out, ensure *e, const char *name)
{
    dval_snapshot *s = dval__calloc(1, sizeof *s);
    if (s) {
        s->client = e->c;
        dval__client_ref(e->c);
        s->info = e->info;
        if (!s->info.name[0])
            dval__strlcpy(s->info.name, name, sizeof s->info.name);
    }
    dval__free(e);
    *out = s;
    return s ? DVAL_OK : DVAL_ENOMEM;
}

int dval__snapshot_ensure(dval_snapshot **out, dval_client *c,
                          const dval_snapshot_spec *spec,
                          dval_data_fn on_build_log, void *userdata,
                          const dval_cancel *cancel)
{
    if (out)
        *out = NULL;
    if (!out || !c || !spec) {
        if (c)
            dval__client_seterr(c, "dval_snapshot_ensure: NULL argument");
        return DVAL_EINVAL;
    }
    DVAL__NO_REENTRY(c);
    ensure *e = dval__calloc(1, sizeof *e);
    if (!e)
        return DVAL_ENOMEM;
    e->c = c;
    e->cancel_fd = dval__cancel_fd(cancel);
    int rc = check_spec(c, e, spec);
    if (rc) {
        dval__free(e);
        return rc;
    }
    e->on_log = on_build_log;
    e->log_ud = userdata;
    int64_t budget = e->spec.build_timeout_ms > 0 ? e->spec.build_timeout_ms
                                                  : 60LL * 60 * 1000;
    for (int attempt = 1;; attempt++) {
        e->deadline = dval__now_ms() + budget;
        e->retry_after_ms = -1;
        rc = ensure_once(e);
        if (rc == DVAL_OK)
            break;
        DVAL__LOG(c, DVAL_LOG_WARN, "snapshot %s: attempt %d/%d failed: %s",
                  e->spec.name, attempt, c->retry_attempts, e->msg);
        if (attempt >= c->retry_attempts ||
            !pass_retryable(e, rc))
            break;
        int64_t delay = dval__backoff_ms(c, attempt, e->retry_after_ms);
        DVAL__LOG(c, DVAL_LOG_INFO, "snapshot %s: retrying in %lld ms",
                  e->spec.name, (long long)delay);
        if (dval__sleep_ms(delay, e->cancel_fd) == DVAL_ECANCELED) {
            rc = fail(e, DVAL_ECANCELED, "canceled before snapshot %s's "
                      "next attempt", e->spec.name);
            break;
        }
    }
    if (rc) {
        dval__client_seterr(c, "snapshot %s: %s", e->spec.name,
                            e->msg[0] ? e->msg : dval_strerror(rc));
        dval__free(e);
        return rc;
    }
    DVAL__LOG(c, DVAL_LOG_INFO, "snapshot %s: active",
              e->info.name[0] ? e->info.name : e->spec.name);
    return new_handle(out, e, e->spec.name);
}

DVAL_API int dval_snapshot_ensure(dval_snapshot **out, dval_client *c,
                                  const dval_snapshot_spec *spec,
                                  dval_data_fn on_build_log, void *userdata)
{
    return dval__snapshot_ensure(out, c, spec, on_build_log, userdata, NULL);
}

DVAL_API int dval_snapshot_get(dval_snapshot **out, dval_client *c,
                               const char *name_or_id)
{
    if (out)
        *out = NULL;
    if (!out || !c) {
        if (c)
            dval__client_seterr(c, "dval_snapshot_get: NULL argument");
        return DVAL_EINVAL;
    }
    DVAL__NO_REENTRY(c);
    char msg[256];
    int rc = dval__check_name("snapshot name", name_or_id, 1, msg, sizeof msg);
    if (rc) {
        dval__client_seterr(c, "%s", msg);
        return rc;
    }
    ensure *e = dval__calloc(1, sizeof *e);
    if (!e)
        return DVAL_ENOMEM;
    e->c = c;
    e->cancel_fd = -1;
    rc = x_get(e, name_or_id);
    if (rc) {
        dval__client_seterr(c, "snapshot %s: %s", name_or_id,
                            e->msg[0] ? e->msg : dval_strerror(rc));
        dval__free(e);
        return rc;
    }
    return new_handle(out, e, name_or_id);
}

DVAL_API const char *dval_snapshot_name(const dval_snapshot *s)
{
    return s ? s->info.name : "";
}

DVAL_API const char *dval_snapshot_id(const dval_snapshot *s)
{
    return s ? s->info.id : "";
}

DVAL_API const char *dval_snapshot_runtime(const dval_snapshot *s)
{
    return s ? s->info.runtime : "";
}

DVAL_API int dval_snapshot_state(const dval_snapshot *s)
{
    return s ? s->info.state : DVAL_SNAPSHOT_UNKNOWN;
}

DVAL_API int dval_snapshot_delete(dval_snapshot *s)
{
    if (!s)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(s->client);
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, "delete snapshot", DVAL__IDEMPOTENT | DVAL__GONE_DONE,
                     msg, sizeof msg);
    op.subject = s->info.name;
    int rc = dval__ex_snapshot_delete(s->client, &op, s->info.id);
    if (rc)
        dval__client_seterr(s->client, "%s", msg);
    else
        s->info.state = DVAL_SNAPSHOT_REMOVING;
    return rc;
}

DVAL_API void dval_snapshot_free(dval_snapshot *s)
{
    if (!s)
        return;
    dval__client_unref(s->client);
    dval__free(s);
}
