/* Transport resources of one executor: a CURLSH share handle (DNS cache,
 * TLS sessions) with one mutex per lock class, and a pool of idle easy
 * handles. Each handle keeps its own keep-alive connections (in the
 * private multi of its curl_easy_perform), so a request reuses the
 * connection of the handle it takes from the pool. The connection cache
 * is not shared: libcurl locks it several times per request, and with
 * dozens of threads that lock was where they queued (a futex sleep and
 * wake-up per validation or more). */
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_int.h"

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access a,
                       void *ud)
{
    (void)h;
    (void)a;
    dt_http *http = ud;
    if (data >= 0 && data < DT_NLOCKS)
        pthread_mutex_lock(&http->locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
    (void)h;
    dt_http *http = ud;
    if (data >= 0 && data < DT_NLOCKS)
        pthread_mutex_unlock(&http->locks[data]);
}

static int share_setup(dt_http *h)
{
    CURLSH *s = curl_share_init();
    if (!s)
        return DVAL_ENOMEM;
    h->share = s;
    if (curl_share_setopt(s, CURLSHOPT_LOCKFUNC, share_lock) ||
        curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, share_unlock) ||
        curl_share_setopt(s, CURLSHOPT_USERDATA, h) ||
        curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) ||
        curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION))
        return DVAL_ERROR;
    return DVAL_OK;
}

static char *dup_or_null(const char *s)
{
    return s && s[0] ? dval__strdup(s) : NULL;
}

/* the token is in the list: wipe it before the memory goes back */
static void free_headers(struct curl_slist *l)
{
    for (struct curl_slist *i = l; i; i = i->next)
        memset(i->data, 0, strlen(i->data));
    curl_slist_free_all(l);
}

static void hdr_cache_free(dt_http *h)
{
    for (int i = 0; i < h->nhdrs; i++) {
        free_headers(h->hdrs[i].list);
        dval__free(h->hdrs[i].key);
    }
    h->nhdrs = 0;
}

static const char *env_set(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;   /* empty counts as unset, as in curl */
}

/* curl's order: <scheme>_proxy (HTTP_PROXY never: CGI sets it from a
 * request header), then the upper-case name, then all_proxy, ALL_PROXY;
 * "" for none (CURLOPT_PROXY "" turns the variables off) */
static char *env_proxy(const char *lower, const char *upper)
{
    const char *v = env_set(lower);
    if (!v && upper)
        v = env_set(upper);
    if (!v)
        v = env_set("all_proxy");
    if (!v)
        v = env_set("ALL_PROXY");
    return dval__strdup(v ? v : "");
}

static int proxy_setup(dt_http *h)
{
    const char *np = env_set("no_proxy");
    if (!np)
        np = env_set("NO_PROXY");
    h->proxy[0] = env_proxy("http_proxy", NULL);
    h->proxy[1] = env_proxy("https_proxy", "HTTPS_PROXY");
    h->noproxy = dval__strdup(np ? np : "");
    return h->proxy[0] && h->proxy[1] && h->noproxy ? DVAL_OK : DVAL_ENOMEM;
}

CURLcode dt_easy_proxy(const dt_http *h, CURL *e, const char *url,
                       unsigned char *set)
{
    unsigned char want = strncasecmp(url, "https:", 6) == 0 ? DT_PROXY_HTTPS
                                                            : DT_PROXY_HTTP;
    if (*set == want)
        return CURLE_OK;
    CURLcode r = curl_easy_setopt(e, CURLOPT_PROXY, h->proxy[want - 1]);
    if (r == CURLE_OK && !*set)
        r = curl_easy_setopt(e, CURLOPT_NOPROXY, h->noproxy);
    *set = r == CURLE_OK ? want : 0;
    return r;
}

int dt_http_new(dt_http **out, const dval_daytona_options *d, char *err,
                size_t errlen)
{
    dt_http *h = dval__calloc(1, sizeof *h);
    if (!h) {
        dval__fmt(err, errlen, "out of memory");
        return DVAL_ENOMEM;
    }
    for (int i = 0; i < DT_NLOCKS; i++)
        pthread_mutex_init(&h->locks[i], NULL);
    pthread_mutex_init(&h->pool_lock, NULL);
    pthread_mutex_init(&h->hdr_lock, NULL);
    h->ca_bundle = dup_or_null(d->ca_bundle);
    h->insecure = d->insecure_skip_tls_verify != 0;
    h->connect_timeout_ms = d->connect_timeout_ms > 0
                                ? d->connect_timeout_ms : 10000;
    h->request_timeout_ms = d->request_timeout_ms > 0
                                ? d->request_timeout_ms : 120000;
    int rc = share_setup(h);
    if (!rc)
        rc = proxy_setup(h);
    if (rc || (d->ca_bundle && d->ca_bundle[0] && !h->ca_bundle)) {
        dval__fmt(err, errlen, "cannot set up the libcurl share handle");
        dt_http_free(h);
        return rc ? rc : DVAL_ENOMEM;
    }
    *out = h;
    return DVAL_OK;
}

static void easy_free(dt_easy *de)
{
    if (!de)
        return;
    curl_easy_cleanup(de->e);
    dt_urlh_free(&de->url);
    dval__free(de);
}

void dt_http_free(dt_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->nidle; i++)
        easy_free(h->idle[i]);
    dt_ws_pool_free(h);
    if (h->share)
        curl_share_cleanup(h->share);
    for (int i = 0; i < DT_NLOCKS; i++)
        pthread_mutex_destroy(&h->locks[i]);
    pthread_mutex_destroy(&h->pool_lock);
    hdr_cache_free(h);
    pthread_mutex_destroy(&h->hdr_lock);
    dval__free(h->ca_bundle);
    dval__free(h->proxy[0]);
    dval__free(h->proxy[1]);
    dval__free(h->noproxy);
    dval__free(h);
}

/* A new handle with what every request on it shares */
static dt_easy *easy_new(dt_http *h)
{
    dt_easy *de = dval__calloc(1, sizeof *de);
    if (!de)
        return NULL;
    de->e = curl_easy_init();
    de->timeout_ms = dt_easy_timeout(h, 0);
    if (!de->e ||
        dt_easy_common(h, de->e, 0, DT_EASY_SHARE | DT_EASY_KEEPALIVE) ||
        curl_easy_setopt(de->e, CURLOPT_ERRORBUFFER, de->ebuf)) {
        easy_free(de);
        return NULL;
    }
    return de;
}

dt_easy *dt_easy_get(dt_http *h)
{
    dt_easy *de = NULL;
    pthread_mutex_lock(&h->pool_lock);
    if (h->nidle > 0)
        de = h->idle[--h->nidle];
    pthread_mutex_unlock(&h->pool_lock);
    return de ? de : easy_new(h);
}

void dt_easy_put(dt_http *h, dt_easy *de)
{
    if (!de)
        return;
    de->x = NULL;
    pthread_mutex_lock(&h->pool_lock);
    if (h->nidle < DT_POOL_MAX && !de->spoiled) {
        h->idle[h->nidle++] = de;
        de = NULL;
    }
    pthread_mutex_unlock(&h->pool_lock);
    easy_free(de);
}

long dt_easy_timeout(const dt_http *h, int64_t call_timeout_ms)
{
    int64_t t = h->request_timeout_ms;
    if (call_timeout_ms > 0 && (t <= 0 || call_timeout_ms < t))
        t = call_timeout_ms;
    return (long)(t > 0 ? t : 0);
}

int dt_easy_common(dt_http *h, CURL *e, int64_t call_timeout_ms, int flags)
{
    CURLcode r = CURLE_OK;
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, (long)h->connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, dt_easy_timeout(h, call_timeout_ms));
    if (flags & DT_EASY_KEEPALIVE)
        SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_SSL_VERIFYPEER, h->insecure ? 0L : 1L);
    SET(CURLOPT_SSL_VERIFYHOST, h->insecure ? 0L : 2L);
    if (h->ca_bundle)
        SET(CURLOPT_CAINFO, h->ca_bundle);
    if (flags & DT_EASY_SHARE)
        SET(CURLOPT_SHARE, h->share);
#undef SET
    return r == CURLE_OK ? DVAL_OK : DVAL_ERROR;
}

static int build_headers(dt_exec *ex, struct curl_slist **list,
                         const char *accept, const char *ctype,
                         const char *sdk_version)
{
    char line[4096];
    struct curl_slist *l = NULL, *t;
    char ver[64];
    const char *v[6] = {0};
    int n = 0;
    dval__fmt(ver, sizeof ver, "X-Daytona-SDK-Version: %s",
              sdk_version ? sdk_version : DT_SDK_VERSION);
    v[n++] = "X-Daytona-Source: " DT_SDK_SOURCE;
    v[n++] = ver;
    v[n++] = "User-Agent: " DT_SDK_SOURCE "/" DVAL_VERSION_STRING;
    dval__fmt(line, sizeof line, "Authorization: Bearer %s",
              ex->token ? ex->token : "");
    t = curl_slist_append(l, line);
    for (int i = 0; t && i < n; i++)
        t = curl_slist_append(l = t, v[i]);
    if (t && ex->org_id) {
        dval__fmt(line, sizeof line, "X-Daytona-Organization-ID: %s",
                  ex->org_id);
        t = curl_slist_append(l = t, line);
    }
    if (t && accept) {
        dval__fmt(line, sizeof line, "Accept: %s", accept);
        t = curl_slist_append(l = t, line);
    }
    if (t && ctype) {
        dval__fmt(line, sizeof line, "Content-Type: %s", ctype);
        t = curl_slist_append(l = t, line);
    }
    /* no 100-continue round trip before uploads */
    if (t)
        t = curl_slist_append(l = t, "Expect:");
    memset(line, 0, sizeof line);   /* the token was in it */
    if (!t) {
        free_headers(l);
        *list = NULL;
        return DVAL_ENOMEM;
    }
    *list = t;
    return DVAL_OK;
}

/* The kept list for key, built and added when there is room; NULL when
 * not kept (the caller builds its own). Called with hdr_lock held. */
static struct curl_slist *hdr_cache_get(dt_exec *ex, const char *key,
                                        const char *accept,
                                        const char *ctype, const char *sdk)
{
    dt_http *h = ex->http;
    for (int i = 0; i < h->nhdrs; i++)
        if (strcmp(h->hdrs[i].key, key) == 0)
            return h->hdrs[i].list;
    if (h->nhdrs == DT_HDR_CACHE)
        return NULL;
    struct curl_slist *l = NULL;
    char *k = dval__strdup(key);
    if (!k || build_headers(ex, &l, accept, ctype, sdk)) {
        dval__free(k);
        return NULL;
    }
    h->hdrs[h->nhdrs].key = k;
    h->hdrs[h->nhdrs++].list = l;
    return l;
}

int dt_headers(dt_exec *ex, struct curl_slist **list, int *owned,
               const char *accept, const char *ctype,
               const char *sdk_version)
{
    char key[512];
    const char *a = accept ? accept : "", *t = ctype ? ctype : "",
               *v = sdk_version ? sdk_version : "";
    size_t na = strlen(a), nt = strlen(t), nv = strlen(v);
    *list = NULL;
    /* a cut key could stand for another combination: not kept then;
     * "a\nt\nv" joined by hand: printf was most of a cache hit's cost */
    if (na + nt + nv + 3 <= sizeof key) {
        memcpy(key, a, na);
        key[na] = '\n';
        memcpy(key + na + 1, t, nt);
        key[na + 1 + nt] = '\n';
        memcpy(key + na + nt + 2, v, nv + 1);
        pthread_mutex_lock(&ex->http->hdr_lock);
        *list = hdr_cache_get(ex, key, accept, ctype, sdk_version);
        pthread_mutex_unlock(&ex->http->hdr_lock);
    }
    *owned = *list == NULL;
    if (*list)
        return DVAL_OK;
    return build_headers(ex, list, accept, ctype, sdk_version);
}

void dt_headers_free(struct curl_slist *list, int owned)
{
    if (owned)
        free_headers(list);
}
