/* dval_validate(): the whole validation loop on top of the public
 * lifecycle API (snapshot → sandbox → session → upload → exec → download
 * → close), with progress events and a JSON summary. This file is the
 * driver: each phase runs timed and reported, a sandbox lost under the
 * validation is acquired again, and close always runs; the phases
 * themselves are in validate_*.c (see validate.h). */
#include <string.h>

#include "recover.h"
#include "validate.h"
#include "workdir.h"

typedef int (*phase_fn)(dval__vctx *v);
typedef const char *(*detail_fn)(dval__vctx *v, char *buf, size_t cap);

static int run_phase(dval__vctx *v, const char *name, phase_fn fn,
                     detail_fn detail)
{
    int64_t t0;
    if (dval_cancel_fired(v->req.cancel))
        return dval__validate_fail(v, DVAL_ECANCELED, name, "canceled");
    int rc = dval__validate_phase_start(v, name, &t0);
    if (rc)
        return dval__validate_fail(v, rc, name, NULL);
    rc = fn(v);
    /* whatever a canceled phase failed with, the cause is the token */
    if (dval_cancel_fired(v->req.cancel) && rc != DVAL_EABORTED)
        rc = dval__validate_fail(v, DVAL_ECANCELED, name, "canceled");
    char buf[300] = "";
    const char *d = rc == DVAL_OK && detail ? detail(v, buf, sizeof buf)
                                            : NULL;
    rc = dval__validate_phase_done(v, name, t0, rc, d);
    if (rc == DVAL_EABORTED)
        dval__validate_fail(v, rc, name, NULL);
    return rc;
}

/* ---- what each finished phase reports */

static const char *snapshot_detail(dval__vctx *v, char *buf, size_t cap)
{
    if (!v->snap) /* the pool's, ensured before: not asked for again */
        dval__fmt(buf, cap, "%s (ensured by the pool)", v->snapshot_name);
    else
        dval__fmt(buf, cap, "%s (%s)", dval_snapshot_name(v->snap),
                  dval_snapshot_state_name(dval_snapshot_state(v->snap)));
    return buf;
}

static const char *sandbox_detail(dval__vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%s (%s)", dval_sandbox_name(v->sb),
              dval_sandbox_state_name(dval_sandbox_state(v->sb)));
    return buf;
}

static const char *session_detail(dval__vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%s", v->sess_id);
    return buf;
}

static const char *upload_detail(dval__vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%zu files, %zu bytes to %s", v->files, v->bytes,
              v->workdir);
    return buf;
}

static const char *build_detail(dval__vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "exit code %d", v->build.exit_code);
    return buf;
}

static const char *run_detail(dval__vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "exit code %d", v->run.exit_code);
    return buf;
}

static const char *compare_detail(dval__vctx *v, char *buf, size_t cap)
{
    (void)v;
    dval__fmt(buf, cap, "as expected");
    return buf;
}

static const char *download_detail(dval__vctx *v, char *buf, size_t cap)
{
    size_t n = json_object_size(v->results) + json_object_size(v->other);
    dval__fmt(buf, cap, "%zu result file%s", n, n == 1 ? "" : "s");
    return buf;
}

/* ---- a sandbox lost under the validation (PROTOCOL 10.3) */

/* A build that failed ends the validation there: no program ran, so no
 * results are to be had (the verdict says why). */
static int build_failed(dval__vctx *v)
{
    if (v->req.allow_missing_results)
        return DVAL_OK;
    char m[200];
    dval__fmt(m, sizeof m, "the build failed (exit code %d): no program ran",
              v->build.exit_code);
    dval__validate_note(v, "%s%s", m, "");
    return dval__validate_fail(v, DVAL_ERESULTS, "build", m);
}

/* The build phase (when there is one), then the run phase. */
static int build_and_run(dval__vctx *v)
{
    if (v->build_cmd) {
        int rc = run_phase(v, "build", dval__validate_build, build_detail);
        if (rc)
            return rc;
        if (v->build.exit_code != 0)
            return build_failed(v);
    }
    int rc = run_phase(v, "run", dval__validate_run, run_detail);
    if (!rc)
        rc = run_phase(v, "download", dval__validate_download,
                       download_detail);
    /* a program that failed gets its own verdict, not a comparison */
    if (!rc && v->expect && v->run.exit_code == 0)
        rc = run_phase(v, "compare", dval__validate_expect, compare_detail);
    return rc;
}

/* The cancel token's hook: firing it stops the session's exec. */
static void cancel_session(void *s)
{
    dval_session_cancel(s);
}

/* sandbox → download once. */
static int run_once(dval__vctx *v)
{
    int rc = run_phase(v, "sandbox", dval__validate_sandbox, sandbox_detail);
    if (!rc)
        rc = run_phase(v, "session", dval__validate_session, session_detail);
    /* from here on, firing the token cancels the session's execs */
    dval__cancel_attach(v->req.cancel, v->sess ? cancel_session : NULL,
                        v->sess);
    if (!rc)
        rc = run_phase(v, "upload", dval__validate_upload, upload_detail);
    if (!rc)
        rc = build_and_run(v);
    dval__cancel_attach(v->req.cancel, NULL, NULL);
    return rc;
}

/* No longer among the users of the shared sandbox; how many remain. */
int dval__validate_leave(dval__vctx *v)
{
    int others = v->user ? dval__users_leave(v->client, v->user_of) : 0;
    v->user = 0;
    return others;
}

/* Forgets the handles of a sandbox that is gone or stopped (its session
 * died with it): the next acquire finds or creates it again. */
static void drop_sandbox(dval__vctx *v)
{
    dval_session_free(v->sess);
    v->sess = NULL;
    if (v->sb && v->claim)
        dval__sandbox_release(v->sb, v->claim);
    v->claim = NULL;
    dval__validate_leave(v);
    dval__validate_lost(v); /* the next acquire looks it up */
    dval_sandbox_free(v->sb);
    v->sb = NULL;
    v->sess_id[0] = 0;
    v->files = v->bytes = 0;
    dval__phase_reset(&v->build);
    dval__phase_reset(&v->run);
    json_object_clear(v->results);
    json_object_clear(v->other);
    v->results_values = v->results_bytes = 0;
    json_array_clear(v->errors);
    v->results_missing = 0;
    dval__expect_reset(v);
}

static int restart_event(dval__vctx *v)
{
    dval_event ev = { .struct_size = sizeof ev, .type = DVAL_EVENT_RESTART };
    ev.phase = v->run.started ? "run" : "build";
    ev.status = DVAL_EGONE;
    ev.detail = "the sandbox vanished during the run; running again on a "
                "fresh sandbox: output restarts";
    return dval__validate_emit(v, &ev);
}

/* Runs the sandbox phases; a sandbox that stopped or vanished before the
 * program started is acquired again (the ladder starts or recreates it);
 * one lost while the program ran gives DVAL_EGONE and one re-run from the
 * start, announced by a DVAL_EVENT_RESTART event. */
static int run_recovering(dval__vctx *v)
{
    int recovered = 0, reran = 0;
    for (;;) {
        int rc = run_once(v);
        if (!rc || rc == DVAL_ECANCELED || rc == DVAL_EABORTED || !v->sb ||
            !dval__sandbox_lost(v->sb, rc))
            return rc;
        if (v->build.started || v->run.started) {
            rc = dval__validate_fail(v, DVAL_EGONE, v->run.started ? "run"
                                     : "build", "the sandbox vanished or "
                                     "stopped while the program ran");
            if (reran++ || restart_event(v))
                return rc;
        } else if (recovered++ >= 2) {
            return rc;
        }
        DVAL__LOG(v->client, DVAL_LOG_WARN, "sandbox %s lost (%s); acquiring "
                  "it again", dval_sandbox_name(v->sb),
                  dval_sandbox_state_name(dval_sandbox_state(v->sb)));
        drop_sandbox(v);
    }
}

/* ---- the loop */

/* Every phase, then close whatever happened; the status of the first
 * failure, with its message on the client. */
static int run_all(dval__vctx *v)
{
    int rc = run_phase(v, "snapshot", dval__validate_snapshot,
                       snapshot_detail);
    if (!rc)
        rc = run_recovering(v);
    /* keep the first failure's message: close must not overwrite it */
    char saved[DVAL_ERRMSG_MAX];
    dval__strlcpy(saved, dval_client_errmsg(v->client), sizeof saved);
    dval__cancel_attach(v->req.cancel, NULL, NULL);
    dval__validate_close(v);
    if (rc == DVAL_OK && v->aborted)
        rc = dval__validate_fail(v, DVAL_EABORTED, "close", NULL);
    else if (rc)
        dval__client_seterr(v->client, "%s", saved);
    else
        dval__client_seterr(v->client, "%s", "");
    return rc;
}

static void free_ctx(dval__vctx *v)
{
    dval__phase_reset(&v->build);
    dval__phase_reset(&v->run);
    dval__svcset_free(&v->own_svc);
    dval__cmp_free(&v->cmp);
    dval__buf_free(&v->run_text);
    json_decref(v->timings);
    json_decref(v->results);
    json_decref(v->other);
    json_decref(v->errors);
}

DVAL_API int dval_validation_init(dval_validation *req, size_t size)
{
    if (!req)
        return DVAL_EINVAL;
    if (size < offsetof(dval_validation, thread_id))
        return DVAL_EABI;
    memset(req, 0, size);
    req->struct_size = size < sizeof *req ? size : sizeof *req;
    return DVAL_OK;
}

DVAL_API int dval_validate(dval_client *client, const dval_validation *req,
                           dval_event_fn on_event, void *userdata,
                           char **result_json)
{
    return dval__validate_in(client, req, on_event, userdata, result_json,
                             NULL);
}

int dval__validate_in(dval_client *client, const dval_validation *req,
                      dval_event_fn on_event, void *userdata,
                      char **result_json, const dval__pool_ctx *pc)
{
    if (result_json)
        *result_json = NULL;
    if (!client)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(client);
    if (!req)
        return dval__validate_fail(&(dval__vctx){.client = client},
                                   DVAL_EINVAL, "request", "no request");
    int64_t t_start = dval__now_ms();
    /* on the caller's stack: a few KiB that malloc took from its large
     * bins (not its per-thread cache) on every validation */
    dval__vctx ctx = {0}, *v = &ctx;
    v->client = client;
    v->on_event = on_event;
    v->ud = userdata;
    v->pool = pc;
    v->phase_end = t_start;
    int rc = dval__validate_request(v, req);
    int valid = rc == DVAL_OK;
    if (valid) {
        v->timings = json_object();
        v->results = json_object();
        v->other = json_object();
        v->errors = json_array();
        rc = v->timings && v->results && v->other && v->errors
                 ? run_all(v)
                 : dval__validate_fail(v, DVAL_ENOMEM, "request", NULL);
    }
    /* The summary goes back for every request that was valid, whatever
     * came of it: its verdict says what (a failure of the sandbox is an
     * infrastructure_error, a timeout a time_limit...). */
    if (result_json && valid && v->timings) {
        char saved[DVAL_ERRMSG_MAX];
        dval__strlcpy(saved, dval_client_errmsg(client), sizeof saved);
        *result_json = dval__validate_summary(v, rc, t_start);
        if (!*result_json)
            rc = dval__validate_fail(v, DVAL_ENOMEM, "summary", NULL);
        else
            dval__client_seterr(client, "%s", saved);
    }
    free_ctx(v);
    return rc;
}
