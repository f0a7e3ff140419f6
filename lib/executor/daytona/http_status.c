/* HTTP status → dval status, and error messages from error bodies. */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "dt.h"
#include "json_map.h"

int dt_map_status(long http, int create, const char *msg)
{
    if (!msg)
        msg = "";
    switch (http) {
    case 400:
        /* a missing snapshot is a 400 on sandbox create (PROTOCOL 2.3) */
        if (create && strcasestr(msg, "snapshot") && strstr(msg, "not found"))
            return DVAL_ENOTFOUND;
        return DVAL_EBADREQUEST;
    case 422:
        return DVAL_EBADREQUEST;
    case 401:
        return DVAL_EAUTH;
    case 403:
        return DVAL_EFORBIDDEN;
    case 404:
        return DVAL_ENOTFOUND;
    case 408:
        return DVAL_ETIMEOUT;
    case 409:
        return create ? DVAL_EEXISTS : DVAL_ECONFLICT;
    case 410:
        return DVAL_ESTATE;
    case 429:
        return DVAL_ERATELIMIT;
    default:
        break;
    }
    /* the daemon wraps "session not found" in a 500 (PROTOCOL 5.3) */
    if (http == 500 && strstr(msg, "session not found"))
        return DVAL_ENOTFOUND;
    if (http >= 500)
        return DVAL_ESERVER;
    return DVAL_EPROTOCOL;   /* 1xx/3xx/other 4xx we did not ask for */
}

void dt_classify(dval_call *c, int failure)
{
    if (c->struct_size >= offsetof(dval_call, failure) + sizeof c->failure)
        c->failure = failure;
}

void dt_scrub(const dt_exec *ex, char *msg)
{
    size_t tl = ex->token ? strlen(ex->token) : 0;
    if (tl < 4)
        return;
    char *p;
    while ((p = strstr(msg, ex->token)) != NULL) {
        memmove(p + 3, p + tl, strlen(p + tl) + 1);
        memcpy(p, "***", 3);
    }
}

int dt_fail_http(dt_exec *ex, dval_call *c, long http, int create,
                 const char *ctype, const char *status_line,
                 const char *body, size_t len)
{
    char msg[DVAL_ERRMSG_MAX] = "";
    /* JSON message (fallback error); some servers send JSON as text */
    if (len && ((ctype && strcasestr(ctype, "json")) || body[0] == '{'))
        dt_json_error_message(body, len, msg, sizeof msg);
    if (!msg[0] && status_line && status_line[0])
        dval__strlcpy(msg, status_line, sizeof msg);
    if (!msg[0])
        dval__fmt(msg, sizeof msg, "HTTP %ld", http);
    if (http == 410)
        dt_classify(c, DVAL_FAILURE_GONE);
    dval__fmt(c->errmsg, sizeof c->errmsg, "%s (HTTP %ld)", msg, http);
    dt_scrub(ex, c->errmsg);
    return dt_envelope_map(c, body, len, msg, dt_map_status(http, create, msg));
}
