/* dval_pool: many host threads validating on a bounded set of sandboxes
 * of one profile. A validation is dval_validate on a leased sandbox name,
 * so the ladder (find, start, recover, or create) and the recovery from a
 * sandbox lost under it are the same as for a single validation. */
#include <stdlib.h>
#include <string.h>

#include "managed_labels.h"
#include "pool.h"
#include "recycle.h"
#include "sandbox_cache.h"
#include "service_start.h"

#define DEFAULT_MAX_SANDBOXES 4
#define DEFAULT_MAX_QUEUE 256

DVAL_API int dval_pool_options_init(dval_pool_options *opts, size_t size)
{
    if (!opts)
        return DVAL_EINVAL;
    if (size < sizeof opts->struct_size)
        return DVAL_EABI;
    memset(opts, 0, size);
    opts->struct_size = size < sizeof *opts ? size : sizeof *opts;
    return DVAL_OK;
}

static int copy_labels(dval_pool *p, const char *const *extra)
{
    size_t n = 0;
    while (extra && extra[n])
        n++;
    p->labels = dval__calloc(n + 2, sizeof *p->labels);
    if (!p->labels)
        return DVAL_ENOMEM;
    char pool_label[200];
    /* `daytona-validate sandbox ls/rm --label dval.pool=NAME` finds them */
    dval__fmt(pool_label, sizeof pool_label, "dval.pool=%s", p->prefix);
    if (!(p->labels[0] = dval__strdup(pool_label)))
        return DVAL_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(p->labels[i + 1] = dval__strdup(extra[i])))
            return DVAL_ENOMEM;
    return DVAL_OK;
}

static void pool_destroy(dval_pool *p)
{
    for (char **l = p->labels; l && *l; l++)
        dval__free(*l);
    dval__free(p->labels);
    dval__svcset_free(&p->svc);
    dval__free(p->slots);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    dval__client_unref(p->client);
    dval__free(p);
}

static int ensure_snapshot(dval_pool *p, const dval_profile *prof)
{
    dval_snapshot_spec spec;
    dval__spec_hold hold;
    int rc = dval__profile_snapshot_spec(p->client, prof, NULL, &p->svc,
                                         &spec, &hold);
    if (rc)
        return rc;
    dval_snapshot *snap = NULL;
    rc = dval_snapshot_ensure(&snap, p->client, &spec, NULL, NULL);
    dval_snapshot_free(snap);
    dval__free(hold.steps);
    return rc;
}

/* Acquires slot i's sandbox now (dval_pool_new's min_warm). */
static int pool_warm(dval_pool *p, int i)
{
    const dval_profile *prof = dval_profile_find(p->profile);
    int rc = i == 0 ? ensure_snapshot(p, prof) : DVAL_OK;
    if (rc)
        return rc;
    /* those dval__validate_sandbox gives the sandboxes it creates */
    char profile_label[300];
    const char **labels = dval__managed_labels(
        prof->name, (const char *const *)p->labels, NULL, profile_label,
        sizeof profile_label);
    if (!labels)
        return DVAL_ENOMEM;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    char snapshot[DVAL_ID_MAX];
    dval__svcset_name(&p->svc, prof->snapshot_name, snapshot, sizeof snapshot);
    o.name = p->slots[i].name;
    o.snapshot = snapshot;
    o.labels = labels;
    o.ttl_minutes = p->ttl;
    dval_sandbox *sb = NULL;
    rc = dval_sandbox_acquire(&sb, p->client, &o);
    if (!rc) { /* warm: its service starts before the first validation */
        dval__service_start(p->client, prof, &p->svc, sb);
        /* the first validation on it needs no lookup */
        dval__sbcache_put(p->client, &sb->info);
        p->slots[i].used = p->slots[i].ready = p->slots[i].may_exist = 1;
        p->slots[i].last_used_ms = dval__now_ms();
        p->snapshot_ready = 1;
    }
    dval_sandbox_free(sb);
    dval__free(labels);
    return rc;
}

static int load_services(dval_pool *p, const dval_pool_options *o)
{
    int has = o->struct_size >= offsetof(dval_pool_options, seeds) +
                                    sizeof o->seeds;
    char msg[512];
    const char *const *svc = has ? o->services : NULL;
    const char *const *seeds = has ? o->seeds : NULL;
    const dval_profile *prof = dval_profile_find(o->profile);
    if (!svc && !seeds && prof) { /* the pool's profile's, if it has any */
        svc = prof->services;
        seeds = prof->seeds;
    }
    int rc = dval__svcset_load(&p->svc, svc, seeds, msg, sizeof msg);
    if (rc)
        dval__client_seterr(p->client, "pool: %s", msg);
    return rc;
}

static int setup(dval_pool *p, dval_client *client, const dval_pool_options *o)
{
    p->client = client;
    dval__client_ref(client);
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cond, &ca);
    pthread_condattr_destroy(&ca);
    dval__strlcpy(p->profile, o->profile, sizeof p->profile);
    if (o->name)
        dval__strlcpy(p->prefix, o->name, sizeof p->prefix);
    else
        dval__fmt(p->prefix, sizeof p->prefix, "pool-%s", o->profile);
    p->max_sb = o->max_sandboxes > 0 ? o->max_sandboxes : DEFAULT_MAX_SANDBOXES;
    p->per_sb = o->max_per_sandbox > 0 ? o->max_per_sandbox : 1;
    p->max_queue = o->max_queue ? o->max_queue : DEFAULT_MAX_QUEUE;
    p->idle_ms = o->idle_timeout_ms;
    p->release = o->release;
    int has_ttl = o->struct_size >= offsetof(dval_pool_options, ttl_minutes) +
                                        sizeof o->ttl_minutes;
    p->ttl = !has_ttl || o->ttl_minutes == 0 ? 1440
             : o->ttl_minutes < 0 ? 0 : o->ttl_minutes;
    p->slots = dval__calloc((size_t)p->max_sb, sizeof *p->slots);
    if (!p->slots)
        return DVAL_ENOMEM;
    int rc = load_services(p, o);
    if (rc)
        return rc;
    /* a pool of another set of services or seeds never shares a sandbox
     * with this one, whatever its name */
    for (int i = 0; i < p->max_sb; i++)
        dval__fmt(p->slots[i].name, sizeof p->slots[i].name, "%s%s-%d",
                  p->prefix, p->svc.n ? p->svc.tag : "", i);
    return copy_labels(p, o->labels);
}

static int check_options(dval_client *client, const dval_pool_options *o)
{
    if (!o->profile || !dval_profile_find(o->profile)) {
        dval__client_seterr(client, "pool: %s", o->profile
                            ? "no such profile" : "no profile");
        return o->profile ? DVAL_ENOTFOUND : DVAL_EINVAL;
    }
    int max_sb = o->max_sandboxes > 0 ? o->max_sandboxes
                                      : DEFAULT_MAX_SANDBOXES;
    if (o->min_warm < 0 || o->max_sandboxes < 0 || o->max_per_sandbox < 0 ||
        o->min_warm > max_sb ||
        o->release < DVAL_RELEASE_KEEP || o->release > DVAL_RELEASE_DELETE) {
        dval__client_seterr(client, "pool: invalid sizes or release policy");
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

DVAL_API int dval_pool_new(dval_pool **out, dval_client *client,
                           const dval_pool_options *opts)
{
    if (out)
        *out = NULL;
    if (!out || !client || !opts)
        return DVAL_EINVAL;
    if (opts->struct_size < offsetof(dval_pool_options, release) +
                                sizeof opts->release)
        return DVAL_EABI;
    int rc = check_options(client, opts);
    if (rc)
        return rc;
    dval_pool *p = dval__calloc(1, sizeof *p);
    if (!p)
        return DVAL_ENOMEM;
    rc = setup(p, client, opts);
    for (int i = 0; !rc && i < opts->min_warm; i++)
        rc = pool_warm(p, i);
    if (rc) {
        dval_pool_free(p);   /* releases the warm ones by the policy */
        return rc;
    }
    *out = p;
    return DVAL_OK;
}

static void count_slots(const dval_pool *p, dval_pool_stats *st)
{
    st->max_sandboxes = p->max_sb;
    for (int i = 0; i < p->max_sb; i++) {
        st->running += p->slots[i].busy;
        st->busy_sandboxes += p->slots[i].busy > 0;
    }
}

DVAL_API int dval_pool_stats_get(dval_pool *pool, dval_pool_stats *stats,
                                 size_t size)
{
    if (!pool || !stats)
        return DVAL_EINVAL;
    if (size < offsetof(dval_pool_stats, waiting) + sizeof stats->waiting)
        return DVAL_EABI;
    dval_pool_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = size < sizeof st ? size : sizeof st;
    pthread_mutex_lock(&pool->lock);
    count_slots(pool, &st);
    st.waiting = pool->nwaiting;
    st.completed = pool->completed;
    st.failed = pool->failed;
    st.refused = pool->refused;
    st.canceled_waiting = pool->canceled_waiting;
    st.wait_ms_total = pool->wait_ms_total;
    st.wait_ms_max = pool->wait_ms_max;
    pthread_mutex_unlock(&pool->lock);
    /* a caller built against an older header gets the fields it knows */
    memset(stats, 0, size);
    memcpy(stats, &st, st.struct_size);
    return DVAL_OK;
}

DVAL_API void dval_pool_free(dval_pool *pool)
{
    if (!pool)
        return;
    /* a slot only isolation=sandbox validations leased never had a
     * sandbox of its name: no lookup for it */
    for (int i = 0; pool->slots && i < pool->max_sb; i++) {
        if (pool->slots[i].used && pool->slots[i].may_exist)
            dval__recycle_release(pool->client, pool->slots[i].name,
                                  pool->release, 1);
        /* a recycled sandbox is a validation's own: never left behind */
        if (pool->slots[i].recycled[0])
            dval__recycle_release(pool->client, pool->slots[i].recycled,
                                  DVAL_RELEASE_DELETE, 0);
        /* the client outlives the pool: what it knew of the slot's
         * sandbox was the pool's to keep */
        dval__sbcache_forget(pool->client, pool->slots[i].name);
    }
    pool_destroy(pool);
}
