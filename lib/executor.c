/* The dispatch layer over the executor vtable: one place that knows a
 * member may be missing, prepares each attempt's dval_call, applies the
 * retry policy and words the error. See executor.h. */
#include <string.h>

#include "command_text.h"
#include "executor.h"

enum member {
    M_SNAPSHOT_GET, M_SNAPSHOT_CREATE, M_SNAPSHOT_ACTIVATE, M_SNAPSHOT_DELETE,
    M_SNAPSHOT_LOGS,
    M_SANDBOX_GET, M_SANDBOX_CREATE, M_SANDBOX_START, M_SANDBOX_STOP,
    M_SANDBOX_RECOVER, M_SANDBOX_DELETE, M_SANDBOX_RESET,
    M_SANDBOX_SESSIONS, M_SANDBOX_LIST,
    M_SESSION_CREATE, M_SESSION_DELETE, M_COMMAND_START, M_COMMAND_STATUS,
    M_COMMAND_CANCEL, M_COMMAND_LOGS, M_STREAM_OPEN, M_STREAM_READ,
    M_FILE_UPLOAD, M_FILE_DOWNLOAD, M_FOLDER_CREATE, M_FILE_LIST,
    M_WORKDIR_CLAIM,
    M_SNAPSHOT_LIST,    /* appended members: call_appended */
    M_IMAGE_PULL, M_IMAGE_LIST, M_IMAGE_REMOVE,
    M_SESSION_LIMITS, M_COMMAND_USAGE /* call_limits: out not cleared */
};

/* The arguments of one member call, by role. */
typedef struct args {
    enum member m;
    const char *sandbox, *session, *name;  /* ids, names, paths, command */
    const void *in;                        /* spec, options, labels, stream */
    void *out;                             /* info, id buffer, stream */
    size_t info_size;                      /* reset *out per attempt (0 no) */
    union {
        dval_chunk_fn chunk;
        dval_read_fn read;
        dval_data_fn data;
        dval_sandbox_info_fn each;
        dval_file_list_fn list;
        dval_snapshot_info_fn snapshots;
        dval_image_info_fn images;
    } fn;
    void *fn_ud;
    uint64_t from;                         /* a log's offset (stdout's) */
    uint64_t from_err;                     /* a command's stderr offset */
    int64_t size;
    int *finished, *exit_code;
} args;

void dval__ex_op_init(dval__ex_op *op, const char *what, int flags, char *msg,
                      size_t cap)
{
    memset(op, 0, sizeof *op);
    op->what = what;
    op->flags = flags;
    op->cancel_fd = -1;
    op->msg = msg;
    op->cap = cap;
}

int dval__ex_has(const dval_client *c, size_t member_offset)
{
    void (*fp)(void);
    memcpy(&fp, (const char *)&c->ex + member_offset, sizeof fp);
    return fp != NULL;
}

static int call_snapshot(const struct dval_executor *x, dval_call *k,
                         const args *a)
{
    switch (a->m) {
    case M_SNAPSHOT_GET:
        return x->snapshot_get(x->userdata, k, a->name, a->out);
    case M_SNAPSHOT_CREATE:
        return x->snapshot_create(x->userdata, k, a->in, a->out, a->fn.chunk,
                                  a->fn_ud);
    case M_SNAPSHOT_ACTIVATE:
        return x->snapshot_activate(x->userdata, k, a->name, a->out);
    case M_SNAPSHOT_DELETE:
        return x->snapshot_delete(x->userdata, k, a->name);
    default:
        return x->snapshot_logs(x->userdata, k, a->name, a->from, a->fn.chunk,
                                a->fn_ud);
    }
}

static int call_sandbox(const struct dval_executor *x, dval_call *k,
                        const args *a)
{
    switch (a->m) {
    case M_SANDBOX_GET:
        return x->sandbox_get(x->userdata, k, a->name, a->out);
    case M_SANDBOX_CREATE:
        return x->sandbox_create(x->userdata, k, a->in, a->out);
    case M_SANDBOX_START:
        return x->sandbox_start(x->userdata, k, a->name, a->out);
    case M_SANDBOX_STOP:
        return x->sandbox_stop(x->userdata, k, a->name, a->out);
    case M_SANDBOX_RECOVER:
        return x->sandbox_recover(x->userdata, k, a->name, a->out);
    case M_SANDBOX_DELETE:
        return x->sandbox_delete(x->userdata, k, a->name);
    case M_SANDBOX_RESET:
        return x->sandbox_reset(x->userdata, k, a->name);
    case M_SANDBOX_SESSIONS:
        return x->sandbox_sessions(x->userdata, k, a->name, a->session,
                                   a->out);
    default:
        return x->sandbox_list(x->userdata, k, a->in, a->fn.each, a->fn_ud);
    }
}

static int call_command(const struct dval_executor *x, dval_call *k,
                        const args *a)
{
    void *ud = x->userdata;
    switch (a->m) {
    case M_SESSION_CREATE:
        return x->session_create(ud, k, a->sandbox, a->session);
    case M_SESSION_DELETE:
        return x->session_delete(ud, k, a->sandbox, a->session);
    case M_COMMAND_START:
        return x->command_start(ud, k, a->in, a->out);
    case M_COMMAND_STATUS:
        return x->command_status(ud, k, a->sandbox, a->session, a->name,
                                 a->finished, a->exit_code);
    case M_COMMAND_CANCEL:
        return x->command_cancel(ud, k, a->sandbox, a->session, a->name);
    case M_COMMAND_LOGS:
        return x->command_logs(ud, k, a->sandbox, a->session, a->name,
                               a->from, a->from_err, a->fn.chunk, a->fn_ud);
    case M_STREAM_OPEN:
        return x->stream_open(ud, k, a->sandbox, a->session, a->name,
                              a->from, a->from_err, a->out);
    default:
        return x->stream_read(ud, k, (void *)a->in, a->fn.chunk, a->fn_ud,
                              a->finished);
    }
}

static int call_file(const struct dval_executor *x, dval_call *k,
                     const args *a)
{
    switch (a->m) {
    case M_FILE_UPLOAD:
        return x->file_upload(x->userdata, k, a->sandbox, a->name, a->fn.read,
                              a->fn_ud, a->size);
    case M_FILE_DOWNLOAD:
        return x->file_download(x->userdata, k, a->sandbox, a->name,
                                a->fn.data, a->fn_ud);
    case M_FILE_LIST:
        return x->file_list(x->userdata, k, a->sandbox, a->name, a->fn.list,
                            a->fn_ud);
    case M_WORKDIR_CLAIM:
        return x->workdir_claim(x->userdata, k, a->sandbox, a->name, a->out);
    default:
        return x->folder_create(x->userdata, k, a->sandbox, a->name);
    }
}

/* The members appended in 0.1.5: a session's per-command limits and a
 * command's usage */
static int call_limits(const struct dval_executor *x, dval_call *k,
                       const args *a)
{
    if (a->m == M_SESSION_LIMITS)
        return x->session_limits(x->userdata, k, a->sandbox, a->session,
                                 a->in);
    return x->command_usage(x->userdata, k, a->sandbox, a->session, a->name,
                            a->out);
}

/* The members appended after workdir_claim, one case each. */
static int call_appended(const struct dval_executor *x, dval_call *k,
                         const args *a)
{
    switch (a->m) {
    case M_IMAGE_PULL:
        return x->image_pull(x->userdata, k, a->name, a->fn.chunk, a->fn_ud,
                             a->out);
    case M_IMAGE_LIST:
        return x->image_list(x->userdata, k, a->fn.images, a->fn_ud);
    case M_IMAGE_REMOVE:
        return x->image_remove(x->userdata, k, a->name);
    default:
        return x->snapshot_list(x->userdata, k, a->fn.snapshots, a->fn_ud);
    }
}

static int call_member(const struct dval_executor *x, dval_call *k,
                       args *a)
{
    if (a->m >= M_SESSION_LIMITS)
        return call_limits(x, k, a);
    if (a->info_size) {
        memset(a->out, 0, a->info_size);
        *(size_t *)a->out = a->info_size; /* struct_size comes first */
    }
    if (a->m <= M_SNAPSHOT_LOGS)
        return call_snapshot(x, k, a);
    if (a->m <= M_SANDBOX_LIST)
        return call_sandbox(x, k, a);
    if (a->m <= M_STREAM_READ)
        return call_command(x, k, a);
    if (a->m <= M_WORKDIR_CLAIM)
        return call_file(x, k, a);
    return call_appended(x, k, a);
}

static int word(dval__ex_op *op, int rc)
{
    if (!op->msg || rc == op->quiet)
        return rc;
    const char *why = op->call.errmsg[0] ? op->call.errmsg
                                         : dval_strerror(rc);
    if (!op->what)
        dval__fmt(op->msg, op->cap, "%s", why);
    else if (op->subject)
        dval__fmt(op->msg, op->cap, "%s %s: %s", op->what, op->subject, why);
    else
        dval__fmt(op->msg, op->cap, "%s: %s", op->what, why);
    return rc;
}

int dval__ex_need(const dval_client *c, dval__ex_op *op, size_t member_offset)
{
    if (dval__ex_has(c, member_offset))
        return DVAL_OK;
    if (op->msg)
        dval__fmt(op->msg, op->cap, "executor %s cannot %s", c->executor_name,
                  op->what ? op->what : "do this");
    return DVAL_EUNSUPPORTED;
}

/* The attempt's timeout: op->timeout_ms, cut to what is left before
 * op->deadline_ms (at least 1 ms, so the call still looks once). */
static int64_t attempt_ms(const dval__ex_op *op)
{
    if (!op->deadline_ms)
        return op->timeout_ms;
    int64_t left = op->deadline_ms - dval__now_ms();
    if (left < 1)
        left = 1;
    return op->timeout_ms > 0 && op->timeout_ms < left ? op->timeout_ms : left;
}

static int run(dval_client *c, dval__ex_op *op, size_t member, args *a)
{
    int rc = dval__ex_need(c, op, member);
    if (rc)
        return rc;
    dval__retry r;
    dval__retry_begin(&r, c, op->what, op->flags, op->cancel_fd);
    do {
        if (r.attempt && op->rewind && op->rewind(op->hook_ud))
            break;
        dval__retry_call(&r, &op->call, attempt_ms(op));
        op->attempts = r.attempt;
        rc = call_member(&c->ex, &op->call, a);
        if (rc == DVAL_EEXISTS && r.attempt > 1 &&
            (op->flags & DVAL__EXISTS_DONE))
            rc = DVAL_OK;
    } while (rc && !(op->final && op->final(op->hook_ud)) &&
             dval__retry_again(&r, rc, &op->call));
    if (dval__retry_status(&r, rc) == DVAL_ECANCELED && rc != DVAL_ECANCELED) {
        rc = DVAL_ECANCELED; /* during the backoff sleep */
        dval__strlcpy(op->call.errmsg, "canceled", sizeof op->call.errmsg);
    }
    if (rc == DVAL_ENOTFOUND && (op->flags & DVAL__GONE_DONE))
        rc = DVAL_OK;
    return rc ? word(op, rc) : DVAL_OK;
}

#define OFF(member) offsetof(struct dval_executor, member)

int dval__ex_snapshot_get(dval_client *c, dval__ex_op *op,
                          const char *name_or_id, dval_snapshot_info *out)
{
    args a = { .m = M_SNAPSHOT_GET, .name = name_or_id, .out = out,
               .info_size = sizeof *out };
    return run(c, op, OFF(snapshot_get), &a);
}

int dval__ex_snapshot_create(dval_client *c, dval__ex_op *op,
                             const dval_snapshot_spec *spec,
                             dval_snapshot_info *out, dval_chunk_fn log,
                             void *log_ud)
{
    args a = { .m = M_SNAPSHOT_CREATE, .in = spec, .out = out,
               .fn.chunk = log, .fn_ud = log_ud };
    return run(c, op, OFF(snapshot_create), &a);
}

int dval__ex_snapshot_activate(dval_client *c, dval__ex_op *op,
                               const char *id, dval_snapshot_info *out)
{
    args a = { .m = M_SNAPSHOT_ACTIVATE, .name = id, .out = out };
    return run(c, op, OFF(snapshot_activate), &a);
}

int dval__ex_snapshot_delete(dval_client *c, dval__ex_op *op, const char *id)
{
    args a = { .m = M_SNAPSHOT_DELETE, .name = id };
    return run(c, op, OFF(snapshot_delete), &a);
}

int dval__ex_snapshot_logs(dval_client *c, dval__ex_op *op, const char *id,
                           uint64_t from, dval_chunk_fn log, void *log_ud)
{
    args a = { .m = M_SNAPSHOT_LOGS, .name = id, .from = from,
               .fn.chunk = log, .fn_ud = log_ud };
    return run(c, op, OFF(snapshot_logs), &a);
}

static int sandbox_info_op(dval_client *c, dval__ex_op *op, enum member m,
                           size_t member, const char *id,
                           dval_sandbox_info *out)
{
    args a = { .m = m, .name = id, .out = out, .info_size = sizeof *out };
    return run(c, op, member, &a);
}

int dval__ex_sandbox_get(dval_client *c, dval__ex_op *op,
                         const char *name_or_id, dval_sandbox_info *out)
{
    return sandbox_info_op(c, op, M_SANDBOX_GET, OFF(sandbox_get), name_or_id,
                           out);
}

int dval__ex_sandbox_create(dval_client *c, dval__ex_op *op,
                            const dval_sandbox_options *opts,
                            dval_sandbox_info *out)
{
    args a = { .m = M_SANDBOX_CREATE, .in = opts, .out = out,
               .info_size = sizeof *out };
    return run(c, op, OFF(sandbox_create), &a);
}

int dval__ex_sandbox_start(dval_client *c, dval__ex_op *op, const char *id,
                           dval_sandbox_info *out)
{
    return sandbox_info_op(c, op, M_SANDBOX_START, OFF(sandbox_start), id,
                           out);
}

int dval__ex_sandbox_stop(dval_client *c, dval__ex_op *op, const char *id,
                          dval_sandbox_info *out)
{
    return sandbox_info_op(c, op, M_SANDBOX_STOP, OFF(sandbox_stop), id, out);
}

int dval__ex_sandbox_recover(dval_client *c, dval__ex_op *op, const char *id,
                             dval_sandbox_info *out)
{
    return sandbox_info_op(c, op, M_SANDBOX_RECOVER, OFF(sandbox_recover), id,
                           out);
}

int dval__ex_sandbox_delete(dval_client *c, dval__ex_op *op, const char *id)
{
    args a = { .m = M_SANDBOX_DELETE, .name = id };
    return run(c, op, OFF(sandbox_delete), &a);
}

int dval__ex_sandbox_reset(dval_client *c, dval__ex_op *op, const char *id)
{
    args a = { .m = M_SANDBOX_RESET, .name = id };
    return run(c, op, OFF(sandbox_reset), &a);
}

int dval__ex_sandbox_sessions(dval_client *c, dval__ex_op *op,
                              const char *id, const char *prefix, int *count)
{
    *count = 0;
    args a = { .m = M_SANDBOX_SESSIONS, .name = id, .session = prefix,
               .out = count };
    return run(c, op, OFF(sandbox_sessions), &a);
}

int dval__ex_sandbox_list(dval_client *c, dval__ex_op *op,
                          const char *const *labels, dval_sandbox_info_fn each,
                          void *each_ud)
{
    args a = { .m = M_SANDBOX_LIST, .in = labels, .fn.each = each,
               .fn_ud = each_ud };
    return run(c, op, OFF(sandbox_list), &a);
}

#define AT(at) .sandbox = (at)->sandbox, .session = (at)->session,       \
               .name = (at)->cmd_id

static int at_op(dval_client *c, dval__ex_op *op, enum member m,
                 size_t member, const dval__ex_cmd *at)
{
    args a = { .m = m, AT(at) };
    return run(c, op, member, &a);
}

int dval__ex_session_create(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at)
{
    return at_op(c, op, M_SESSION_CREATE, OFF(session_create), at);
}

int dval__ex_session_delete(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at)
{
    return at_op(c, op, M_SESSION_DELETE, OFF(session_delete), at);
}

/* A description the core got wrong is refused before any executor sees
 * it: each executor checks the same (dval__command_check). */
int dval__ex_command_start(dval_client *c, dval__ex_op *op,
                           const dval_command *cmd, char *cmd_id)
{
    if (dval__command_check(&op->call, cmd))
        return word(op, DVAL_EINVAL);
    args a = { .m = M_COMMAND_START, .sandbox = cmd->sandbox_id,
               .session = cmd->session_id, .in = cmd, .out = cmd_id };
    return run(c, op, OFF(command_start), &a);
}

int dval__ex_command_status(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at, int *finished,
                            int *exit_code)
{
    args a = { .m = M_COMMAND_STATUS, AT(at), .finished = finished,
               .exit_code = exit_code };
    return run(c, op, OFF(command_status), &a);
}

int dval__ex_command_cancel(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at)
{
    return at_op(c, op, M_COMMAND_CANCEL, OFF(command_cancel), at);
}

int dval__ex_command_logs(dval_client *c, dval__ex_op *op,
                          const dval__ex_cmd *at, const uint64_t from[2],
                          dval_chunk_fn sink, void *sink_ud)
{
    args a = { .m = M_COMMAND_LOGS, AT(at), .from = from[0],
               .from_err = from[1], .fn.chunk = sink, .fn_ud = sink_ud };
    return run(c, op, OFF(command_logs), &a);
}

int dval__ex_stream_open(dval_client *c, dval__ex_op *op,
                         const dval__ex_cmd *at, const uint64_t from[2],
                         void **stream)
{
    args a = { .m = M_STREAM_OPEN, AT(at), .from = from[0],
               .from_err = from[1], .out = stream };
    return run(c, op, OFF(stream_open), &a);
}

int dval__ex_stream_read(dval_client *c, dval__ex_op *op, void *stream,
                         dval_chunk_fn sink, void *sink_ud, int *closed)
{
    args a = { .m = M_STREAM_READ, .in = stream, .fn.chunk = sink,
               .fn_ud = sink_ud, .finished = closed };
    return run(c, op, OFF(stream_read), &a);
}

void dval__ex_stream_close(dval_client *c, void *stream)
{
    if (c->ex.stream_close)
        c->ex.stream_close(c->ex.userdata, stream);
}

int dval__ex_file_upload(dval_client *c, dval__ex_op *op,
                         const char *sandbox_id, const char *remote_path,
                         dval_read_fn src, void *src_ud, int64_t size)
{
    args a = { .m = M_FILE_UPLOAD, .sandbox = sandbox_id, .name = remote_path,
               .fn.read = src, .fn_ud = src_ud, .size = size };
    return run(c, op, OFF(file_upload), &a);
}

int dval__ex_file_download(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *remote_path,
                           dval_data_fn sink, void *sink_ud)
{
    args a = { .m = M_FILE_DOWNLOAD, .sandbox = sandbox_id,
               .name = remote_path, .fn.data = sink, .fn_ud = sink_ud };
    return run(c, op, OFF(file_download), &a);
}

int dval__ex_folder_create(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *remote_path)
{
    args a = { .m = M_FOLDER_CREATE, .sandbox = sandbox_id,
               .name = remote_path };
    return run(c, op, OFF(folder_create), &a);
}

int dval__ex_file_list(dval_client *c, dval__ex_op *op,
                       const char *sandbox_id, const char *dir,
                       dval_file_list_fn each, void *each_ud)
{
    args a = { .m = M_FILE_LIST, .sandbox = sandbox_id, .name = dir,
               .fn.list = each, .fn_ud = each_ud };
    op->flags |= DVAL__NO_RETRY;
    return run(c, op, OFF(file_list), &a);
}

int dval__ex_workdir_claim(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *dir,
                           void **claim)
{
    args a = { .m = M_WORKDIR_CLAIM, .sandbox = sandbox_id, .name = dir,
               .out = claim };
    return run(c, op, OFF(workdir_claim), &a);
}

void dval__ex_workdir_release(dval_client *c, void *claim)
{
    if (claim && c->ex.workdir_release)
        c->ex.workdir_release(c->ex.userdata, claim);
}

int dval__ex_snapshot_list(dval_client *c, dval__ex_op *op,
                           dval_snapshot_info_fn each, void *each_ud)
{
    args a = { .m = M_SNAPSHOT_LIST, .fn.snapshots = each, .fn_ud = each_ud };
    op->flags |= DVAL__NO_RETRY;
    return run(c, op, OFF(snapshot_list), &a);
}

int dval__ex_image_pull(dval_client *c, dval__ex_op *op, const char *ref,
                        dval_chunk_fn progress, void *progress_ud,
                        dval_image_info *out)
{
    args a = { .m = M_IMAGE_PULL, .name = ref, .fn.chunk = progress,
               .fn_ud = progress_ud, .out = out, .info_size = sizeof *out };
    return run(c, op, OFF(image_pull), &a);
}

int dval__ex_image_list(dval_client *c, dval__ex_op *op,
                        dval_image_info_fn each, void *each_ud)
{
    args a = { .m = M_IMAGE_LIST, .fn.images = each, .fn_ud = each_ud };
    op->flags |= DVAL__NO_RETRY;
    return run(c, op, OFF(image_list), &a);
}

int dval__ex_image_remove(dval_client *c, dval__ex_op *op, const char *ref)
{
    args a = { .m = M_IMAGE_REMOVE, .name = ref };
    return run(c, op, OFF(image_remove), &a);
}

void dval__ex_destroy(dval_client *c)
{
    if (c->ex.destroy)
        c->ex.destroy(c->ex.userdata);
    c->ex.destroy = NULL;
}

int dval__ex_session_limits(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at, const dval_limits *lim)
{
    args a = { .m = M_SESSION_LIMITS, .sandbox = at->sandbox,
               .session = at->session, .in = lim };
    return run(c, op, OFF(session_limits), &a);
}

int dval__ex_command_usage(dval_client *c, dval__ex_op *op,
                           const dval__ex_cmd *at, dval_usage *out)
{
    args a = { .m = M_COMMAND_USAGE, AT(at), .out = out };
    return run(c, op, OFF(command_usage), &a);
}
