/* Client: configuration (options, then DAYTONA_* environment), executor
 * selection, retry policy, process-wide init. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"

/* ---- global init: reference counted, serialised */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int global_refs;

DVAL_API int dval_global_init(void)
{
    pthread_mutex_lock(&global_lock);
    if (global_refs == 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        pthread_mutex_unlock(&global_lock);
        return DVAL_ERROR;
    }
    int n = ++global_refs;
    pthread_mutex_unlock(&global_lock);
    return n;
}

DVAL_API int dval_global_cleanup(void)
{
    pthread_mutex_lock(&global_lock);
    int n = global_refs > 0 ? --global_refs : 0;
    if (n == 0 && global_refs == 0)
        curl_global_cleanup();
    pthread_mutex_unlock(&global_lock);
    return n;
}

DVAL_API int dval_client_options_init(dval_client_options *o, size_t size)
{
    if (!o)
        return DVAL_EINVAL;
    if (size < sizeof(size_t))
        return DVAL_EABI;
    memset(o, 0, size);
    o->struct_size = size < sizeof *o ? size : sizeof *o;
    return DVAL_OK;
}

DVAL_API int dval_executor_init(struct dval_executor *ex, size_t size)
{
    if (!ex)
        return DVAL_EINVAL;
    if (size < offsetof(struct dval_executor, snapshot_get))
        return DVAL_EABI;
    memset(ex, 0, size);
    ex->struct_size = size < sizeof *ex ? size : sizeof *ex;
    return DVAL_OK;
}

static const char *env_or(const char *v, const char *env)
{
    if (v)
        return v;
    const char *e = getenv(env);
    return e && *e ? e : NULL;
}

static void config_free(dval__config *cfg)
{
    dval__free(cfg->api_url);
    dval__free(cfg->api_key);
    dval__free(cfg->jwt_token);
    dval__free(cfg->organization_id);
    dval__free(cfg->target);
    dval__free(cfg->ca_bundle);
    dval__free(cfg->state_dir);
}

static int dup_opt(char **dst, const char *src)
{
    if (!src)
        return DVAL_OK;
    *dst = dval__strdup(src);
    return *dst ? DVAL_OK : DVAL_ENOMEM;
}

static int config_resolve(dval__config *cfg, const dval_client_options *o,
                          char *err, size_t errlen)
{
    const char *url = env_or(o->api_url, "DAYTONA_API_URL");
    if (!url)
        url = env_or(NULL, "DAYTONA_SERVER_URL");
    if (!url)
        url = "https://app.daytona.io/api";
    const char *jwt = env_or(o->jwt_token, "DAYTONA_JWT_TOKEN");
    const char *org = env_or(o->organization_id, "DAYTONA_ORGANIZATION_ID");
    if (dup_opt(&cfg->api_url, url) ||
        dup_opt(&cfg->api_key, env_or(o->api_key, "DAYTONA_API_KEY")) ||
        dup_opt(&cfg->jwt_token, jwt) || dup_opt(&cfg->organization_id, org) ||
        dup_opt(&cfg->target, env_or(o->target, "DAYTONA_TARGET")) ||
        dup_opt(&cfg->ca_bundle, o->ca_bundle) ||
        dup_opt(&cfg->state_dir, o->state_dir))
        return DVAL_ENOMEM;
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
        dval__fmt(err, errlen, "api_url must start with http:// or https://");
        return DVAL_EINVAL;
    }
    cfg->insecure_skip_tls_verify = o->insecure_skip_tls_verify != 0;
    cfg->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000;
    cfg->request_timeout_ms = o->request_timeout_ms > 0 ? o->request_timeout_ms : 120000;
    cfg->allow_unisolated = o->allow_unisolated != 0;
    cfg->max_download_bytes =
        o->max_download_bytes > 0 ? o->max_download_bytes : 64LL << 20;
    cfg->log_fn = o->log_fn;
    cfg->log_userdata = o->log_userdata;
    cfg->log_level = o->log_level > 0 ? o->log_level : DVAL_LOG_INFO;
    return DVAL_OK;
}

static int pick_executor(dval_client *c, const dval_client_options *o,
                         char *err, size_t errlen)
{
    if (o->custom_executor) {
        const struct dval_executor *ex = o->custom_executor;
        if (ex->struct_size < offsetof(struct dval_executor, snapshot_get) ||
            ex->struct_size > sizeof c->ex) {
            dval__fmt(err, errlen, "custom_executor has struct_size %zu "
                      "(this library knows %zu)", ex->struct_size, sizeof c->ex);
            return DVAL_EABI;
        }
        memcpy(&c->ex, ex, ex->struct_size);
        c->ex.struct_size = sizeof c->ex;
        dval__strlcpy(c->executor_name, ex->name ? ex->name : "custom",
                      sizeof c->executor_name);
        return DVAL_OK;
    }
    const char *which = o->executor;
    if (!which)
        which = (c->cfg.api_key || c->cfg.jwt_token) ? "daytona" : "local";
    int rc;
    if (!strcmp(which, "daytona")) {
        if (!c->cfg.api_key && !c->cfg.jwt_token) {
            dval__fmt(err, errlen, "the daytona executor needs an API key or "
                      "a JWT (set DAYTONA_API_KEY)");
            return DVAL_EAUTH;
        }
        if (c->cfg.jwt_token && !c->cfg.api_key && !c->cfg.organization_id) {
            dval__fmt(err, errlen, "JWT authentication needs an organization "
                      "id (set DAYTONA_ORGANIZATION_ID)");
            return DVAL_EINVAL;
        }
        rc = dval__daytona_executor(&c->ex, &c->cfg, err, errlen);
    } else if (!strcmp(which, "local")) {
        rc = dval__local_executor(&c->ex, &c->cfg, err, errlen);
    } else {
        dval__fmt(err, errlen, "unknown executor \"%s\" (daytona or local)",
                  which);
        return DVAL_EINVAL;
    }
    if (rc == DVAL_OK)
        dval__strlcpy(c->executor_name, which, sizeof c->executor_name);
    return rc;
}

DVAL_API int dval_client_new(dval_client **out, const dval_client_options *opts)
{
    if (!out)
        return DVAL_EINVAL;
    *out = NULL;
    dval_client_options o;
    char err[DVAL_ERRMSG_MAX] = "";
    if (opts) {
        int rc = dval__opts_copy(&o, sizeof o, opts, sizeof(size_t));
        if (rc)
            return rc;
    } else {
        dval_client_options_init(&o, sizeof o);
    }
    if (dval_global_init() < 0)
        return DVAL_ERROR;
    dval_client *c = dval__calloc(1, sizeof *c);
    if (!c) {
        dval_global_cleanup();
        return DVAL_ENOMEM;
    }
    atomic_init(&c->refs, 1);
    pthread_mutex_init(&c->lock, NULL);
    c->rng = (unsigned)time(NULL) ^ (unsigned)getpid();
    c->retry_attempts = o.retry_attempts > 0 ? o.retry_attempts : 5;
    c->retry_base_ms = o.retry_base_ms > 0 ? o.retry_base_ms : 1000;
    c->retry_factor = o.retry_factor > 0 ? o.retry_factor : 2;
    c->retry_cap_ms = o.retry_cap_ms > 0 ? o.retry_cap_ms : 60000;
    c->retry_jitter = o.retry_jitter != 0;
    int rc = config_resolve(&c->cfg, &o, err, sizeof err);
    if (rc == DVAL_OK)
        rc = pick_executor(c, &o, err, sizeof err);
    if (rc != DVAL_OK) {
        if (!err[0])
            dval__strlcpy(err, dval_strerror(rc), sizeof err);
        dval__log(o.log_fn, o.log_userdata, o.log_level, DVAL_LOG_ERROR,
                  "dval_client_new: %s", err);
        config_free(&c->cfg);
        pthread_mutex_destroy(&c->lock);
        dval__free(c);
        dval_global_cleanup();
        return rc;
    }
    *out = c;
    return DVAL_OK;
}

void dval__client_ref(dval_client *c)
{
    atomic_fetch_add(&c->refs, 1);
}

void dval__client_unref(dval_client *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    if (c->ex.destroy)
        c->ex.destroy(c->ex.userdata);
    config_free(&c->cfg);
    pthread_mutex_destroy(&c->lock);
    dval__free(c);
    dval_global_cleanup();
}

DVAL_API void dval_client_free(dval_client *c)
{
    dval__client_unref(c);
}

/* The calling thread's own last message, and the client it was set on. */
static _Thread_local const dval_client *tl_client;
static _Thread_local char tl_msg[DVAL_ERRMSG_MAX];

void dval__client_seterr(dval_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(tl_msg, sizeof tl_msg, fmt, ap);
    va_end(ap);
    tl_client = c;
    pthread_mutex_lock(&c->lock);
    unsigned seq = atomic_load(&c->errseq) + 1;
    memcpy(c->errring[seq % DVAL__ERR_RING], tl_msg, sizeof tl_msg);
    atomic_store(&c->errseq, seq);
    pthread_mutex_unlock(&c->lock);
}

/* This thread's own last failure on c (threads sharing a client do not
 * read each other's); otherwise the newest one on c, from the ring (a Go
 * goroutine may have moved to another OS thread since its call failed). */
DVAL_API const char *dval_client_errmsg(const dval_client *c)
{
    if (!c)
        return "no client";
    if (tl_client == c)
        return tl_msg;
    unsigned now = atomic_load(&((dval_client *)c)->errseq);
    return c->errring[now % DVAL__ERR_RING];
}

DVAL_API const char *dval_client_executor_name(const dval_client *c)
{
    return c ? c->executor_name : "";
}

void dval__call_init(dval_client *c, dval_call *call, int64_t timeout_ms,
                     int cancel_fd)
{
    memset(call, 0, sizeof *call);
    call->struct_size = sizeof *call;
    call->timeout_ms = timeout_ms;
    call->cancel_fd = dval__cancel_fd(cancel_fd);   /* dval_cancel token */
    call->log_fn = c->cfg.log_fn;
    call->log_userdata = c->cfg.log_userdata;
    call->retry_after_ms = -1;
}

int64_t dval__backoff_ms(dval_client *c, int attempt, int64_t retry_after_ms)
{
    if (retry_after_ms >= 0)
        return retry_after_ms;
    int64_t d = c->retry_base_ms;
    for (int i = 1; i < attempt && d < c->retry_cap_ms; i++)
        d *= c->retry_factor;
    if (d > c->retry_cap_ms)
        d = c->retry_cap_ms;
    if (c->retry_jitter) {
        pthread_mutex_lock(&c->lock);
        unsigned r = (unsigned)rand_r(&c->rng);
        pthread_mutex_unlock(&c->lock);
        d = (int64_t)((double)d * ((double)r / ((double)RAND_MAX + 1.0)));
    }
    return d;
}
