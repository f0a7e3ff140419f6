/* HTTP for registry pulls: the only file of the local executor that
 * includes curl. One easy handle per pull, so every request of it reuses
 * one connection (and its TLS session). Cancellation and the pull's
 * deadline are checked from curl's progress callback; a transfer that
 * stalls (under 1 byte/s for 60 s) fails as a network error, which the
 * caller's retry policy repeats. No signals (CURLOPT_NOSIGNAL).
 * A request that got no HTTP response at all (no name, no connection, no
 * TLS) says so (no_answer), for a caller with another image to use; its
 * first connection then waits less long. */
#include "pull.h"

#include <curl/curl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CONNECT_TIMEOUT_MS 30000L
#define QUICK_CONNECT_MS 2000L /* a registry connects in far less */
#define STALL_SECONDS 60L

typedef struct xfer {
    lx_pull *p;
    CURL *e;
    lx_http_resp *rs;
    lx_body_fn body;
    void *ud;
    int timed_out, canceled, refused;
} xfer;

static int64_t retry_after(const char *v)
{
    char *end;
    long long s = strtoll(v, &end, 10);
    if (end != v && s >= 0)
        return s > 3600 ? 3600000 : (int64_t)s * 1000;
    time_t t = curl_getdate(v, NULL); /* an HTTP date */
    time_t now = time(NULL);
    return t < 0 ? -1 : t <= now ? 0
           : t - now > 3600 ? 3600000 : (int64_t)(t - now) * 1000;
}

/* value of header line h if its name is name (case-insensitive). */
static const char *header_value(const char *h, size_t n, const char *name,
                                char *val, size_t cap)
{
    size_t k = strlen(name);
    if (n <= k || strncasecmp(h, name, k) != 0 || h[k] != ':')
        return NULL;
    const char *v = h + k + 1, *e = h + n;
    while (v < e && (*v == ' ' || *v == '\t'))
        v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
        e--;
    dval__fmt(val, cap, "%.*s", (int)(e - v), v);
    return val;
}

static size_t on_header(char *h, size_t size, size_t nitems, void *ud)
{
    xfer *x = ud;
    lx_http_resp *rs = x->rs;
    size_t n = size * nitems;
    char v[1024];
    if (n >= 5 && !strncmp(h, "HTTP/", 5)) { /* a new response (redirect) */
        rs->www_authenticate[0] = 0;
        rs->content_digest[0] = 0;
        rs->retry_after_ms = -1;
        rs->range_start = -1;
    } else if (header_value(h, n, "www-authenticate", v, sizeof v)) {
        dval__fmt(rs->www_authenticate, sizeof rs->www_authenticate, "%s", v);
    } else if (header_value(h, n, "docker-content-digest", v, sizeof v)) {
        dval__fmt(rs->content_digest, sizeof rs->content_digest, "%s", v);
    } else if (header_value(h, n, "retry-after", v, sizeof v)) {
        rs->retry_after_ms = retry_after(v);
    } else if (header_value(h, n, "content-range", v, sizeof v) &&
               !strncmp(v, "bytes ", 6)) {
        rs->range_start = strtoll(v + 6, NULL, 10);
    }
    return n;
}

static size_t on_body(char *d, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(x->e, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299 || !x->body)
        return n; /* an error's body: not wanted */
    if (x->body(d, n, x->ud) != 0) {
        x->refused = 1;
        return CURL_WRITEFUNC_ERROR;
    }
    return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    xfer *x = ud;
    (void)dt, (void)dn, (void)ut, (void)un;
    if (dval__now_ms() >= x->p->end) {
        x->timed_out = 1;
        return 1;
    }
    struct pollfd pfd = { .fd = x->p->c ? x->p->c->cancel_fd : -1,
                          .events = POLLIN };
    if (pfd.fd >= 0 && poll(&pfd, 1, 0) > 0) {
        x->canceled = 1;
        return 1;
    }
    return 0;
}

/* The pull's handle with what every request shares. */
static CURL *handle(lx_pull *p)
{
    if (p->curl)
        return p->curl;
    CURL *e = curl_easy_init();
    if (!e)
        return NULL;
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L); /* blobs: to a CDN */
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    /* never from https down to http, whatever a registry redirects to */
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR,
                     p->plain_http ? "http,https" : "https");
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, STALL_SECONDS);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 262144L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "libdaytona-validate");
    if (lx_ref_loopback(p->ref.api))
        curl_easy_setopt(e, CURLOPT_NOPROXY, "*"); /* never via a proxy */
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    p->curl = e;
    return e;
}

/* 1 when cc means the registry never answered: it was not found, not
 * reached, or not spoken to (TLS) before any response. */
static int unanswered(CURL *e, CURLcode cc)
{
    curl_off_t connected = 0;
    switch (cc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
        return 1;
    case CURLE_OPERATION_TIMEDOUT: /* while connecting */
        return curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connected) ==
               CURLE_OK && connected == 0;
    default:
        return 0;
    }
}

static int outcome(xfer *x, CURLcode cc, const char *ebuf)
{
    lx_http_resp *rs = x->rs;
    if (cc == CURLE_OK) {
        curl_easy_getinfo(x->e, CURLINFO_RESPONSE_CODE, &rs->status);
        return DVAL_OK;
    }
    dval__fmt(rs->err, sizeof rs->err, "%s", ebuf[0] ? ebuf
              : curl_easy_strerror(cc));
    if (x->canceled)
        return DVAL_ECANCELED;
    if (x->timed_out || (cc == CURLE_OPERATION_TIMEDOUT &&
                         dval__now_ms() >= x->p->end))
        return DVAL_ETIMEOUT;
    if (x->refused)
        return DVAL_EABORTED;
    rs->no_answer = !x->p->answered && unanswered(x->e, cc);
    return DVAL_ENETWORK;
}

int lx_http_get(lx_pull *p, const char *url, const char *const *headers,
                lx_body_fn body, void *ud, lx_http_resp *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->retry_after_ms = -1;
    rs->range_start = -1;
    if (lx_pull_never()) {
        rs->no_answer = 2;
        dval__fmt(rs->err, sizeof rs->err, "DVAL_LOCAL_PULL=never");
        return DVAL_ENETWORK;
    }
    CURL *e = handle(p);
    if (!e)
        return DVAL_ENOMEM;
    struct curl_slist *hl = NULL, *t;
    for (size_t i = 0; headers && headers[i]; i++) {
        if (!(t = curl_slist_append(hl, headers[i]))) {
            curl_slist_free_all(hl);
            return DVAL_ENOMEM;
        }
        hl = t;
    }
    xfer x = { .p = p, .e = e, .rs = rs, .body = body, .ud = ud };
    char ebuf[CURL_ERROR_SIZE] = "";
    int64_t left = p->end - dval__now_ms();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &x);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, left > 1 ? (long)left : 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     p->o && p->o->quick && !p->answered ? QUICK_CONNECT_MS
                                                         : CONNECT_TIMEOUT_MS);
    p->requests++;
    CURLcode cc = curl_easy_perform(e);
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    p->answered |= status > 0;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(hl); /* holds secrets: gone with the request */
    return outcome(&x, cc, ebuf);
}

void lx_http_escape(lx_pull *p, const char *s, char *dst, size_t cap)
{
    CURL *e = handle(p);
    char *q = e ? curl_easy_escape(e, s, 0) : NULL;
    dval__fmt(dst, cap, "%s", q ? q : "");
    curl_free(q);
}

void lx_http_close(lx_pull *p)
{
    if (p->curl)
        curl_easy_cleanup(p->curl);
    p->curl = NULL;
}
