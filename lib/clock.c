/* Monotonic time and cancellable sleeps; replaceable by a fake clock in
 * tests so every wait and backoff can be checked exactly. */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "internal.h"

static dval__now_fn fake_now;
static dval__sleep_fn fake_sleep;

void dval__set_clock(dval__now_fn now, dval__sleep_fn sleep)
{
    fake_now = now;
    fake_sleep = sleep;
}

int64_t dval__now_ms(void)
{
    if (fake_now)
        return fake_now();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int dval__sleep_ms(int64_t ms, int cancel_fd)
{
    if (fake_sleep)
        return fake_sleep(ms, cancel_fd);
    int64_t end = dval__now_ms() + (ms > 0 ? ms : 0);
    for (;;) {
        int64_t left = end - dval__now_ms();
        if (left < 0)
            left = 0;
        struct pollfd p = { .fd = cancel_fd, .events = POLLIN };
        int n = poll(&p, cancel_fd >= 0 ? 1 : 0,
                     (int)(left > 1000000 ? 1000000 : left));
        if (n > 0)
            return DVAL_ECANCELED;
        if (n < 0 && errno == EINTR)
            continue;
        if (dval__now_ms() >= end)
            return DVAL_OK;
    }
}
