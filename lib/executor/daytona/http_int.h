/* Private to http*.c: the transport structures (includes curl). */
#ifndef DVAL_DT_HTTP_INT_H
#define DVAL_DT_HTTP_INT_H

#include <curl/curl.h>
#include <stdatomic.h>

#include "dt.h"

#define DT_NLOCKS CURL_LOCK_DATA_LAST
/* Idle easy handles kept (each a few KiB and its keep-alive connections:
 * a handle closed because the pool was full takes its connections with
 * it, so this bounds the concurrent requests whose connections are kept) */
#define DT_POOL_MAX 64
/* receive/send buffer of file transfers (curl caps it at 512 KiB) */
#define DT_XFER_BUFFER 262144L
/* A download body this large marks the client as one that moves big
 * files: its later downloads get DT_XFER_BUFFER. Before, curl's 16 KiB.
 * A 256 KiB receive buffer is filled as far as the socket has data, so
 * given to every download it made each small one (a validation's results)
 * touch up to 256 KiB instead of 16 and raised the loop's peak RSS, while
 * only large bodies save CPU with it (`make bench`, tests/bench/). */
#define DT_BIG_BODY (4 * DT_XFER_BUFFER)
/* curl's own sizes, set again when a handle goes back to small bodies */
#define DT_BUFFER_DEFAULT 16384L
#define DT_UPLOAD_BUFFER_DEFAULT 65536L

/* Idle log WebSocket handles kept (struct dt_ws: a connect-only easy
 * handle, its multi and the 16 KiB read buffer) */
#define DT_WS_POOL_MAX 64

/* Header lists kept per client: one per (accept, content type, SDK
 * version) a member asks for; a handful exist. */
#define DT_HDR_CACHE 8

typedef struct dt_hdrset {
    char *key;                  /* accept \n ctype \n sdk version */
    struct curl_slist *list;
} dt_hdrset;

/* A URL handle kept with a curl handle (http_url.c) and the origin
 * ("scheme://authority", "" none) of the URL it holds. */
typedef struct dt_urlh {
    CURLU *u;
    char origin[192];
} dt_urlh;

/* A pooled easy handle. It is never reset: the options every request
 * shares are set once when it is made, and a request sets only what
 * changes; these flags say what the previous request left set that the
 * next one has to undo (curl_easy_reset and setting ~15 options again was
 * most of libcurl's own cost per request). */
typedef struct dt_easy {
    CURL *e;
    void *x;                    /* the request in flight (its callbacks') */
    long timeout_ms;            /* CURLOPT_TIMEOUT_MS as last set */
    unsigned primed : 1;        /* the request callbacks are set */
    unsigned posted : 1;        /* POST (fields or upload): HTTPGET undoes */
    unsigned custom : 1;        /* CUSTOMREQUEST set */
    unsigned uploaded : 1;      /* read/seek callbacks, upload buffer */
    unsigned big_down : 1;      /* CURLOPT_BUFFERSIZE raised */
    unsigned spoiled : 1;       /* a setopt failed: not pooled again */
    unsigned char proxy_set;    /* DT_PROXY_* as last set, 0 none yet */
    dt_urlh url;                /* what curl reads the URL from */
    char ebuf[CURL_ERROR_SIZE];
} dt_easy;

struct dt_http {
    CURLSH *share;
    pthread_mutex_t locks[DT_NLOCKS];
    pthread_mutex_t pool_lock;
    dt_easy *idle[DT_POOL_MAX];
    int nidle;
    struct dt_ws *ws_idle[DT_WS_POOL_MAX];   /* under pool_lock too */
    int nws;
    char *ca_bundle;
    char *proxy[2];             /* http, https: from the environment */
    char *noproxy;              /* "" none */
    int insecure;
    int64_t connect_timeout_ms;
    int64_t request_timeout_ms;
    atomic_int big_bodies;      /* a download reached DT_BIG_BODY */
    pthread_mutex_t hdr_lock;
    dt_hdrset hdrs[DT_HDR_CACHE];
    int nhdrs;
};

/* An idle pooled handle, or a new one with the common options set
 * (DT_EASY_SHARE | DT_EASY_KEEPALIVE); NULL when out of memory. */
dt_easy *dt_easy_get(dt_http *h);
/* Frees the kept WebSocket handles (http_ws_pool.c). */
void dt_ws_pool_free(dt_http *h);
/* Back to the pool as it is (its connections stay with it). */
void dt_easy_put(dt_http *h, dt_easy *de);
/* The request timeout for a call's timeout_ms (0 = none): the smaller of
 * the two, 0 when neither. */
long dt_easy_timeout(const dt_http *h, int64_t call_timeout_ms);
#define DT_EASY_SHARE 1         /* the executor's DNS and TLS session cache */
#define DT_EASY_KEEPALIVE 2     /* TCP keep-alive probes on idle sockets */
/* CURLOPT_PROXY for url's scheme (and CURLOPT_NOPROXY the first time),
 * unless *set says it is so already: with them unset curl reads five
 * proxy variables from the environment per request; they are read once,
 * when the executor is made, the way curl reads them. */
#define DT_PROXY_HTTP 1
#define DT_PROXY_HTTPS 2
CURLcode dt_easy_proxy(const dt_http *h, CURL *e, const char *url,
                       unsigned char *set);
/* url as e's URL (CURLOPT_CURLU from h, and CURLOPT_URL); a URL curl
 * refuses is CURLE_URL_MALFORMAT with the reason in ebuf (of
 * CURL_ERROR_SIZE), e as it was and h holding no URL. */
CURLcode dt_url_apply(CURL *e, dt_urlh *h, const char *url, char *ebuf);
/* After the curl handle that reads it. */
void dt_urlh_free(dt_urlh *h);
/* Timeouts, TLS, no signals (+ share, keep-alive); call_timeout_ms 0 =
 * none. */
int dt_easy_common(dt_http *h, CURL *e, int64_t call_timeout_ms, int flags);
/* Authorization, X-Daytona-*, User-Agent (+ org, Accept, Content-Type):
 * the client's kept list for that combination (*owned 0: do not free; curl
 * only reads it, so transfers on several threads may share it), or a new
 * one the caller frees (*owned 1) when the cache is full. */
int dt_headers(dt_exec *ex, struct curl_slist **list, int *owned,
               const char *accept, const char *ctype,
               const char *sdk_version);
void dt_headers_free(struct curl_slist *list, int owned);
/* curl result → dval status with c->errmsg. */
int dt_curl_fail(dt_exec *ex, dval_call *c, CURLcode r, const char *ebuf);

#endif
