/* Snapshot ensure: the get-or-create ladder (PROTOCOL §9.1) inside the
 * retry policy (attempts with base*2^n backoff; a server hint first). */
#include <string.h>

#include "retry.h"

#define SNAP_POLL_MS 1000

DVAL_API int dval_snapshot_spec_init(dval_snapshot_spec *s, size_t size)
{
    if (!s)
        return DVAL_EINVAL;
    if (size < sizeof(size_t))
        return DVAL_EABI;
    memset(s, 0, size);
    s->struct_size = size < sizeof *s ? size : sizeof *s;
    return DVAL_OK;
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
    dval_call call;          /* last call, for messages and hints */
} ensure;

static int log_sink(int stream, const char *data, size_t len, void *ud)
{
    ensure *e = ud;
    (void)stream;
    e->log_offset += len;
    if (!e->on_log)
        return 0;
    const dval_client *prev = dval__cb_enter(e->c);
    int stop = e->on_log(data, len, e->log_ud);
    dval__cb_leave(prev);
    if (stop) {
        e->log_aborted = 1;
        return 1;
    }
    return 0;
}

static int fail(ensure *e, int rc, const char *fmt, const char *arg)
{
    dval__fmt(e->call.errmsg, sizeof e->call.errmsg, fmt, arg);
    return rc;
}

/* One executor call with transient retries. */
#define SNAP_CALL(e, what, flags, expr)                                    \
    ({                                                                     \
        dval__retry r_;                                                    \
        int rc_;                                                           \
        dval__retry_begin(&r_, (e)->c, what, flags, -1);                   \
        do {                                                               \
            dval__retry_call(&r_, &(e)->call, 0);                          \
            rc_ = (expr);                                                  \
        } while (dval__retry_again(&r_, rc_, &(e)->call));                 \
        dval__retry_status(&r_, rc_);                                      \
    })

static int x_get(ensure *e, const char *name)
{
    struct dval_executor *x = &e->c->ex;
    if (!x->snapshot_get)
        return fail(e, DVAL_EUNSUPPORTED, "executor has no %s", "snapshot_get");
    char key[DVAL_ID_MAX]; /* name may point into e->info, cleared below */
    dval__strlcpy(key, name, sizeof key);
    int prev = e->info.state;
    memset(&e->info, 0, sizeof e->info);
    e->info.struct_size = sizeof e->info;
    int rc = SNAP_CALL(e, "get snapshot", DVAL__IDEMPOTENT,
                       x->snapshot_get(x->userdata, &e->call, key, &e->info));
    if (rc == DVAL_ENOTFOUND)
        e->info.state = prev; /* remember what vanished (e.g. removing) */
    return rc;
}

static int x_create(ensure *e)
{
    struct dval_executor *x = &e->c->ex;
    if (!x->snapshot_create)
        return fail(e, DVAL_EUNSUPPORTED, "executor has no %s",
                    "snapshot_create");
    e->we_built = 1;
    DVAL__LOG(e->c, DVAL_LOG_INFO, "snapshot %s: creating", e->spec.name);
    return SNAP_CALL(e, "create snapshot", DVAL__NAMED_CREATE,
                     x->snapshot_create(x->userdata, &e->call, &e->spec,
                                        &e->info, log_sink, e));
}

/* Follows build logs for up to ms, or sleeps when there are none. */
static void wait_a_while(ensure *e, int64_t ms)
{
    struct dval_executor *x = &e->c->ex;
    int building = e->info.state == DVAL_SNAPSHOT_BUILDING ||
                   e->info.state == DVAL_SNAPSHOT_PULLING;
    if (building && x->snapshot_logs && e->info.id[0] && !e->log_aborted) {
        int64_t t0 = dval__now_ms();
        dval_call call;
        dval__call_init(e->c, &call, ms, -1);
        int rc = x->snapshot_logs(x->userdata, &call, e->info.id,
                                  e->log_offset, log_sink, e);
        if (rc == DVAL_OK || rc == DVAL_ETIMEOUT) {
            int64_t left = ms - (dval__now_ms() - t0);
            if (left > 0 && rc == DVAL_OK)
                dval__sleep_ms(left, -1);
            return;
        }
    }
    dval__sleep_ms(ms, -1);
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
            dval__fmt(e->call.errmsg, sizeof e->call.errmsg,
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
        if (dval__cancel_pending())   /* dval_cancel fired */
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
        dval__sleep_ms(SNAP_POLL_MS, -1);
        int rc = x_get(e, e->spec.name);
        if (rc == DVAL_ENOTFOUND)
            return DVAL_OK;
        if (rc)
            return rc;
    }
}

static int delete_failed(ensure *e)
{
    struct dval_executor *x = &e->c->ex;
    if (!x->snapshot_delete)
        return fail(e, DVAL_EUNSUPPORTED, "executor has no %s",
                    "snapshot_delete");
    DVAL__LOG(e->c, DVAL_LOG_INFO, "snapshot %s: deleting the failed build "
              "to rebuild it", e->spec.name);
    char id[DVAL_ID_MAX];
    dval__strlcpy(id, e->info.id, sizeof id);
    int rc = SNAP_CALL(e, "delete snapshot", DVAL__IDEMPOTENT,
                       x->snapshot_delete(x->userdata, &e->call, id));
    if (rc && rc != DVAL_ENOTFOUND)
        return rc;
    return wait_gone(e);
}

/* One pass of the ladder. */
static int ensure_once(ensure *e)
{
    struct dval_executor *x = &e->c->ex;
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
            if (!x->snapshot_activate)
                return fail(e, DVAL_EUNSUPPORTED, "executor has no %s",
                            "snapshot_activate");
            rc = SNAP_CALL(e, "activate snapshot", DVAL__IDEMPOTENT,
                           x->snapshot_activate(x->userdata, &e->call,
                                                e->info.id, &e->info));
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
 * failures (429, 5xx, resets) were already retried by SNAP_CALL with the
 * client's attempts: retrying them here too would multiply the requests. */
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
    if (!e->spec.target)
        e->spec.target = c->cfg.target;
    return DVAL_OK;
}

DVAL_API int dval_snapshot_ensure(dval_snapshot **out, dval_client *c,
                                  const dval_snapshot_spec *spec,
                                  dval_data_fn on_build_log, void *userdata)
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
        e->call.retry_after_ms = -1;
        rc = ensure_once(e);
        if (rc == DVAL_OK)
            break;
        DVAL__LOG(c, DVAL_LOG_WARN, "snapshot %s: attempt %d/%d failed: %s",
                  e->spec.name, attempt, c->retry_attempts, e->call.errmsg);
        if (attempt >= c->retry_attempts ||
            !pass_retryable(e, rc))
            break;
        int64_t delay = dval__backoff_ms(c, attempt, e->call.retry_after_ms);
        DVAL__LOG(c, DVAL_LOG_INFO, "snapshot %s: retrying in %lld ms",
                  e->spec.name, (long long)delay);
        dval__sleep_ms(delay, -1);
    }
    if (rc) {
        dval__client_seterr(c, "snapshot %s: %s", e->spec.name,
                            e->call.errmsg[0] ? e->call.errmsg
                                              : dval_strerror(rc));
        dval__free(e);
        return rc;
    }
    dval_snapshot *s = dval__calloc(1, sizeof *s);
    if (!s) {
        dval__free(e);
        return DVAL_ENOMEM;
    }
    s->client = c;
    dval__client_ref(c);
    s->info = e->info;
    if (!s->info.name[0])
        dval__strlcpy(s->info.name, e->spec.name, sizeof s->info.name);
    DVAL__LOG(c, DVAL_LOG_INFO, "snapshot %s: active", s->info.name);
    dval__free(e);
    *out = s;
    return DVAL_OK;
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
    dval_snapshot *s = dval__calloc(1, sizeof *s);
    if (!e || !s) {
        dval__free(e);
        dval__free(s);
        return DVAL_ENOMEM;
    }
    e->c = c;
    rc = x_get(e, name_or_id);
    if (rc) {
        dval__client_seterr(c, "snapshot %s: %s", name_or_id,
                            e->call.errmsg[0] ? e->call.errmsg
                                              : dval_strerror(rc));
        dval__free(e);
        dval__free(s);
        return rc;
    }
    s->client = c;
    dval__client_ref(c);
    s->info = e->info;
    if (!s->info.name[0])
        dval__strlcpy(s->info.name, name_or_id, sizeof s->info.name);
    dval__free(e);
    *out = s;
    return DVAL_OK;
}

DVAL_API const char *dval_snapshot_name(const dval_snapshot *s)
{
    return s ? s->info.name : "";
}

DVAL_API const char *dval_snapshot_id(const dval_snapshot *s)
{
    return s ? s->info.id : "";
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
    struct dval_executor *x = &s->client->ex;
    if (!x->snapshot_delete)
        return DVAL_EUNSUPPORTED;
    dval__retry r;
    dval_call call;
    int rc;
    dval__retry_begin(&r, s->client, "delete snapshot", DVAL__IDEMPOTENT, -1);
    do {
        dval__retry_call(&r, &call, 0);
        rc = x->snapshot_delete(x->userdata, &call, s->info.id);
    } while (dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
    if (rc == DVAL_ENOTFOUND)
        rc = DVAL_OK; /* already gone */
    if (rc)
        dval__client_seterr(s->client, "delete snapshot %s: %s", s->info.name,
                            call.errmsg[0] ? call.errmsg : dval_strerror(rc));
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
