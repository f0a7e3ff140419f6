/* The pool's state, shared by pool.c (lifecycle: new, warm, stats,
 * free), pool_run.c (validations) and pool_lease.c (fair admission). */
#ifndef DVAL_POOL_H
#define DVAL_POOL_H

#include <pthread.h>

#include "core.h"
#include "services.h"

typedef struct dval__waiter {
    struct dval__waiter *next;
} dval__waiter;

typedef struct dval__slot {
    char name[DVAL_ID_MAX];      /* sandbox name: <prefix>-<index> */
    int busy;                    /* validations running on it */
    int used;                    /* leased or warmed once: preferred */
    int ready;                   /* its sandbox was acquired: shareable */
    int releasing;               /* idle release in progress: not leasable */
    int may_exist;               /* min_warm or a session-isolation lease
                                    made it: the only ones freed by name */
    int64_t last_used_ms;
    /* isolation=sandbox: the slot's own sandbox, reset since its last use
     * ("" none); recycled_busy while one validation has it */
    char recycled[DVAL_ID_MAX];
    int recycled_busy;
    /* session isolation: the slot's sandbox as the last validation on it
     * left it is in the client's cache (sandbox_cache.h), by name */
} dval__slot;

struct dval_pool {
    dval_client *client;
    char profile[128];
    char prefix[128];
    int max_sb, per_sb, max_queue, release, ttl;
    int64_t idle_ms;
    char **labels;               /* NULL-terminated, owned */
    /* the services and seeds of every validation on the pool, loaded
     * once; the slots' names carry their tag (services.h) */
    dval__svcset svc;
    pthread_mutex_t lock;
    pthread_cond_t cond;         /* a slot was returned / a turn moved on */
    struct dval__waiter *head;   /* FIFO admission: callers waiting for */
    struct dval__waiter *tail;   /* a slot, in order of arrival */
    int nwaiting;
    dval__slot *slots;
    /* the pool's profile's snapshot was ensured (warm-up or a validation
     * that succeeded): validations skip the ensure unless a create fails */
    int snapshot_ready;
    /* dval_pool_stats_get's counts, under lock */
    int64_t completed, failed, refused, canceled_waiting;
    int64_t wait_ms_total, wait_ms_max;
};

/* Waits for this caller's turn and a free slot (FIFO); DVAL_EBUSY at once
 * when max_queue callers already wait, DVAL_ECANCELED when cancel fires
 * while waiting. *slot is the leased index. */
int dval__pool_lease(dval_pool *p, dval_cancel *cancel, int *slot);
/* Gives the slot back; rc is how its validation ended. */
void dval__pool_return(dval_pool *p, int slot, int rc);
/* Releases (release policy) sandboxes idle longer than idle_ms. */
void dval__pool_reap_idle(dval_pool *p);

#endif
