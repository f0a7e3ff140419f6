/* Opening the log WebSocket: curl connects (CONNECT_ONLY, HTTP/1.1 so
 * ALPN cannot pick h2), then we send the Upgrade request ourselves and
 * check the 101 reply, including Sec-WebSocket-Accept. */
#include <curl/curl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "http_ws_int.h"
#include "sha1.h"

static int add(dval__buf *b, const char *s)
{
    return dval__buf_append(b, s, strlen(s));
}

/* Host header and request target from the URL curl connected to (its
 * URL handle; appended piece by piece: printf was most of the request's
 * cost) */
static int url_parts(CURLU *u, dval__buf *host, dval__buf *target)
{
    char *h = NULL, *port = NULL, *path = NULL, *query = NULL;
    int rc = DVAL_EINVAL;
    if (u && !curl_url_get(u, CURLUPART_HOST, &h, 0) &&
        !curl_url_get(u, CURLUPART_PATH, &path, 0)) {
        curl_url_get(u, CURLUPART_PORT, &port, 0);   /* absent: default */
        curl_url_get(u, CURLUPART_QUERY, &query, 0);
        rc = add(host, h);
        if (!rc && port)
            rc = add(host, ":") || add(host, port) ? DVAL_ENOMEM : DVAL_OK;
        if (!rc)
            rc = add(target, path);
        if (!rc && query)
            rc = add(target, "?") || add(target, query) ? DVAL_ENOMEM
                                                       : DVAL_OK;
    }
    curl_free(h);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    return rc;
}

static int upgrade_request(dt_exec *ex, CURLU *u, const char *key,
                           dval__buf *req)
{
    dval__buf host = {0}, target = {0};
    int rc = dval__buf_reserve(req, 512);   /* one allocation */
    if (!rc)
        rc = url_parts(u, &host, &target);
    /* "websocket" exactly: the daemon compares case-sensitively */
    const char *part[] = {
        "GET ", target.data, " HTTP/1.1\r\nHost: ", host.data,
        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: ", key, "\r\nSec-WebSocket-Version: 13\r\n"
        "Authorization: Bearer ", ex->token ? ex->token : "",
        "\r\nX-Daytona-Source: " DT_SDK_SOURCE "\r\n"
        "X-Daytona-SDK-Version: " DT_SDK_VERSION "\r\n"
        "User-Agent: " DT_SDK_SOURCE "/" DVAL_VERSION_STRING "\r\n",
        ex->org_id ? "X-Daytona-Organization-ID: " : "",
        ex->org_id ? ex->org_id : "", ex->org_id ? "\r\n" : "", "\r\n"};
    for (size_t i = 0; !rc && i < sizeof part / sizeof part[0]; i++)
        rc = add(req, part[i]);
    dval__buf_free(&host);
    dval__buf_free(&target);
    return rc;
}

/* Reads until the end of the reply head; *head_len includes CRLFCRLF. */
static int read_head(dt_ws *ws, dval_call *c, int64_t deadline, size_t *have,
                     size_t *head_len)
{
    for (;;) {
        char *end = *have ? memmem(ws->buf, *have, "\r\n\r\n", 4) : NULL;
        if (end) {
            *head_len = (size_t)(end - (char *)ws->buf) + 4;
            return DVAL_OK;
        }
        if (*have == sizeof ws->buf)
            return dval__call_fail(c, DVAL_EPROTOCOL, "websocket handshake "
                                   "reply head too long");
        size_t n = 0;
        CURLcode r = curl_easy_recv(ws->e, ws->buf + *have,
                                    sizeof ws->buf - *have, &n);
        if (r == CURLE_OK && n == 0)
            return dval__call_fail(c, DVAL_ENETWORK, "connection closed "
                                   "during the websocket handshake");
        if (r == CURLE_OK) {
            *have += n;
            continue;
        }
        if (r != CURLE_AGAIN)
            return dval__call_fail(c, DVAL_ENETWORK, "websocket handshake: "
                                   "%s", curl_easy_strerror(r));
        int64_t left = deadline - dval__now_ms();
        if (left <= 0)
            return dval__call_fail(c, DVAL_ETIMEOUT, "websocket handshake "
                                   "timed out");
        int w = dt_ws_wait(c, ws->fd, POLLIN, left);
        if (w < 0)
            return dval__call_fail(c, w, "canceled");
    }
}

/* Value of header `name` in the head (NUL-terminated copy into out). */
static int header(const char *head, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *l = strstr(head, "\r\n"); l; l = strstr(l, "\r\n")) {
        l += 2;
        if (strncasecmp(l, name, nl) != 0 || l[nl] != ':')
            continue;
        const char *v = l + nl + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vl = strcspn(v, "\r\n");
        while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
            vl--;
        dval__fmt(out, cap, "%.*s", (int)vl, v);
        return 1;
    }
    out[0] = '\0';
    return 0;
}

/* A non-101 reply: read what fits of its body for the message. */
static int refused(dt_exec *ex, dt_ws *ws, dval_call *c, long status,
                   size_t have, size_t head_len, int64_t deadline)
{
    char ctype[128], clen[32], line[128];
    const char *head = (const char *)ws->buf;
    header(head, "Content-Type", ctype, sizeof ctype);
    long want = header(head, "Content-Length", clen, sizeof clen)
                    ? strtol(clen, NULL, 10) : 0;
    size_t cap = sizeof ws->buf - 1;
    while (want > 0 && have - head_len < (size_t)want && have < cap &&
           dval__now_ms() < deadline) {
        size_t n = 0;
        CURLcode r = curl_easy_recv(ws->e, ws->buf + have, cap - have, &n);
        if (r == CURLE_AGAIN &&
            dt_ws_wait(c, ws->fd, POLLIN, deadline - dval__now_ms()) >= 0)
            continue;
        if (r != CURLE_OK || n == 0)
            break;
        have += n;
    }
    size_t sl = strcspn(head, "\r\n");
    const char *sp = memchr(head, ' ', sl);
    dval__fmt(line, sizeof line, "%.*s", sp ? (int)(sl - (size_t)(sp + 1 - head)) : 0,
              sp ? sp + 1 : "");
    size_t body = have - head_len;
    if (want >= 0 && body > (size_t)want)
        body = (size_t)want;
    return dt_fail_http(ex, c, status, 0, ctype, line,
                        (const char *)ws->buf + head_len, body);
}

static int check_101(dt_ws *ws, dval_call *c, const char *key)
{
    char v[256], accept[32];
    const char *head = (const char *)ws->buf;
    if (!header(head, "Upgrade", v, sizeof v) || strcasecmp(v, "websocket"))
        return dval__call_fail(c, DVAL_EPROTOCOL, "101 reply without "
                               "Upgrade: websocket");
    if (!header(head, "Connection", v, sizeof v) || !strcasestr(v, "upgrade"))
        return dval__call_fail(c, DVAL_EPROTOCOL, "101 reply without "
                               "Connection: Upgrade");
    /* no SHA-1 from libcrypto will not come back on a retry: unsupported
     * sends the run to polling the log at once */
    if (dt_ws_accept(key, accept))
        return dval__call_fail(c, DVAL_EUNSUPPORTED, "websocket handshake: "
                               "libcrypto gave no SHA-1 to check "
                               "Sec-WebSocket-Accept");
    if (!header(head, "Sec-WebSocket-Accept", v, sizeof v) ||
        strcmp(v, accept) != 0)
        return dval__call_fail(c, DVAL_EPROTOCOL, "bad Sec-WebSocket-Accept "
                               "in the handshake reply");
    return DVAL_OK;
}

static int handshake(dt_exec *ex, dt_ws *ws, dval_call *c,
                     int64_t deadline)
{
    uint8_t nonce[16];
    char key[32];
    dval__buf req = {0};
    if (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        return dval__call_fail(c, DVAL_ERROR, "no randomness for the key");
    dt_base64(nonce, sizeof nonce, key, sizeof key);
    int rc = upgrade_request(ex, ws->url.u, key, &req);
    if (rc)
        return dval__call_fail(c, rc, "cannot build the upgrade request");
    rc = dt_ws_send_all(ws, c, req.data, req.len, deadline);
    memset(req.data, 0, req.len);   /* it carried the token */
    dval__buf_free(&req);
    size_t have = 0, head_len = 0;
    /* the reply cannot be there yet: wait before the first read (a read
     * first was a recvfrom failing with EAGAIN per stream; nothing was
     * received yet, so TLS holds no bytes poll cannot see) */
    int64_t left = deadline - dval__now_ms();
    if (!rc && dt_ws_wait(c, ws->fd, POLLIN, left > 0 ? left : 0) < 0)
        rc = dval__call_fail(c, DVAL_ECANCELED, "canceled");
    if (!rc)
        rc = read_head(ws, c, deadline, &have, &head_len);
    if (rc)
        return rc;
    ws->buf[head_len - 1] = '\0';   /* head as a string (last LF) */
    const char *sp = strchr((const char *)ws->buf, ' ');
    long status = sp ? strtol(sp + 1, NULL, 10) : 0;
    ws->status = status;
    if (status != 101)
        return refused(ex, ws, c, status, have, head_len, deadline);
    rc = check_101(ws, c, key);
    /* frames may have come in the same read as the head: keep them */
    ws->pending_off = head_len;
    ws->pending = have - head_len;
    return rc;
}

/* The connect, on the handle's multi so that the stream's end can close
 * its connection; a cancel stops it. */
static CURLcode drive(dt_ws *ws, dval_call *c, int *canceled)
{
    for (;;) {
        int running = 0, left = 0;
        if (curl_multi_perform(ws->m, &running) != CURLM_OK)
            return CURLE_OUT_OF_MEMORY;
        if (!running) {
            CURLMsg *msg = curl_multi_info_read(ws->m, &left);
            return msg && msg->msg == CURLMSG_DONE ? msg->data.result
                                                   : CURLE_COULDNT_CONNECT;
        }
        struct curl_waitfd w = {.fd = c->cancel_fd, .events = CURL_WAIT_POLLIN};
        if (curl_multi_poll(ws->m, &w, c->cancel_fd >= 0, 1000, NULL) !=
            CURLM_OK)
            return CURLE_OUT_OF_MEMORY;
        if (w.revents) {
            *canceled = 1;
            return CURLE_ABORTED_BY_CALLBACK;
        }
    }
}

/* What changes per stream: URL, timeout, proxy (constant options: see
 * http_ws_pool.c) */
static CURLcode stream_options(dt_exec *ex, dt_ws *ws, dval_call *c,
                               const char *url)
{
    long t = dt_easy_timeout(ex->http, c->timeout_ms);
    CURLcode r = dt_url_apply(ws->e, &ws->url, url, ws->ebuf);
    if (r == CURLE_URL_MALFORMAT)   /* the handle is as it was */
        return r;
    if (r == CURLE_OK && t != ws->timeout_ms) {
        r = curl_easy_setopt(ws->e, CURLOPT_TIMEOUT_MS, t);
        ws->timeout_ms = r == CURLE_OK ? t : -1;
    }
    if (r == CURLE_OK)
        r = dt_easy_proxy(ex->http, ws->e, url, &ws->proxy_set);
    if (r != CURLE_OK)
        ws->spoiled = 1;
    return r;
}

static int connect_only(dt_exec *ex, dt_ws *ws, dval_call *c,
                        const char *url)
{
    int canceled = 0;
    CURLcode r = stream_options(ex, ws, c, url);
    if (r == CURLE_OK) {
        if (curl_multi_add_handle(ws->m, ws->e) == CURLM_OK)
            ws->added = 1;
        r = ws->added ? drive(ws, c, &canceled) : CURLE_OUT_OF_MEMORY;
    }
    if (canceled)
        return dval__call_fail(c, DVAL_ECANCELED, "canceled");
    if (r != CURLE_OK)
        return dt_curl_fail(ex, c, r, ws->ebuf);
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(ws->e, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK ||
        fd == CURL_SOCKET_BAD)
        return dval__call_fail(c, DVAL_ENETWORK, "no socket after connect");
    ws->fd = fd;
    return DVAL_OK;
}

int dt_ws_open(dt_exec *ex, dval_call *c, const char *url, dt_ws **out)
{
    *out = NULL;
    c->retry_after_ms = -1;
    dt_ws *ws = dt_ws_get(ex->http);
    if (!ws)
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    /* server frames are <= 1 KiB (PROTOCOL 6.3); leave ample room */
    ws->parser.max_frame = (uint64_t)1 << 20;
    ws->parser.max_message = (uint64_t)64 << 20;
    int64_t t = c->timeout_ms > 0 ? c->timeout_ms : 30000;
    int64_t deadline = dval__now_ms() + t;
    int rc = connect_only(ex, ws, c, url);
    if (!rc)
        rc = handshake(ex, ws, c, deadline);
    dt_log(ex, c, DVAL_LOG_DEBUG, "websocket %s -> %ld%s%s", url,
           ws->status, rc ? ": " : "", rc ? c->errmsg : "");
    if (rc) {
        dt_ws_put(ws);
        return rc;
    }
    ws->last_send_ms = dval__now_ms();
    *out = ws;
    return DVAL_OK;
}
