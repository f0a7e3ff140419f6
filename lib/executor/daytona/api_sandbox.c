/* Sandbox members: one API request each (PROTOCOL 3); every Sandbox DTO
 * also refreshes the toolbox URL cache. */
#include <string.h>

#include "dt.h"
#include "api_request.h"
#include "json_map.h"

static int send_sandbox(dt_exec *ex, dval_call *c, dt_req *rq, void *out)
{
    return dt_sandbox_call(ex, c, rq, out);
}

static int sb_req(dt_exec *ex, dval_call *c, const char *method,
                  const char *fmt, const char *id, dval_sandbox_info *out)
{
    return dt_api_request(ex, c, method, fmt, id, send_sandbox, out);
}

int dt_sandbox_get(void *ud, dval_call *c, const char *name,
                   dval_sandbox_info *out)
{
    return sb_req(ud, c, "GET", "/sandbox/%s", name, out);
}

int dt_sandbox_start(void *ud, dval_call *c, const char *id,
                     dval_sandbox_info *out)
{
    return sb_req(ud, c, "POST", "/sandbox/%s/start", id, out);
}

int dt_sandbox_stop(void *ud, dval_call *c, const char *id,
                    dval_sandbox_info *out)
{
    return sb_req(ud, c, "POST", "/sandbox/%s/stop", id, out);
}

int dt_sandbox_recover(void *ud, dval_call *c, const char *id,
                       dval_sandbox_info *out)
{
    return sb_req(ud, c, "POST", "/sandbox/%s/recover", id, out);
}

int dt_sandbox_delete(void *ud, dval_call *c, const char *id)
{
    /* the 200 body is a DTO we do not need (state is still the old one) */
    return dt_api_request(ud, c, "DELETE", "/sandbox/%s", id, NULL, NULL);
}

static int create_once(dt_exec *ex, dval_call *c,
                       const dval_sandbox_options *o, dval_sandbox_info *out);

/* An older server refuses ttlMinutes with a 400 that names it (PROTOCOL
 * 10.2): the TTL is a backstop, so the sandbox is created without it. */
int dt_sandbox_create(void *ud, dval_call *c, const dval_sandbox_options *o,
                      dval_sandbox_info *out)
{
    int rc = create_once(ud, c, o, out);
    if (rc != DVAL_EBADREQUEST || !strstr(c->errmsg, "ttlMinutes") ||
        o->struct_size < offsetof(dval_sandbox_options, ttl_minutes) +
                             sizeof o->ttl_minutes || o->ttl_minutes <= 0)
        return rc;
    dval_sandbox_options plain = *o;
    plain.ttl_minutes = 0;
    if (c->log_fn)
        c->log_fn(DVAL_LOG_WARN, "the server refuses ttlMinutes: creating "
                  "the sandbox without a TTL", c->log_userdata);
    c->errmsg[0] = '\0';
    return create_once(ud, c, &plain, out);
}

static int create_once(dt_exec *ex, dval_call *c,
                       const dval_sandbox_options *o, dval_sandbox_info *out)
{
    char *body = NULL;
    int rc = dt_json_sandbox_create(&body, o, o->target ? o->target
                                                        : ex->target);
    /* a creation: 409 → EEXISTS; 400 "Snapshot X not found" → ENOTFOUND */
    return dt_api_create(ex, c, "/sandbox", body, rc, send_sandbox, out);
}

typedef struct list_ctx {
    dt_exec *ex;
    dval_call *c;
    dval_sandbox_info_fn each;
    void *each_ud;
} list_ctx;

static int list_item(dt_sandbox_out *o, void *ud)
{
    list_ctx *l = ud;
    if (o->toolbox[0])
        dt_tb_remember(l->ex, o->info->id, o->toolbox);
    if (l->each && l->each(o->info, l->each_ud))
        return dval__call_fail(l->c, DVAL_EABORTED, "list callback stopped "
                               "the listing");
    return 0;
}

static int list_page(dt_exec *ex, dval_call *c, const char *labels_json,
                     dt_sandbox_page *pg)
{
    dval__buf url = {0};
    int rc = dt_url(&url, ex->api_url, "/sandbox?limit=100");
    if (!rc && labels_json)
        rc = dt_url(&url, "", "&labels=%s", labels_json);
    if (!rc && pg->next_cursor[0])
        rc = dt_url(&url, "", "&cursor=%s", pg->next_cursor);
    if (rc)
        return dt_build_fail(c, rc);
    dt_req rq = {.method = "GET", .url = url.data};
    rc = dt_json_call(ex, c, &rq, dt_json_sandbox_page, pg);
    dval__buf_free(&url);
    return rc;
}

int dt_sandbox_list(void *ud, dval_call *c, const char *const *labels,
                    dval_sandbox_info_fn each, void *each_ud)
{
    dt_exec *ex = ud;
    char *lj = NULL;
    int rc = labels && labels[0] ? dt_json_labels(&lj, labels) : 0;
    if (rc)
        return dt_build_fail(c, rc);
    list_ctx l = {.ex = ex, .c = c, .each = each, .each_ud = each_ud};
    dt_sandbox_page pg = {.item = list_item, .ud = &l};
    int pages = 0;
    do {
        rc = list_page(ex, c, lj, &pg);
    } while (!rc && pg.next_cursor[0] && ++pages < 10000);
    dval__free(lj);
    return rc;
}
