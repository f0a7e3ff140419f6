/* The one seam between the core and an executor's vtable (dval__ex_*).
 *
 * Every executor member is reached through a typed wrapper here. A wrapper
 * reports a missing member as DVAL_EUNSUPPORTED, prepares the dval_call of
 * each attempt, runs the one retry policy (retry.c), maps cancellation and
 * writes the one error message, "<what>[ <subject>]: <reason>", to op->msg.
 * No other core file touches client->ex (client.c only fills and destroys
 * it).
 *
 *   dval__ex_op op;
 *   dval__ex_op_init(&op, "get sandbox", DVAL__IDEMPOTENT, sb->errmsg,
 *                    sizeof sb->errmsg);
 *   op.subject = sb->opts.name;
 *   op.quiet = DVAL_ENOTFOUND;          (the caller words that one itself)
 *   rc = dval__ex_sandbox_get(c, &op, id, &info);
 */
#ifndef DVAL_EXECUTOR_H
#define DVAL_EXECUTOR_H

#include <stddef.h>

#include "retry.h"

typedef struct dval__ex_op {
    /* inputs (dval__ex_op_init sets the defaults noted) */
    const char *what;        /* verb phrase for logs and messages (NULL:
                                the message is the executor's alone) */
    const char *subject;     /* what it acts on, for the message (NULL) */
    int flags;               /* DVAL__IDEMPOTENT, ... (retry.h) */
    int64_t timeout_ms;      /* per attempt (0 = none) */
    int64_t deadline_ms;     /* dval__now_ms() by which every attempt must
                                end (0 = none): each attempt's timeout is
                                cut to what is left, at least 1 ms */
    int cancel_fd;           /* readable when canceled (-1) */
    int quiet;               /* a status the caller words itself (0) */
    char *msg;               /* receives the message on failure (NULL) */
    size_t cap;
    /* Called before each attempt after the first; nonzero stops the retries
     * (the last attempt's status stands). Lets a stream source or sink
     * rewind, or refuse to replay. (NULL) */
    int (*rewind)(void *ud);
    /* Called after a failed attempt; nonzero means the failure is the
     * caller's own (e.g. its sink stopped) and must not be retried. (NULL) */
    int (*final)(void *ud);
    void *hook_ud;
    /* outputs */
    dval_call call;          /* the last attempt: reason and hints */
    int attempts;            /* attempts made */
} dval__ex_op;

void dval__ex_op_init(dval__ex_op *op, const char *what, int flags, char *msg,
                      size_t cap);

/* 1 when the executor has the member (for callers that choose a fallback);
 * the member is named as in struct dval_executor. */
#define DVAL__EX_HAS(c, member)                                           \
    dval__ex_has((c), offsetof(struct dval_executor, member))
int dval__ex_has(const dval_client *c, size_t member_offset);
/* DVAL_OK when the member is there, else DVAL_EUNSUPPORTED worded into op
 * (for callers that check before preparing costly arguments). */
#define DVAL__EX_NEED(c, op, member)                                      \
    dval__ex_need((c), (op), offsetof(struct dval_executor, member))
int dval__ex_need(const dval_client *c, dval__ex_op *op, size_t member_offset);

/* ---- snapshots */
int dval__ex_snapshot_get(dval_client *c, dval__ex_op *op,
                          const char *name_or_id, dval_snapshot_info *out);
int dval__ex_snapshot_create(dval_client *c, dval__ex_op *op,
                             const dval_snapshot_spec *spec,
                             dval_snapshot_info *out, dval_chunk_fn log,
                             void *log_ud);
int dval__ex_snapshot_activate(dval_client *c, dval__ex_op *op,
                               const char *id, dval_snapshot_info *out);
int dval__ex_snapshot_delete(dval_client *c, dval__ex_op *op, const char *id);
int dval__ex_snapshot_logs(dval_client *c, dval__ex_op *op, const char *id,
                           uint64_t from, dval_chunk_fn log, void *log_ud);

/* ---- sandboxes (info members: *out is reset before every attempt) */
int dval__ex_sandbox_get(dval_client *c, dval__ex_op *op,
                         const char *name_or_id, dval_sandbox_info *out);
/* DVAL_EEXISTS when the name is taken. */
int dval__ex_sandbox_create(dval_client *c, dval__ex_op *op,
                            const dval_sandbox_options *opts,
                            dval_sandbox_info *out);
/* The state changes below return DVAL_ECONFLICT while another change is
 * in flight; *out is the state right after the request. */
int dval__ex_sandbox_start(dval_client *c, dval__ex_op *op, const char *id,
                           dval_sandbox_info *out);
int dval__ex_sandbox_stop(dval_client *c, dval__ex_op *op, const char *id,
                          dval_sandbox_info *out);
/* Server-side recovery of a recoverable error state. */
int dval__ex_sandbox_recover(dval_client *c, dval__ex_op *op, const char *id,
                             dval_sandbox_info *out);
int dval__ex_sandbox_delete(dval_client *c, dval__ex_op *op, const char *id);
/* The executor's guaranteed reset for reuse (DVAL_EUNSUPPORTED when it has
 * none: the caller deletes and creates instead). */
int dval__ex_sandbox_reset(dval_client *c, dval__ex_op *op, const char *id);
/* How many sessions whose id starts with prefix are open in the sandbox,
 * whoever opened them. */
int dval__ex_sandbox_sessions(dval_client *c, dval__ex_op *op,
                              const char *id, const char *prefix, int *count);
int dval__ex_sandbox_list(dval_client *c, dval__ex_op *op,
                          const char *const *labels, dval_sandbox_info_fn each,
                          void *each_ud);

/* ---- sessions and commands: addressed by sandbox id, session id and
 * (once started) command id */
typedef struct dval__ex_cmd {
    const char *sandbox;
    const char *session;
    const char *cmd_id;      /* NULL for the session members */
} dval__ex_cmd;

int dval__ex_session_create(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at);
int dval__ex_session_delete(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at);
/* Starts the command cmd describes (its sandbox and session ids
 * included) and writes the new command's id (< DVAL_ID_MAX) to cmd_id.
 * DVAL_EINVAL, worded, for a description dval__command_check refuses. */
int dval__ex_command_start(dval_client *c, dval__ex_op *op,
                           const dval_command *cmd, char *cmd_id);
int dval__ex_command_status(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at, int *finished,
                            int *exit_code);
int dval__ex_command_cancel(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at);
/* from: the bytes of the command's stdout and stderr already received
 * (the executor delivers what follows them) */
int dval__ex_command_logs(dval_client *c, dval__ex_op *op,
                          const dval__ex_cmd *at, const uint64_t from[2],
                          dval_chunk_fn sink, void *sink_ud);
int dval__ex_stream_open(dval_client *c, dval__ex_op *op,
                         const dval__ex_cmd *at, const uint64_t from[2],
                         void **stream);
int dval__ex_stream_read(dval_client *c, dval__ex_op *op, void *stream,
                         dval_chunk_fn sink, void *sink_ud, int *closed);
void dval__ex_stream_close(dval_client *c, void *stream);
/* The session's commands from now on each in a cgroup of their own with
 * these limits (NULL: none); what a finished command used. */
int dval__ex_session_limits(dval_client *c, dval__ex_op *op,
                            const dval__ex_cmd *at, const dval_limits *lim);
int dval__ex_command_usage(dval_client *c, dval__ex_op *op,
                           const dval__ex_cmd *at, dval_usage *out);

/* ---- files */
int dval__ex_file_upload(dval_client *c, dval__ex_op *op,
                         const char *sandbox_id, const char *remote_path,
                         dval_read_fn src, void *src_ud, int64_t size);
int dval__ex_file_download(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *remote_path,
                           dval_data_fn sink, void *sink_ud);
int dval__ex_folder_create(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *remote_path);

/* The listing is never retried (names were delivered). */
int dval__ex_file_list(dval_client *c, dval__ex_op *op,
                       const char *sandbox_id, const char *dir,
                       dval_file_list_fn each, void *each_ud);
int dval__ex_workdir_claim(dval_client *c, dval__ex_op *op,
                           const char *sandbox_id, const char *dir,
                           void **claim);
void dval__ex_workdir_release(dval_client *c, void *claim);

/* ---- appended members */
/* Every snapshot, each once; never retried (names were delivered). */
int dval__ex_snapshot_list(dval_client *c, dval__ex_op *op,
                           dval_snapshot_info_fn each, void *each_ud);
/* The image cache: a pull (its own retries inside; *out reset first), a
 * listing (never retried), a removal. */
int dval__ex_image_pull(dval_client *c, dval__ex_op *op, const char *ref,
                        dval_chunk_fn progress, void *progress_ud,
                        dval_image_info *out);
int dval__ex_image_list(dval_client *c, dval__ex_op *op,
                        dval_image_info_fn each, void *each_ud);
int dval__ex_image_remove(dval_client *c, dval__ex_op *op, const char *ref);

/* ---- lifetime (client.c) */
void dval__ex_destroy(dval_client *c);

#endif
