/* How long to hold back: the backoff between attempts (base * factor^n,
 * capped, optionally jittered, a server's hint first) and the client's
 * hold, a monotonic "no call before" time raised by any thread that is
 * refused for the rate limit or the quota and honoured by every thread
 * before each attempt. No thread of its own: each caller sleeps on its
 * own cancel descriptor. */
#include <stdlib.h>

#include "backpressure.h"
#include "internal.h"

void dval__backoff_defaults(dval__backoff *b)
{
    b->attempts = b->attempts > 0 ? b->attempts : 5;
    b->base_ms = b->base_ms > 0 ? b->base_ms : 1000;
    b->factor = b->factor > 0 ? b->factor : 2;
    b->cap_ms = b->cap_ms > 0 ? b->cap_ms : 60000;
}

int64_t dval__backoff_delay(const dval__backoff *b, int attempt,
                            int64_t retry_after_ms, unsigned *rng)
{
    if (retry_after_ms >= 0)
        return retry_after_ms < DVAL__RETRY_AFTER_MAX_MS
               ? retry_after_ms : DVAL__RETRY_AFTER_MAX_MS;
    int64_t d = b->base_ms;
    for (int i = 1; i < attempt && d < b->cap_ms; i++)
        d *= b->factor;
    if (d > b->cap_ms)
        d = b->cap_ms;
    if (b->jitter && rng) {
        unsigned r = (unsigned)rand_r(rng);
        d = (int64_t)((double)d * ((double)r / ((double)RAND_MAX + 1.0)));
    }
    return d;
}

int64_t dval__backoff_ms(dval_client *c, int attempt, int64_t retry_after_ms)
{
    pthread_mutex_lock(&c->lock); /* guards the rng */
    int64_t d = dval__backoff_delay(&c->cfg.retry, attempt, retry_after_ms,
                                    &c->rng);
    pthread_mutex_unlock(&c->lock);
    return d;
}


void dval__hold_note(dval_client *c, int attempt, int64_t retry_after_ms)
{
    int64_t delay = dval__backoff_ms(c, attempt, retry_after_ms);
    if (retry_after_ms < 0 && delay < c->retry_base_ms)
        delay = c->retry_base_ms;   /* a jittered backoff may be ~0 */
    int64_t until = dval__now_ms() + delay;
    int64_t cur = atomic_load(&c->hold_until_ms);
    while (cur < until &&
           !atomic_compare_exchange_weak(&c->hold_until_ms, &cur, until))
        ;
}

static int64_t jitter(dval_client *c, int64_t left)
{
    if (left < 5)
        return 0;
    pthread_mutex_lock(&c->lock);
    unsigned r = (unsigned)rand_r(&c->rng);
    pthread_mutex_unlock(&c->lock);
    return (int64_t)((double)(left / 5) * ((double)r / ((double)RAND_MAX + 1.0)));
}

void dval__hold_wait(dval_client *c, int cancel_fd)
{
    int64_t left = atomic_load(&c->hold_until_ms) - dval__now_ms();
    if (left <= 0)
        return;
    DVAL__LOG(c, DVAL_LOG_INFO, "client held back for %lld ms (rate limit or "
              "quota reported by another call)", (long long)left);
    dval__sleep_ms(left + jitter(c, left), cancel_fd);
}
