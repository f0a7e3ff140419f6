/* One HTTP request = one remote operation: headers, size limits while
 * streaming, cancellation through call->cancel_fd, and the mapping of
 * whatever went wrong to a dval status. No retries (the core decides). */
#include <curl/curl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_int.h"
#include "upload_body.h"

/* the least interval between two looks at a call's cancel_fd */
#define DT_CANCEL_CHECK_MS 50

typedef struct xfer {
    dt_exec *ex;
    dval_call *c;
    const dt_req *rq;
    dt_resp *rs;
    int64_t max_body;
    int64_t got;
    int abort_status;          /* why a callback stopped the transfer */
    int64_t retry_after_s;     /* -1 none */
    int64_t cancel_check_ms;   /* when on_progress may poll cancel_fd next */
    char status_line[128];
    dt_upbody up;              /* an upload's body (rq->up_src) */
    struct curl_slist up_ctype; /* its Content-Type, before the kept list */
} xfer;

static int is_2xx(long s)
{
    return s >= 200 && s < 300;
}

static size_t stop(xfer *x, int status)
{
    if (!x->abort_status)
        x->abort_status = status;
    return 0;
}

/* A header value as a string, cut to cap (no printf: once per header) */
static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

/* "HTTP/1.1 502 Bad Gateway\r\n" starts a (new) response */
static void status_line(xfer *x, const char *p, size_t n)
{
    const char *sp = memchr(p, ' ', n);
    x->rs->status = sp ? strtol(sp + 1, NULL, 10) : 0;
    x->rs->content_type[0] = '\0';
    x->rs->content_length = -1;
    x->retry_after_s = -1;
    size_t l = sp ? n - (size_t)(sp + 1 - p) : 0;
    while (l && (sp[l] == '\r' || sp[l] == '\n'))
        l--;
    copy_value(x->status_line, sizeof x->status_line, sp ? sp + 1 : "", l);
}

static void retry_after(xfer *x, const char *v)
{
    char *end;
    long long s = strtoll(v, &end, 10);
    if (end != v && s >= 0 && s > x->retry_after_s)
        x->retry_after_s = s;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ((dt_easy *)ud)->x;   /* see prime */
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        status_line(x, p, n);
        return n;
    }
    const char *colon = memchr(p, ':', n);
    size_t kl = colon ? (size_t)(colon - p) : 0;
    /* only these headers matter: skip the others before any copy */
    if (kl != 12 && kl != 14 && kl < 11)
        return n;
    char v[256];
    size_t vl = n - kl - 1;
    const char *vp = colon + 1;
    while (vl && (*vp == ' ' || *vp == '\t'))
        vp++, vl--;
    while (vl && (vp[vl - 1] == '\r' || vp[vl - 1] == '\n' || vp[vl - 1] == ' '))
        vl--;
    copy_value(v, sizeof v, vp, vl);
    if (kl == 12 && strncasecmp(p, "content-type", 12) == 0) {
        dval__strlcpy(x->rs->content_type, v, sizeof x->rs->content_type);
    } else if (kl == 14 && strncasecmp(p, "content-length", 14) == 0) {
        /* refuse an oversized body before a single byte is buffered */
        long long len = strtoll(v, NULL, 10);
        if (is_2xx(x->rs->status) && len > x->max_body)
            return stop(x, DVAL_ETOOBIG);
        if (is_2xx(x->rs->status) && len >= 0)
            x->rs->content_length = len;
    } else if ((kl == 11 && strncasecmp(p, "retry-after", 11) == 0) ||
               (kl > 12 && strncasecmp(p, "retry-after-", 12) == 0) ||
               (kl > 18 && strncasecmp(p, "x-ratelimit-reset-", 18) == 0)) {
        retry_after(x, v);
    }
    return n;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ((dt_easy *)ud)->x;   /* see prime */
    size_t n = size * nmemb;
    if (!is_2xx(x->rs->status)) {
        /* error bodies only feed the message: keep a bounded head */
        size_t room = DT_ERRBODY_MAX - x->rs->body.len;
        if (room && dval__buf_append(&x->rs->body, p, n < room ? n : room))
            return stop(x, DVAL_ENOMEM);
        return n;
    }
    x->got += (int64_t)n;
    if (x->got > x->max_body)
        return stop(x, DVAL_ETOOBIG);
    if (x->rq->sink) {
        int rc = x->rq->sink(p, n, x->rq->sink_ud);
        return rc ? stop(x, rc) : n;
    }
    /* announced (and within max_body, on_header checked): one block */
    if (!x->rs->body.cap && x->rs->content_length > 0)
        (void)dval__buf_reserve(&x->rs->body, (size_t)x->rs->content_length);
    if (dval__buf_append(&x->rs->body, p, n))
        return stop(x, DVAL_ENOMEM);
    return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    xfer *x = ((dt_easy *)ud)->x;
    if (x->c->cancel_fd < 0)
        return 0;
    /* curl calls this several times per small request: a poll each time
     * was a syscall per call; curl's own waits already bound the latency
     * at ~1 s, so checking at most every DT_CANCEL_CHECK_MS adds little */
    int64_t now = dval__now_ms();
    if (now < x->cancel_check_ms)
        return 0;
    x->cancel_check_ms = now + DT_CANCEL_CHECK_MS;
    struct pollfd pfd = {.fd = x->c->cancel_fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) > 0) {
        stop(x, DVAL_ECANCELED);
        return 1;
    }
    return 0;
}

static size_t on_upload_read(char *buf, size_t size, size_t nitems, void *ud)
{
    xfer *x = ud;
    size_t len = 0;
    int rc = dt_upbody_read(&x->up, buf, size * nitems, &len);
    if (rc == DT_UP_ESHORT)
        dval__call_fail(x->c, DVAL_EABORTED, "the upload source ended "
                        "before its announced %lld bytes",
                        (long long)x->rq->up_size);
    if (rc) {
        stop(x, DVAL_EABORTED);
        return CURL_READFUNC_ABORT;
    }
    return len;
}

/* curl rewinds to resend on a fresh connection (a reused one that had
 * died): possible until the source's first byte was taken */
static int on_upload_seek(void *ud, curl_off_t off, int origin)
{
    xfer *x = ud;
    if (off != 0 || origin != SEEK_SET || dt_upbody_rewind(&x->up))
        return CURL_SEEKFUNC_CANTSEEK;
    return CURL_SEEKFUNC_OK;
}

/* files[0].path then files[0].file, the file streamed from up_src; the
 * body's own Content-Type line goes before the kept header list (curl
 * only reads the list: the kept one stays shared and unchanged) */
static int upload_body(CURL *e, xfer *x, struct curl_slist **hdrs)
{
    const dt_req *rq = x->rq;
    int rc = dt_upbody_init(&x->up, rq->up_path, rq->up_src, rq->up_ud,
                            rq->up_size);
    if (rc)
        return rc;
    x->up_ctype.data = x->up.ctype;
    x->up_ctype.next = *hdrs;
    *hdrs = &x->up_ctype;
    /* a previous request's fields would be sent instead of the source */
    CURLcode r = curl_easy_setopt(e, CURLOPT_POSTFIELDS, NULL);
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_HTTPHEADER, *hdrs);
    SET(CURLOPT_READFUNCTION, on_upload_read);
    SET(CURLOPT_READDATA, x);
    SET(CURLOPT_SEEKFUNCTION, on_upload_seek);
    SET(CURLOPT_SEEKDATA, x);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)dt_upbody_length(&x->up));
#undef SET
    return r ? DVAL_ERROR : DVAL_OK;
}

/* What an upload left on the handle: curl would call the read and seek
 * callbacks with a request that is gone */
static CURLcode undo_upload(CURL *e)
{
    CURLcode r = curl_easy_setopt(e, CURLOPT_READFUNCTION, NULL);
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    SET(CURLOPT_READDATA, NULL);
    SET(CURLOPT_SEEKFUNCTION, NULL);
    SET(CURLOPT_SEEKDATA, NULL);
    SET(CURLOPT_UPLOAD_BUFFERSIZE, DT_UPLOAD_BUFFER_DEFAULT);
#undef SET
    return r;
}

/* The method and body, undoing what the handle's previous request set
 * and this one does not (a POST's fields, a custom method, an upload) */
static int set_method(dt_easy *de, xfer *x, struct curl_slist **hdrs)
{
    const dt_req *rq = x->rq;
    CURL *e = de->e;
    CURLcode r = CURLE_OK;
    int post = rq->up_src || strcmp(rq->method, "POST") == 0;
    if (de->custom)
        r = curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    if (!r && de->uploaded)
        r = undo_upload(e);
    if (!r && de->posted && !post)
        r = curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);   /* no body again */
    de->custom = de->uploaded = 0;
    de->posted = (unsigned)post;
    if (r)
        return DVAL_ERROR;
    if (rq->up_src) {
        de->uploaded = 1;
        return upload_body(e, x, hdrs);
    }
    if (post) {
        const char *b = rq->json ? rq->json : "";
        r = curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(b));
        if (!r)
            r = curl_easy_setopt(e, CURLOPT_POSTFIELDS, b);
    } else if (strcmp(rq->method, "GET") != 0) {
        de->custom = 1;
        r = curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, rq->method);
    }
    return r ? DVAL_ERROR : DVAL_OK;
}

/* The callbacks, set once per handle: they find the request in de->x */
static CURLcode prime(dt_easy *de)
{
    CURL *e = de->e;
    CURLcode r = CURLE_OK;
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, de);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, de);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, de);
#undef SET
    de->primed = r == CURLE_OK;
    return r;
}

/* Only what changes per request: URL, headers, timeout, buffer sizes,
 * method and body (see dt_easy) */
static int setup(dt_easy *de, xfer *x, struct curl_slist **hdrs)
{
    CURL *e = de->e;
    long t = dt_easy_timeout(x->ex->http, x->c->timeout_ms);
    int big = x->rq->sink && x->max_body > DT_XFER_BUFFER &&
              atomic_load(&x->ex->http->big_bodies);
    CURLcode r = de->primed ? CURLE_OK : prime(de);
    de->x = x;
    de->ebuf[0] = '\0';
    if (r == CURLE_OK) {
        r = dt_url_apply(e, &de->url, x->rq->url, de->ebuf);
        if (r == CURLE_URL_MALFORMAT)   /* the handle is as it was */
            return dt_curl_fail(x->ex, x->c, r, de->ebuf);
    }
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    if (r == CURLE_OK)
        r = dt_easy_proxy(x->ex->http, e, x->rq->url, &de->proxy_set);
    SET(CURLOPT_HTTPHEADER, *hdrs);
    if (t != de->timeout_ms)
        SET(CURLOPT_TIMEOUT_MS, t);
    de->timeout_ms = t;
    /* bulk transfers: larger buffers mean fewer callbacks, sink calls
     * and syscalls per MiB (the defaults are 16 KiB down, 64 KiB up);
     * downloads once this client has made a big one (DT_BIG_BODY) */
    if (x->rq->up_src)
        SET(CURLOPT_UPLOAD_BUFFERSIZE, DT_XFER_BUFFER);
    if (big != (int)de->big_down)
        SET(CURLOPT_BUFFERSIZE, big ? DT_XFER_BUFFER : DT_BUFFER_DEFAULT);
    de->big_down = (unsigned)big;
#undef SET
    /* what a failed setopt left is unknown: the pool drops the handle */
    int rc = r == CURLE_OK ? set_method(de, x, hdrs) : DVAL_ERROR;
    de->spoiled = rc != DVAL_OK;
    return rc;
}

int dt_curl_fail(dt_exec *ex, dval_call *c, CURLcode r, const char *ebuf)
{
    const char *m = ebuf && ebuf[0] ? ebuf : curl_easy_strerror(r);
    int st;
    switch (r) {
    case CURLE_OPERATION_TIMEDOUT:
        st = DVAL_ETIMEOUT;
        break;
    case CURLE_OUT_OF_MEMORY:
        st = DVAL_ENOMEM;
        break;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        st = DVAL_EINVAL;
        break;
    default:
        /* resolve, connect, reset, partial transfer, TLS: the network */
        st = DVAL_ENETWORK;
        break;
    }
    dval__fmt(c->errmsg, sizeof c->errmsg, "%s", m);
    dt_scrub(ex, c->errmsg);
    return st;
}

static int abort_fail(xfer *x)
{
    dval_call *c = x->c;
    switch (x->abort_status) {
    case DVAL_ETOOBIG:
        return dval__call_fail(c, DVAL_ETOOBIG, "reply body larger than "
                               "the %lld-byte limit", (long long)x->max_body);
    case DVAL_ECANCELED:
        return dval__call_fail(c, DVAL_ECANCELED, "canceled");
    case DVAL_EABORTED:
        if (!c->errmsg[0])
            dval__call_fail(c, DVAL_EABORTED, "a callback stopped the "
                            "transfer");
        return DVAL_EABORTED;
    case DVAL_ENOMEM:
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    default:
        return x->abort_status;   /* a sink's own status and message */
    }
}

static int finish(xfer *x, CURLcode r, const char *ebuf)
{
    dval_call *c = x->c;
    if (x->abort_status)
        return abort_fail(x);
    if (r != CURLE_OK)
        return dt_curl_fail(x->ex, c, r, ebuf);
    if (is_2xx(x->rs->status))
        return DVAL_OK;
    if (x->rs->status == 429 && x->retry_after_s >= 0)
        c->retry_after_ms =
            x->retry_after_s < DVAL__RETRY_AFTER_MAX_MS / 1000
            ? x->retry_after_s * 1000 : DVAL__RETRY_AFTER_MAX_MS;
    return dt_fail_http(x->ex, c, x->rs->status, x->rq->create,
                        x->rs->content_type, x->status_line,
                        x->rs->body.data, x->rs->body.len);
}

int dt_http_do(dt_exec *ex, dval_call *c, const dt_req *rq, dt_resp *rs)
{
    xfer x = {.ex = ex, .c = c, .rq = rq, .rs = rs, .retry_after_s = -1};
    x.max_body = rq->max_body > 0 ? rq->max_body : DT_JSON_MAX;
    memset(rs, 0, sizeof *rs);
    rs->content_length = -1;
    c->retry_after_ms = -1;
    c->errmsg[0] = '\0';
    struct curl_slist *hdrs = NULL;
    int64_t t0 = dval__now_ms();
    dt_easy *de = dt_easy_get(ex->http);
    int owned = 0;
    int rc = de ? dt_headers(ex, &hdrs, &owned, rq->accept ? rq->accept
                            : "application/json",
                            rq->json ? "application/json" : NULL,
                            rq->sdk_version)
               : DVAL_ENOMEM;
    if (!rc)
        rc = setup(de, &x, &hdrs);
    if (!rc)
        rc = finish(&x, curl_easy_perform(de->e), de->ebuf);
    else if (!c->errmsg[0])
        rc = dval__call_fail(c, rc, "cannot prepare the HTTP request");
    dt_log(ex, c, DVAL_LOG_DEBUG, "%s %s -> %ld (%lld ms)%s%s", rq->method,
           rq->url, rs->status, (long long)(dval__now_ms() - t0),
           rc ? ": " : "", rc ? c->errmsg : "");
    if (rq->sink && x.got >= DT_BIG_BODY)
        atomic_store(&ex->http->big_bodies, 1);
    dt_easy_put(ex->http, de);   /* kept options point at hdrs and the body:
                                    the next request sets its own first */
    if (hdrs == &x.up_ctype)
        hdrs = hdrs->next;
    dt_headers_free(hdrs, owned);
    if (rq->up_src)
        dt_upbody_free(&x.up);
    return rc;
}

void dt_resp_free(dt_resp *rs)
{
    dval__buf_free(&rs->body);
}
