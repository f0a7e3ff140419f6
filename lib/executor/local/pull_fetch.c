/* One registry request as the pull makes it: with the pull's
 * authorization, answering the registry's 401 challenge once (a token
 * expires in a long pull: the next request answers again), and under the
 * client's retry policy (dval__backoff, the one the core follows):
 * 429 waits what Retry-After says, 5xx and transport failures wait the
 * policy's backoff; attempts are bounded. A download that made progress
 * before it was cut starts its count again and resumes at once.
 * A quick pull (lx_pull_opts.quick) whose registry never answered
 * stops at its first failure: its caller has another image to use. */
#include "pull.h"

#include <string.h>

#define MAX_HEADERS 12

static int transient(int rc)
{
    return rc == DVAL_ENETWORK || rc == DVAL_ESERVER || rc == DVAL_ERATELIMIT;
}

/* The status a finished request means, with the call's message. */
static int judge(lx_pull *p, int rc, const lx_http_resp *rs, const char *path)
{
    dval_call *c = p->c;
    const char *h = p->ref.host;
    if (c)
        c->retry_after_ms = rs->retry_after_ms;
    if (rc == DVAL_ECANCELED)
        return dval__call_fail(c, rc, "pull of %s canceled", p->ref.canon);
    if (rc == DVAL_ETIMEOUT)
        return dval__call_fail(c, rc, "pull of %s: out of time", p->ref.canon);
    if (rc == DVAL_EABORTED || rc == DVAL_ENOMEM)
        return rc; /* the body's reader said why */
    if (rc != DVAL_OK)
        return dval__call_fail(c, rc, "registry %s: %s: %s", h, path, rs->err);
    long s = rs->status;
    rc = s == 429 ? DVAL_ERATELIMIT : s >= 500 ? DVAL_ESERVER
         : s == 401 ? DVAL_EAUTH : s == 403 ? DVAL_EFORBIDDEN
         : s == 404 ? DVAL_ENOTFOUND : DVAL_EPROTOCOL;
    return dval__call_fail(c, rc, "registry %s: %s: HTTP %ld%s", h, path, s,
                           s == 401 ? " (credentials missing or refused)"
                           : s == 404 ? " (no such image or blob)" : "");
}

static int unanswered(lx_pull *p, const lx_http_resp *rs, const char *path)
{
    if (p->o) {
        p->o->no_answer = rs->no_answer;
        dval__fmt(p->o->why, sizeof p->o->why, "%s", rs->err);
    }
    return dval__call_fail(p->c, DVAL_ENETWORK, "registry %s%s%s: %s: %s",
                           p->ref.host, strcmp(p->ref.api, p->ref.host)
                           ? " at " : "", strcmp(p->ref.api, p->ref.host)
                           ? p->ref.api : "", path, rs->no_answer == 2
                           ? "not asked (DVAL_LOCAL_PULL=never)" : rs->err);
}

int lx_fetch_backoff(lx_pull *p, int attempt, int64_t retry_after_ms, int rc)
{
    if (attempt >= p->retry.attempts) {
        if (p->c) /* repeated here already: the core need not again */
            p->c->failure = DVAL_FAILURE_PERMANENT;
        return rc;
    }
    int64_t d = dval__backoff_delay(&p->retry, attempt, retry_after_ms,
                                    &p->rng);
    if (dval__now_ms() + d >= p->end)
        return rc;
    LX_LOG(p->x, DVAL_LOG_WARN, "local executor: pull %s: attempt %d/%d "
           "failed (%s: %s); again in %lld ms", p->ref.canon, attempt,
           p->retry.attempts, dval_status_name(rc), p->c ? p->c->errmsg : "",
           (long long)d);
    if (dval__sleep_ms(d, p->c ? p->c->cancel_fd : -1) == DVAL_ECANCELED)
        return dval__call_fail(p->c, DVAL_ECANCELED, "pull of %s canceled",
                               p->ref.canon);
    return DVAL_OK;
}

/* The request's headers: authorization, the caller's, prepare's. */
static int headers(lx_pull *p, const char *const *extra, lx_prepare_fn prepare,
                   void *ud, const char **h)
{
    size_t n = 0;
    if (p->auth_header[0])
        h[n++] = p->auth_header;
    for (size_t i = 0; extra && extra[i] && n < MAX_HEADERS - 4; i++)
        h[n++] = extra[i];
    int rc = prepare ? prepare(ud, h, MAX_HEADERS - 1, &n) : DVAL_OK;
    h[n] = NULL;
    return rc;
}

int lx_fetch(lx_pull *p, const char *path, const char *const *extra,
             lx_prepare_fn prepare, lx_body_fn body, void *ud,
             lx_http_resp *rs, const int64_t *progress)
{
    char url[2048];
    const char *h[MAX_HEADERS];
    int answered = 0;
    dval__fmt(url, sizeof url, "%s%s", p->base, path);
    for (int attempt = 1;;) {
        int64_t before = progress ? *progress : 0;
        int rc = headers(p, extra, prepare, ud, h);
        if (rc != DVAL_OK)
            return rc;
        rc = lx_http_get(p, url, h, body, ud, rs);
        if (rc == DVAL_OK && rs->status / 100 == 2)
            return DVAL_OK;
        if (rc == DVAL_OK && rs->status == 401 && !answered) {
            answered = 1;
            rc = lx_auth_answer(p, rs->www_authenticate);
            if (rc != DVAL_OK)
                return rc;
            continue;
        }
        if (rs->no_answer == 2 || (rs->no_answer && p->o && p->o->quick))
            return unanswered(p, rs, path);
        rc = judge(p, rc, rs, path);
        if (!transient(rc))
            return rc;
        if (progress && *progress > before) { /* cut after some bytes */
            attempt = 1;
            continue;
        }
        rc = lx_fetch_backoff(p, attempt++, rs->retry_after_ms, rc);
        if (rc != DVAL_OK)
            return rc;
    }
}
