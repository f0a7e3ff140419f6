/* dval_validate()'s phases, shared by its files:
 *   validate.c          the driver: the phase loop, recovery of a lost
 *                       sandbox, dval_validate and dval_validation_init
 *   validate_events.c   progress events and the "<phase>: <detail>" errors
 *   validate_request.c  checking the request
 *   validate_sandbox.c  the snapshot, sandbox and session phases, close
 *   validate_upload.c   the upload of the source tree
 *   validate_exec.c     the build and run phases' commands
 *   validate_results.c  the results download and the JSON summary
 *   validate_files.c    the results files that are not *.json
 *   validate_expect.c   the comparison with an expected result
 *   validate_inputs.c   the run phase's arguments and stdin
 *   verdict.c           the verdict, from what the phases came to
 * Most of the way to the executor goes through public calls
 * (dval_snapshot_ensure, dval_session_open, dval_sandbox_upload_file,
 * dval_sandbox_mkdir, dval_sandbox_download, dval_session_exec), but not
 * all: these files also use private core hooks that a host writing its own
 * loop cannot call: dval__sandbox_acquire with the pool's context and
 * the client's cache of known sandboxes (sandbox_acquire.h, recycle.h,
 * sandbox_cache.h), dval__sandbox_lost (recover.h), the
 * per-thread-id claim and the results listing from outside the session
 * (dval__sandbox_claim/_release, dval__sandbox_file_list: workdir.h),
 * commands started from argv (dval__session_exec_command: core.h), the
 * sandbox's users for the release policy (dval__users_enter/_leave), the
 * cancel token given explicitly to the snapshot ensure
 * (dval__snapshot_ensure: core.h), the acquire (its hint) and the
 * handle's transfers (dval_sandbox.cancel_fd), its attachment to the
 * session (dval__cancel_attach: internal.h) and the profile's services
 * (service_start.h).
 * jansson: through this header every file listed above uses it (the
 * results and the summary are jansson trees). */
#ifndef DVAL_VALIDATE_H
#define DVAL_VALIDATE_H

#include <jansson.h>
#include <limits.h>

#include "compare.h"
#include "core.h"
#include "recycle.h"
#include "services.h"

/* The most a validation's results may hold together (summary bytes): the
 * library's bound, and the most dval_validation.results_bytes may ask. */
#define DVAL__RESULTS_MAX_BYTES ((size_t)64 << 20)

/* The results directory, below the validation's workdir */
#define DVAL__RESULTS_NAME "results"

/* What a validation keeps of each phase's output (the rest still reaches
 * the event callback). */
#define DVAL__CAPTURE_MAX (1u << 20)

/* A build or run phase's command, as it ran. */
typedef struct dval__phase {
    const char *name;       /* "build", "run" */
    int started;            /* its command was started: output may exist */
    int done;               /* it finished with an exit code */
    int exit_code;
    int status;             /* the exec's status (timeout, cancel...) */
    int64_t ms;
    dval__buf out, err;     /* up to DVAL__CAPTURE_MAX each */
    int truncated;
    /* what its command used (-1: unknown; has_usage 0: not asked) */
    int has_usage;
    dval_usage usage;
    int64_t printed;        /* bytes of output so far */
    int over_output;        /* it printed past the output limit */
} dval__phase;

typedef struct dval__vctx {
    dval_client *client;
    dval_validation req;
    /* when the last phase ended (first: the validation's start): the next
     * phase's time starts there, so every millisecond between the start
     * and the last phase's end is some phase's */
    int64_t phase_end;
    const dval_profile *prof;
    dval_event_fn on_event;
    void *ud;
    int aborted;            /* the event callback asked to stop */
    char thread_id[160];
    /* The thread id is a uuid4 made here, so no earlier run (and no
     * program, which cannot guess it) can have left files in workdir: the
     * first upload needs no clean-up command. */
    int workdir_unused;
    char workdir[256];
    char resdir[256];
    dval_snapshot *snap;
    dval_sandbox *sb;
    dval_session *sess;
    char sess_id[DVAL_ID_MAX];
    char sb_name[DVAL_ID_MAX];  /* the sandbox really used (isolation) */
    int user;               /* counted among the sandbox's users ... */
    char user_of[DVAL_ID_MAX]; /* ... of this name */
    void *claim;            /* the executor's claim on workdir, or NULL */
    const char *build_cmd;  /* NULL: no build phase */
    const char *run_cmd;
    dval__buf run_text;     /* run_cmd with the request's inputs */
    dval__phase build, run;
    dval__phase *cur;       /* whose output arrives, or NULL */
    size_t files, bytes;    /* uploaded */
    char root[PATH_MAX];    /* realpath of source_dir */
    json_t *timings;
    json_t *results;
    /* the other results files (not *.json): name → {"text" or "base64",
     * "bytes"}, counted in results_bytes too */
    json_t *other;
    size_t results_values;  /* JSON values in results (their tree's size) */
    size_t results_bytes;   /* and their text */
    json_t *errors;
    int results_missing;    /* no results file, and some were due */
    /* what the pool tells a validation on one of its slots (read only),
     * or NULL */
    const dval__pool_ctx *pool;
    /* the request's services and seeds (own_svc), or the pool's; the
     * snapshot and sandbox names they give (services.h) */
    dval__svcset own_svc;
    const dval__svcset *svc;
    char snapshot_name[DVAL_ID_MAX];
    char sandbox_base[DVAL_ID_MAX];
    /* an expected result to compare with (validate_expect.c): the
     * comparison's options, then its differences */
    int expect;
    int compared;           /* it ran (the run exited 0, results came) */
    dval__cmp cmp;
} dval__vctx;

/* ---- validate_events.c */
/* Delivers ev to the event callback (on the calling thread); returns 1
 * once the callback asked to stop. */
int dval__validate_emit(dval__vctx *v, dval_event *ev);
int dval__validate_phase_start(dval__vctx *v, const char *phase,
                               int64_t *t0);
/* Records the phase's duration and reports it; an abort request turns a
 * success into DVAL_EABORTED. */
int dval__validate_phase_done(dval__vctx *v, const char *phase, int64_t t0,
                              int status, const char *detail);
/* Callbacks that turn build logs, state changes and program output into
 * events (userdata: the dval__vctx). */
int dval__validate_on_build_log(const char *data, size_t len, void *ud);
void dval__validate_on_state(const char *name, int state, void *ud);
int dval__validate_on_output(int stream, const char *channel,
                             const char *data, size_t len, void *ud);
/* "<phase>: <detail>" (detail NULL or "": the status's text) as the
 * client's message; returns rc. */
int dval__validate_fail(dval__vctx *v, int rc, const char *phase,
                        const char *detail);
/* Appends a formatted message to the summary's "errors". */
void dval__validate_note(dval__vctx *v, const char *fmt, const char *a,
                         const char *b);
/* No longer counted among the shared sandbox's users; how many remain. */
int dval__validate_leave(dval__vctx *v);

/* ---- validate_request.c */
/* Copies and checks the request, resolves the profile, thread id and
 * source directory (failures worded as phase "request"). */
int dval__validate_request(dval__vctx *v, const dval_validation *req);

/* ---- validate_sandbox.c */
int dval__validate_snapshot(dval__vctx *v);
int dval__validate_sandbox(dval__vctx *v);
int dval__validate_session(dval__vctx *v);
/* The sandbox v->sb was lost under the validation: the client's cache
 * no longer takes it for started. */
void dval__validate_lost(dval__vctx *v);
/* A housekeeping command (not the program) in the session, in cwd (NULL:
 * the session's), run as the validation's own (owner: its thread id): its
 * stdout is collected into out (NULL: dropped), never reported as program
 * output. */
int dval__validate_quiet_exec(dval__vctx *v, const char *cmd, const char *cwd,
                              dval__buf *out, int *code);
/* Closes the session and releases the sandbox, whatever happened before. */
void dval__validate_close(dval__vctx *v);

/* ---- validate_upload.c, validate_exec.c, validate_results.c */
int dval__validate_upload(dval__vctx *v);
/* The build phase (v->build_cmd) and the run phase (v->run_cmd): DVAL_OK
 * when the command ran to an exit code, whatever it was. */
int dval__validate_build(dval__vctx *v);
int dval__validate_run(dval__vctx *v);
/* Forgets what a phase ran (a sandbox lost under it: it runs again). */
void dval__phase_reset(dval__phase *p);
int dval__validate_download(dval__vctx *v);
/* ---- validate_files.c */
/* 1 when the results file name is a *.json one (parsed into results). */
int dval__results_is_json(const char *name);
/* What keeping a results file that is not *.json costs the summary (the
 * bytes its JSON string takes there): as text (*text 1) when it is UTF-8
 * without NUL, else as base64. */
size_t dval__results_file_cost(const char *data, size_t len, int *text);
/* Keeps the results file name of len bytes in v->other, as text (text
 * 1) or base64; a failure noted. */
void dval__validate_keep_file(dval__vctx *v, const char *name,
                              const char *data, size_t len, int text);
/* Appends " (only other files: a.txt, b.csv)" to "results missing"'s
 * message m (cap bytes) when the program wrote files, none *.json. */
void dval__validate_other_names(const dval__vctx *v, char *m, size_t cap);

/* The JSON summary (dval_free()); NULL when out of memory. */
char *dval__validate_summary(dval__vctx *v, int status, int64_t t_start);

/* ---- validate_expect.c */
/* Checks the request's expected result and its compare options. */
int dval__expect_check(dval__vctx *v);
/* The "compare" phase: DVAL_ERESULTS (worded) when they differ. */
int dval__validate_expect(dval__vctx *v);
/* Forgets a comparison (the run is done again). */
void dval__expect_reset(dval__vctx *v);
/* The differences in words, for the verdict's detail. */
void dval__expect_detail(const dval__vctx *v, char *detail, size_t cap);
/* The summary's "comparison": what was compared and the differences,
 * null when no comparison ran. */
json_t *dval__expect_json(const dval__vctx *v);

/* ---- validate_inputs.c */
/* Checks the request's args and stdin against their bounds. */
int dval__inputs_check(dval__vctx *v);
/* Points run_cmd at the run command with the request's args appended
 * and its stdin redirected from the uploaded file (unchanged without). */
int dval__inputs_run_text(dval__vctx *v);
/* Uploads the request's stdin into the working directory (none: no-op). */
int dval__inputs_upload(dval__vctx *v);

/* ---- verdict.c */
/* The verdict of what the phases came to, given the validation's status,
 * and a line saying why into detail. */
int dval__verdict(const dval__vctx *v, int status, char *detail, size_t cap);

#endif
