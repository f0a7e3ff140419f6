/* A command the sandbox's init runs as its own child (issue 14: a
 * validation's processes are most of its CPU here). A waiter (exec.c)
 * costs a fork, a process's life and its exit per command; it exists to
 * find every process a command left, however detached: as the command's
 * child subreaper it inherits them all. The init inherits every orphan
 * of its namespace anyway, so while one command alone runs outside a
 * waiter, the init's children that are not waiters are that command or
 * what it left, and their subtrees are the rest of it. Hence one command at a time here; one
 * started meanwhile gets a waiter as before (init_exec.c), and so does
 * every command of a sandbox with a service (its processes are the
 * init's children too, and not the command's).
 *
 * The contract is the waiter's: "ok" once started, then the exit code
 * as one byte once every process of the command is gone; the
 * connection's end or the caller's death (its pidfd) kills them all
 * with nothing sent; the CPU budget counts them all together. */
#include "helper.h"
#include "init_cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/local/protocol.h"

static struct {
    pid_t pid;              /* the command; 0: none runs */
    int conn, caller;       /* its life line and report; caller's pidfd */
    int exited, code;       /* exited: ended, code final */
    long long reaped_ms;    /* CPU of its processes the init reaped */
    struct budget cpu;
} cur = { 0, -1, -1, 0, 0, 0, { 0, 0, 0, 0 } };

static pid_t *waiters;
static size_t nwaiters, capwaiters;
static int has_service;

int init_cmd_free(void)
{
    return !cur.pid && !has_service;
}

int init_cmd_reserve(void)
{
    if (nwaiters < capwaiters)
        return 0;
    size_t cap = capwaiters ? capwaiters * 2 : 16;
    pid_t *p = realloc(waiters, cap * sizeof *p);
    if (!p)
        return -1;
    waiters = p;
    capwaiters = cap;
    return 0;
}

void init_cmd_waiter(pid_t pid)
{
    if (nwaiters < capwaiters)
        waiters[nwaiters++] = pid;
}

void init_cmd_service(void)
{
    has_service = 1;
}

/* A waiter (removed from the set when remove) */
static int waiter(pid_t pid, int remove)
{
    for (size_t i = 0; i < nwaiters; i++)
        if (waiters[i] == pid) {
            if (remove)
                waiters[i] = waiters[--nwaiters];
            return 1;
        }
    return 0;
}

static int not_the_commands(long pid)
{
    return waiter((pid_t)pid, 0);
}

static void reaped(pid_t w, int st, const struct rusage *ru)
{
    if (waiter(w, 1) || !cur.pid)
        return;
    cur.reaped_ms += rusage_ms(ru);
    if (w == cur.pid && !cur.exited) { /* not when the init ended it */
        cur.exited = 1;
        cur.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

/* Kills the init's children that are the command's, round after round
 * (a killed one's orphans become children), until none is left. The
 * list holds every child, waiters too (~130,000 pids fit): a cut one
 * could hide the command's behind them. */
static void kill_leftovers(void)
{
    static char buf[1 << 20];
    for (;;) {
        exec_list_children(buf, sizeof buf);
        int left = 0;
        for (char *s = buf, *e; *s; s = e) {
            long pid = strtol(s, &e, 10);
            if (e == s)
                break;
            if (pid > 1 && !not_the_commands(pid)) {
                kill((pid_t)pid, SIGKILL);
                left = 1;
            }
        }
        if (!left)
            return;
        int st;
        struct rusage ru;
        pid_t w = wait4(-1, &st, 0, &ru);
        if (w > 0)
            reaped(w, st, &ru);
        else if (errno != EINTR)
            return;
    }
}

/* The command's end: what it left killed, then (report) its code. Never
 * blocks on the caller, and a caller gone raises no SIGPIPE here. */
static void finish(int report)
{
    kill_leftovers();
    unsigned char b = (unsigned char)cur.code;
    if (report)
        (void)!send(cur.conn, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(cur.conn);
    if (cur.caller >= 0)
        close(cur.caller);
    cur.pid = 0;
    cur.conn = cur.caller = -1;
}

int init_cmd_run(int c, const struct exec_req *r)
{
    pid_t pid = exec_start_command(r);
    if (pid < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, LX_REPLY_ERR "fork: %s\n", strerror(errno));
        write_str(c, msg);
        return 0;
    }
    cur.pid = pid;
    cur.conn = c;
    cur.caller = r->caller;
    cur.exited = 0;
    cur.code = 125;
    cur.reaped_ms = 0;
    budget_start(&cur.cpu, r->cpu_ms, r->ncpu);
    if (send(c, LX_REPLY_OK, strlen(LX_REPLY_OK),
             MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        cur.exited = 1;
        finish(0); /* nobody to run it for */
    }
    return 1;
}

void init_cmd_reap(void)
{
    int st;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(-1, &st, WNOHANG, &ru)) > 0)
        reaped(w, st, &ru);
    if (cur.pid && cur.exited)
        finish(1);
}

void init_cmd_pollfds(struct pollfd p[2])
{
    p[0] = (struct pollfd){ cur.pid ? cur.conn : -1, POLLIN, 0 };
    p[1] = (struct pollfd){ cur.pid ? cur.caller : -1, POLLIN, 0 };
}

int init_cmd_timeout(int dflt)
{
    int w = cur.pid ? budget_wait(&cur.cpu) : -1;
    return w < 0 || w > dflt ? dflt : w;
}

static long long commands_cpu_ms(void *unused)
{
    (void)unused;
    return cur.reaped_ms + descendants_cpu_ms(not_the_commands);
}

void init_cmd_events(const struct pollfd p[2])
{
    if (!cur.pid)
        return;
    if (p[0].revents || p[1].revents) {
        cur.exited = 1;
        finish(0);
        return;
    }
    if (!cur.exited && budget_spent(&cur.cpu, commands_cpu_ms, NULL)) {
        cur.exited = 1;
        cur.code = 128 + SIGXCPU; /* as RLIMIT_CPU ends one process */
        finish(1);
    }
}

/* Right after the reset's own reaping, before anything else runs here:
 * no pid can have been reused yet. */
void init_cmd_forget(void)
{
    for (size_t i = 0; i < nwaiters;)
        if (kill(waiters[i], 0) < 0 && errno == ESRCH)
            waiters[i] = waiters[--nwaiters];
        else
            i++;
    if (cur.pid && kill(cur.pid, 0) < 0 && errno == ESRCH) {
        close(cur.conn);
        if (cur.caller >= 0)
            close(cur.caller);
        cur.pid = 0;
        cur.conn = cur.caller = -1;
    }
}
