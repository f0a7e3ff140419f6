/* Shared request patterns of the members: "send, then parse the JSON
 * object that comes back", and logging through the call or the client. */
#include <stdarg.h>

#include "dt.h"
#include "json_map.h"

static void scrub(void *ex, char *msg)
{
    dt_scrub(ex, msg);
}

void dt_log(dt_exec *ex, dval_call *c, int level, const char *fmt, ...)
{
    dval_log_fn fn = c && c->log_fn ? c->log_fn : ex->log_fn;
    void *ud = c && c->log_fn ? c->log_userdata : ex->log_ud;
    va_list ap;
    va_start(ap, fmt);
    dval__vlog(fn, ud, ex->log_level, level, scrub, ex, fmt, ap);
    va_end(ap);
}

int dt_json_call(dt_exec *ex, dval_call *c, dt_req *rq,
                 int (*parse)(const char *, size_t, void *, char *, size_t),
                 void *out)
{
    dt_resp rs;
    int rc = dt_http_do(ex, c, rq, &rs);
    if (rc == DVAL_OK && parse) {
        rc = parse(rs.body.data ? rs.body.data : "", rs.body.len, out,
                   c->errmsg, sizeof c->errmsg);
        if (rc) /* parse errors may quote the reply, which may echo the key */
            dt_scrub(ex, c->errmsg);
        if (rc)
            dt_log(ex, c, DVAL_LOG_DEBUG, "%s %s: %s", rq->method, rq->url,
                   c->errmsg);
    }
    dt_resp_free(&rs);
    return rc;
}

int dt_sandbox_call(dt_exec *ex, dval_call *c, dt_req *rq,
                    dval_sandbox_info *out)
{
    dval_sandbox_info tmp = {.struct_size = sizeof tmp};
    dt_sandbox_out o = {.info = out ? out : &tmp};
    int rc = dt_json_call(ex, c, rq, dt_json_sandbox, &o);
    if (rc == DVAL_OK && o.toolbox[0])
        dt_tb_remember(ex, o.info->id, o.toolbox);
    return rc;
}
