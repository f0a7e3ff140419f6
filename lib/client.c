/* Client: the caller's options, executor selection, retry policy,
 * process-wide init. Each built-in executor reads its own options struct
 * and resolves its own environment and defaults (lib/executor/<name>/). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "executor.h"
#include "refs.h"
#include "sandbox_cache.h"

/* ---- global init: reference counted, serialised */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int global_refs;

DVAL_API int dval_global_init(void)
{
    pthread_mutex_lock(&global_lock);
    if (global_refs == 0 && dval__daytona_global_init() != DVAL_OK) {
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
    int last = global_refs == 1; /* extra calls at 0 do nothing */
    int n = global_refs > 0 ? --global_refs : 0;
    if (last)
        dval__daytona_global_cleanup();
    pthread_mutex_unlock(&global_lock);
    return n;
}

DVAL_API int dval_client_options_init(dval_client_options *o, size_t size)
{
    return dval__opts_init(o, size, sizeof *o);
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

DVAL_API int dval_daytona_options_init(dval_daytona_options *o, size_t size)
{
    return dval__opts_init(o, size, sizeof *o);
}

DVAL_API int dval_local_options_init(dval_local_options *o, size_t size)
{
    return dval__opts_init(o, size, sizeof *o);
}

/* Validated copies of the executors' own option structs (their defaults
 * when absent); their strings stay the caller's, read during
 * dval_client_new only. */
typedef struct exec_opts {
    dval_daytona_options daytona;
    dval_local_options local;
} exec_opts;

static int opts_resolve(exec_opts *x, const dval_client_options *o,
                        char *err, size_t errlen)
{
    dval_daytona_options_init(&x->daytona, sizeof x->daytona);
    dval_local_options_init(&x->local, sizeof x->local);
    int rc = o->daytona ? dval__opts_copy(&x->daytona, sizeof x->daytona,
                                          o->daytona, sizeof(size_t))
                        : DVAL_OK;
    if (rc == DVAL_OK && o->local)
        rc = dval__opts_copy(&x->local, sizeof x->local, o->local,
                             sizeof(size_t));
    if (rc) {
        dval__fmt(err, errlen, "daytona or local options: struct_size not "
                  "supported (or unknown fields set)");
        return rc;
    }
    const dval_local_options *l = &x->local;
    if (l->max_pids < 0 || l->max_memory_bytes < 0 || l->max_cpu_ms < 0) {
        dval__fmt(err, errlen, "local options: negative limit");
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

/* The client's own settings; the local sandbox limits are defaults the
 * core applies to every sandbox's options. */
static void config_fill(dval__config *cfg, const dval_client_options *o,
                        const dval_local_options *l)
{
    cfg->local_max_pids = l->max_pids;
    cfg->local_max_memory_bytes = l->max_memory_bytes;
    cfg->local_max_cpu_ms = l->max_cpu_ms;
    cfg->max_download_bytes =
        o->max_download_bytes > 0 ? o->max_download_bytes : 64LL << 20;
    cfg->log_fn = o->log_fn;
    cfg->log_userdata = o->log_userdata;
    cfg->log_level = o->log_level > 0 ? o->log_level : DVAL_LOG_INFO;
}

static int pick_executor(dval_client *c, const dval_client_options *o,
                         const exec_opts *x, char *err, size_t errlen)
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
        which = dval__daytona_configured(&x->daytona) ? "daytona" : "local";
    int rc;
    if (!strcmp(which, "daytona")) {
        if (!dval__daytona_configured(&x->daytona)) {
            dval__fmt(err, errlen, "the daytona executor needs an API key or "
                      "a JWT (set DAYTONA_API_KEY)");
            return DVAL_EAUTH;
        }
        rc = dval__daytona_executor(&c->ex, &c->cfg, &x->daytona, err,
                                    errlen);
    } else if (!strcmp(which, "local")) {
        rc = dval__local_executor(&c->ex, &c->cfg, &x->local, err, errlen);
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
    pthread_mutex_init(&c->users_lock, NULL);
    dval__sbcache_init(c);
    c->rng = (unsigned)time(NULL) ^ (unsigned)getpid();
    c->retry_attempts = o.retry_attempts > 0 ? o.retry_attempts : 5;
    c->retry_base_ms = o.retry_base_ms > 0 ? o.retry_base_ms : 1000;
    c->retry_factor = o.retry_factor > 0 ? o.retry_factor : 2;
    c->retry_cap_ms = o.retry_cap_ms > 0 ? o.retry_cap_ms : 60000;
    c->retry_jitter = o.retry_jitter != 0;
    exec_opts x;
    int rc = opts_resolve(&x, &o, err, sizeof err);
    config_fill(&c->cfg, &o, &x.local);
    c->cfg.retry = (dval__backoff){ c->retry_attempts, c->retry_base_ms,
                                    c->retry_factor, c->retry_cap_ms,
                                    c->retry_jitter };
    if (rc == DVAL_OK)
        rc = pick_executor(c, &o, &x, err, sizeof err);
    if (rc != DVAL_OK) {
        if (!err[0])
            dval__strlcpy(err, dval_strerror(rc), sizeof err);
        dval__log(o.log_fn, o.log_userdata, o.log_level, DVAL_LOG_ERROR,
                  "dval_client_new: %s", err);
        pthread_mutex_destroy(&c->lock);
        pthread_mutex_destroy(&c->users_lock);
        dval__sbcache_free(c);
        dval__free(c);
        dval_global_cleanup();
        return rc;
    }
    *out = c;
    return DVAL_OK;
}

int dval__null_arg(dval_client *c, const char *function)
{
    if (c)
        dval__client_seterr(c, "%s: NULL argument", function);
    return DVAL_EINVAL;
}

void dval__client_ref(dval_client *c)
{
    dval__refs_take(&c->refs);
}

static void client_destroy(void *handle)
{
    dval_client *c = handle;
    dval__ex_destroy(c);
    dval__users_free(c);
    dval__sbcache_free(c);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->users_lock);
    dval__free(c);
    dval_global_cleanup();
}

void dval__client_unref(dval_client *c)
{
    if (c)
        dval__refs_drop(&c->refs, client_destroy, c);
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
