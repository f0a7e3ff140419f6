/* One retry policy for every executor call: 429 always (the request was
 * refused before running), network/5xx for idempotent or name-recoverable
 * calls; the delays themselves are backpressure.c's. */
#include <stdlib.h>
#include <string.h>

#include "backpressure.h"
#include "retry.h"

void dval__retry_begin(dval__retry *r, dval_client *c, const char *what,
                       int flags, int cancel_fd)
{
    r->client = c;
    r->what = what;
    r->flags = flags;
    r->cancel_fd = cancel_fd;
    r->attempt = 0;
}

void dval__retry_call(dval__retry *r, dval_call *call, int64_t timeout_ms)
{
    r->attempt++;
    if (!(r->flags & DVAL__NO_HOLD))
        dval__hold_wait(r->client, r->cancel_fd); /* a 429 another thread saw */
    dval__call_init(r->client, call, timeout_ms, r->cancel_fd);
}

/* The executor knows its wire (a Daytona toolbox that answers 400/404
 * while it starts, say); the core knows which calls are safe to repeat. */
static int worth_retrying(const dval__retry *r, int rc, const dval_call *call)
{
    int failure = call->failure;
    int repeatable = (r->flags & (DVAL__IDEMPOTENT | DVAL__NAMED_CREATE)) != 0;
    if ((r->flags & DVAL__NO_RETRY) || failure == DVAL_FAILURE_PERMANENT ||
        failure == DVAL_FAILURE_GONE)
        return 0;
    if (rc == DVAL_ERATELIMIT)
        return 1;
    if (r->flags & DVAL__ONCE)
        return 0;
    if (failure == DVAL_FAILURE_NOT_READY)
        return 1;
    if (failure == DVAL_FAILURE_TRANSIENT)
        return repeatable;
    return (rc == DVAL_ENETWORK || rc == DVAL_ESERVER) && repeatable;
}

int dval__retry_again(dval__retry *r, int rc, dval_call *call)
{
    dval_client *c = r->client;
    if (rc == DVAL_ERATELIMIT || rc == DVAL_EQUOTA)
        dval__hold_note(c, r->attempt, call->retry_after_ms);
    if (rc == DVAL_OK || rc == DVAL_EPASSTHROUGH || !worth_retrying(r, rc, call) ||
        r->attempt >= c->retry_attempts)
        return 0;
    int64_t delay = dval__backoff_ms(c, r->attempt, call->retry_after_ms);
    DVAL__LOG(c, DVAL_LOG_WARN, "%s: attempt %d/%d failed (%s: %s); retrying "
              "in %lld ms", r->what, r->attempt, c->retry_attempts,
              dval_status_name(rc), call->errmsg, (long long)delay);
    if (dval__sleep_ms(delay, r->cancel_fd) == DVAL_ECANCELED) {
        r->attempt = -1;
        return 0;
    }
    return 1;
}

int dval__retry_status(const dval__retry *r, int rc)
{
    return r->attempt < 0 ? DVAL_ECANCELED : rc;
}

void dval__call_init(dval_client *c, dval_call *call, int64_t timeout_ms,
                     int cancel_fd)
{
    memset(call, 0, sizeof *call);
    call->struct_size = sizeof *call;
    call->timeout_ms = timeout_ms;
    call->cancel_fd = cancel_fd;
    call->log_fn = c->cfg.log_fn;
    call->log_userdata = c->cfg.log_userdata;
    call->retry_after_ms = -1;
    call->size_hint = -1;
}
