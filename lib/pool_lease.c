/* Fair admission to the pool's sandboxes: callers queue and are
 * served in order of arrival, so a burst of late callers never overtakes
 * an early one; the queue is bounded so an overloaded host gets an error at
 * once instead of an unbounded wait. The wait is on a condition variable
 * with a short timeout only to notice a fired cancel token (no signals,
 * no threads). */
#include <errno.h>
#include <time.h>

#include "pool.h"
#include "recycle.h"

#define CANCEL_POLL_MS 20

/* The least-loaded leasable slot, preferring warm (used) ones; -1. */
static int pick(const dval_pool *p)
{
    int best = -1;
    for (int i = 0; i < p->max_sb; i++) {
        const dval__slot *s = &p->slots[i];
        /* until its first validation has acquired it (not: has ended),
         * a slot's sandbox is leased to one caller: concurrent first uses
         * would race to create it */
        if (s->releasing || s->busy >= p->per_sb || (s->busy && !s->ready))
            continue;
        if (best < 0 || s->busy < p->slots[best].busy ||
            (s->busy == p->slots[best].busy && s->used && !p->slots[best].used))
            best = i;
    }
    return best;
}

static void wait_a_while(dval_pool *p)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += CANCEL_POLL_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

static void enqueue(dval_pool *p, dval__waiter *w)
{
    w->next = NULL;
    if (p->tail)
        p->tail->next = w;
    else
        p->head = w;
    p->tail = w;
    p->nwaiting++;
}

static void unlink_waiter(dval_pool *p, dval__waiter *w)
{
    dval__waiter **pp = &p->head, *prev = NULL;
    while (*pp && *pp != w) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = w->next;
    if (p->tail == w)
        p->tail = prev;
    p->nwaiting--;
}

/* Queues the caller (lock held) until it is first in line and a slot is
 * free (its index) or cancel fires (-1). */
static int wait_in_queue(dval_pool *p, dval_cancel *cancel)
{
    dval__waiter w;
    int i = -1;
    int64_t since = dval__now_ms();
    enqueue(p, &w);
    while (!(p->head == &w && (i = pick(p)) >= 0) &&
           !dval_cancel_fired(cancel))
        wait_a_while(p);
    unlink_waiter(p, &w);   /* served, or canceled in the queue */
    int64_t waited = dval__now_ms() - since;
    p->wait_ms_total += waited;
    if (waited > p->wait_ms_max)
        p->wait_ms_max = waited;
    if (i < 0)
        p->canceled_waiting++;
    return i;
}

int dval__pool_lease(dval_pool *p, dval_cancel *cancel, int *slot)
{
    pthread_mutex_lock(&p->lock);
    int i = p->head ? -1 : pick(p);   /* nobody ahead: no queue at all */
    if (i < 0 && p->max_queue >= 0 && p->nwaiting >= p->max_queue) {
        p->refused++;
        pthread_mutex_unlock(&p->lock);
        return DVAL_EBUSY;
    }
    if (i < 0)
        i = wait_in_queue(p, cancel);
    if (i >= 0) {
        p->slots[i].busy++;
        p->slots[i].used = 1;
    }
    pthread_cond_broadcast(&p->cond);   /* the next in line may go */
    pthread_mutex_unlock(&p->lock);
    *slot = i;
    return i >= 0 ? DVAL_OK : DVAL_ECANCELED;
}

void dval__pool_return(dval_pool *p, int slot, int rc)
{
    pthread_mutex_lock(&p->lock);
    p->completed++;
    if (rc != DVAL_OK)
        p->failed++;
    p->slots[slot].busy--;
    p->slots[slot].ready = 1;
    p->slots[slot].last_used_ms = dval__now_ms();
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

void dval__pool_reap_idle(dval_pool *p)
{
    if (p->idle_ms <= 0)
        return;
    for (int i = 0; i < p->max_sb; i++) {
        pthread_mutex_lock(&p->lock);
        dval__slot *s = &p->slots[i];
        int idle = s->used && !s->busy && !s->releasing &&
                   dval__now_ms() - s->last_used_ms > p->idle_ms;
        if (idle)
            s->releasing = 1;
        pthread_mutex_unlock(&p->lock);
        if (!idle)
            continue;
        /* forgets it too: the next validation on the slot looks it up */
        dval__recycle_release(p->client, s->name, p->release, 1);
        /* releasing: no validation leases the slot, none holds it */
        if (s->recycled[0])
            dval__recycle_release(p->client, s->recycled,
                                  DVAL_RELEASE_DELETE, 0);
        pthread_mutex_lock(&p->lock);
        s->recycled[0] = '\0';
        s->releasing = 0;
        s->used = s->ready = 0;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
    }
}
