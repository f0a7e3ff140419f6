/* dval_validate's snapshot, sandbox and session phases, the housekeeping
 * commands it runs in the session, and the close phase that ends them. */
#include <string.h>

#include "managed_labels.h"
#include "sandbox_acquire.h"
#include "sandbox_cache.h"
#include "service_start.h"
#include "validate.h"
#include "workdir.h"

/* The executor says whether it can run the profile (and with which build
 * steps) before the snapshot is ensured: an unavailable profile fails
 * here, with the executor's (or the profile's) message. */
static int ensure_snapshot(dval__vctx *v)
{
    dval_snapshot_spec spec;
    dval__spec_hold hold;
    int rc = dval__profile_snapshot_spec(v->client, v->prof,
                                         v->req.snapshot_name, v->svc, &spec,
                                         &hold);
    if (rc == DVAL_OK)
        rc = dval__snapshot_ensure(&v->snap, v->client, &spec,
                                   dval__validate_on_build_log, v,
                                   v->req.cancel);
    dval__free(hold.steps);
    if (rc)
        return dval__validate_fail(v, rc, "snapshot",
                                   dval_client_errmsg(v->client));
    return DVAL_OK;
}

/* A pool that has seen its snapshot in use needs no request for it: a
 * validation on its shared sandbox does not touch the snapshot at all, and
 * a sandbox create that fails because the snapshot vanished since then
 * ensures it and tries once more (acquire below). */
int dval__validate_snapshot(dval__vctx *v)
{
    if (v->pool && v->pool->snapshot_ready)
        return DVAL_OK;
    return ensure_snapshot(v);
}

void dval__own_sandbox_name(const char *base, char *out, size_t cap)
{
    char s[40];
    dval__uuid4(s);
    dval__fmt(out, cap, "%.200s-%.8s%.4s", base, s, s + 9);
}

/* The pool's recycled sandbox of this validation, or NULL. */
static const char *recycled(const dval__vctx *v)
{
    return v->pool ? v->pool->recycle : NULL;
}

/* The client's cache says of the pool's recycled sandbox that an acquire
 * was tried (no id: it may exist): the pool deletes it unless a later
 * acquire records its id. */
static void mark_tried(dval__vctx *v, const char *name)
{
    dval_sandbox_info tried = { .struct_size = sizeof tried };
    dval__strlcpy(tried.name, name, sizeof tried.name);
    dval__sbcache_put(v->client, &tried);
}

/* An isolation=sandbox validation's sandbox: the pool slot's recycled
 * one (kept at close: the pool resets it), else one of its own name
 * (fresh: made here, for this validation alone), deleted at close. */
static void own_name(dval__vctx *v, dval_sandbox_options *o, char *own,
                     size_t cap, dval__acquire_hint *hint)
{
    const char *rec = recycled(v);
    if (rec) {
        dval__strlcpy(own, rec, cap);
        /* made for it, and not tried yet (the acquire again after a
         * loss looks it up) */
        dval_sandbox_info seen;
        hint->fresh = v->pool->fresh && !dval__sbcache_get(v->client, rec,
                                                           &seen);
        mark_tried(v, rec);
        o->release = DVAL_RELEASE_KEEP;
    } else {
        dval__own_sandbox_name(o->name, own, cap);
        hint->fresh = 1;
    }
    o->name = own;
}

static void sandbox_options(dval__vctx *v, dval_sandbox_options *o)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = v->sandbox_base;      /* with the services' tag */
    o->snapshot = v->snapshot_name;
    o->ttl_minutes = v->req.sandbox_ttl_minutes;
    o->cpu = v->req.cpu;
    o->memory_gib = v->req.memory_gib;
    o->disk_gib = v->req.disk_gib;
    /* a sandbox of its own is never handed to another validation */
    o->release = v->req.isolation == DVAL_ISOLATION_SANDBOX
                     ? DVAL_RELEASE_DELETE : v->req.release;
    o->on_state = dval__validate_on_state;
    o->state_userdata = v;
}

/* The acquire; when the pool skipped the snapshot ensure and the acquire
 * failed as a create on a missing or inactive snapshot would (400
 * "Snapshot X not found", 404, a state), the ensure runs (rebuilding it
 * if need be) and the acquire is tried once more. */
static int acquire(dval__vctx *v, const dval_sandbox_options *o,
                   const dval__acquire_hint *hint)
{
    int rc = dval__sandbox_acquire(&v->sb, v->client, o, hint);
    int snapshot_may_miss = rc == DVAL_EBADREQUEST || rc == DVAL_ENOTFOUND ||
                            rc == DVAL_ESTATE;
    if (!snapshot_may_miss || v->snap || !v->pool ||
        !v->pool->snapshot_ready)
        return rc;
    DVAL__LOG(v->client, DVAL_LOG_INFO, "sandbox %s: %s; ensuring the "
              "snapshot and trying again", o->name,
              dval_client_errmsg(v->client));
    if (ensure_snapshot(v)) /* v->snap from here on: never twice */
        return rc; /* the snapshot's failure explains it best: kept */
    dval__acquire_hint again = { hint->fresh, NULL, hint->cancel };
    return dval__sandbox_acquire(&v->sb, v->client, o, &again);
}

int dval__validate_sandbox(dval__vctx *v)
{
    char profile_label[300];
    int isolated = v->req.isolation == DVAL_ISOLATION_SANDBOX;
    const char **labels = dval__managed_labels(
        v->prof->name, v->req.labels,
        isolated ? "dval.isolation=sandbox" : NULL, profile_label,
        sizeof profile_label);
    if (!labels)
        return dval__validate_fail(v, DVAL_ENOMEM, "sandbox", NULL);
    dval_sandbox_options o;
    sandbox_options(v, &o);
    char own[DVAL_ID_MAX];
    dval__acquire_hint hint = { 0, NULL, v->req.cancel };
    dval_sandbox_info known;
    if (isolated)
        own_name(v, &o, own, sizeof own, &hint);
    else if (v->pool && dval__sbcache_get(v->client, o.name, &known))
        hint.known = &known; /* the pool slot's shared sandbox, as known */
    o.labels = labels;
    /* counted before the acquire: a validation ending now must not
     * delete the sandbox this one is about to find */
    if (!isolated) {
        dval__strlcpy(v->user_of, o.name, sizeof v->user_of);
        v->user = dval__users_enter(v->client, v->user_of) == DVAL_OK;
    }
    int rc = acquire(v, &o, &hint);
    dval__free(labels);
    if (rc)
        return dval__validate_fail(v, rc, "sandbox",
                                   dval_client_errmsg(v->client));
    dval__strlcpy(v->sb_name, dval_sandbox_name(v->sb), sizeof v->sb_name);
    /* the next validation on it needs no lookup; the pool resets a
     * recycled one by its id */
    dval__sbcache_put(v->client, &v->sb->info);
    if (!isolated && v->pool && v->pool->acquired)
        v->pool->acquired(v->pool->ud);
    /* a sandbox that stays for other validations (a recycled one is
     * reset, every process killed, before the next), or one whose
     * database service this validation needs */
    if (dval__svcset_starts(v->svc) ||
        (!isolated && o.release != DVAL_RELEASE_DELETE))
        dval__service_start(v->client, v->prof, v->svc, v->sb);
    if (v->aborted)
        return dval__validate_fail(v, DVAL_EABORTED, "sandbox", NULL);
    return DVAL_OK;
}

void dval__validate_lost(dval__vctx *v)
{
    if (!v->sb)
        return;
    const char *name = dval_sandbox_name(v->sb), *rec = recycled(v);
    if (rec && !strcmp(rec, name)) /* it may still exist */
        mark_tried(v, name);
    else
        dval__sbcache_forget(v->client, name);
}

int dval__validate_session(dval__vctx *v)
{
    int rc = dval_session_open(&v->sess, v->sb);
    if (rc) {
        const char *m = dval_sandbox_errmsg(v->sb);
        return dval__validate_fail(v, rc, "session",
                                   m && *m ? m : dval_client_errmsg(v->client));
    }
    const char *id = dval_session_id(v->sess);
    dval__strlcpy(v->sess_id, id ? id : "", sizeof v->sess_id);
    return DVAL_OK;
}

static int collect(int stream, const char *channel, const char *data,
                   size_t len, void *ud)
{
    (void)channel;
    if (ud && stream == DVAL_STDOUT)
        return dval__buf_append(ud, data, len) ? 1 : 0;
    return 0;
}

int dval__validate_quiet_exec(dval__vctx *v, const char *cmd, const char *cwd,
                              dval__buf *out, int *code)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    eo.cwd = cwd;
    dval__command c = { cmd, NULL, NULL, v->thread_id };
    return dval__session_exec_command(v->sess, &c, &eo, collect, out, code);
}

static int close_session(dval__vctx *v)
{
    if (!v->sess)
        return DVAL_OK;
    int rc = dval_session_close(v->sess);
    if (rc)
        dval__validate_note(v, "close session: %s%s",
                            dval_session_errmsg(v->sess), "");
    dval_session_free(v->sess);
    v->sess = NULL;
    return rc;
}

/* The sandbox delete ends the session and everything in it (its
 * processes, the executor's state of it), so a session in a sandbox that
 * is deleted right after gets no delete of its own; should the sandbox
 * delete fail, the session is closed after all. A sandbox that stays
 * (shared, stopped, or recycled by the pool) has its session closed
 * first: what the program left running must not outlive it. So does a
 * shared one about to be stopped or deleted: the sessions the executor
 * then sees open are other runs'. */
static int release_sandbox(dval__vctx *v)
{
    int rc = DVAL_OK;
    /* a release policy applies when the last validation using the sandbox
     * has ended: never stopped or deleted under another of this client,
     * nor under another client's (another process, another host). The
     * session is closed while this one still counts as a user: else the
     * last one, ending meanwhile, takes it for another run's, and keeps
     * the sandbox that nobody then releases */
    int shared = v->user_of[0] && v->sb->opts.release != DVAL_RELEASE_KEEP;
    if (shared)
        rc = close_session(v);
    if (dval__validate_leave(v) > 0)
        v->sb->opts.release = DVAL_RELEASE_KEEP;
    else if (shared && dval__sandbox_used_elsewhere(v->client, v->sb))
        v->sb->opts.release = DVAL_RELEASE_KEEP;
    int deleting = v->sb->opts.release == DVAL_RELEASE_DELETE;
    if (!deleting) {
        int r = close_session(v);
        rc = rc ? rc : r;
    }
    if (v->claim) { /* the session's processes are gone, or go now */
        dval__sandbox_release(v->sb, v->claim);
        v->claim = NULL;
    }
    int r2 = dval_sandbox_release(v->sb);
    if (r2) {
        dval__validate_note(v, "release sandbox: %s%s",
                            dval_sandbox_errmsg(v->sb), "");
        rc = rc ? rc : r2;
    }
    if (deleting && r2) {
        int r3 = close_session(v);
        rc = rc ? rc : r3;
    }
    return rc;
}

void dval__validate_close(dval__vctx *v)
{
    int64_t t0;
    dval__validate_phase_start(v, "close", &t0);
    int rc = v->sb ? release_sandbox(v) : close_session(v);
    dval__validate_leave(v); /* the acquire failed: counted all the same */
    /* a sandbox stopped or deleted by the release policy is no longer
     * as the client knew it */
    if (v->sb && v->sb->opts.release != DVAL_RELEASE_KEEP)
        dval__sbcache_forget(v->client, dval_sandbox_name(v->sb));
    /* the session handle goes with the sandbox's (a deleted one's) */
    dval_session_free(v->sess);
    v->sess = NULL;
    dval_sandbox_free(v->sb);
    v->sb = NULL;
    dval_snapshot_free(v->snap);
    v->snap = NULL;
    dval__validate_phase_done(v, "close", t0, rc, NULL);
}
