/* WebSocket client (RFC 6455) for log follow. libcurl 7.88 has no ws
 * support, so curl only connects (CONNECT_ONLY: TCP, TLS, proxy tunnel)
 * and we speak HTTP/1.1 Upgrade and frames over curl_easy_send/recv.
 * Framing itself is in ws_frame.c; this file is I/O and policy-free
 * reporting of payload bytes (api_logs.c demultiplexes them, the core
 * reconnects). */
#include <curl/curl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "http_ws_int.h"

#define WS_PING_MS 25000       /* keeps idle intermediaries from closing */
#define WS_SEND_MS 10000       /* bound on a blocked control frame send */

static int64_t left_ms(int64_t deadline)
{
    if (deadline < 0)
        return -1;
    int64_t l = deadline - dval__now_ms();
    return l > 0 ? l : 0;
}

int dt_ws_wait(dval_call *c, curl_socket_t fd, short events, int64_t ms)
{
    struct pollfd p[2] = {{.fd = fd, .events = events},
                          {.fd = c ? c->cancel_fd : -1, .events = POLLIN}};
    int n = p[1].fd >= 0 ? 2 : 1;
    int r = poll(p, (nfds_t)n, ms < 0 ? -1 : ms > 1000000 ? 1000000 : (int)ms);
    if (r < 0)
        return 0;   /* EINTR: the caller loops */
    if (n == 2 && p[1].revents)
        return DVAL_ECANCELED;
    return r > 0;
}

int dt_ws_send_all(dt_ws *ws, dval_call *c, const void *data, size_t len,
                   int64_t deadline)
{
    const char *p = data;
    while (len) {
        size_t sent = 0;
        CURLcode r = curl_easy_send(ws->e, p, len, &sent);
        if (r == CURLE_AGAIN) {
            /* TLS: the same bytes must be offered again */
            if (deadline >= 0 && left_ms(deadline) == 0)
                return dval__call_fail(c, DVAL_ETIMEOUT, "websocket send "
                                       "timed out");
            int w = dt_ws_wait(c, ws->fd, POLLOUT, left_ms(deadline));
            if (w < 0)
                return dval__call_fail(c, w, "canceled");
            continue;
        }
        if (r != CURLE_OK)
            return dval__call_fail(c, DVAL_ENETWORK, "websocket send: %s",
                                   curl_easy_strerror(r));
        p += sent;
        len -= sent;
    }
    ws->last_send_ms = dval__now_ms();
    return DVAL_OK;
}

static int send_frame(dt_ws *ws, dval_call *c, int opcode, const void *p,
                      size_t n)
{
    uint8_t mask[4], out[140];
    /* a fresh unpredictable key per frame (RFC 6455 5.3) */
    if (getrandom(mask, sizeof mask, 0) != (ssize_t)sizeof mask)
        return dval__call_fail(c, DVAL_ERROR, "no randomness for masking");
    size_t len = dt_ws_encode(out, sizeof out, opcode, 1, p, n, mask);
    if (!len)
        return dval__call_fail(c, DVAL_EINVAL, "control frame too long");
    return dt_ws_send_all(ws, c, out, len, dval__now_ms() + WS_SEND_MS);
}

/* ---- reading */

static int on_event(int kind, const uint8_t *p, size_t n, int fin, void *ud)
{
    (void)fin;
    dt_ws *ws = ud;
    int rc;
    switch (kind) {
    case DT_WSE_DATA:
        if (!n)
            return 0;
        ws->delivered = 1;
        rc = ws->sink ? ws->sink((const char *)p, n, ws->sink_ud) : 0;
        if (rc)
            return dval__call_fail(ws->c, rc, rc == DVAL_ENOMEM
                                   ? "out of memory"
                                   : "stream callback stopped");
        return 0;
    case DT_WSE_PING:
        return send_frame(ws, ws->c, DT_WS_PONG, p, n);
    case DT_WSE_CLOSE:
        ws->got_close = 1;
        if (dt_ws_close_parse(p, n, &ws->close_code, ws->close_reason,
                              sizeof ws->close_reason) < 0)
            ws->close_code = 1002;
        if (!ws->sent_close) {
            /* echo the code to complete the closing handshake */
            uint8_t echo[2] = {(uint8_t)(ws->close_code >> 8),
                               (uint8_t)ws->close_code};
            ws->sent_close = 1;
            send_frame(ws, ws->c, DT_WS_CLOSE, echo, ws->close_code ? 2 : 0);
        }
        return 1;   /* nothing after a close frame counts */
    default:
        return 0;   /* pong */
    }
}

static int feed(dt_ws *ws, const uint8_t *p, size_t n)
{
    int rc = dt_wsp_feed(&ws->parser, p, n, on_event, ws, ws->c->errmsg,
                         sizeof ws->c->errmsg);
    if (rc == DT_WSP_EPROTO) {
        ws->failed = 1;
        return DVAL_EPROTOCOL;
    }
    if (rc < 0)
        ws->failed = 1;
    return rc < 0 ? rc : DVAL_OK;
}

/* After a close frame: 1000/1001/none end the stream normally. */
static int closed_status(dt_ws *ws, int *closed)
{
    int code = ws->close_code;
    if (code == 0 || code == 1000 || code == 1001) {
        *closed = 1;
        return DVAL_OK;
    }
    return dval__call_fail(ws->c, DVAL_ENETWORK, "log stream closed with "
                           "code %d%s%s", code, ws->close_reason[0] ? ": " :
                           "", ws->close_reason);
}

static int maybe_ping(dt_ws *ws)
{
    if (dval__now_ms() - ws->last_send_ms < WS_PING_MS)
        return DVAL_OK;
    return send_frame(ws, ws->c, DT_WS_PING, "dval", 4);
}

/* One recv: >0 bytes fed, 0 would block, <0 status. */
static int recv_some(dt_ws *ws)
{
    size_t n = 0;
    CURLcode r = curl_easy_recv(ws->e, ws->buf, sizeof ws->buf, &n);
    if (r == CURLE_AGAIN)
        return 0;
    if (r != CURLE_OK) {
        ws->failed = 1;
        return dval__call_fail(ws->c, DVAL_ENETWORK, "log stream: %s",
                               curl_easy_strerror(r));
    }
    if (n == 0) {
        ws->failed = 1;
        return dval__call_fail(ws->c, DVAL_ENETWORK, "log stream connection "
                               "closed without a close frame");
    }
    int rc = feed(ws, ws->buf, n);
    return rc ? rc : (int)(n > 0);
}

static int read_loop(dt_ws *ws, int64_t deadline, int *closed)
{
    for (;;) {
        if (ws->got_close)
            return closed_status(ws, closed);
        int rc = maybe_ping(ws);
        if (rc)
            return rc;
        rc = recv_some(ws);
        if (rc < 0)
            return rc;
        if (rc > 0)
            continue;
        /* would block: return what we have, else wait (poll only after
         * CURLE_AGAIN: TLS may hold decrypted bytes poll cannot see) */
        if (ws->delivered || (deadline >= 0 && left_ms(deadline) == 0))
            return DVAL_OK;
        int64_t ping_in = WS_PING_MS - (dval__now_ms() - ws->last_send_ms);
        int64_t wait = left_ms(deadline);
        if (wait < 0 || wait > ping_in)
            wait = ping_in > 0 ? ping_in : 0;
        int w = dt_ws_wait(ws->c, ws->fd, POLLIN, wait);
        if (w < 0)
            return dval__call_fail(ws->c, w, "canceled");
    }
}

int dt_ws_read(dt_exec *ex, dval_call *c, dt_ws *ws, dt_sink_fn sink,
               void *sink_ud, int *closed)
{
    (void)ex;
    *closed = 0;
    if (!ws)
        return dval__call_fail(c, DVAL_EINVAL, "no stream");
    if (ws->failed)
        return dval__call_fail(c, DVAL_ENETWORK, "log stream already failed");
    ws->c = c;
    ws->sink = sink;
    ws->sink_ud = sink_ud;
    ws->delivered = 0;
    int64_t deadline = c->timeout_ms > 0 ? dval__now_ms() + c->timeout_ms
                                         : -1;
    int rc = DVAL_OK;
    if (ws->pending) {
        /* frames that came with the 101 reply */
        size_t n = ws->pending;
        ws->pending = 0;
        rc = feed(ws, ws->buf + ws->pending_off, n);
    }
    if (rc == DVAL_OK)
        rc = read_loop(ws, deadline, closed);
    ws->c = NULL;
    ws->sink = NULL;
    return rc;
}

void dt_ws_close(dt_ws *ws)
{
    if (!ws)
        return;
    if (!ws->sent_close && !ws->failed) {
        /* best effort: tell the server we are going (1000) */
        dval_call c = {.struct_size = sizeof c, .cancel_fd = -1};
        uint8_t code[2] = {1000 >> 8, 1000 & 0xff};
        ws->sent_close = 1;
        send_frame(ws, &c, DT_WS_CLOSE, code, 2);
    }
    dt_ws_put(ws);
}
