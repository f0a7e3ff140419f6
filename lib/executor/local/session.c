/* Sessions and commands of the local executor. Sessions live in this
 * process (like Daytona's, they do not survive a restart of the daemon);
 * each holds a lease that tells other processes it is open.
 * A command is started by the sandbox's init (its connection to the init
 * is its life line); its stdout/stderr are pipes read here. */
#include "local.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session.h"

struct lx_session *lx_session_find(lx *x, const char *sb, const char *sid)
{
    for (struct lx_session *s = x->sessions; s; s = s->next)
        if (!strcmp(s->sb, sb) && !strcmp(s->id, sid))
            return s;
    return NULL;
}

lx_cmd *lx_cmd_find(struct lx_session *s, const char *id)
{
    for (lx_cmd *m = s ? s->cmds : NULL; m; m = m->next)
        if (!strcmp(m->id, id))
            return m;
    return NULL;
}

/* The code the init (or the command's waiter) sends once every process
 * of the command is gone;
 * none (it was canceled, the sandbox went away): 128 + SIGKILL, as for a
 * killed process. Blocking only after lx_cmd_kill, so bounded. */
void lx_cmd_reap(lx_cmd *m, int block)
{
    struct pollfd p = { m->ctl, POLLIN, 0 };
    int r;
    if (m->ctl < 0)
        return;
    while ((r = poll(&p, 1, block ? 5000 : 0)) < 0 && errno == EINTR)
        ;
    unsigned char b;
    ssize_t n = r > 0 ? recv(m->ctl, &b, 1, MSG_DONTWAIT) : -1;
    if (!block && (r == 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))))
        return;
    m->finished = 1;
    m->code = n == 1 ? b : 128 + SIGKILL;
    close(m->ctl);
    m->ctl = -1;
}

void lx_cmd_kill(lx_cmd *m)
{
    if (!m->finished && m->ctl >= 0)
        shutdown(m->ctl, SHUT_WR);
}

void lx_cmd_await(const lx_cmd *m)
{
    struct pollfd p = { m->ctl, POLLIN, 0 };
    if (m->ctl >= 0)
        poll(&p, 1, 100);
}

void lx_session_marker(char *dst, size_t cap, const char *sb,
                       const char *sid)
{
    dval__fmt(dst, cap, "DVAL_SESSION=%s:%s", sb ? sb : "", sid);
}

static int environ_has(int pid, const char *mark, size_t mlen)
{
    char buf[65536];
    ssize_t n = lx_read_proc(pid, "environ", buf, sizeof buf);
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
        if (strlen(buf + i) == mlen && !memcmp(buf + i, mark, mlen))
            return 1;
    return 0;
}

/* The pids a sweep killed, waited for before it returns. */
typedef struct killed {
    pid_t pid[64];
    int n;
} killed;

static void kill_noted(killed *k, pid_t pid)
{
    if (kill(pid, SIGKILL) == 0 && k->n < 64)
        k->pid[k->n++] = pid;
}

/* Kills the processes carrying the marker among those listed in procs
 * (a cgroup.procs file) or, without one, among all of /proc; the number
 * killed. */
/* Kills pid when it carries the marker (never init or ourselves); 1 if
 * it did. */
static int sweep_pid(int pid, const char *mark, size_t mlen, killed *k)
{
    if (pid <= 1 || pid == getpid() || !environ_has(pid, mark, mlen))
        return 0;
    kill_noted(k, pid);
    return 1;
}

typedef struct sweep_ctx {
    const char *mark;
    size_t mlen;
    killed *k;
} sweep_ctx;

static int sweep_listed(int pid, void *ud)
{
    sweep_ctx *s = ud;
    return sweep_pid(pid, s->mark, s->mlen, s->k);
}

static int sweep_round(const char *procs, const char *mark, size_t mlen,
                       killed *k)
{
    int hits = 0;
    if (*procs) { /* the commands' own cgroups (cmd_cgroup.c) too */
        sweep_ctx s = { mark, mlen, k };
        return lx_cg_each_pid(procs, sweep_listed, &s);
    }
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)))
        hits += sweep_pid(atoi(e->d_name), mark, mlen, k);
    if (d)
        closedir(d);
    return hits;
}

/* Kills every process carrying the session's marker (best effort: a
 * program that rewrites its environment escapes this sweep) and waits
 * (up to 1 s) until those it killed are gone: a dying process can still
 * be listed, and the session's end means its processes are over. */
static void sweep(const struct lx_session *s)
{
    char mark[600];
    lx_session_marker(mark, sizeof mark, s->sb, s->id);
    size_t mlen = strlen(mark);
    killed k = { .n = 0 };
    for (int round = 0; round < 3; round++)
        if (!sweep_round(s->procs, mark, mlen, &k))
            break;
    int64_t end = dval__now_ms() + 1000;
    for (int i = 0, us = 100; i < k.n && dval__now_ms() < end;) {
        if (!lx_pid_start(k.pid[i])) /* gone or a zombie */
            i++;
        else
            lx_pause_us(&us);
    }
}

static void free_session(lx *x, struct lx_session *s)
{
    sweep(s);
    lx_lease_drop(x, s); /* once its processes are gone */
    for (lx_cmd *m = s->cmds; m;) {
        lx_cmd *next = m->next;
        lx_cmd_kill(m);
        lx_cmd_reap(m, 1);
        close(m->out);
        close(m->err);
        lx_cmdcg_drop(m);
        dval__free(m);
        m = next;
    }
    dval__free(s);
}

/* How many sessions whose id starts with prefix are open in it, opened
 * by any process (session_lease.c). */
int lx_sandbox_sessions(void *ud, dval_call *c, const char *sb,
                        const char *prefix, int *count)
{
    lx_sb s;
    int rc = lx_sb_open(ud, c, sb, &s, NULL);
    if (rc != DVAL_OK)
        return rc;
    if (lx_leases_count(s.dir, prefix, count) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "sandbox %s: its sessions: %s",
                             sb, strerror(errno));
    lx_sb_close(&s);
    return rc;
}

int lx_session_create(void *ud, dval_call *c, const char *sb,
                      const char *sid)
{
    lx *x = ud;
    lx_sb s;
    int rc = lx_sb_open(x, c, sb, &s, NULL);
    if (rc != DVAL_OK)
        return rc;
    rc = lx_sb_require_started(c, &s);
    if (rc == DVAL_OK)
        lx_sb_touch(&s);
    struct lx_session *n = rc == DVAL_OK ? dval__calloc(1, sizeof *n) : NULL;
    if (n) {
        dval__strlcpy(n->id, sid, sizeof n->id);
        lx_lease_take(x, n, s.dir);
    }
    if (n && s.isolated) {
        lx_limits l;
        lx_sb_limits(x, &s, &l);
        if (l.nprocs > 0)
            dval__strlcpy(n->procs, l.procs[0], sizeof n->procs);
    }
    lx_sb_close(&s);
    if (rc != DVAL_OK)
        return rc;
    if (!n)
        return DVAL_ENOMEM;
    dval__strlcpy(n->sb, sb, sizeof n->sb);
    pthread_mutex_lock(&x->lock);
    if (lx_session_find(x, sb, sid)) {
        rc = dval__call_fail(c, DVAL_EEXISTS, "session %s exists", sid);
        /* the file is that session's lease: left as it is */
        if (n->lease_fd >= 0)
            close(n->lease_fd);
        dval__free(n->lease_path);
        dval__free(n);
    } else {
        n->next = x->sessions;
        x->sessions = n;
    }
    pthread_mutex_unlock(&x->lock);
    return rc;
}

/* Takes the sessions of sandbox sb (only sid's, when not NULL) out of
 * the executor's list; they come back linked through next. */
static struct lx_session *detach(lx *x, const char *sb, const char *sid)
{
    struct lx_session *drop = NULL;
    pthread_mutex_lock(&x->lock);
    for (struct lx_session **pp = &x->sessions; *pp;) {
        struct lx_session *s = *pp;
        if (strcmp(s->sb, sb) || (sid && strcmp(s->id, sid))) {
            pp = &s->next;
            continue;
        }
        *pp = s->next;
        s->next = drop;
        drop = s;
    }
    pthread_mutex_unlock(&x->lock);
    return drop;
}

static void free_sessions(lx *x, struct lx_session *s)
{
    while (s) {
        struct lx_session *next = s->next;
        free_session(x, s);
        s = next;
    }
}

int lx_session_delete(void *ud, dval_call *c, const char *sb,
                      const char *sid)
{
    lx *x = ud;
    struct lx_session *s = detach(x, sb, sid);
    if (!s)
        return dval__call_fail(c, DVAL_ENOTFOUND, "session %s not found",
                               sid);
    free_sessions(x, s);
    return DVAL_OK;
}

void lx_sessions_drop(lx *x, const char *sb)
{
    free_sessions(x, detach(x, sb, NULL));
}

void lx_sessions_free(lx *x)
{
    free_sessions(x, x->sessions);
    x->sessions = NULL;
    lx_spares_free(x);
}
