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

/* Header lists kept per client: one per (accept, content type, SDK
 * version) a member asks for; a handful exist. */
#define DT_HDR_CACHE 8

typedef struct dt_hdrset {
    char *key;                  /* accept \n ctype \n sdk version */
    struct curl_slist *list;
} dt_hdrset;

struct dt_http {
    CURLSH *share;
    pthread_mutex_t locks[DT_NLOCKS];
    pthread_mutex_t pool_lock;
    CURL *idle[DT_POOL_MAX];
    int nidle;
    char *ca_bundle;
    int insecure;
    int64_t connect_timeout_ms;
    int64_t request_timeout_ms;
    atomic_int big_bodies;      /* a download reached DT_BIG_BODY */
    pthread_mutex_t hdr_lock;
    dt_hdrset hdrs[DT_HDR_CACHE];
    int nhdrs;
};

CURL *dt_easy_get(dt_http *h);
void dt_easy_put(dt_http *h, CURL *e);
/* Timeouts, TLS, no signals, share; call_timeout_ms 0 = none. */
int dt_easy_common(dt_http *h, CURL *e, int64_t call_timeout_ms, int share);
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
