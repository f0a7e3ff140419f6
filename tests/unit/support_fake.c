/* Scripted executor: behaves like a tiny Daytona whose state sequences and
 * failures the test dictates, and records every operation it sees. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "support_fake.h"

int64_t fakeclock_now;
int64_t fakeclock_sleeps[256];
int fakeclock_nsleeps;

static int64_t fc_now(void)
{
    return fakeclock_now;
}

static int fc_sleep(int64_t ms, int cancel_fd)
{
    if (fakeclock_nsleeps < 256)
        fakeclock_sleeps[fakeclock_nsleeps++] = ms;
    fakeclock_now += ms;
    struct pollfd p = { .fd = cancel_fd, .events = POLLIN };
    if (cancel_fd >= 0 && poll(&p, 1, 0) > 0)
        return DVAL_ECANCELED;
    return DVAL_OK;
}

void fakeclock_install(void)
{
    fakeclock_now = 1000000;
    fakeclock_nsleeps = 0;
    dval__set_clock(fc_now, fc_sleep);
}

int fake_fixture_open(fake_fixture *fx, fake *f, const char *name,
                      int session)
{
    memset(fx, 0, sizeof *fx);
    fx->c = fake_client(f, 0);
    if (!fx->c)
        return DVAL_ENOMEM;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    int rc = dval_sandbox_acquire(&fx->sb, fx->c, &o);
    if (rc == DVAL_OK && session)
        rc = dval_session_open(&fx->s, fx->sb);
    return rc;
}

void fake_fixture_free(fake_fixture *fx)
{
    dval_session_free(fx->s);
    dval_sandbox_free(fx->sb);
    dval_client_free(fx->c);
    memset(fx, 0, sizeof *fx);
}

void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->snap.struct_size = sizeof f->snap;
    f->sb.struct_size = sizeof f->sb;
}

void fake_fail(fake *f, const char *op, int status, int64_t retry_after_ms)
{
    fake_err *e = &f->errs[f->nerrs++];
    snprintf(e->op, sizeof e->op, "%s", op);
    e->status = status;
    e->retry_after_ms = retry_after_ms;
}

void fake_fail_class(fake *f, const char *op, int status, int failure)
{
    fake_fail(f, op, status, -1);
    f->errs[f->nerrs - 1].failure = failure;
}

void fake_snap_seq(fake *f, int n, const int *states)
{
    memcpy(f->snap_seq, states, (size_t)n * sizeof *states);
    f->snap_nseq = n;
    f->snap_pos = 0;
}

void fake_sb_seq(fake *f, int n, const int *states)
{
    memcpy(f->sb_seq, states, (size_t)n * sizeof *states);
    f->sb_nseq = n;
    f->sb_pos = 0;
}

void fake_item_add(fake *f, int stream, const char *data, size_t len)
{
    f->items[f->nitems].stream = stream;
    f->items[f->nitems].data = data;
    f->items[f->nitems].len = len;
    f->nitems++;
}

static void trace(fake *f, const char *op)
{
    size_t n = strlen(f->trace);
    snprintf(f->trace + n, sizeof f->trace - n, "%s ", op);
}

/* Consumes the first injected failure for op, if any. */
static int injected(fake *f, dval_call *c, const char *op)
{
    trace(f, op);
    for (int i = 0; i < f->nerrs; i++) {
        if (strcmp(f->errs[i].op, op))
            continue;
        int st = f->errs[i].status;
        c->retry_after_ms = f->errs[i].retry_after_ms;
        c->failure = f->errs[i].failure;
        snprintf(c->errmsg, sizeof c->errmsg, "injected %s on %s",
                 dval_status_name(st), op);
        memmove(&f->errs[i], &f->errs[i + 1],
                (size_t)(f->nerrs - i - 1) * sizeof f->errs[0]);
        f->nerrs--;
        return st;
    }
    return 0;
}

/* ---- snapshots */
static int snap_get(void *ud, dval_call *c, const char *name,
                    dval_snapshot_info *out)
{
    fake *f = ud;
    int rc = injected(f, c, "snap_get");
    if (rc)
        return rc;
    /* like the server: look up by id or name; an empty key finds nothing */
    if (f->snap_exists && strcmp(name, f->snap.id) && strcmp(name, f->snap.name))
        return dval__call_fail(c, DVAL_ENOTFOUND, "no snapshot \"%s\"", name);
    if (f->snap_exists && f->snap_pos < f->snap_nseq) {
        int st = f->snap_seq[f->snap_pos++];
        if (st == FAKE_GONE)
            f->snap_exists = 0;
        else
            f->snap.state = st;
    }
    if (!f->snap_exists)
        return dval__call_fail(c, DVAL_ENOTFOUND, "snapshot not found");
    *out = f->snap;
    return DVAL_OK;
}

static int snap_create(void *ud, dval_call *c, const dval_snapshot_spec *spec,
                       dval_snapshot_info *out, dval_chunk_fn log, void *lud)
{
    fake *f = ud;
    int rc = injected(f, c, "snap_create");
    if (rc)
        return rc;
    if (f->snap_exists)
        return dval__call_fail(c, DVAL_EEXISTS, "snapshot exists");
    f->snap_exists = 1;
    f->snap_builds++;
    snprintf(f->snap.id, sizeof f->snap.id, "snap-%d", f->snap_builds);
    snprintf(f->snap.name, sizeof f->snap.name, "%s", spec->name);
    if (f->snap_fail_builds > 0) {
        f->snap_fail_builds--;
        f->snap.state = DVAL_SNAPSHOT_BUILD_FAILED;
        snprintf(f->snap.error_reason, sizeof f->snap.error_reason,
                 "build %d failed", f->snap_builds);
    } else {
        f->snap.state = f->snap_create_state ? f->snap_create_state
                                             : DVAL_SNAPSHOT_ACTIVE;
        f->snap.error_reason[0] = '\0';
    }
    if (log)
        log(DVAL_STDOUT, "building\n", 9, lud);
    *out = f->snap;
    return DVAL_OK;
}

static int snap_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out)
{
    fake *f = ud;
    int rc = injected(f, c, "snap_activate");
    if (rc)
        return rc;
    (void)id;
    f->snap.state = DVAL_SNAPSHOT_PENDING;
    *out = f->snap;
    return DVAL_OK;
}

static int snap_delete(void *ud, dval_call *c, const char *id)
{
    fake *f = ud;
    int rc = injected(f, c, "snap_delete");
    if (rc)
        return rc;
    (void)id;
    f->snap.state = DVAL_SNAPSHOT_REMOVING;
    /* gone at the next get */
    f->snap_seq[0] = FAKE_GONE;
    f->snap_nseq = 1;
    f->snap_pos = 0;
    return DVAL_OK;
}

/* ---- sandboxes */
static int sb_get(void *ud, dval_call *c, const char *name,
                  dval_sandbox_info *out)
{
    fake *f = ud;
    int rc = injected(f, c, "sb_get");
    if (rc)
        return rc;
    if (f->sb_exists && strcmp(name, f->sb.id) && strcmp(name, f->sb.name))
        return dval__call_fail(c, DVAL_ENOTFOUND, "no sandbox \"%s\"", name);
    if (f->sb_exists && f->sb_pos < f->sb_nseq) {
        int st = f->sb_seq[f->sb_pos++];
        if (st == FAKE_GONE)
            f->sb_exists = 0;
        else
            f->sb.state = st;
    }
    if (!f->sb_exists)
        return dval__call_fail(c, DVAL_ENOTFOUND, "sandbox not found");
    *out = f->sb;
    return DVAL_OK;
}

static int sb_create(void *ud, dval_call *c, const dval_sandbox_options *o,
                     dval_sandbox_info *out)
{
    fake *f = ud;
    int rc = injected(f, c, "sb_create");
    if (rc)
        return rc;
    if (f->sb_exists && f->sb.state != DVAL_SANDBOX_DESTROYED)
        return dval__call_fail(c, DVAL_EEXISTS, "sandbox exists");
    if (f->sb_exists) /* replacing a destroyed record: old script is void */
        f->sb_nseq = 0;
    f->sb_exists = 1;
    f->sb_created = *o;
    snprintf(f->sb.id, sizeof f->sb.id, "id-%s", o->name);
    snprintf(f->sb.name, sizeof f->sb.name, "%s", o->name);
    f->sb.state = f->sb_create_state ? f->sb_create_state : DVAL_SANDBOX_STARTED;
    f->sb.recoverable = 0;
    f->sb.error_reason[0] = '\0';
    *out = f->sb;
    return DVAL_OK;
}

/* The state changes of a sandbox, as a table: what each member refuses
 * and what it leaves behind. */
#define TO_START_STATE (-1)  /* sb_start_state, or started */
static const struct sb_rule {
    const char *op;
    int refused_in;          /* answers 400 in this state (0: none) */
    int to;                  /* state afterwards */
    int clears_recoverable;
} SB_RULES[] = {
    { "sb_start", DVAL_SANDBOX_STOPPING, TO_START_STATE, 0 },
    { "sb_stop", 0, DVAL_SANDBOX_STOPPED, 0 },
    { "sb_recover", 0, DVAL_SANDBOX_STARTED, 1 },
};

static int sb_change(fake *f, dval_call *c, const struct sb_rule *r,
                     dval_sandbox_info *out)
{
    int rc = injected(f, c, r->op);
    if (rc)
        return rc;
    if (!f->sb_exists)
        return dval__call_fail(c, DVAL_ENOTFOUND, "sandbox not found");
    if (r->refused_in && f->sb.state == r->refused_in)
        return dval__call_fail(c, DVAL_EBADREQUEST, "not in valid state");
    f->sb.state = r->to != TO_START_STATE ? r->to
                  : f->sb_start_state     ? f->sb_start_state
                                          : DVAL_SANDBOX_STARTED;
    if (r->clears_recoverable)
        f->sb.recoverable = 0;
    *out = f->sb;
    return DVAL_OK;
}

static int sb_start(void *ud, dval_call *c, const char *id,
                    dval_sandbox_info *out)
{
    (void)id;
    return sb_change(ud, c, &SB_RULES[0], out);
}

static int sb_stop(void *ud, dval_call *c, const char *id,
                   dval_sandbox_info *out)
{
    (void)id;
    return sb_change(ud, c, &SB_RULES[1], out);
}

static int sb_recover(void *ud, dval_call *c, const char *id,
                      dval_sandbox_info *out)
{
    (void)id;
    return sb_change(ud, c, &SB_RULES[2], out);
}

static int sb_delete(void *ud, dval_call *c, const char *id)
{
    fake *f = ud;
    int rc = injected(f, c, "sb_delete");
    if (rc)
        return rc;
    (void)id;
    f->sb_exists = 0;
    f->sb_nseq = 0;
    return DVAL_OK;
}

/* ---- sessions and commands */
static int ses_create(void *ud, dval_call *c, const char *sb, const char *sid)
{
    fake *f = ud;
    (void)sb;
    (void)sid;
    return injected(f, c, "ses_create");
}

static int ses_delete(void *ud, dval_call *c, const char *sb, const char *sid)
{
    fake *f = ud;
    (void)sb;
    (void)sid;
    f->sessions_deleted++;
    return injected(f, c, "ses_delete");
}

static void join(char *out, size_t cap, const char *const *v)
{
    out[0] = 0;
    for (size_t i = 0; v && v[i]; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "",
                 v[i]);
}

void fake_map(const fake *f, const char *path, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = path; *p && n + 1 < cap;) {
        if (!strncmp(p, "/sandbox/", 9)) {
            n += (size_t)snprintf(out + n, cap - n, "%s/", f->root);
            p += 9;
        } else {
            out[n++] = *p++;
        }
        if (n >= cap)
            n = cap - 1;
    }
    out[n] = '\0';
}

/* A text command run by a real sh, its paths (and cwd, which must be
 * below /sandbox) mapped under f->root. */
static int run_real(fake *f, dval_call *c, const dval_command *cmd)
{
    char text[4096], cwd[1024] = ".", full[5200];
    if (cmd->cwd && strncmp(cmd->cwd, "/sandbox/", 9))
        return dval__call_fail(c, DVAL_EINVAL, "fake: a real command's cwd "
                               "must be below /sandbox");
    if (cmd->cwd)
        fake_map(f, cmd->cwd, cwd, sizeof cwd);
    fake_map(f, cmd->text, text, sizeof text);
    snprintf(full, sizeof full, "cd '%s' && %s", cwd, text);
    FILE *p = popen(full, "r");
    if (!p)
        return dval__call_fail(c, DVAL_EEXEC, "fake: popen failed");
    f->reply_len = fread(f->reply, 1, sizeof f->reply, p);
    int st = pclose(p);
    f->reply_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    f->replying = 1;
    return DVAL_OK;
}

/* Records the description: text, or argv's words joined by spaces (with
 * started_argv set), its environment likewise in started_env. */
static int cmd_start(void *ud, dval_call *c, const dval_command *cmd,
                     char *id)
{
    fake *f = ud;
    f->start_struct_size = cmd->struct_size;
    if (cmd->argv)
        join(f->started, sizeof f->started, cmd->argv);
    else
        snprintf(f->started, sizeof f->started, "%s", cmd->text);
    size_t n = strlen(f->all_started);
    snprintf(f->all_started + n, sizeof f->all_started - n, "%s\n",
             f->started);
    join(f->started_env, sizeof f->started_env, cmd->env);
    snprintf(f->started_cwd, sizeof f->started_cwd, "%s",
             cmd->cwd ? cmd->cwd : "");
    f->cwd_null = cmd->cwd == NULL;
    snprintf(f->started_owner, sizeof f->started_owner, "%s",
             cmd->owner ? cmd->owner : "");
    f->owner_null = cmd->owner == NULL;
    f->starts++;
    f->starts_unowned += cmd->owner == NULL;
    f->start_timeout_ms = c->timeout_ms;
    f->started_argv = cmd->argv != NULL;
    int rc = injected(f, c, "cmd_start");
    f->replying = 0;
    if (!rc && f->root[0] && cmd->text)
        rc = run_real(f, c, cmd);
    else if (!rc && cmd->argv && f->on_argv)
        f->on_argv(f, cmd);
    if (!rc)
        snprintf(id, DVAL_ID_MAX, "cmd-1");
    return rc;
}

/* The output the current command prints: a real command's stdout, else
 * the scripted items. */
static const fake_item *cur_items(fake *f, int *n, fake_item *one)
{
    if (!f->replying) {
        *n = f->nitems;
        return f->items;
    }
    one->stream = DVAL_STDOUT;
    one->data = f->reply;
    one->len = f->reply_len;
    *n = f->reply_len > 0;
    return one;
}

typedef struct fstream {
    int pos;
    uint64_t skip[2];    /* stdout, stderr bytes the core already has */
} fstream;

/* Item `it` past what the core has: 1 with [*p, *p + *n) to deliver, 0
 * when all of it was delivered before. */
static int unseen(uint64_t skip[2], const fake_item *it, const char **p,
                  size_t *n)
{
    uint64_t *k = &skip[it->stream == DVAL_STDERR];
    if (*k >= it->len) {
        *k -= it->len;
        return 0;
    }
    *p = it->data + *k;
    *n = it->len - (size_t)*k;
    *k = 0;
    return 1;
}

static int cmd_status(void *ud, dval_call *c, const char *sb, const char *sid,
                      const char *cmd, int *fin, int *code)
{
    fake *f = ud;
    (void)sb;
    (void)sid;
    (void)cmd;
    int rc = injected(f, c, "cmd_status");
    if (rc)
        return rc;
    if (f->status_polls_before_exit > 0) {
        f->status_polls_before_exit--;
        *fin = 0;
        return DVAL_OK;
    }
    *fin = 1;
    *code = f->replying ? f->reply_code : f->exit_code;
    return DVAL_OK;
}

static int st_open(void *ud, dval_call *c, const char *sb, const char *sid,
                   const char *cmd, uint64_t out_from, uint64_t err_from,
                   void **out)
{
    fake *f = ud;
    (void)sb;
    (void)sid;
    (void)cmd;
    if (f->no_stream)
        return dval__call_fail(c, DVAL_EUNSUPPORTED, "no stream");
    int rc = injected(f, c, "st_open");
    if (rc)
        return rc;
    fstream *s = dval__calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return DVAL_ENOMEM;
    s->skip[0] = out_from;
    s->skip[1] = err_from;
    if (f->opens < FAKE_MAX) {
        f->open_from[f->opens][0] = out_from;
        f->open_from[f->opens][1] = err_from;
    }
    f->opens++;
    return DVAL_OK;
}

static int st_read(void *ud, dval_call *c, void *stream, dval_chunk_fn sink,
                   void *sud, int *closed)
{
    fake *f = ud;
    fstream *s = stream;
    if (f->hang) {
        struct pollfd p = { .fd = c->cancel_fd, .events = POLLIN };
        if (poll(&p, 1, (int)c->timeout_ms) > 0)
            return DVAL_ECANCELED;
        return DVAL_OK;
    }
    if (f->drop_after && f->drops_left > 0 && s->pos == f->drop_after) {
        f->drops_left--;
        return dval__call_fail(c, DVAL_ENETWORK, "connection dropped");
    }
    fake_item one;
    int count;
    const fake_item *items = cur_items(f, &count, &one);
    if (s->pos < count) {
        /* one item a read; a replayed one delivers nothing */
        const char *p;
        size_t n;
        if (unseen(s->skip, &items[s->pos], &p, &n) &&
            sink(items[s->pos].stream, p, n, sud)) {
            s->pos++;
            return DVAL_EABORTED;
        }
        s->pos++;
        return DVAL_OK;
    }
    if (!f->never_close)
        *closed = 1;
    else
        dval__sleep_ms(c->timeout_ms, c->cancel_fd); /* idle, like a socket */
    return DVAL_OK;
}

static void st_close(void *ud, void *stream)
{
    (void)ud;
    dval__free(stream);
}

static int cmd_logs(void *ud, dval_call *c, const char *sb, const char *sid,
                    const char *cmd, uint64_t out_from, uint64_t err_from,
                    dval_chunk_fn sink, void *sud)
{
    fake *f = ud;
    (void)sb;
    (void)sid;
    (void)cmd;
    int rc = injected(f, c, "cmd_logs");
    if (rc)
        return rc;
    f->logs_from[0] = out_from;
    f->logs_from[1] = err_from;
    f->logs_calls++;
    uint64_t skip[2] = { out_from, err_from };
    fake_item one;
    int count;
    const fake_item *items = cur_items(f, &count, &one);
    for (int i = 0; i < count; i++) {
        const char *p;
        size_t n;
        if (unseen(skip, &items[i], &p, &n) &&
            sink(items[i].stream, p, n, sud))
            return DVAL_EABORTED;
    }
    return DVAL_OK;
}

static int cmd_cancel(void *ud, dval_call *c, const char *sb, const char *sid,
                      const char *cmd)
{
    fake *f = ud;
    (void)c;
    (void)sb;
    (void)sid;
    (void)cmd;
    f->cmd_canceled++;
    return DVAL_OK;
}

static int real_download(fake *f, dval_call *c, const char *path,
                         dval_data_fn sink, void *sud)
{
    char host[4096], buf[4096];
    fake_map(f, path, host, sizeof host);
    FILE *in = fopen(host, "rb");
    if (!in)
        return dval__call_fail(c, DVAL_ENOTFOUND, "%s: not found", path);
    size_t n;
    int rc = DVAL_OK;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = sink(buf, n, sud) ? DVAL_EABORTED : DVAL_OK;
    fclose(in);
    return rc;
}

/* file_list over the real directory: plain files with their sizes, any
 * other entry (link, hard link, FIFO...) with -1, directories walked. */
static int walk(const char *host, const char *rel, dval_file_list_fn each,
                void *ud)
{
    DIR *d = opendir(host);
    if (!d)
        return DVAL_EIO;
    int rc = DVAL_OK;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char h[4096], r[4096];
        struct stat st;
        snprintf(h, sizeof h, "%s/%s", host, e->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        if (lstat(h, &st))
            rc = DVAL_EIO;
        else if (S_ISDIR(st.st_mode))
            rc = walk(h, r, each, ud);
        else if (each(r, S_ISREG(st.st_mode) && st.st_nlink == 1
                             ? (int64_t)st.st_size : -1, ud))
            rc = DVAL_EABORTED;
    }
    closedir(d);
    return rc;
}

static int file_ls(void *ud, dval_call *c, const char *sb, const char *dir,
                   dval_file_list_fn each, void *each_ud)
{
    fake *f = ud;
    (void)sb;
    int rc = injected(f, c, "file_list");
    if (rc)
        return rc;
    char host[4096];
    fake_map(f, dir, host, sizeof host);
    struct stat st;
    if (!f->root[0] || (lstat(host, &st) && errno == ENOENT))
        return dval__call_fail(c, DVAL_ENOTFOUND, "%s: not found", dir);
    if (!S_ISDIR(st.st_mode))
        return dval__call_fail(c, DVAL_ERESULTS, "%s: not a directory",
                               dir);
    return walk(host, "", each, each_ud);
}

static int file_dl(void *ud, dval_call *c, const char *sb, const char *path,
                   dval_data_fn sink, void *sud)
{
    fake *f = ud;
    (void)sb;
    int rc = injected(f, c, "file_download");
    if (rc)
        return rc;
    if (f->root[0])
        return real_download(f, c, path, sink, sud);
    if (!f->file_data)
        return dval__call_fail(c, DVAL_ENOTFOUND, "%s: not found", path);
    size_t n = strlen(f->file_data);
    if (sink(f->file_data, f->file_cut ? n / 2 : n, sud))
        return DVAL_EABORTED;
    if (f->file_cut)
        return dval__call_fail(c, DVAL_EPROTOCOL, "truncated");
    return DVAL_OK;
}

/* Only when the test asks (mkdir_ok): the suites written before it
 * expect an executor that cannot make directories. */
static int folder_mk(void *ud, dval_call *c, const char *sb,
                     const char *path)
{
    fake *f = ud;
    (void)sb;
    int rc = injected(f, c, "folder_create");
    if (rc || !f->root[0])
        return rc;
    char host[4096], mk[4200];
    fake_map(f, path, host, sizeof host);
    snprintf(mk, sizeof mk, "mkdir -p '%s'", host);
    return system(mk) ? dval__call_fail(c, DVAL_EIO, "fake: %s", mk) : rc;
}

/* The members the fake implements, in one table: each row is the vtable
 * member and the function that serves it. The executor is built from it
 * (type-checked: a row whose function does not fit its member does not
 * compile), and fake_omit finds a member's place by its name in it. */
#define FAKE_MEMBERS(X)                                                   \
    X(snapshot_get, snap_get)                                             \
    X(snapshot_create, snap_create)                                       \
    X(snapshot_activate, snap_activate)                                   \
    X(snapshot_delete, snap_delete)                                       \
    X(sandbox_get, sb_get)                                                \
    X(sandbox_create, sb_create)                                          \
    X(sandbox_start, sb_start)                                            \
    X(sandbox_stop, sb_stop)                                              \
    X(sandbox_delete, sb_delete)                                          \
    X(sandbox_recover, sb_recover)                                        \
    X(session_create, ses_create)                                         \
    X(session_delete, ses_delete)                                         \
    X(command_start, cmd_start)                                           \
    X(command_status, cmd_status)                                         \
    X(stream_open, st_open)                                               \
    X(stream_read, st_read)                                               \
    X(stream_close, st_close)                                             \
    X(command_logs, cmd_logs)                                             \
    X(command_cancel, cmd_cancel)                                         \
    X(file_download, file_dl)                                             \
    X(folder_create, folder_mk)                                           \
    X(file_list, file_ls)

#define AS_INIT(member, fn) .member = fn,
#define AS_ROW(member, fn) { #member, offsetof(struct dval_executor, member) },

static const struct dval_executor FAKE = {
    .struct_size = sizeof(struct dval_executor),
    .name = "fake",
    FAKE_MEMBERS(AS_INIT)
};

static const struct member_row {
    const char *name;
    size_t offset;
} ROWS[] = { FAKE_MEMBERS(AS_ROW) };

void fake_omit(fake *f, const char *member)
{
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        if (!strcmp(ROWS[i].name, member) &&
            f->nomitted < (int)(sizeof f->omitted / sizeof f->omitted[0])) {
            f->omitted[f->nomitted++] = ROWS[i].name;
            return;
        }
    }
    fprintf(stderr, "fake_omit: the fake has no member %s\n", member);
    abort();
}

static void build(struct dval_executor *ex, fake *f)
{
    *ex = FAKE;
    ex->userdata = f;
    if (f->ex_size)
        ex->struct_size = f->ex_size;
    if (!f->mkdir_ok)
        ex->folder_create = NULL;
    for (int k = 0; k < f->nomitted; k++) {
        for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
            if (ROWS[i].name == f->omitted[k]) {
                void (*none)(void) = NULL;
                memcpy((char *)ex + ROWS[i].offset, &none, sizeof none);
            }
        }
    }
}

dval_client *fake_client_opts(fake *f, const dval_client_options *base)
{
    struct dval_executor ex;
    build(&ex, f);
    dval_client_options o;
    if (base)
        o = *base;
    else
        dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    dval_client *c = NULL;
    if (dval_client_new(&c, &o) != DVAL_OK)
        return NULL;
    return c;
}

dval_client *fake_client(fake *f, int jitter)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.retry_jitter = jitter;
    return fake_client_opts(f, &o);
}
