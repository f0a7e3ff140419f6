/* The exec engine: start a command, stream its output live, learn its exit
 * code, reconcile (PROTOCOL §6.6). Executors deliver stdout and stderr;
 * the engine counts what it received of each and, on a reconnect and for
 * the final log, tells the executor those counts, so that a server that
 * replays from byte 0 (Daytona) delivers every byte once. */
#include <string.h>
#include <unistd.h>

#include "exec_env.h"
#include "executor.h"
#include "output.h"

#define READ_SLICE_MS 200     /* longest single stream_read wait */
/* Exit-code polls. Nothing here decides that a command ended: only its
 * exit code does (the daemon writes it after flushing the log, PROTOCOL
 * 5.1), and the final log fetch then supplies whatever the stream had not
 * delivered yet (reconcile). These only choose *when* to ask:
 * - at once when the first output arrives (a short command has usually
 *   exited by the time its output is streamed), later on new output at
 *   most every `gap` ms, the gap doubling from STATUS_FIRST_MS up to
 *   STATUS_MAX_MS while the command keeps running;
 * - when output was followed by BURST_END_MS without more (the daemon
 *   streams new log bytes within 20 ms, §6.4: the burst, perhaps the
 *   command, is over);
 * - otherwise every max(gap, STATUS_FIRST_MS) ms (commands printing
 *   nothing, or no stream at all);
 * - in a command's first HOT_WINDOW_MS, when a poll right after new output
 *   found it still running and nothing more came: again after 2, 4 and
 *   8 ms (the exit code is written a moment after the last output, and a
 *   loaded server may stream the output before it; later on, a few ms at
 *   the end of a long command do not matter). */
#define STATUS_FIRST_MS 25
#define STATUS_MAX_MS 250
#define BURST_END_MS 25
#define HOT_WINDOW_MS 1000
#define HOT_RETRIES 3
/* after the exit, a stream without a final log behind it (the local
 * executor) is drained of what is ready, at most this many reads */
#define DRAIN_READS 64
#define MAX_RECONNECTS 5

typedef struct run {
    dval_session *s;
    dval_client *c;
    dval__ex_cmd at;          /* sandbox, session, command (once started) */
    char cmd_id[DVAL_ID_MAX];
    dval__out out;
    uint64_t got[2];          /* stdout, stderr bytes received, over all
                                 connections: where a new one resumes */
    uint64_t fresh;           /* bytes received (progress) */
    int aborted;              /* the output callback said stop */
    int finished;
    int stream_complete;      /* the live stream closed normally */
    int exit_code;
    int64_t last_data;
    int64_t last_poll;        /* status schedule, see STATUS_FIRST_MS */
    int64_t gap;
    int64_t started;          /* when the command was started */
    int hot;                  /* quick retries left (HOT_WINDOW_MS) */
    int64_t hot_wait;
    int data_since_poll;
    int64_t deadline;         /* 0 = none */
    char errmsg[DVAL_ERRMSG_MAX]; /* why a status poll failed */
} run;

static int sink(int stream, const char *data, size_t len, void *ud)
{
    run *r = ud;
    r->last_data = dval__now_ms();
    if (r->aborted)
        return 1;
    r->got[stream == DVAL_STDERR] += len;
    r->fresh += len;
    r->data_since_poll = 1;
    if (dval__out_write(&r->out, stream, data, len))
        r->aborted = 1;
    return r->aborted;
}

/* the flag dval_session_cancel sets before it wakes the waits: a look
 * at it costs no system call */
static int canceled(run *r)
{
    return atomic_load(&r->s->canceled);
}

static int64_t slice(run *r, int64_t want)
{
    if (!r->deadline)
        return want;
    int64_t left = r->deadline - dval__now_ms();
    return left < 1 ? 1 : left < want ? left : want;
}

/* A call about the running command. Live calls (stream, status, start)
 * end with its cancel pipe and its deadline; the kill and the final log
 * run after either, with no cancel descriptor. Stream reads and
 * the kill are single attempts that do not wait out a 429 hold. */
#define ONE_SHOT (DVAL__NO_RETRY | DVAL__NO_HOLD)
static void prep(run *r, dval__ex_op *op, const char *what, int flags,
                 int64_t timeout_ms, int live)
{
    dval__ex_op_init(op, what, flags, NULL, 0);
    op->timeout_ms = timeout_ms;
    if (live) {
        op->cancel_fd = r->s->cancel_fd;
        op->deadline_ms = r->deadline;
    }
}

static int poll_status(run *r)
{
    int rc, fin = 0, code = 0;
    dval__ex_op op;
    prep(r, &op, "command status", DVAL__IDEMPOTENT, 30000, 1);
    op.msg = r->errmsg;
    op.cap = sizeof r->errmsg;
    if ((rc = dval__ex_command_status(r->c, &op, &r->at, &fin, &code)))
        return rc;
    if (fin) {
        r->finished = 1;
        r->exit_code = code;
    }
    return DVAL_OK;
}

/* Kills what runs (cancel, timeout, abort): command_cancel, else the
 * whole session. */
static void stop_command(run *r)
{
    dval__ex_op op;
    prep(r, &op, "cancel command", ONE_SHOT, 10000, 0);
    if (dval__ex_command_cancel(r->c, &op, &r->at) == DVAL_OK ||
        !DVAL__EX_HAS(r->c, session_delete))
        return;
    dval__ex_cmd session = { r->at.sandbox, r->at.session, NULL };
    prep(r, &op, "delete session", ONE_SHOT, 10000, 0);
    dval__ex_session_delete(r->c, &op, &session);
    r->s->open = 0;
}

static int check_interrupt(run *r)
{
    if (r->aborted)
        return DVAL_EABORTED;
    if (canceled(r))
        return DVAL_ECANCELED;
    if (r->deadline && dval__now_ms() >= r->deadline)
        return DVAL_ETIMEOUT;
    return DVAL_OK;
}

/* ms until the next status poll is due (<= 0: now); see STATUS_FIRST_MS */
static int64_t status_in(const run *r, int64_t now, int have_stream)
{
    if (!have_stream) /* polling only: the gap alone paces it */
        return r->last_poll + (r->gap ? r->gap : 1) - now;
    int64_t beat = r->gap > STATUS_FIRST_MS ? r->gap : STATUS_FIRST_MS;
    if (r->hot && !r->data_since_poll && r->hot_wait < beat)
        beat = r->hot_wait;
    int64_t due = r->last_poll + beat;
    if (r->data_since_poll) {
        int64_t on_data = r->last_poll + r->gap;
        int64_t burst = r->last_data + BURST_END_MS;
        due = on_data < due ? on_data : due;
        due = burst < due ? burst : due;
    }
    return due - now;
}

static int poll_scheduled(run *r)
{
    int rc = poll_status(r);
    int64_t now = dval__now_ms();
    /* quick retries after a poll that followed new output; used up by
     * polls without new output in between */
    if (r->data_since_poll && now - r->started < HOT_WINDOW_MS) {
        r->hot = HOT_RETRIES;
        r->hot_wait = 2;
    } else if (r->hot) {
        r->hot--;
        r->hot_wait *= 2;
    }
    r->last_poll = now;
    r->data_since_poll = 0;
    if (!rc && !r->finished)
        r->gap = !r->gap ? STATUS_FIRST_MS
                 : r->gap * 2 < STATUS_MAX_MS ? r->gap * 2 : STATUS_MAX_MS;
    return rc;
}

/* Opens the stream; on failure decides between retrying and polling. */
static void open_stream(run *r, void **stream, int *failures, int *polling)
{
    dval__ex_op op;
    prep(r, &op, "open log stream", ONE_SHOT, 30000, 1);
    int rc = dval__ex_stream_open(r->c, &op, &r->at, r->got, stream);
    if (!rc)
        return;
    *stream = NULL;
    if (rc == DVAL_ECANCELED)
        return;   /* check_interrupt reports it */
    DVAL__LOG(r->c, DVAL_LOG_DEBUG, "log stream: %s", op.call.errmsg);
    *polling = ++*failures >= MAX_RECONNECTS || rc == DVAL_EUNSUPPORTED ||
               rc == DVAL_EPASSTHROUGH;
    if (!*polling)
        dval__sleep_ms(100 * *failures, r->s->cancel_fd);
}

/* One read of at most `wait` ms. A dropped stream is closed (*stream =
 * NULL); only new bytes reset the failure count: a reconnect resumes at
 * what was received, so a stream that always drops at the same point
 * would otherwise be reopened forever. */
static void read_stream(run *r, void **stream, int64_t wait, int *failures,
                        int *polling, int *closed)
{
    dval__ex_op op;
    prep(r, &op, "read log stream", ONE_SHOT, wait < 1 ? 1 : wait, 1);
    uint64_t had = r->fresh;
    int rc = dval__ex_stream_read(r->c, &op, *stream, sink, r, closed);
    if (rc && rc != DVAL_ECANCELED && !r->aborted) {
        DVAL__LOG(r->c, DVAL_LOG_DEBUG, "log stream dropped (%s); "
                  "reconnecting", op.call.errmsg);
        dval__ex_stream_close(r->c, *stream);
        *stream = NULL;
        *polling = ++*failures >= MAX_RECONNECTS;
        *closed = 0;
        return;
    }
    if (r->fresh != had)
        *failures = 0;
}

/* The stream closed normally, so it carried the whole log: the exit code
 * follows right away; ask now, then after 1 ms, backing off to 50. */
static int after_close(run *r)
{
    r->stream_complete = 1;
    int rc = r->finished ? DVAL_OK : poll_status(r);
    for (int64_t wait = 1; !rc && !r->finished;
         wait = wait < 25 ? wait * 2 : 50) {
        if ((rc = check_interrupt(r)))
            return rc;
        dval__sleep_ms(slice(r, wait), r->s->cancel_fd);
        rc = poll_status(r);
    }
    return rc;
}

/* Exited, stream still open. With a final log to reconcile against there
 * is nothing to wait for. Without one (the local executor: a background
 * child may hold the pipes) what is ready now is taken, nothing waited
 * for. */
static void drain(run *r, void *stream)
{
    if (DVAL__EX_HAS(r->c, command_logs))
        return;
    for (int i = 0; i < DRAIN_READS && !r->aborted; i++) {
        dval__ex_op op;
        prep(r, &op, "drain log stream", ONE_SHOT, 1, 0);
        op.cancel_fd = r->s->cancel_fd;
        uint64_t had = r->fresh;
        int closed = 0;
        if (dval__ex_stream_read(r->c, &op, stream, sink, r, &closed) ||
            closed || r->fresh == had)
            return;
    }
}

/* Follows the live stream and the exit code; falls back to polling after
 * repeated stream failures. Returns once the exit code is known (and, for
 * a stream that closed, after it drained). */
static int follow(run *r)
{
    void *stream = NULL;
    int failures = 0, polling = !DVAL__EX_HAS(r->c, stream_open) ||
                                !DVAL__EX_HAS(r->c, stream_read);
    int rc;
    r->last_poll = r->started = dval__now_ms();
    for (;;) {
        if ((rc = check_interrupt(r)))
            break;
        if (!polling && !stream) {
            open_stream(r, &stream, &failures, &polling);
            continue;
        }
        int64_t wait = status_in(r, dval__now_ms(), stream != NULL);
        int closed = 0;
        if (stream && wait > 0)
            read_stream(r, &stream, wait < READ_SLICE_MS ? wait
                        : READ_SLICE_MS, &failures, &polling, &closed);
        else if (wait > 0)
            dval__sleep_ms(slice(r, wait), r->s->cancel_fd);
        if (closed) {
            dval__ex_stream_close(r->c, stream);
            stream = NULL;
            rc = after_close(r);
            break;
        }
        if (status_in(r, dval__now_ms(), stream != NULL) <= 0 &&
            (rc = poll_scheduled(r)))
            break;
        if (r->finished) {
            if (stream)
                drain(r, stream);
            rc = check_interrupt(r); /* a cancel, e.g. from the callback */
            break;
        }
    }
    if (stream)
        dval__ex_stream_close(r->c, stream);
    return rc;
}

/* Fetches the final log once the exit code is known and shows what the
 * streams had not delivered, past the counts received: the final log is
 * authoritative (complete once there is an exit code; the executor checks
 * that it lines up with the counts). Not after a normal close: the stream
 * then carried all of it. */
static void reconcile(run *r)
{
    if (!DVAL__EX_HAS(r->c, command_logs) || r->stream_complete)
        return;
    dval__ex_op op;
    prep(r, &op, "fetch final log", ONE_SHOT, 30000, 0);
    int rc = dval__ex_command_logs(r->c, &op, &r->at, r->got, sink, r);
    if (rc && rc != DVAL_EUNSUPPORTED && rc != DVAL_EPASSTHROUGH)
        DVAL__LOG(r->c, DVAL_LOG_WARN, "final log fetch failed: %s",
                  op.call.errmsg);
}

/* Starts the command in o->cwd; only a 429 is retried (the command may
 * have started). */
static int start(run *r, const dval__command *cmd, const dval_exec_options *o)
{
    dval__ex_op op;
    prep(r, &op, "start command", DVAL__ONCE, 60000, 1);
    op.msg = r->s->errmsg;
    op.cap = sizeof r->s->errmsg;
    dval_command d = { .struct_size = sizeof d, .sandbox_id = r->at.sandbox,
                       .session_id = r->at.session, .cwd = o->cwd,
                       .text = cmd->argv ? NULL : cmd->text,
                       .argv = cmd->argv, .env = cmd->env,
                       .owner = cmd->owner };
    int rc = dval__ex_command_start(r->c, &op, &d, r->cmd_id);
    r->at.cmd_id = r->cmd_id;
    return rc;
}

static int check_text(dval_session *s, const char *what, const char *text)
{
    if (!text || !*text) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "%s is empty", what);
        return DVAL_EINVAL;
    }
    if (!dval__utf8_valid(text, strlen(text))) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "%s is not valid UTF-8",
                  what);
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

static int check_command(dval_session *s, const dval__command *cmd)
{
    if (!cmd->argv)
        return check_text(s, "command", cmd->text);
    int rc = check_text(s, "command", cmd->argv[0]);
    for (size_t i = 1; !rc && cmd->argv[i]; i++)
        rc = dval__utf8_valid(cmd->argv[i], strlen(cmd->argv[i]))
                 ? DVAL_OK : check_text(s, "argument", cmd->argv[i]);
    return rc ? rc : dval__exec_env_check(cmd->env, s->errmsg,
                                          sizeof s->errmsg);
}

static int check_args(dval_session *s, const dval__command *cmd,
                      const dval_exec_options *opts, dval_exec_options *o)
{
    int rc = check_command(s, cmd);
    if (rc)
        return rc;
    if (opts) {
        rc = dval__opts_copy(o, sizeof *o, opts, sizeof(size_t));
        if (rc) {
            dval__fmt(s->errmsg, sizeof s->errmsg, "exec options: struct_size "
                      "%zu not supported", opts->struct_size);
            return rc;
        }
    } else {
        dval_exec_options_init(o, sizeof *o);
    }
    if (o->channel_prefix && strlen(o->channel_prefix) > 100) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "channel prefix too long");
        return DVAL_EINVAL;
    }
    if (!s->open) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "session %s is closed", s->id);
        return DVAL_ESTATE;
    }
    return DVAL_OK;
}

/* A text command with the caller's variables (opts->env): given to the
 * executor as data, never expanded by a shell. */
static int env_command(dval_session *s, const dval__command *text,
                       const char *const *env, dval__command *out)
{
    int rc = dval__exec_env_check(env, s->errmsg, sizeof s->errmsg);
    if (rc)
        return rc;
    *out = *text;
    out->env = env;
    return DVAL_OK;
}

static void drain_cancel(dval_session *s)
{
    uint64_t n;
    while (read(s->cancel_fd, &n, sizeof n) > 0)
        ;
    atomic_store(&s->canceled, 0);
}

DVAL_API int dval_exec_options_init(dval_exec_options *o, size_t size)
{
    if (!o)
        return DVAL_EINVAL;
    if (size < sizeof(size_t))
        return DVAL_EABI;
    memset(o, 0, size);
    o->struct_size = size < sizeof *o ? size : sizeof *o;
    return DVAL_OK;
}

static int exec_locked(dval_session *s, run *r, const dval__command *cmd,
                       const dval_exec_options *o)
{
    int rc = dval__exec_limits_apply(s, o);
    rc = rc ? rc : start(r, cmd, o);
    if (rc)
        return rc;   /* worded */
    r->last_data = dval__now_ms();
    rc = follow(r);
    if (o->usage && r->finished)
        dval__exec_usage(s, o, r->cmd_id, dval__now_ms() - r->started);
    if (rc == DVAL_OK) {
        reconcile(r);
        if (!r->aborted && dval__out_flush(&r->out))
            r->aborted = 1;
        if (r->aborted)
            rc = DVAL_EABORTED;
    }
    if (rc == DVAL_ECANCELED || rc == DVAL_ETIMEOUT || rc == DVAL_EABORTED)
        stop_command(r);
    if (rc)
        dval__fmt(s->errmsg, sizeof s->errmsg, "%s",
                  rc == DVAL_ECANCELED  ? "canceled"
                  : rc == DVAL_ETIMEOUT ? "command timed out"
                  : rc == DVAL_EABORTED ? "output callback stopped the command"
                  : r->errmsg[0]        ? r->errmsg
                                        : dval_strerror(rc));
    return rc;
}

static int exec_command(dval_session *s, const dval__command *command,
                        const dval_exec_options *opts,
                        dval_output_fn on_output, void *userdata,
                        int *exit_code)
{
    DVAL__NO_REENTRY(s->sandbox->client);
    int expected = 0;
    if (!atomic_compare_exchange_strong(&s->busy, &expected, 1))
        return DVAL_EREENTRANT;
    dval_exec_options o;
    dval__command with_env;
    int rc = check_args(s, command, opts, &o);
    if (!rc && o.env && o.env[0] && !command->argv && !command->env) {
        rc = env_command(s, command, o.env, &with_env);
        command = &with_env;
    }
    if (rc) {
        atomic_store(&s->busy, 0);
        return rc;
    }
    run *r = dval__calloc(1, sizeof *r);
    if (!r) {
        atomic_store(&s->busy, 0);
        return DVAL_ENOMEM;
    }
    r->s = s;
    r->c = s->sandbox->client;
    r->at.sandbox = s->sandbox->info.id;
    r->at.session = s->id;
    r->deadline = o.timeout_ms > 0 ? dval__now_ms() + o.timeout_ms : 0;
    dval__out_init(&r->out, o.channel_prefix, on_output, userdata);
    r->out.owner = r->c;
    if (canceled(r)) {
        rc = DVAL_ECANCELED;
        dval__fmt(s->errmsg, sizeof s->errmsg, "canceled");
    } else {
        rc = exec_locked(s, r, command, &o);
    }
    if (rc == DVAL_OK && exit_code)
        *exit_code = r->exit_code;
    if (rc == DVAL_ECANCELED)
        drain_cancel(s);
    dval__free(r);
    atomic_store(&s->busy, 0);
    return rc;
}

DVAL_API int dval_session_exec(dval_session *s, const char *command,
                               const dval_exec_options *opts,
                               dval_output_fn on_output, void *userdata,
                               int *exit_code)
{
    if (!s)
        return DVAL_EINVAL;
    dval__command cmd = { command, NULL, NULL, NULL };
    return exec_command(s, &cmd, opts, on_output, userdata, exit_code);
}

int dval__session_exec_command(dval_session *s, const dval__command *cmd,
                               const dval_exec_options *opts,
                               dval_output_fn on_output, void *userdata,
                               int *exit_code)
{
    if (!s || !cmd)
        return DVAL_EINVAL;
    return exec_command(s, cmd, opts, on_output, userdata, exit_code);
}
