/* The exec engine: start a command, stream its output live, learn its exit
 * code, reconcile (PROTOCOL §6.6). Works for executors that stream raw
 * multiplexed logs (demuxed here, de-duplicated by byte offset across
 * reconnects, since the server replays from byte 0) and for executors that
 * deliver stdout/stderr separately. */
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "retry.h"

#define READ_SLICE_MS 200     /* one stream_read wait */
#define STATUS_EVERY_MS 250   /* exit-code polling alongside the stream */
/* Once the exit code is known the log is complete (the daemon writes it
 * after flushing output) and the daemon sends new log bytes within ~20 ms,
 * so a live stream quiet this long after we learned of the exit has
 * delivered everything; the server's own close comes ~1 s later, or never
 * (PROTOCOL §6.4, §6.6). */
#define QUIET_AFTER_EXIT_MS 500
#define MAX_RECONNECTS 5

typedef struct run {
    dval_session *s;
    dval_client *c;
    struct dval_executor *x;
    const char *sbid;
    char cmd_id[DVAL_ID_MAX];
    dval__demux demux;
    dval__out out;
    uint64_t raw_delivered;   /* raw bytes demuxed, over all connections */
    uint64_t raw_seen;        /* raw bytes seen on this connection */
    uint64_t fresh;           /* bytes never delivered before (progress) */
    int got_raw;
    int got_split;            /* executor delivers stdout/stderr itself */
    int quiet_finish;         /* stopped following after a quiet exit */
    int aborted;              /* the output callback said stop */
    int finished;
    int stream_complete;      /* the live stream closed normally */
    int exit_code;
    int64_t last_data;
    int64_t deadline;         /* 0 = none */
    dval_call call;
} run;

static int emit(int stream, const char *data, size_t len, void *ud)
{
    run *r = ud;
    return dval__out_write(&r->out, stream, data, len) ? 1 : 0;
}

static int sink(int stream, const char *data, size_t len, void *ud)
{
    run *r = ud;
    r->last_data = dval__now_ms();
    if (r->aborted)
        return 1;
    int rc;
    if (stream == DVAL_STREAM_RAW) {
        r->got_raw = 1;
        uint64_t end = r->raw_seen + len;
        if (end <= r->raw_delivered) { /* replayed bytes: already shown */
            r->raw_seen = end;
            return 0;
        }
        size_t skip = (size_t)(r->raw_delivered - r->raw_seen);
        if (r->raw_delivered < r->raw_seen)
            skip = 0;
        r->raw_seen = end;
        r->raw_delivered = end;
        r->fresh += len - skip;
        rc = dval__demux_feed(&r->demux, data + skip, len - skip, emit, r);
    } else {
        r->got_split = 1;
        r->fresh += len;
        rc = dval__out_write(&r->out, stream, data, len);
    }
    if (rc)
        r->aborted = 1;
    return rc ? 1 : 0;
}

static int canceled(run *r)
{
    struct pollfd p = { .fd = r->s->cancel_pipe[0], .events = POLLIN };
    return poll(&p, 1, 0) > 0;
}

static int64_t slice(run *r, int64_t want)
{
    if (!r->deadline)
        return want;
    int64_t left = r->deadline - dval__now_ms();
    return left < 1 ? 1 : left < want ? left : want;
}

static int poll_status(run *r)
{
    dval__retry rt;
    dval_call call;
    int rc, fin = 0, code = 0;
    dval__retry_begin(&rt, r->c, "command status", DVAL__IDEMPOTENT,
                      r->s->cancel_pipe[0]);
    do {
        dval__retry_call(&rt, &call, slice(r, 30000));
        rc = r->x->command_status(r->x->userdata, &call, r->sbid, r->s->id,
                                  r->cmd_id, &fin, &code);
    } while (dval__retry_again(&rt, rc, &call));
    rc = dval__retry_status(&rt, rc);
    if (rc) {
        r->call = call;
        dval__fmt(r->call.errmsg, sizeof r->call.errmsg, "command status: "
                  "%s", call.errmsg[0] ? call.errmsg : dval_strerror(rc));
        return rc;
    }
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
    dval_call call;
    dval__call_init(r->c, &call, 10000, -1);
    if (r->x->command_cancel &&
        r->x->command_cancel(r->x->userdata, &call, r->sbid, r->s->id,
                             r->cmd_id) == DVAL_OK)
        return;
    if (r->x->session_delete) {
        dval__call_init(r->c, &call, 10000, -1);
        r->x->session_delete(r->x->userdata, &call, r->sbid, r->s->id);
        r->s->open = 0;
    }
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

/* Follows the live stream; falls back to polling after repeated failures.
 * Returns when the command finished and its stream is drained. */
static int follow(run *r)
{
    void *stream = NULL;
    int failures = 0, polling = !r->x->stream_open || !r->x->stream_read;
    int64_t next_status = 0, finished_at = 0;
    int rc;
    for (;;) {
        rc = check_interrupt(r);
        if (rc)
            goto out;
        if (!polling && !stream) {
            dval_call call;
            dval__call_init(r->c, &call, slice(r, 30000), r->s->cancel_pipe[0]);
            r->raw_seen = 0;
            rc = r->x->stream_open(r->x->userdata, &call, r->sbid, r->s->id,
                                   r->cmd_id, &stream);
            if (rc) {
                stream = NULL;
                if (rc == DVAL_ECANCELED)
                    continue;
                DVAL__LOG(r->c, DVAL_LOG_DEBUG, "log stream: %s", call.errmsg);
                polling = ++failures >= MAX_RECONNECTS ||
                          rc == DVAL_EUNSUPPORTED || rc == DVAL_EPASSTHROUGH;
                if (!polling)
                    dval__sleep_ms(100 * failures, r->s->cancel_pipe[0]);
                continue;
            }
        }
        int closed = 0;
        if (stream) {
            dval_call call;
            dval__call_init(r->c, &call, slice(r, READ_SLICE_MS),
                            r->s->cancel_pipe[0]);
            uint64_t had = r->fresh;
            rc = r->x->stream_read(r->x->userdata, &call, stream, sink, r,
                                   &closed);
            if (rc && rc != DVAL_ECANCELED && !r->aborted) {
                DVAL__LOG(r->c, DVAL_LOG_DEBUG, "log stream dropped (%s); "
                          "reconnecting", call.errmsg);
                r->x->stream_close(r->x->userdata, stream);
                stream = NULL;
                polling = ++failures >= MAX_RECONNECTS;
                continue;
            }
            /* only new bytes count as progress: every reconnect replays
             * the log from byte 0, so a stream that always drops at the
             * same point would otherwise be reopened forever */
            if (r->fresh != had)
                failures = 0;
        } else {
            dval__sleep_ms(slice(r, STATUS_EVERY_MS), r->s->cancel_pipe[0]);
        }
        int64_t now = dval__now_ms();
        if (!r->finished && (closed || !stream || now >= next_status)) {
            rc = poll_status(r);
            if (rc)
                goto out;
            next_status = now + STATUS_EVERY_MS;
            if (r->finished)
                finished_at = dval__now_ms();
        }
        if (closed) {
            /* the stream ended: the exit code follows right away */
            if (stream)
                r->x->stream_close(r->x->userdata, stream);
            stream = NULL;
            r->stream_complete = 1;
            /* it was polled just above; the exit code follows the end of
             * output closely, so retry after 1 ms, backing off to 50 */
            for (int64_t wait = 1; !r->finished;
                 wait = wait < 25 ? wait * 2 : 50) {
                if ((rc = check_interrupt(r)))
                    goto out;
                dval__sleep_ms(slice(r, wait), r->s->cancel_pipe[0]);
                if ((rc = poll_status(r)))
                    goto out;
            }
            return DVAL_OK;
        }
        /* exited and quiet: the stream may never close (§6.6); a local
         * stream stays open only while a background child holds it */
        int64_t quiet = r->got_raw ? QUIET_AFTER_EXIT_MS : 200;
        int64_t since = r->last_data > finished_at ? r->last_data : finished_at;
        if (r->finished && (!stream || now - since >= quiet)) {
            /* a live stream quiet after the exit normally carried it all;
             * reconcile still checks the tail (see reconcile) */
            if (stream && r->got_raw)
                r->quiet_finish = 1;
            rc = DVAL_OK;
            goto out;
        }
    }
out:
    if (stream)
        r->x->stream_close(r->x->userdata, stream);
    return rc;
}

/* Fetches the whole log once and shows what the stream missed. Not after
 * a normal close: the stream then carried the whole log, and the full log
 * may not be byte-identical to it (JSON logs replace invalid UTF-8), so
 * offsets into it would deliver a shifted tail twice. */
static void reconcile(run *r)
{
    if (!r->x->command_logs || r->got_split || r->stream_complete)
        return;
    /* after a quiet finish the tail check is exact only while the output
     * was valid UTF-8 (then the JSON log is byte-identical to the stream) */
    if (r->quiet_finish && r->out.invalid)
        return;
    dval_call call;
    dval__call_init(r->c, &call, 30000, -1);
    r->raw_seen = 0;
    int rc = r->x->command_logs(r->x->userdata, &call, r->sbid, r->s->id,
                                r->cmd_id, sink, r);
    if (rc && rc != DVAL_EUNSUPPORTED && rc != DVAL_EPASSTHROUGH)
        DVAL__LOG(r->c, DVAL_LOG_WARN, "final log fetch failed: %s",
                  call.errmsg);
}

static int start(run *r, const char *command, const dval_exec_options *o)
{
    dval__buf text = { 0 };
    int rc = DVAL_OK;
    if (o->cwd) {
        rc = dval__buf_append(&text, "cd ", 3);
        if (!rc)
            rc = dval__shell_quote(&text, o->cwd);
        if (!rc)
            rc = dval__buf_append(&text, " && ", 4);
    }
    if (!rc)
        rc = dval__buf_append(&text, command, strlen(command));
    if (rc) {
        dval__buf_free(&text);
        return rc;
    }
    dval__retry rt;
    dval__retry_begin(&rt, r->c, "start command", DVAL__ONCE,
                      r->s->cancel_pipe[0]);
    do {
        dval__retry_call(&rt, &r->call, slice(r, 60000));
        rc = r->x->command_start(r->x->userdata, &r->call, r->sbid, r->s->id,
                                 text.data, r->cmd_id);
    } while (dval__retry_again(&rt, rc, &r->call));
    dval__buf_free(&text);
    return dval__retry_status(&rt, rc);
}

static int check_args(dval_session *s, const char *command,
                      const dval_exec_options *opts, dval_exec_options *o)
{
    if (!command || !*command) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "command is empty");
        return DVAL_EINVAL;
    }
    if (!dval__utf8_valid(command, strlen(command))) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "command is not valid UTF-8");
        return DVAL_EINVAL;
    }
    if (opts) {
        int rc = dval__opts_copy(o, sizeof *o, opts, sizeof(size_t));
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

static void drain_cancel(dval_session *s)
{
    char b[64];
    while (read(s->cancel_pipe[0], b, sizeof b) > 0)
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

static int exec_locked(dval_session *s, run *r, const char *command,
                       const dval_exec_options *o)
{
    int rc = start(r, command, o);
    if (rc) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "start command: %s",
                  r->call.errmsg[0] ? r->call.errmsg : dval_strerror(rc));
        return rc;
    }
    r->last_data = dval__now_ms();
    rc = follow(r);
    if (rc == DVAL_OK) {
        reconcile(r);
        if (!r->aborted && dval__demux_finish(&r->demux, emit, r))
            r->aborted = 1;
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
                  : r->call.errmsg[0]   ? r->call.errmsg
                                        : dval_strerror(rc));
    return rc;
}

DVAL_API int dval_session_exec(dval_session *s, const char *command,
                               const dval_exec_options *opts,
                               dval_output_fn on_output, void *userdata,
                               int *exit_code)
{
    if (!s)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(s->sandbox->client);
    int expected = 0;
    if (!atomic_compare_exchange_strong(&s->busy, &expected, 1))
        return DVAL_EREENTRANT;
    dval_exec_options o;
    int rc = check_args(s, command, opts, &o);
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
    r->x = &r->c->ex;
    r->sbid = s->sandbox->info.id;
    r->deadline = o.timeout_ms > 0 ? dval__now_ms() + o.timeout_ms : 0;
    dval__demux_init(&r->demux);
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
    dval__demux_free(&r->demux);
    dval__free(r);
    atomic_store(&s->busy, 0);
    return rc;
}
