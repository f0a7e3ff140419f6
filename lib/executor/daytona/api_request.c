/* The bodiless requests of the members (one copy of "build the URL, run,
 * free"): to the API, a creation, to a toolbox; and their build-failure
 * message. */
#include "api_request.h"

int dt_build_fail(dval_call *c, int rc)
{
    return dval__call_fail(c, rc, rc == DVAL_EINVAL
                           ? "argument is not valid UTF-8" : "out of memory");
}

int dt_api_request(dt_exec *ex, dval_call *c, const char *method,
                   const char *fmt, const char *id, dt_send_fn send,
                   void *out)
{
    dval__buf url = {0};
    int rc = dt_url(&url, ex->api_url, fmt, id);
    if (rc)
        return dt_build_fail(c, rc);
    dt_req rq = {.method = method, .url = url.data};
    rc = send ? send(ex, c, &rq, out) : dt_json_call(ex, c, &rq, NULL, NULL);
    dval__buf_free(&url);
    return rc;
}

int dt_api_create(dt_exec *ex, dval_call *c, const char *path, char *body,
                  int build_rc, dt_send_fn send, void *out)
{
    dval__buf url = {0};
    int rc = build_rc ? build_rc : dt_url(&url, ex->api_url, path);
    if (!rc) {
        dt_req rq = {.method = "POST", .url = url.data, .json = body,
                     .create = 1};
        rc = send(ex, c, &rq, out);
    } else {
        rc = dt_build_fail(c, rc);
    }
    dval__free(body);
    dval__buf_free(&url);
    return rc;
}

int dt_toolbox_request(dt_exec *ex, dval_call *c, const char *method,
                       const char *sb, const char *fmt, const char *a,
                       const char *b)
{
    dval__buf url = {0};
    int rc = dt_tb_base(ex, c, sb, &url);
    if (!rc && (rc = dt_url(&url, "", fmt, a, b)) != 0)
        rc = dt_build_fail(c, rc);
    if (!rc) {
        dt_req rq = {.method = method, .url = url.data, .accept = "*/*"};
        rc = dt_json_call(ex, c, &rq, NULL, NULL);
    }
    dval__buf_free(&url);
    return rc;
}
