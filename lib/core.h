/* Core object layouts shared by the core modules (not by executors). */
#ifndef DVAL_CORE_H
#define DVAL_CORE_H

#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"

#define DVAL__ERR_RING 16

struct dval_client {
    atomic_int refs;
    dval__config cfg;
    struct dval_executor ex;       /* copied vtable */
    char executor_name[64];
    int32_t retry_attempts;
    int64_t retry_base_ms;
    int32_t retry_factor;
    int64_t retry_cap_ms;
    int32_t retry_jitter;
    pthread_mutex_t lock;          /* guards the error ring and rng */
    unsigned rng;
    /* Shared by threads: each thread reads back its own last message
     * (thread-local copy); others read the newest from this ring, where a
     * message stays intact until DVAL__ERR_RING newer ones were set. */
    char errring[DVAL__ERR_RING][DVAL_ERRMSG_MAX];
    atomic_uint errseq;
    _Atomic int64_t hold_until_ms; /* backpressure.c: no call before */
    pthread_mutex_t users_lock;    /* sandbox_users.c */
    void *users;
    pthread_mutex_t sbcache_lock;  /* sandbox_cache.c */
    void *sbcache;
};

struct dval_snapshot {
    dval_client *client;
    dval_snapshot_info info;
    char errmsg[DVAL_ERRMSG_MAX];
};

struct dval_sandbox {
    atomic_int refs;
    dval_client *client;
    dval_sandbox_options opts;     /* strings below are owned copies */
    char **owned;                  /* NULL-terminated list of owned strings */
    dval_sandbox_info info;
    char errmsg[DVAL_ERRMSG_MAX];
    /* Ends this handle's waits and calls when readable (-1: nothing
     * does): a validation's token, given explicitly by dval_validate for
     * the acquire, the upload and the results' download. */
    int cancel_fd;
};

struct dval_session {
    dval_sandbox *sandbox;         /* reference held */
    char id[DVAL_ID_MAX];
    int open;
    int cancel_fd;                 /* an eventfd dval_session_cancel
                                      makes readable: ends the waits */
    atomic_int canceled;
    atomic_int busy;               /* an exec is running (reentrancy) */
    char errmsg[DVAL_ERRMSG_MAX];
    int limited;                   /* the executor holds per-command limits
                                      for it (exec_limits.c) */
};

/* client.c */
void dval__client_ref(dval_client *c);
void dval__client_unref(dval_client *c);
void dval__client_seterr(dval_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* For a public function called with a NULL argument: says so on the
 * client (when there is one) and returns DVAL_EINVAL. */
int dval__null_arg(dval_client *c, const char *function);

/* sandbox_users.c: the client's validations in each shared sandbox */
int dval__users_enter(dval_client *c, const char *name);
/* Returns how many other validations of the client still use it. */
int dval__users_leave(dval_client *c, const char *name);
void dval__users_free(dval_client *c);
/* 1 when sessions of other clients (processes, hosts) are open in sb, by
 * the executor's sandbox_sessions, or when it could not be asked: a
 * release policy then keeps the sandbox for the last of them. */
int dval__sandbox_used_elsewhere(dval_client *c, dval_sandbox *sb);

/* snapshot.c: dval_snapshot_ensure whose waits and calls end when the
 * validation's token fires (NULL: never). */
int dval__snapshot_ensure(dval_snapshot **out, dval_client *c,
                          const dval_snapshot_spec *spec,
                          dval_data_fn on_build_log, void *userdata,
                          const dval_cancel *cancel);

/* retry.c (with the retry loop of retry.h) */
/* Prepares a dval_call for the executor: timeout, cancel fd, logging. */
void dval__call_init(dval_client *c, dval_call *call, int64_t timeout_ms,
                     int cancel_fd);
/* Backoff delay (ms) before retry number `attempt` (1-based): base *
 * factor^(attempt-1), capped; full jitter when enabled; a server hint
 * (retry_after_ms >= 0) takes precedence. */
int64_t dval__backoff_ms(dval_client *c, int attempt, int64_t retry_after_ms);

/* reentry.c: bracket every host callback with enter/leave; public calls
 * check dval__reentered(client) first. */
const dval_client *dval__cb_enter(const dval_client *c);
void dval__cb_leave(const dval_client *prev);
int dval__reentered(const dval_client *c);
/* Calls a host data callback inside the bracket; returns its stop flag. */
int dval__cb_data(const dval_client *c, dval_data_fn fn, const char *data,
                  size_t len, void *ud);
#define DVAL__NO_REENTRY(c)                                                \
    do {                                                                   \
        if (dval__reentered(c))                                            \
            return DVAL_EREENTRANT;                                        \
    } while (0)

/* exec.c: a command as shell text, or (argv set) a program run without a
 * shell, env (NAME=value, may be NULL) added to its environment, run as
 * owner's (a validation's thread id; NULL: the sandbox's default user):
 * see dval_command. */
typedef struct dval__command {
    const char *text;
    const char *const *argv;
    const char *const *env;
    const char *owner;
} dval__command;
int dval__session_exec_command(dval_session *s, const dval__command *cmd,
                               const dval_exec_options *opts,
                               dval_output_fn on_output, void *userdata,
                               int *exit_code);
/* exec_limits.c: before a command starts, the session's per-command
 * limits as o asks (its limits, or a measure only for its usage); after
 * it exited, its usage into o->usage (wall_ms: what the core saw). */
int dval__exec_limits_apply(dval_session *s, const dval_exec_options *o);
/* 1 when the client's executor can limit a command's own processes. */
int dval__exec_limits_enforced(dval_client *c);
void dval__exec_usage(dval_session *s, const dval_exec_options *o,
                      const char *cmd_id, int64_t wall_ms);

/* sandbox.c */
void dval__sandbox_ref(dval_sandbox *sb);
void dval__sandbox_unref(dval_sandbox *sb);

#define DVAL__LOG(c, level, ...)                                           \
    dval__log((c)->cfg.log_fn, (c)->cfg.log_userdata, (c)->cfg.log_level,  \
              (level), __VA_ARGS__)

#endif
