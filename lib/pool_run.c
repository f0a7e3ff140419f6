/* Running validations on the pool: a slot leased, the validation run on
 * its sandbox (shared or recycled), the slot returned. */
#include <string.h>

#include "managed_labels.h"
#include "pool.h"
#include "recycle.h"
#include "service_start.h"

/* The request's labels after the pool's (a copy of pointers). */
static const char **merged_labels(dval_pool *p, const char *const *extra)
{
    size_t n = 0, m = 0;
    while (p->labels[n])
        n++;
    while (extra && extra[m])
        m++;
    const char **l = dval__calloc(n + m + 1, sizeof *l);
    for (size_t i = 0; l && i < n; i++)
        l[i] = p->labels[i];
    for (size_t i = 0; l && i < m; i++)
        l[n + i] = extra[i];
    return l;
}

/* The slot's sandbox for the next validation under isolation=sandbox
 * (lock held): its recycled one, else a name made now for a fresh one;
 * 0 when another validation has it (max_per_sandbox > 1) or the
 * executor has no guaranteed reset. */
static int take_recycled(dval_pool *p, dval__slot *s, char *name, size_t cap,
                         int *fresh)
{
    if (!dval__recycle_supported(p->client) || s->recycled_busy)
        return 0;
    s->recycled_busy = 1;
    *fresh = !s->recycled[0];
    if (*fresh)
        dval__own_sandbox_name(s->name, name, cap);
    else
        dval__strlcpy(name, s->recycled, cap);
    return 1;
}

/* isolation=sandbox on slot i: on the slot's own sandbox when no other
 * validation has it (else on a fresh one, deleted after it, as
 * dval_validate does), reset right after the validation so that it is
 * clean before the next one may lease it. Without a guaranteed reset,
 * every validation makes and deletes its own. */
static int validate_recycled(dval_pool *p, int i, const dval_validation *r,
                             dval_event_fn on_event, void *userdata,
                             char **result_json, dval__pool_ctx *pc)
{
    dval__slot *s = &p->slots[i];
    char name[DVAL_ID_MAX];
    pthread_mutex_lock(&p->lock);
    int recycle = take_recycled(p, s, name, sizeof name, &pc->fresh);
    pthread_mutex_unlock(&p->lock);
    pc->recycle = recycle ? name : NULL;
    int rc = dval__validate_in(p->client, r, on_event, userdata, result_json,
                               pc);
    if (!recycle)
        return rc;
    /* the validation's message outlives the reset's calls */
    char saved[DVAL_ERRMSG_MAX];
    dval__strlcpy(saved, dval_client_errmsg(p->client), sizeof saved);
    int kept = dval__recycle_after(p->client, name);
    dval__client_seterr(p->client, "%s", saved);
    pthread_mutex_lock(&p->lock);
    dval__strlcpy(s->recycled, kept ? name : "", sizeof s->recycled);
    s->recycled_busy = 0;
    pthread_mutex_unlock(&p->lock);
    return rc;
}

typedef struct slot_ref {
    dval_pool *p;
    int i;
} slot_ref;

/* The slot's sandbox exists (and is in the client's cache): the
 * validations queued behind the first one share it now, and need no
 * lookup. */
static void shared_acquired(void *ud)
{
    const slot_ref *ref = ud;
    dval_pool *p = ref->p;
    pthread_mutex_lock(&p->lock);
    p->slots[ref->i].ready = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* Session isolation on slot i: the validation takes the slot's shared
 * sandbox as the client's cache knows it, so that it needs no lookup. */
static int validate_shared(dval_pool *p, int i, const dval_validation *r,
                           dval_event_fn on_event, void *userdata,
                           char **result_json, dval__pool_ctx *pc)
{
    pthread_mutex_lock(&p->lock);
    p->slots[i].may_exist = 1; /* isolation=sandbox ones name their own */
    pthread_mutex_unlock(&p->lock);
    slot_ref ref = { p, i };
    pc->acquired = shared_acquired;
    pc->ud = &ref;
    return dval__validate_in(p->client, r, on_event, userdata, result_json,
                             pc);
}

/* Runs r on slot i; a success on the pool's own snapshot tells the
 * validations after it that the snapshot exists. */
static int validate_on(dval_pool *p, int i, const dval_validation *r,
                       dval_event_fn on_event, void *userdata,
                       char **result_json)
{
    dval__pool_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.svc = &p->svc;
    int own_snapshot = !r->snapshot_name && !strcmp(r->profile, p->profile);
    pthread_mutex_lock(&p->lock);
    pc.snapshot_ready = own_snapshot && p->snapshot_ready;
    pthread_mutex_unlock(&p->lock);
    int rc = r->isolation == DVAL_ISOLATION_SANDBOX
                 ? validate_recycled(p, i, r, on_event, userdata,
                                     result_json, &pc)
                 : validate_shared(p, i, r, on_event, userdata, result_json,
                                   &pc);
    if (rc == DVAL_OK && own_snapshot) {
        pthread_mutex_lock(&p->lock);
        p->snapshot_ready = 1;
        pthread_mutex_unlock(&p->lock);
    }
    return rc;
}

/* A request that names services or seeds of its own. */
static int own_services(const dval_validation *req)
{
    return req->struct_size >= offsetof(dval_validation, seeds) +
                                   sizeof req->seeds &&
           (req->services || req->seeds);
}

DVAL_API int dval_pool_validate(dval_pool *pool, const dval_validation *req,
                                dval_event_fn on_event, void *userdata,
                                char **result_json)
{
    if (result_json)
        *result_json = NULL;
    if (!pool || !req)
        return DVAL_EINVAL;
    if (req->struct_size < offsetof(dval_validation, thread_id) ||
        req->sandbox_name || own_services(req)) {
        dval__client_seterr(pool->client, "pool: %s", req->sandbox_name
                            ? "the pool names the sandbox: leave "
                              "sandbox_name NULL"
                            : own_services(req)
                            ? "the pool's services and seeds are every "
                              "validation's: leave services and seeds NULL"
                            : "request too small");
        return req->struct_size < offsetof(dval_validation, thread_id)
                   ? DVAL_EABI : DVAL_EINVAL;
    }
    dval__pool_reap_idle(pool);
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    memcpy(&r, req, req->struct_size < sizeof r ? req->struct_size : sizeof r);
    r.struct_size = sizeof r;
    int slot = -1;
    int rc = dval__pool_lease(pool, r.struct_size > offsetof(dval_validation,
                              cancel) ? r.cancel : NULL, &slot);
    if (rc) {
        dval__client_seterr(pool->client, "pool %s: %s", pool->prefix,
                            rc == DVAL_EBUSY ? "queue full (every sandbox is "
                            "busy and max_queue callers already wait)"
                            : "canceled while waiting for a sandbox");
        return rc;
    }
    const char **labels = merged_labels(pool, req->labels);
    if (!r.profile)
        r.profile = pool->profile;
    r.sandbox_name = pool->slots[slot].name;
    r.labels = labels;
    if (!r.sandbox_ttl_minutes)
        r.sandbox_ttl_minutes = pool->ttl;
    rc = !labels ? DVAL_ENOMEM
                 : validate_on(pool, slot, &r, on_event, userdata,
                               result_json);
    dval__free(labels);
    dval__pool_return(pool, slot, rc);
    return rc;
}
