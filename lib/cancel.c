/* Cancel tokens for dval_validate(): a host fires the token from any thread
 * (a signal-watching thread, a UI, a timer) and the validation it was given
 * to ends with DVAL_ECANCELED, its session closed.
 *
 * The library starts no thread for this: firing writes to a pipe and
 * calls the hook the validation registered (it cancels the validation's
 * session, which is safe from any thread); the calling thread notices at
 * its next poll. The token knows nothing of sessions. */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core.h"

struct dval_cancel {
    atomic_int fired;
    int pipe[2];              /* readable once fired: ends the core's waits */
    pthread_mutex_t lock;     /* guards the hook against fire/detach races */
    dval__cancel_hook hook;   /* what firing stops now, or NULL */
    void *hook_arg;
};

DVAL_API int dval_cancel_new(dval_cancel **out)
{
    if (!out)
        return DVAL_EINVAL;
    *out = NULL;
    dval_cancel *t = dval__calloc(1, sizeof *t);
    if (!t)
        return DVAL_ENOMEM;
    if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK)) {
        dval__free(t);
        return DVAL_EIO;
    }
    if (pthread_mutex_init(&t->lock, NULL)) {
        close(t->pipe[0]);
        close(t->pipe[1]);
        dval__free(t);
        return DVAL_ENOMEM;
    }
    *out = t;
    return DVAL_OK;
}

DVAL_API int dval_cancel_fire(dval_cancel *t)
{
    if (!t)
        return DVAL_EINVAL;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&t->fired, &expected, 1))
        return DVAL_OK;   /* idempotent */
    char b = 1;
    ssize_t n = write(t->pipe[1], &b, 1);
    (void)n;   /* the pipe is empty until now: one byte always fits */
    pthread_mutex_lock(&t->lock);
    if (t->hook)
        t->hook(t->hook_arg);
    pthread_mutex_unlock(&t->lock);
    return DVAL_OK;
}

DVAL_API int dval_cancel_fired(const dval_cancel *t)
{
    return t ? atomic_load(&((dval_cancel *)t)->fired) : 0;
}

DVAL_API void dval_cancel_free(dval_cancel *t)
{
    if (!t)
        return;
    close(t->pipe[0]);
    close(t->pipe[1]);
    pthread_mutex_destroy(&t->lock);
    dval__free(t);
}

void dval__cancel_attach(dval_cancel *t, dval__cancel_hook hook, void *arg)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    t->hook = hook;
    t->hook_arg = arg;
    /* fired before the hook was set: what it stops must not start */
    if (hook && atomic_load(&t->fired))
        hook(arg);
    pthread_mutex_unlock(&t->lock);
}

int dval__cancel_fd(const dval_cancel *t)
{
    return t ? t->pipe[0] : -1;
}

int dval__fd_readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return fd >= 0 && poll(&p, 1, 0) > 0;
}
