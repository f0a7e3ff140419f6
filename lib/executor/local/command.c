/* Commands of the local executor: start (by the sandbox's init, over its
 * socket), status, live output streams over the pipes, cancel (the end of
 * the command's connection to the init). */
#include "session.h"
#include "fds.h"
#include "command_text.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct lx_stream {
    int fds[2];                 /* dups of the command's pipes; -1 at EOF */
} lx_stream;

#define MAX_ARGS 600

/* The host uid of a command whose owner is owner (NULL: the sandbox's
 * default one): /sandbox/<owner>'s (made that uid's now if needed), -1:
 * none. Only the owner the core gives chooses it, never the cwd or the
 * command text: a command cannot name its way into another validation's
 * uid. A validation's HOME is its own directory: /home/daytona belongs to
 * the default uid, and a shared writable home would let one validation
 * plant dotfiles (~/.m2/settings.xml, ~/.profile) that another then
 * runs. */
static int command_uid(lx *x, dval_call *c, lx_sb *sb, const char *owner,
                       long *uid, char *home, size_t home_cap)
{
    char p[64];
    *uid = -1;
    home[0] = 0;
    if (!sb->isolated || geteuid() != 0)
        return DVAL_OK;
    if (!owner)
        return lx_uid_for(x, c, sb, -1, "", uid);
    dval__fmt(home, home_cap, "HOME=/sandbox/%s", owner);
    dval__fmt(p, sizeof p, "/proc/%d/root", (int)sb->pid);
    int root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return dval__call_fail(c, DVAL_EIO, "open %s: %s", p,
                               strerror(errno));
    int rc = lx_uid_for(x, c, sb, root, owner, uid);
    close(root);
    return rc;
}

/* The words of the init's request for one command, with the storage
 * they point into. */
typedef struct exec_argv {
    char *v[MAX_ARGS];
    int n;
    lx_limits l;
    char lim[4][32], mark[600], uid[32];
    char cg[3][4200];
} exec_argv;

/* What runs: shell text, or (argv set) a program in cwd with env added,
 * as owner's uid */
typedef struct lx_what {
    const char *text, *cwd;
    const char *const *argv, *const *env;
    const char *owner;
} lx_what;

/* The command's own part of the arguments: its environment, then the
 * session marker (last: nothing overrides it), then what runs. */
static void what_args(const lx_what *w, exec_argv *a)
{
    for (size_t i = 0; w->env && w->env[i]; i++) {
        a->v[a->n++] = LX_OPT_ENV;
        a->v[a->n++] = (char *)w->env[i];
    }
    a->v[a->n++] = LX_OPT_ENV;
    a->v[a->n++] = a->mark;
    if (!w->argv) {
        a->v[a->n++] = LX_OPT_END;
        a->v[a->n++] = (char *)w->text;
    } else {
        a->v[a->n++] = LX_OPT_ARGV;
        for (size_t i = 0; w->argv[i]; i++)
            a->v[a->n++] = (char *)w->argv[i];
    }
    a->v[a->n] = NULL;
}

static void exec_args(lx *x, lx_sb *sb, const lx_cmd *m, long uid,
                      char *home, const lx_what *w, exec_argv *a)
{
    lx_sb_limits(x, sb, &a->l);
    if (m->cg && m->cg->cpu_ms > 0 && m->cg->cpu_ms < a->l.cpu_ms)
        a->l.cpu_ms = m->cg->cpu_ms; /* the command's own, if lower */
    a->n = 0;
    a->v[a->n++] = LX_VERB_EXEC;
    /* shell text changes directory itself ("cd" first, see spawn_cmd) */
    a->v[a->n++] = (char *)(w->argv && w->cwd ? w->cwd : "/home/daytona");
    lx_limits_args(&a->l, a->v, &a->n, a->lim);
    lx_cmdcg_args(m->cg, a->v, &a->n, a->cg);
    if (uid > 0) {
        dval__fmt(a->uid, sizeof a->uid, "%ld", uid);
        a->v[a->n++] = LX_OPT_UID;
        a->v[a->n++] = a->uid;
    }
    if (home[0]) {
        a->v[a->n++] = LX_OPT_ENV;
        a->v[a->n++] = home;
    }
    for (size_t i = 0; i < sb->kv.n && a->n < MAX_ARGS - 4; i++) {
        if (!strcmp(sb->kv.keys[i], "env")) {
            a->v[a->n++] = LX_OPT_ENV;
            a->v[a->n++] = sb->kv.vals[i];
        }
    }
    lx_session_marker(a->mark, sizeof a->mark, lx_kv_get(&sb->kv, "name"),
                      m->session);
    what_args(w, a);
}

/* Room in exec_argv for the command's environment and words */
static int fits(dval_call *c, const lx_what *w)
{
    size_t n = 0;
    for (size_t i = 0; w->env && w->env[i]; i++)
        n += 2;
    for (size_t i = 0; w->argv && w->argv[i]; i++)
        n++;
    if (n <= MAX_ARGS / 2)
        return 1;
    dval__call_fail(c, DVAL_EINVAL, "too many arguments and environment "
                    "entries (at most %d)", MAX_ARGS / 2);
    return 0;
}

/* Starts the command with its stdout and stderr on pipes: by the
 * sandbox's init (helper init_exec.c). */
static int spawn_piped(dval_call *c, const lx_sb *sb, char **argv, lx_cmd *m)
{
    int out[2] = { -1, -1 }, err[2] = { -1, -1 };
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        int e = errno;
        close(out[0]), close(out[1]);
        return dval__call_fail(c, DVAL_EEXEC, "pipe: %s", strerror(e));
    }
    int rc = lx_init_exec(c, sb, argv, out[1], err[1], &m->ctl);
    close(out[1]);
    close(err[1]);
    m->out = out[0];
    m->err = err[0];
    if (rc != DVAL_OK) {
        close(out[0]);
        close(err[0]);
    }
    return rc;
}

/* *w as the init gets it: shell text entering its cwd first; in an
 * unisolated sandbox, the sandbox paths as host paths (the init enters
 * a program's cwd below the sandbox's directory itself). */
static int init_what(const lx_sb *sb, lx_what *w, lx_host_paths *hp,
                       dval__buf *text)
{
    if (!sb->isolated) {
        if (lx_host_paths_map(sb->dir, w->cwd, w->env, hp) != DVAL_OK)
            return DVAL_ENOMEM;
        w->env = (const char *const *)hp->env;
        if (!w->argv && hp->cwd)
            w->cwd = hp->cwd;   /* the text's cd runs on the host */
    }
    if (!w->argv && dval__command_in_dir(text, w->cwd, w->text))
        return DVAL_ENOMEM;
    if (!w->argv)
        w->text = text->data;
    return DVAL_OK;
}

static int spawn_cmd(lx *x, dval_call *c, lx_sb *sb, const lx_what *what,
                     lx_cmd *m)
{
    char home[300];
    long uid;
    if (!fits(c, what))
        return DVAL_EINVAL;
    int rc = command_uid(x, c, sb, what->owner, &uid, home, sizeof home);
    if (rc != DVAL_OK)
        return rc;
    dval__buf text = { 0 };
    lx_host_paths hp = { 0 };
    lx_what w = *what;
    if (init_what(sb, &w, &hp, &text) != DVAL_OK) {
        rc = dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    } else {
        exec_argv a;
        exec_args(x, sb, m, uid, home, &w, &a);
        rc = spawn_piped(c, sb, a.v, m);
    }
    lx_host_paths_free(&hp);
    dval__buf_free(&text);
    return rc;
}

/* Hands the started command to its session. A session deleted meanwhile
 * takes nothing: the command is killed and reaped. */
static int adopt(lx *x, dval_call *c, const char *sbid, const char *sid,
                 lx_cmd *m, char *cmd_id)
{
    pthread_mutex_lock(&x->lock);
    struct lx_session *s = lx_session_find(x, sbid, sid);
    if (s) {
        m->next = s->cmds;
        s->cmds = m;
    }
    pthread_mutex_unlock(&x->lock);
    if (!s) {
        lx_cmd_kill(m);
        lx_cmd_reap(m, 1);
        close(m->out);
        close(m->err);
        lx_cmdcg_drop(m);
        dval__free(m);
        return dval__call_fail(c, DVAL_ENOTFOUND, "session %s deleted", sid);
    }
    dval__strlcpy(cmd_id, m->id, DVAL_ID_MAX);
    return DVAL_OK;
}

static int start_what(lx *x, dval_call *c, const char *sbid,
                      const char *sid, const lx_what *what, char *cmd_id)
{
    lx_sb sb;
    dval_limits lim;
    pthread_mutex_lock(&x->lock);
    struct lx_session *s = lx_session_find(x, sbid, sid);
    int ok = s != NULL, limited = s && s->limited;
    if (limited)
        lim = s->lim;
    unsigned long seq = ++x->next_cmd;
    pthread_mutex_unlock(&x->lock);
    if (!ok)
        return dval__call_fail(c, DVAL_ENOTFOUND, "session %s not found",
                               sid);
    int rc = lx_sb_open(x, c, sbid, &sb, NULL);
    if (rc != DVAL_OK)
        return rc;
    rc = lx_sb_require_started(c, &sb);
    lx_cmd *m = rc == DVAL_OK ? dval__calloc(1, sizeof *m) : NULL;
    if (rc == DVAL_OK && !m)
        rc = DVAL_ENOMEM;
    if (rc == DVAL_OK) {
        lx_sb_touch(&sb);
        m->ctl = -1;
        dval__fmt(m->id, sizeof m->id, "cmd-%lu", seq);
        dval__strlcpy(m->session, sid, sizeof m->session);
        rc = limited ? lx_cmdcg_make(x, c, &sb, &lim, m) : DVAL_OK;
        rc = rc ? rc : spawn_cmd(x, c, &sb, what, m);
    }
    lx_sb_close(&sb);
    if (rc != DVAL_OK) {
        if (m)
            lx_cmdcg_drop(m);
        dval__free(m);
        return rc;
    }
    return adopt(x, c, sbid, sid, m, cmd_id);
}

int lx_command_start(void *ud, dval_call *c, const dval_command *cmd,
                     char *cmd_id)
{
    int rc = dval__command_check(c, cmd);
    if (rc)
        return rc;
    lx_what w = { cmd->text, cmd->cwd, cmd->argv, cmd->env, cmd->owner };
    return start_what(ud, c, cmd->sandbox_id, cmd->session_id, &w, cmd_id);
}

/* Runs fn on the command under the lock; DVAL_ENOTFOUND when absent. */
static int with_cmd(lx *x, dval_call *c, const char *sb, const char *sid,
                    const char *cmd_id, lx_cmd *copy, int reap, int kill_it)
{
    pthread_mutex_lock(&x->lock);
    lx_cmd *m = lx_cmd_find(lx_session_find(x, sb, sid), cmd_id);
    if (m) {
        if (kill_it)
            lx_cmd_kill(m);
        if (reap)
            lx_cmd_reap(m, 0);
        *copy = *m;
    }
    pthread_mutex_unlock(&x->lock);
    if (!m)
        return dval__call_fail(c, DVAL_ENOTFOUND, "command %s not found",
                               cmd_id);
    return DVAL_OK;
}

/* Both output pipes hung up: every writer is gone. The init (or the
 * command's waiter) lets go of them once the command runs, so the
 * command is ending now; the stream saw the EOF a moment before the exit
 * status can be collected. */
static int output_hung_up(const lx_cmd *m)
{
    struct pollfd p[2] = { { m->out, 0, 0 }, { m->err, 0, 0 } };
    return poll(p, 2, 0) == 2 && (p[0].revents & POLLHUP) &&
           (p[1].revents & POLLHUP);
}

int lx_command_status(void *ud, dval_call *c, const char *sb,
                      const char *sid, const char *cmd_id, int *finished,
                      int *exit_code)
{
    lx *x = ud;
    lx_cmd m;
    int rc = with_cmd(ud, c, sb, sid, cmd_id, &m, 1, 0);
    if (rc != DVAL_OK)
        return rc;
    /* The caller polls again in 10 ms when the stream has closed but the
     * command is not finished (the usual case: the EOF comes first), so a
     * short command would wait that poll out, several times what it took
     * to run. Wait for the exit here instead. */
    lx_cmd exiting = { .ctl = -1 };
    if (!m.finished && m.ctl >= 0) {
        pthread_mutex_lock(&x->lock);
        lx_cmd *cur = lx_cmd_find(lx_session_find(x, sb, sid), cmd_id);
        /* a dup: the record's may be closed while we wait */
        if (cur && !cur->finished && cur->ctl >= 0 && output_hung_up(cur))
            exiting.ctl = fcntl(cur->ctl, F_DUPFD_CLOEXEC, 0);
        pthread_mutex_unlock(&x->lock);
    }
    if (exiting.ctl >= 0) {
        lx_cmd_await(&exiting);
        close(exiting.ctl);
        rc = with_cmd(ud, c, sb, sid, cmd_id, &m, 1, 0);
        if (rc != DVAL_OK)
            return rc;
    }
    *finished = m.finished;
    *exit_code = m.finished ? m.code : 0;
    return DVAL_OK;
}

int lx_command_cancel(void *ud, dval_call *c, const char *sb,
                      const char *sid, const char *cmd_id)
{
    lx_cmd m;
    return with_cmd(ud, c, sb, sid, cmd_id, &m, 0, 1);
}

int lx_stream_open(void *ud, dval_call *c, const char *sb, const char *sid,
                   const char *cmd_id, uint64_t out_from, uint64_t err_from,
                   void **stream)
{
    (void)out_from;
    (void)err_from;
    lx *x = ud;
    lx_stream *st = dval__malloc(sizeof *st);
    if (!st)
        return DVAL_ENOMEM;
    st->fds[0] = st->fds[1] = -1;
    pthread_mutex_lock(&x->lock);
    lx_cmd *m = lx_cmd_find(lx_session_find(x, sb, sid), cmd_id);
    if (m) {
        st->fds[0] = fcntl(m->out, F_DUPFD_CLOEXEC, 0);
        st->fds[1] = fcntl(m->err, F_DUPFD_CLOEXEC, 0);
    }
    pthread_mutex_unlock(&x->lock);
    if (!m || st->fds[0] < 0 || st->fds[1] < 0) {
        lx_stream_close(ud, st);
        return dval__call_fail(c, m ? DVAL_EEXEC : DVAL_ENOTFOUND,
                               "command %s: cannot open its output", cmd_id);
    }
    *stream = st;
    return DVAL_OK;
}

/* Delivers one read from fds[i]; 1 when data came, 0 at EOF, <0 error. */
static int pull(dval_call *c, lx_stream *st, int i, dval_chunk_fn sink,
                void *sink_ud)
{
    char buf[65536];
    ssize_t n;
    while ((n = read(st->fds[i], buf, sizeof buf)) < 0 && errno == EINTR)
        ;
    if (n <= 0) {
        close(st->fds[i]);
        st->fds[i] = -1;
        return 0;
    }
    if (sink && sink(i ? DVAL_STDERR : DVAL_STDOUT, buf, (size_t)n, sink_ud))
        return dval__call_fail(c, DVAL_EABORTED, "output callback stopped");
    return 1;
}

int lx_stream_read(void *ud, dval_call *c, void *stream, dval_chunk_fn sink,
                   void *sink_ud, int *closed)
{
    (void)ud;
    lx_stream *st = stream;
    int64_t end = c && c->timeout_ms > 0 ? dval__now_ms() + c->timeout_ms : 0;
    int got = 0;
    *closed = 0;
    while (st->fds[0] >= 0 || st->fds[1] >= 0) {
        struct pollfd p[3] = { { st->fds[0], POLLIN, 0 },
                               { st->fds[1], POLLIN, 0 },
                               { c ? c->cancel_fd : -1, POLLIN, 0 } };
        int wait = -1;
        if (got)
            wait = 0; /* drain what is ready, then return */
        else if (end)
            wait = (int)(end - dval__now_ms() > 0 ? end - dval__now_ms() : 0);
        int r = poll(p, 3, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (p[2].revents & POLLIN)
            return dval__call_fail(c, DVAL_ECANCELED, "canceled");
        if (r <= 0)
            return DVAL_OK;
        for (int i = 0; i < 2; i++) {
            if (st->fds[i] >= 0 && p[i].revents) {
                int k = pull(c, st, i, sink, sink_ud);
                if (k < 0)
                    return k;
                got |= k;
            }
        }
    }
    *closed = 1;
    return DVAL_OK;
}

void lx_stream_close(void *ud, void *stream)
{
    (void)ud;
    lx_stream *st = stream;
    lx_fds_release(st, st ? st->fds : NULL, 2);
}
