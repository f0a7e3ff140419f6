/* A command's output (PROTOCOL 6): the live log over a WebSocket
 * (stream_open, stream_read, stream_close) and the final non-follow log
 * (command_logs). Both are the daemon's multiplexed log from byte 0;
 * demux.c splits it here, so the core only sees DVAL_STDOUT / DVAL_STDERR.
 *
 * Every connection, and the final log, replays the log from byte 0. The
 * core passes how many bytes of each stream it already has, and demux.c
 * drops those. Counts from the core rather than offsets kept here per
 * (sandbox, session, command): nothing outlives a call or a stream, so
 * there is no shared table to lock and nothing to expire when a command
 * is abandoned (canceled, timed out, its session deleted). */
#include <string.h>
#include <strings.h>

#include "demux.h"
#include "dt.h"
#include "json_map.h"

#define CHUNK 65536   /* raw bytes per demux feed: sink chunks stay small */

typedef struct logstream {
    dt_ws *ws;
    dt_demux d;
} logstream;

static int logs_url(dt_exec *ex, dval_call *c, dval__buf *url,
                    const char *sb, const char *sid, const char *cmd,
                    int follow)
{
    int rc = dt_tb_base(ex, c, sb, url);
    if (rc)
        return rc;
    rc = dt_url(url, "", follow
                ? "/process/session/%s/command/%s/logs?follow=true"
                : "/process/session/%s/command/%s/logs", sid, cmd);
    if (rc)
        return dval__call_fail(c, rc, rc == DVAL_EINVAL
                               ? "argument is not valid UTF-8"
                               : "out of memory");
    return DVAL_OK;
}

static int demux_fail(dval_call *c, int rc)
{
    return dval__call_fail(c, rc, rc == DVAL_ENOMEM ? "out of memory"
                                                    : "output callback "
                                                      "stopped");
}

/* The final log must hold at least what the streams delivered: when it
 * is shorter it is not the log they came from (not byte for byte), and
 * the counts do not line up. The core cannot see this any more. */
static void check_lined_up(dt_exec *ex, dval_call *c, const dt_demux *d,
                           uint64_t out_from, uint64_t err_from)
{
    uint64_t so = d->skip[DVAL_STDOUT], se = d->skip[DVAL_STDERR];
    if (so || se)
        dt_log(ex, c, DVAL_LOG_WARN, "the final log (%llu stdout, %llu "
               "stderr bytes) does not line up with the %llu + %llu bytes "
               "streamed; the output may be inexact",
               (unsigned long long)(out_from - so),
               (unsigned long long)(err_from - se),
               (unsigned long long)out_from, (unsigned long long)err_from);
}

static int deliver(dt_exec *ex, dval_call *c, const char *p, size_t n,
                   uint64_t out_from, uint64_t err_from, dval_chunk_fn sink,
                   void *sink_ud)
{
    dt_demux d;
    dt_demux_init(&d, out_from, err_from, sink, sink_ud);
    int rc = DVAL_OK;
    for (size_t off = 0; !rc && off < n; off += CHUNK)
        rc = dt_demux_feed(&d, p + off, n - off < CHUNK ? n - off : CHUNK);
    rc = rc ? rc : dt_demux_finish(&d);
    if (!rc)
        check_lined_up(ex, c, &d, out_from, err_from);
    dt_demux_free(&d);
    return rc ? demux_fail(c, rc) : DVAL_OK;
}

/* A daemon that answers JSON despite the raw request replaces invalid
 * UTF-8 by U+FFFD (three bytes for one): after a stream, the counts may
 * then land elsewhere in it. */
static void check_json_exact(dt_exec *ex, dval_call *c, const dval__buf *o,
                             uint64_t out_from, uint64_t err_from)
{
    if ((out_from || err_from) && o->len &&
        memmem(o->data, o->len, "\xef\xbf\xbd", 3))
        dt_log(ex, c, DVAL_LOG_WARN, "the final log came as JSON, where "
               "invalid UTF-8 is replaced; the output may be inexact");
}

int dt_command_logs(void *ud, dval_call *c, const char *sb, const char *sid,
                    const char *cmd, uint64_t out_from, uint64_t err_from,
                    dval_chunk_fn sink, void *sink_ud)
{
    dt_exec *ex = ud;
    dval__buf url = {0}, out = {0};
    dt_resp rs = {0};
    int rc = logs_url(ex, c, &url, sb, sid, cmd, 0);
    if (!rc) {
        /* raw: byte-identical to the stream, so the counts line up; a
         * daemon that answers JSON anyway is handled below */
        dt_req rq = {.method = "GET", .url = url.data,
                     .accept = "application/json,text/plain",
                     .sdk_version = DT_SDK_VERSION_RAW_LOG,
                     .max_body = ex->max_download};
        rc = dt_http_do(ex, c, &rq, &rs);
    }
    if (!rc && strncasecmp(rs.content_type, "application/json", 16) == 0) {
        /* its "output" keeps the markers */
        rc = dt_json_logs_output(rs.body.data ? rs.body.data : "",
                                 rs.body.len, &out, c->errmsg,
                                 sizeof c->errmsg);
        if (!rc) {
            check_json_exact(ex, c, &out, out_from, err_from);
            rc = deliver(ex, c, out.data, out.len, out_from, err_from, sink,
                         sink_ud);
        }
    } else if (!rc) {
        /* text/plain: the raw log file as it is */
        rc = deliver(ex, c, rs.body.data, rs.body.len, out_from, err_from,
                     sink, sink_ud);
    }
    dt_resp_free(&rs);
    dval__buf_free(&out);
    dval__buf_free(&url);
    return rc;
}

int dt_stream_open(void *ud, dval_call *c, const char *sb, const char *sid,
                   const char *cmd, uint64_t out_from, uint64_t err_from,
                   void **stream)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    *stream = NULL;
    logstream *ls = dval__calloc(1, sizeof *ls);
    if (!ls)
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    int rc = logs_url(ex, c, &url, sb, sid, cmd, 1);
    if (!rc)
        rc = dt_ws_open(ex, c, url.data, &ls->ws);
    dval__buf_free(&url);
    if (rc) {
        dval__free(ls);
        return rc;
    }
    dt_demux_init(&ls->d, out_from, err_from, NULL, NULL);
    *stream = ls;
    return DVAL_OK;
}

static int feed_raw(const char *p, size_t n, void *ud)
{
    return dt_demux_feed(ud, p, n);
}

int dt_stream_read(void *ud, dval_call *c, void *stream, dval_chunk_fn sink,
                   void *sink_ud, int *closed)
{
    logstream *ls = stream;
    *closed = 0;
    if (!ls)
        return dval__call_fail(c, DVAL_EINVAL, "no stream");
    ls->d.sink = sink;
    ls->d.sink_ud = sink_ud;
    int rc = dt_ws_read(ud, c, ls->ws, feed_raw, &ls->d, closed);
    /* a normal close ends the log: what was held back is output */
    if (!rc && *closed && (rc = dt_demux_finish(&ls->d)) != 0)
        rc = demux_fail(c, rc);
    ls->d.sink = NULL;
    return rc;
}

void dt_stream_close(void *ud, void *stream)
{
    (void)ud;
    logstream *ls = stream;
    if (!ls)
        return;
    dt_ws_close(ls->ws);
    dt_demux_free(&ls->d);
    dval__free(ls);
}
