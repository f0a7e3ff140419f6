/* SIGINT/SIGTERM during `run`: the first one cancels the validation (the
 * library stops the running phase and closes the session), a second one
 * ends the process at once.
 *
 * The handler does only async-signal-safe things (write, _exit); a small
 * thread reads the self-pipe and calls dval_cancel_fire(), which takes a
 * lock and so must not run in a handler. A self-pipe rather than sigwait():
 * blocking the signals would be inherited by every process the library
 * spawns. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int self_pipe[2] = {-1, -1};
static volatile sig_atomic_t first_signal;
static dval_cancel *token;

static void on_signal(int sig)
{
    int saved = errno;
    if (first_signal) {
        /* the second interrupt: the user does not want to wait */
        static const char msg[] = "\ndaytona-validate: interrupted again; "
                                  "exiting at once (the session may stay "
                                  "open until the sandbox stops)\n";
        ssize_t n = write(2, msg, sizeof msg - 1);
        (void)n;
        _exit(128 + sig);
    }
    first_signal = sig;
    char b = (char)sig;
    ssize_t n = write(self_pipe[1], &b, 1);
    (void)n;
    errno = saved;
}

static void *watcher(void *arg)
{
    (void)arg;
    char b;
    for (;;) {
        ssize_t n = read(self_pipe[0], &b, 1);
        if (n == 1)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        return NULL;
    }
    dval_cancel_fire(token);
    return NULL;
}

int intr_start(dval_cancel *t)
{
    token = t;
    if (pipe(self_pipe))
        return -1;
    pthread_t th;
    /* the watcher must not take the signals: block them while it starts
     * (it inherits the mask), then restore ours */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    int rc = pthread_create(&th, NULL, watcher, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        return -1;
    pthread_detach(th);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return 0;
}

int intr_signal(void)
{
    return first_signal;
}
