/* dval_validate's snapshot, sandbox and session phases, the housekeeping
 * commands it runs in the session, and the close phase that ends them. */
#include <string.h>
#include <uuid/uuid.h>

#include "service_start.h"
#include "validate.h"
#include "workdir.h"

/* The executor says whether it can run the profile (and with which build
 * steps) before the snapshot is ensured: an unavailable profile fails
 * here, with the executor's (or the profile's) message. */
int dval__validate_snapshot(dval__vctx *v)
{
    dval_snapshot_spec spec;
    int rc = dval__profile_snapshot_spec(v->client, v->prof,
                                         v->req.snapshot_name, &spec);
    if (rc == DVAL_OK)
        rc = dval_snapshot_ensure(&v->snap, v->client, &spec,
                                  dval__validate_on_build_log, v);
    if (rc)
        return dval__validate_fail(v, rc, "snapshot",
                                   dval_client_errmsg(v->client));
    return DVAL_OK;
}

/* "<base>-<12 random hex>": a name no other validation uses. */
static void own_sandbox_name(const char *base, char *out, size_t cap)
{
    uuid_t u;
    char s[40];
    uuid_generate_random(u);
    uuid_unparse_lower(u, s);
    dval__fmt(out, cap, "%.200s-%.8s%.4s", base, s, s + 9);
}

/* The sandbox's labels: managed-by, profile, the request's, isolation
 * (slot extra + 2, set by the caller); NULL-terminated, dval__free. */
static const char **sandbox_labels(dval__vctx *v, const char *profile_label,
                                   size_t *extra)
{
    size_t n = 0;
    while (v->req.labels && v->req.labels[n])
        n++;
    const char **labels = dval__calloc(n + 4, sizeof *labels);
    if (!labels)
        return NULL;
    /* the managed-by label lets `daytona-validate sandbox ls/rm` find
     * sandboxes this library created (the reaper for leaked ones) */
    labels[0] = "dval.managed-by=daytona-validate";
    labels[1] = profile_label;
    for (size_t i = 0; i < n; i++)
        labels[2 + i] = v->req.labels[i];
    *extra = n;
    return labels;
}

/* An isolation=sandbox validation's sandbox: the pool slot's recycled
 * one (kept at close: the pool resets it), else one of its own name,
 * deleted at close. */
static void own_name(dval__vctx *v, dval_sandbox_options *o, char *own,
                     size_t cap)
{
    if (v->rs && v->rs->name[0]) {
        dval__strlcpy(own, v->rs->name, cap);
    } else {
        own_sandbox_name(o->name, own, cap);
        if (v->rs)
            dval__strlcpy(v->rs->name, own, sizeof v->rs->name);
    }
    o->name = own;
    if (v->rs)
        o->release = DVAL_RELEASE_KEEP;
}

static void sandbox_options(dval__vctx *v, dval_sandbox_options *o)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = v->req.sandbox_name ? v->req.sandbox_name
                                  : v->prof->sandbox_name;
    o->snapshot = v->req.snapshot_name ? v->req.snapshot_name
                                       : v->prof->snapshot_name;
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

int dval__validate_sandbox(dval__vctx *v)
{
    char profile_label[300];
    dval__fmt(profile_label, sizeof profile_label, "dval.profile=%s",
              v->prof->name);
    size_t extra = 0;
    const char **labels = sandbox_labels(v, profile_label, &extra);
    if (!labels)
        return dval__validate_fail(v, DVAL_ENOMEM, "sandbox", NULL);
    dval_sandbox_options o;
    sandbox_options(v, &o);
    char own[DVAL_ID_MAX];
    int isolated = v->req.isolation == DVAL_ISOLATION_SANDBOX;
    if (isolated) {
        own_name(v, &o, own, sizeof own);
        labels[extra + 2] = "dval.isolation=sandbox";
    }
    o.labels = labels;
    int rc = dval_sandbox_acquire(&v->sb, v->client, &o);
    dval__free(labels);
    if (rc)
        return dval__validate_fail(v, rc, "sandbox",
                                   dval_client_errmsg(v->client));
    dval__strlcpy(v->sb_name, dval_sandbox_name(v->sb), sizeof v->sb_name);
    if (isolated && v->rs) /* the pool resets it after this validation */
        dval__strlcpy(v->rs->id, dval_sandbox_id(v->sb), sizeof v->rs->id);
    /* a sandbox that stays for other validations; a recycled one is
     * reset (every process killed) before the next */
    if (!isolated && o.release != DVAL_RELEASE_DELETE)
        dval__service_start(v->client, v->prof, v->sb);
    if (v->aborted)
        return dval__validate_fail(v, DVAL_EABORTED, "sandbox", NULL);
    return DVAL_OK;
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
    return dval_session_exec(v->sess, cmd, &eo, collect, out, code);
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

void dval__validate_close(dval__vctx *v)
{
    int64_t t0;
    dval__validate_phase_start(v, "close", &t0);
    int rc = close_session(v);
    if (v->sb && v->claim) { /* after the session: its processes are gone */
        dval__sandbox_release(v->sb, v->claim);
        v->claim = NULL;
    }
    if (v->sb) {
        int r2 = dval_sandbox_release(v->sb);
        if (r2) {
            dval__validate_note(v, "release sandbox: %s%s",
                                dval_sandbox_errmsg(v->sb), "");
            rc = rc ? rc : r2;
        }
        dval_sandbox_free(v->sb);
        v->sb = NULL;
    }
    dval_snapshot_free(v->snap);
    v->snap = NULL;
    dval__validate_phase_done(v, "close", t0, rc, NULL);
}
