/* The transient-failure retry loop used around every executor call:
 *
 *   dval__retry r;
 *   dval__retry_begin(&r, client, "GET sandbox", DVAL__IDEMPOTENT, cancel_fd);
 *   do {
 *       dval__retry_call(&r, &call, timeout);
 *       rc = ex->sandbox_get(ud, &call, name, &info);
 *   } while (dval__retry_again(&r, rc, &call));
 */
#ifndef DVAL_RETRY_H
#define DVAL_RETRY_H

#include "core.h"

enum {
    DVAL__IDEMPOTENT = 1,    /* retry network/5xx failures too */
    DVAL__NAMED_CREATE = 2,  /* non-idempotent but recoverable by name */
    DVAL__ONCE = 8,          /* never retry (e.g. exec) except 429 */
    DVAL__NO_RETRY = 16,     /* one attempt: callbacks saw its output */
    /* dispatch (executor.c) only: */
    DVAL__EXISTS_DONE = 32,  /* EEXISTS after a retry: the earlier attempt
                                did it */
    DVAL__GONE_DONE = 64,    /* ENOTFOUND is success (deletes) */
    DVAL__NO_HOLD = 128      /* no wait for the client's 429 hold: reads
                                of a running command's output and its kill
                                must not stall behind other calls' limit */
};

typedef struct dval__retry {
    dval_client *client;
    const char *what;
    int flags;
    int cancel_fd;
    int attempt;             /* 1-based attempt just made */
} dval__retry;

void dval__retry_begin(dval__retry *r, dval_client *c, const char *what,
                       int flags, int cancel_fd);
/* Prepares the call context for the next attempt. */
void dval__retry_call(dval__retry *r, dval_call *call, int64_t timeout_ms);
/* Decides whether rc is worth another attempt, from the executor's
 * classification (call->failure) first, then the status and flags; if so,
 * logs, sleeps the
 * backoff (cancellable) and returns 1. On cancel during the sleep, rc is
 * left as is and 0 is returned with call->errmsg set to "canceled". */
int dval__retry_again(dval__retry *r, int rc, dval_call *call);
/* Status to return after the loop (DVAL_ECANCELED if the sleep was
 * interrupted). */
int dval__retry_status(const dval__retry *r, int rc);

#endif
