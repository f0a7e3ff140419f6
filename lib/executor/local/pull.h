/* Pulling images from registries (OCI distribution API v2) into the image
 * cache, for the local executor's snapshots. Shared by the pull_*.c files
 * only; local.h has the one entry point (lx_pull_layers).
 *
 *   pull_ref.c       image names → registry, repository, tag, digest
 *   pull.c           the walk: pins, index → manifest → config + layers
 *   pull_manifest.c  manifests and indexes (jansson): fetch, verify, read
 *   pull_blob.c      blobs: verified download, resume, progress, cache
 *   pull_fetch.c     one registry request: auth challenge, retry policy
 *   pull_auth.c      credentials (~/.docker/config.json), bearer tokens
 *   pull_http.c      the only local file that includes curl
 *   sha256.c         the digest every blob is checked against (OpenSSL)
 *
 * Cache layout under lx_cache_dir (an OCI image layout, so a user can also
 * read it with oci: or skopeo):
 *   oci/oci-layout, oci/blobs/sha256/<hex>   verified blobs only
 *   oci/refs/<enc ref>   the pin of a reference (key=value: ref, digest
 *                        of what it named, manifest of linux/amd64)
 *   oci/tmp/<hex>.part   a download under way (kept for a resume),
 *   oci/tmp/<hex>.lock   held while one process downloads that blob */
#ifndef DVAL_LOCAL_PULL_H
#define DVAL_LOCAL_PULL_H

#include "local.h"
#include "sha256.h"

#define LX_DIGEST_MAX 72        /* "sha256:" + 64 hex + NUL, rounded */

typedef struct lx_ref {
    char host[256];             /* the registry as named: docker.io, h:5000 */
    char api[256];              /* where its API is (registry-1.docker.io) */
    char repo[512];             /* library/debian */
    char tag[136];              /* "" when only a digest is named */
    char digest[LX_DIGEST_MAX]; /* "sha256:<hex>" or "" */
    char canon[1024];           /* host/repo[:tag][@digest]: the pin's key */
} lx_ref;

/* 1 when DVAL_LOCAL_PULL=never: no registry is asked (pull.c). */
int lx_pull_never(void);
/* 1 when image names a registry image (see pull_ref.c for the syntax). */
int lx_ref_is_pull(const char *image);
/* Parses image into r; DVAL_EINVAL (message in c) when malformed. */
int lx_ref_parse(dval_call *c, const char *image, lx_ref *r);
/* 1 for localhost, 127.0.0.0/8 and [::1] (with or without a port). */
int lx_ref_loopback(const char *host);
/* 1 when credentials may go to url: HTTPS, or HTTP to a loopback host. */
int lx_url_safe_for_secrets(const char *url);
/* 1 for "sha256:" + 64 lowercase hex digits. */
int lx_digest_valid(const char *d);

/* One HTTP response (pull_http.c). */
typedef struct lx_http_resp {
    long status;                /* 0 when no response came */
    char www_authenticate[1024];
    char content_digest[LX_DIGEST_MAX]; /* Docker-Content-Digest */
    int64_t retry_after_ms;     /* -1 none */
    long long range_start;      /* from Content-Range; -1 none */
    int no_answer;              /* as lx_pull_opts.no_answer */
    char err[256];              /* transport failure, for messages */
} lx_http_resp;

/* Where a response body goes: to a callback (status 2xx only: error
 * bodies are dropped); non-zero from it stops the transfer. */
typedef int (*lx_body_fn)(const char *d, size_t n, void *ud);

typedef struct lx_pull lx_pull;

/* pull_http.c: one GET on the pull's connection. DVAL_OK when a response
 * came (any status); DVAL_ENETWORK (transport), DVAL_ETIMEOUT (the
 * pull's deadline), DVAL_ECANCELED, DVAL_EABORTED (body said stop). */
int lx_http_get(lx_pull *p, const char *url, const char *const *headers,
                lx_body_fn body, void *ud, lx_http_resp *rs);
void lx_http_close(lx_pull *p);
/* curl_easy_escape for a query value; dst empty when it cannot. */
void lx_http_escape(lx_pull *p, const char *s, char *dst, size_t cap);

/* pull_auth.c */
/* The user's credentials for the registry (base64 "user:password" into
 * p->cred; "" when none): DVAL_LOCAL_PULL_AUTH_FILE, else
 * $DOCKER_CONFIG/config.json, else ~/.docker/config.json ("auths"). */
void lx_auth_load(lx_pull *p);
/* Answers a 401's challenge: fills p->auth_header (Basic, or a bearer
 * token from the challenge's realm). DVAL_EAUTH when it cannot. */
int lx_auth_answer(lx_pull *p, const char *challenge);

/* pull_fetch.c: GET <base><path> (path "manifests/<ref>", "blobs/<d>")
 * with the pull's authorization, answering one 401 challenge, repeating
 * what the retry policy repeats (429 after Retry-After, 5xx, transport
 * failures). extra: more headers or NULL. prepare (may be NULL) runs
 * before each attempt and may add headers at hdrs[*n] (below cap): a
 * download resumes from what it has. progress (may be NULL): bytes the
 * body has taken so far; an attempt that moved it is not counted.
 * DVAL_OK for a 2xx; else a status with the message in the call. */
typedef int (*lx_prepare_fn)(void *ud, const char **hdrs, size_t cap,
                             size_t *n);
int lx_fetch(lx_pull *p, const char *path, const char *const *extra,
             lx_prepare_fn prepare, lx_body_fn body, void *ud,
             lx_http_resp *rs, const int64_t *progress);
/* The wait before the next attempt (the policy's delay, or Retry-After),
 * cancellable; DVAL_OK to try again, else the status to give up with. */
int lx_fetch_backoff(lx_pull *p, int attempt, int64_t retry_after_ms,
                     int rc);

/* pull_blob.c */
/* <cache>/oci/blobs/sha256/<hex> of digest d. */
void lx_blob_path(const lx_pull *p, const char *d, char *dst, size_t cap);
int lx_blob_present(const lx_pull *p, const char *d);
/* Stores bytes already in memory (a verified manifest) as blob d. */
int lx_blob_store(lx_pull *p, const char *d, const char *data, size_t n);
/* Downloads blob d of size bytes (what the descriptor says) into the
 * cache unless there; label names it in progress lines. */
int lx_blob_ensure(lx_pull *p, const char *d, int64_t size,
                   const char *label);

/* pull_manifest.c */
/* The linux/amd64 image manifest of what ref (a tag or a digest) names,
 * a digest's from the cache when there, else from the registry; fills
 * p->top (the digest of what ref named), p->manifest, p->config and
 * p->layers (digests, sizes), refusing what the limits refuse. */
int lx_manifest_resolve(lx_pull *p, const char *ref);
/* The config blob and the layers into the cache (each once). */
int lx_manifest_fetch_blobs(lx_pull *p);

#define LX_PULL_MAX_LAYERS 128

typedef struct lx_layer {
    char digest[LX_DIGEST_MAX];
    int64_t size;
} lx_layer;

struct lx_pull {
    lx *x;
    dval_call *c;
    int64_t end;                /* monotonic deadline */
    lx_build_io *io;            /* progress lines (may be NULL) */
    lx_pull_opts *o;            /* may be NULL */
    int answered;               /* the registry has sent a response */
    lx_ref ref;
    char base[1024];            /* http(s)://<api>/v2/<repo>/ */
    char cache[4096];           /* <cache>/oci */
    void *curl;                 /* the pull's one connection (pull_http.c) */
    /* secrets: never logged, never in a message */
    char cred[1024];            /* base64 "user:password", or "" */
    char auth_header[4096];     /* "Authorization: ...", or "" */
    int plain_http;             /* base is http:// */
    int64_t max_blob, max_total;
    dval__backoff retry;
    unsigned rng;
    char top[LX_DIGEST_MAX];
    char manifest[LX_DIGEST_MAX];
    char config[LX_DIGEST_MAX];
    int64_t config_size;
    lx_layer layers[LX_PULL_MAX_LAYERS];
    int nlayers;
    int64_t downloaded;         /* bytes fetched by this pull */
    int requests;               /* HTTP requests this pull made */
};

#endif
