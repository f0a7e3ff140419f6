/* File members against the toolbox (PROTOCOL 7): streamed multipart
 * upload, streamed multipart download with a single-file fallback. */
#include <stddef.h>
#include <string.h>

#include "dt.h"
#include "api_request.h"
#include "json_map.h"
#include "multipart.h"

static int check_path(dval_call *c, const char *path)
{
    char msg[256];
    if (dval__check_remote_path(path, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(c, DVAL_EINVAL, "%s", msg);
    return DVAL_OK;
}

static int tb_url(dt_exec *ex, dval_call *c, dval__buf *url, const char *sb,
                  const char *fmt, const char *path)
{
    int rc = check_path(c, path);
    if (!rc)
        rc = dt_tb_base(ex, c, sb, url);
    if (!rc && (rc = dt_url(url, "", fmt, path)) != 0)
        rc = dval__call_fail(c, rc, "out of memory");
    return rc;
}

int dt_file_upload(void *ud, dval_call *c, const char *sb, const char *path,
                   dval_read_fn src, void *src_ud, int64_t size)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    int rc = tb_url(ex, c, &url, sb, "/files/bulk-upload", path);
    if (!rc) {
        /* parents are created by the daemon (PROTOCOL 7.4) */
        dt_req rq = {.method = "POST", .url = url.data, .accept = "*/*",
                     .up_path = path, .up_src = src, .up_ud = src_ud,
                     .up_size = size};
        rc = dt_json_call(ex, c, &rq, NULL, NULL);
    }
    dval__buf_free(&url);
    return rc;
}

int dt_folder_create(void *ud, dval_call *c, const char *sb,
                     const char *path)
{
    int rc = check_path(c, path);
    return rc ? rc : dt_toolbox_request(ud, c, "POST", sb, "/files/folder?"
                                        "path=%s&mode=755", path, NULL);
}

/* ---- download */

typedef struct dl {
    dt_exec *ex;
    dval_call *c;
    dval_data_fn sink;
    void *sink_ud;
    const dt_resp *rs;       /* for the Content-Type (boundary) */
    int mp_ready;
    int part;                /* 1 file, 2 error, 0 other */
    int files;
    int64_t got;
    int hinted;
    dval__buf err;
    dt_mp mp;                /* last: not zeroed (dt_mp_init sets it up) */
} dl;

/* Before the file's first byte, tells the caller how large the file is
 * at most (dval_call.size_hint), so a download into memory is one
 * allocation instead of a doubling chain. The bound is the body's
 * Content-Length (for bulk-download the file plus the multipart framing);
 * no hint when the server sends none. */
static void size_hint(dl *d)
{
    dval_call *c = d->c;
    if (d->hinted++ || !d->rs || d->rs->content_length <= 0 ||
        d->rs->content_length > d->ex->max_download + 65536 ||
        c->struct_size < offsetof(dval_call, size_hint) + sizeof c->size_hint)
        return;
    c->size_hint = d->rs->content_length;
}

static int file_bytes(dl *d, const char *p, size_t n)
{
    d->got += (int64_t)n;
    if (d->got > d->ex->max_download)
        return dval__call_fail(d->c, DVAL_ETOOBIG, "file larger than the "
                               "%lld-byte download limit",
                               (long long)d->ex->max_download);
    if (n && d->sink && d->sink(p, n, d->sink_ud))
        return dval__call_fail(d->c, DVAL_EABORTED, "download callback "
                               "stopped the transfer");
    return 0;
}

static int part_begin(const char *name, const char *filename, void *ud)
{
    (void)filename;
    dl *d = ud;
    /* one path was asked for: only the first file part is ours */
    d->part = strcmp(name, "file") == 0 && d->files++ == 0 ? 1
              : strcmp(name, "error") == 0 ? 2 : 0;
    if (d->part == 1)
        size_hint(d);
    return 0;
}

static int part_data(const char *p, size_t n, void *ud)
{
    dl *d = ud;
    if (d->part == 1)
        return file_bytes(d, p, n);
    if (d->part == 2 && d->err.len < DT_ERRBODY_MAX)
        return dval__buf_append(&d->err, p, n);
    return 0;
}

static int part_end(void *ud)
{
    dl *d = ud;
    if (d->part != 2)
        return 0;
    int code = 0;
    char msg[DVAL_ERRMSG_MAX];
    dt_json_error_part(d->err.data ? d->err.data : "", d->err.len, &code,
                       msg, sizeof msg);
    int st = dt_map_status(code ? code : 500, 0, msg);
    dval__call_fail(d->c, st, "%s", msg[0] ? msg : "download failed");
    dt_scrub(d->ex, d->c->errmsg);
    return st;
}

static int mp_status(int rc)
{
    if (rc == DT_MP_EPROTO)
        return DVAL_EPROTOCOL;
    if (rc == DT_MP_ETRUNC)
        return DVAL_ENETWORK;   /* retryable, like a reset */
    return rc;
}

static const dt_mp_cb mp_cb = {part_begin, part_data, part_end};

static int bulk_chunk(const char *p, size_t n, void *ud)
{
    dl *d = ud;
    if (!d->mp_ready) {
        int rc = dt_mp_init(&d->mp, d->rs->content_type, &mp_cb, d,
                            d->c->errmsg, sizeof d->c->errmsg);
        if (rc)
            return mp_status(rc);
        d->mp_ready = 1;
    }
    return mp_status(dt_mp_feed(&d->mp, p, n, d->c->errmsg,
                                   sizeof d->c->errmsg));
}

static int bulk_end(dl *d)
{
    dval_call *c = d->c;
    if (!d->mp_ready)
        return dval__call_fail(c, DVAL_EPROTOCOL, "empty bulk-download reply");
    int rc = dt_mp_finish(&d->mp, c->errmsg, sizeof c->errmsg);
    if (rc)
        return mp_status(rc);
    if (!d->files)
        return dval__call_fail(c, DVAL_EPROTOCOL, "bulk-download reply "
                               "without a file part");
    return DVAL_OK;
}

static int single_chunk(const char *p, size_t n, void *ud)
{
    size_hint(ud);
    return file_bytes(ud, p, n);
}

/* Older daemons without bulk-download: GET /files/download?path= */
static int download_single(dt_exec *ex, dval_call *c, const char *sb,
                           const char *path, dl *d)
{
    dval__buf url = {0};
    int rc = tb_url(ex, c, &url, sb, "/files/download?path=%s", path);
    if (!rc) {
        dt_req rq = {.method = "GET", .url = url.data, .accept = "*/*",
                     .max_body = ex->max_download, .sink = single_chunk,
                     .sink_ud = d};
        dt_resp rs;
        d->rs = &rs;    /* this reply's Content-Length is the file's */
        d->hinted = 0;
        rc = dt_http_do(ex, c, &rq, &rs);
        dt_resp_free(&rs);
        d->rs = NULL;
    }
    dval__buf_free(&url);
    return rc;
}

int dt_file_download(void *ud, dval_call *c, const char *sb,
                     const char *path, dval_data_fn sink, void *sink_ud)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    char *body = NULL;
    dt_resp rs;
    /* all but the multipart parser's 8 KiB header buffer zeroed: its
     * state is made by dt_mp_init before the first byte */
    dl d;
    memset(&d, 0, offsetof(dl, mp));
    d.ex = ex, d.c = c, d.sink = sink, d.sink_ud = sink_ud, d.rs = &rs;
    int rc = tb_url(ex, c, &url, sb, "/files/bulk-download", path);
    if (!rc && (rc = dt_json_paths(&body, path)) != 0)
        rc = dval__call_fail(c, rc, "path is not valid UTF-8");
    if (!rc) {
        /* multipart overhead on top of the file itself */
        dt_req rq = {.method = "POST", .url = url.data, .json = body,
                     .accept = "multipart/form-data",
                     .max_body = ex->max_download + 65536,
                     .sink = bulk_chunk, .sink_ud = &d};
        rc = dt_http_do(ex, c, &rq, &rs);
        if (!rc)
            rc = bulk_end(&d);
        else if (rs.status == 404 || rs.status == 405)
            rc = download_single(ex, c, sb, path, &d);
        dt_resp_free(&rs);
    }
    dval__buf_free(&d.err);
    dval__free(body);
    dval__buf_free(&url);
    return rc;
}
