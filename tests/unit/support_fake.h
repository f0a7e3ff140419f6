/* A scripted in-memory executor and a fake clock for core unit tests. */
#ifndef SUPPORT_FAKE_H
#define SUPPORT_FAKE_H

#include "dval.h"
#include "internal.h"

#define FAKE_GONE (-1)   /* in a state sequence: the object disappears */
#define FAKE_MAX 64

typedef struct fake_err {
    char op[32];
    int status;
    int64_t retry_after_ms;
    int failure;         /* enum dval_failure the executor reports */
} fake_err;

typedef struct fake_item {
    int stream;          /* DVAL_STDOUT or DVAL_STDERR */
    const char *data;
    size_t len;
} fake_item;

typedef struct fake {
    /* snapshot */
    int snap_exists;
    dval_snapshot_info snap;
    int snap_seq[FAKE_MAX];      /* states returned by successive gets */
    int snap_nseq, snap_pos;
    int snap_create_state;       /* state after create (0 → pending) */
    int snap_builds;             /* snapshot_create calls that built */
    int snap_fail_builds;        /* this many builds end in build_failed */
    /* sandbox */
    int sb_exists;
    dval_sandbox_info sb;
    int sb_seq[FAKE_MAX];
    int sb_nseq, sb_pos;
    int sb_create_state;         /* 0 → started */
    int sb_start_state;          /* 0 → started */
    dval_sandbox_options sb_created; /* options of the last create (shallow) */
    /* exec: every stream and the final log replay the items from the
     * first, dropping what the core says it has (as Daytona's executor) */
    fake_item items[FAKE_MAX];
    int nitems;
    uint64_t open_from[FAKE_MAX][2]; /* stdout, stderr counts per open */
    int opens;
    uint64_t logs_from[2];       /* the counts of the last command_logs */
    int logs_calls;
    int drop_after;              /* stream fails after this many items (0 off) */
    int drops_left;              /* how many connections drop */
    int never_close;             /* stream never reports closed */
    int hang;                    /* stream_read only waits (for cancel) */
    int no_stream;               /* stream_open unsupported */
    int exit_code;
    int status_polls_before_exit;
    int cmd_canceled;
    int sessions_deleted;
    /* the last command start (dval_command): its text, or its argv's
     * words joined by spaces with started_argv set, its environment
     * likewise, its working directory ("" with cwd_null set when none
     * was given), its owner (likewise), the attempt's timeout and the
     * description's struct_size */
    char started[1024];
    char started_env[1024];
    char started_cwd[512];
    int cwd_null;
    char started_owner[256];
    int owner_null;
    int64_t start_timeout_ms;
    int started_argv;
    size_t start_struct_size;
    int starts, starts_unowned;  /* every start; those with no owner */
    /* files: downloads deliver file_data (half of it, then fail, when
     * file_cut is set) */
    const char *file_data;
    int file_cut;
    /* injected failures, consumed in order per op */
    fake_err errs[FAKE_MAX];
    int nerrs;
    /* trace of operations, "op(arg) " */
    char trace[8192];
    /* struct_size the executor claims (0: this library's): an executor
     * built against an older header */
    size_t ex_size;
    /* members left out of the client's executor (fake_omit) */
    const char *omitted[8];
    int nomitted;
    int mkdir_ok;                /* folder_create succeeds (else: absent) */
    /* A host directory standing for the sandbox's /sandbox (empty: none).
     * When set, the sandbox's files are real: folder_create makes them,
     * file_download and file_list read them, and a text command runs in a
     * real sh (every "/sandbox/" in it and its cwd mapped here), its stdout and
     * exit code the command's. A command started from argv (the program)
     * calls on_argv first, which may write files as the program would. */
    char root[256];
    void (*on_argv)(struct fake *f, const dval_command *cmd);
    char reply[8192];            /* the last real text command's stdout */
    size_t reply_len;
    int reply_code, replying;
    char all_started[4096];      /* every command started, one a line */
} fake;

void fake_init(fake *f);
void fake_fail(fake *f, const char *op, int status, int64_t retry_after_ms);
/* As fake_fail, classifying the failure (dval_call.failure). */
void fake_fail_class(fake *f, const char *op, int status, int failure);
void fake_snap_seq(fake *f, int n, const int *states);
void fake_sb_seq(fake *f, int n, const int *states);
void fake_item_add(fake *f, int stream, const char *data, size_t len);
/* Leaves the member (named as in struct dval_executor, e.g.
 * "file_list") out of the executor of the next fake_client: an
 * executor built for an older library, or one that lacks the feature. */
void fake_omit(fake *f, const char *member);
/* path with "/sandbox/" mapped under f->root, into out. */
void fake_map(const fake *f, const char *path, char *out, size_t cap);
/* A client using the fake executor; retry jitter off unless asked. */
dval_client *fake_client(fake *f, int jitter);
/* The same with the caller's client options (custom_executor is set). */
dval_client *fake_client_opts(fake *f, const dval_client_options *base);

/* A test's fixture on the fake executor: a client, the sandbox `name`
 * acquired and, when session is non-NULL, a session open on it. DVAL_OK or
 * the first failing call's status; fake_fixture_free ends what was made. */
typedef struct fake_fixture {
    dval_client *c;
    dval_sandbox *sb;
    dval_session *s;
} fake_fixture;
int fake_fixture_open(fake_fixture *fx, fake *f, const char *name,
                      int session);
void fake_fixture_free(fake_fixture *fx);

/* Fake clock: sleeps advance time instantly and are recorded. */
void fakeclock_install(void);
extern int64_t fakeclock_now;
extern int64_t fakeclock_sleeps[256];
extern int fakeclock_nsleeps;

#endif
