/* Snapshot members: one API request each (PROTOCOL 2). */
#include <string.h>

#include "dt.h"
#include "api_request.h"
#include "json_map.h"

static int send_snapshot(dt_exec *ex, dval_call *c, dt_req *rq, void *out)
{
    return dt_json_call(ex, c, rq, dt_json_snapshot, out);
}

int dt_snapshot_get(void *ud, dval_call *c, const char *name,
                    dval_snapshot_info *out)
{
    return dt_api_request(ud, c, "GET", "/snapshots/%s", name,
                          out ? send_snapshot : NULL, out);
}

int dt_snapshot_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out)
{
    return dt_api_request(ud, c, "POST", "/snapshots/%s/activate", id,
                          out ? send_snapshot : NULL, out);
}

int dt_snapshot_delete(void *ud, dval_call *c, const char *id)
{
    return dt_api_request(ud, c, "DELETE", "/snapshots/%s", id, NULL, NULL);
}

int dt_snapshot_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log,
                       void *log_ud)
{
    (void)log, (void)log_ud;   /* the build runs remotely: see logs */
    dt_exec *ex = ud;
    char *body = NULL;
    int rc = dt_json_snapshot_create(&body, s, s->target ? s->target
                                                         : ex->target);
    return dt_api_create(ex, c, "/snapshots", body, rc, send_snapshot, out);
}

typedef struct log_sink {
    uint64_t skip;          /* bytes already delivered by earlier calls */
    dval_chunk_fn log;
    void *ud;
    dval_call *c;
} log_sink;

static int build_log_chunk(const char *p, size_t n, void *ud)
{
    log_sink *s = ud;
    if (s->skip >= n) {
        s->skip -= n;
        return 0;
    }
    p += s->skip;
    n -= (size_t)s->skip;
    s->skip = 0;
    if (s->log && s->log(DVAL_STDOUT, p, n, s->ud))
        return dval__call_fail(s->c, DVAL_EABORTED, "build log callback "
                               "stopped the stream");
    return 0;
}

int dt_snapshot_logs(void *ud, dval_call *c, const char *id, uint64_t from,
                     dval_chunk_fn log, void *log_ud)
{
    dt_exec *ex = ud;
    dval__buf url = {0}, logs = {0};
    int rc = dt_url(&url, ex->api_url, "/snapshots/%s/build-logs-url", id);
    if (rc)
        return dt_build_fail(c, rc);
    dt_req rq = {.method = "GET", .url = url.data};
    rc = dt_json_call(ex, c, &rq, dt_json_url, &logs);
    if (!rc)
        rc = dval__buf_appendf(&logs, "%sfollow=true",
                               strchr(logs.data, '?') ? "&" : "?")
                 ? dt_build_fail(c, DVAL_ENOMEM) : 0;
    if (!rc) {
        /* raw build output; it may never end (PROTOCOL 2.7): bounded
         * by call->timeout_ms, which curl reports as ETIMEOUT */
        log_sink s = {.skip = from, .log = log, .ud = log_ud, .c = c};
        dt_req lr = {.method = "GET", .url = logs.data, .accept = "*/*",
                     .max_body = INT64_MAX, .sink = build_log_chunk,
                     .sink_ud = &s};
        dt_resp rs;
        rc = dt_http_do(ex, c, &lr, &rs);
        dt_resp_free(&rs);
    }
    dval__buf_free(&url);
    dval__buf_free(&logs);
    return rc;
}

typedef struct list_ctx {
    dval_call *c;
    dval_snapshot_info_fn each;
    void *each_ud;
} list_ctx;

static int list_item(const dval_snapshot_info *info, void *ud)
{
    list_ctx *l = ud;
    if (l->each(info, l->each_ud))
        return dval__call_fail(l->c, DVAL_EABORTED, "list callback stopped "
                               "the listing");
    return 0;
}

/* GET /snapshots page by page (200 a page, the API's most) until
 * totalPages; bounded, whatever the server claims. */
int dt_snapshot_list(void *ud, dval_call *c, dval_snapshot_info_fn each,
                     void *each_ud)
{
    dt_exec *ex = ud;
    list_ctx l = {.c = c, .each = each, .each_ud = each_ud};
    dt_snapshot_page pg = {.item = list_item, .ud = &l};
    int rc = DVAL_OK;
    for (int page = 1; !rc && page <= 10000; page++) {
        char num[16];
        dval__buf url = {0};
        dval__fmt(num, sizeof num, "%d", page);
        if ((rc = dt_url(&url, ex->api_url, "/snapshots?page=%S&limit=200",
                         num)) != 0) {
            rc = dt_build_fail(c, rc);
        } else {
            dt_req rq = {.method = "GET", .url = url.data};
            rc = dt_json_call(ex, c, &rq, dt_json_snapshot_page, &pg);
        }
        dval__buf_free(&url);
        if (page >= pg.total_pages)
            break;
    }
    return rc;
}
