/* The client's hold: a monotonic "no call before" time, raised by any
 * thread that is refused for the rate limit or the quota, honoured by
 * every thread before each attempt. No thread of its own: each caller
 * sleeps on its own cancel descriptor. */
#include <stdlib.h>

#include "backpressure.h"
#include "retry.h"

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
