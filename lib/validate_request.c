/* dval_validate's request: copied (size-prefixed), checked, and resolved
 * into the profile, the thread id and the real source directory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "validate.h"

static int bad(dval__vctx *v, int rc, const char *msg)
{
    return dval__validate_fail(v, rc, "request", msg);
}

/* The request's own thread id, else a fresh uuid4. */
static int thread_id(dval__vctx *v)
{
    if (v->req.thread_id) {
        dval__strlcpy(v->thread_id, v->req.thread_id, sizeof v->thread_id);
    } else {
        dval__uuid4(v->thread_id);
        v->workdir_unused = 1;
    }
    char msg[256];
    if (dval__check_component("thread id", v->thread_id, msg, sizeof msg))
        return bad(v, DVAL_EINVAL, msg);
    dval__fmt(v->workdir, sizeof v->workdir, "/sandbox/%s", v->thread_id);
    dval__fmt(v->resdir, sizeof v->resdir, "/sandbox/%s/" DVAL__RESULTS_NAME,
              v->thread_id);
    return DVAL_OK;
}

/* A validation that asks for resources on the profile's shared sandbox
 * gets a shared sandbox of those resources ("-c1m1d1"), never one made
 * with others: an existing sandbox keeps the resources it was made
 * with, so sharing it would drop the request's silently. A sandbox the
 * caller names is the caller's to size (dval_validation(3)). */
static void resources_tag(dval__vctx *v)
{
    const dval_validation *q = &v->req;
    if (q->sandbox_name || v->pool || !(q->cpu || q->memory_gib || q->disk_gib))
        return;
    size_t n = strlen(v->sandbox_base);
    dval__fmt(v->sandbox_base + n, sizeof v->sandbox_base - n, "-c%dm%dd%d",
              (int)q->cpu, (int)q->memory_gib, (int)q->disk_gib);
}

/* The request's services and seeds (or the pool's, loaded once), and
 * the snapshot and sandbox names they give (a pool's slot names carry
 * the tag already). */
static int services(dval__vctx *v)
{
    int pool = v->pool && v->pool->svc;
    if (pool) {
        v->svc = v->pool->svc;
    } else {
        char msg[512];
        /* a request that names none gets the profile's */
        int own = v->req.services || v->req.seeds;
        int rc = dval__svcset_load(&v->own_svc,
                                   own ? v->req.services : v->prof->services,
                                   own ? v->req.seeds : v->prof->seeds, msg,
                                   sizeof msg);
        if (rc)
            return bad(v, rc, msg);
        v->svc = &v->own_svc;
    }
    const char *snap = v->req.snapshot_name ? v->req.snapshot_name
                                            : v->prof->snapshot_name;
    const char *sb = v->req.sandbox_name ? v->req.sandbox_name
                                         : v->prof->sandbox_name;
    dval__svcset_name(v->svc, snap, v->snapshot_name,
                      sizeof v->snapshot_name);
    dval__svcset_name(pool ? NULL : v->svc, sb, v->sandbox_base,
                      sizeof v->sandbox_base);
    resources_tag(v);
    return DVAL_OK;
}

static int source_dir(dval__vctx *v)
{
    char m[PATH_MAX + 64];
    if (!realpath(v->req.source_dir, v->root)) {
        dval__fmt(m, sizeof m, "source_dir %s: %s", v->req.source_dir,
                  strerror(errno));
        return bad(v, DVAL_EIO, m);
    }
    struct stat st;
    if (stat(v->root, &st) || !S_ISDIR(st.st_mode)) {
        dval__fmt(m, sizeof m, "source_dir %s is not a directory",
                  v->req.source_dir);
        return bad(v, DVAL_EINVAL, m);
    }
    return DVAL_OK;
}

/* The phases' commands: the request's own run command brings its own
 * build command (perhaps none); else the profile's, unless the request
 * names a build command of its own. */
static void commands(dval__vctx *v)
{
    const dval_validation *r = &v->req;
    v->run_cmd = r->run_command ? r->run_command : v->prof->run_command;
    v->build_cmd = r->run_command || r->build_command ? r->build_command
                                                      : v->prof->build_command;
    if (v->build_cmd && !*v->build_cmd)
        v->build_cmd = NULL;
    v->build.name = "build";
    v->run.name = "run";
}

/* The profile's limits stand where the request gives none (0). */
static void profile_limits(dval__vctx *v)
{
    dval_validation *q = &v->req;
    const dval_profile *p = v->prof;
    q->memory_mib = q->memory_mib ? q->memory_mib : p->memory_mib;
    q->max_processes = q->max_processes ? q->max_processes : p->max_processes;
    q->cpu_time_ms = q->cpu_time_ms ? q->cpu_time_ms : p->cpu_time_ms;
    q->output_bytes = q->output_bytes ? q->output_bytes : p->output_bytes;
    q->timeout_ms = q->timeout_ms ? q->timeout_ms : p->timeout_ms;
}

/* Limits of the validation's own processes are had or refused before
 * any work, never dropped: an executor that cannot enforce them (no
 * session_limits) refuses the request. */
static int limits(dval__vctx *v)
{
    const dval_validation *q = &v->req;
    if (q->memory_mib < 0 || q->max_processes < 0 || q->cpu_time_ms < 0 ||
        q->output_bytes < 0)
        return bad(v, DVAL_EINVAL, "memory_mib, max_processes, cpu_time_ms "
                   "and output_bytes must be >= 0 (0: no limit)");
    if (q->results_bytes < 0 ||
        q->results_bytes > (int64_t)DVAL__RESULTS_MAX_BYTES)
        return bad(v, DVAL_EINVAL, "results_bytes must be 0 (the library's "
                   "bound, 64 MiB) or at most 64 MiB");
    if (!(q->memory_mib || q->max_processes || q->cpu_time_ms) ||
        dval__exec_limits_enforced(v->client))
        return DVAL_OK;
    char msg[300];
    dval__fmt(msg, sizeof msg, "executor %s cannot limit a validation's own "
              "processes (memory_mib, max_processes, cpu_time_ms): leave them "
              "0, or use an executor that enforces them (local)",
              dval_client_executor_name(v->client));
    return bad(v, DVAL_EUNSUPPORTED, msg);
}

int dval__validate_request(dval__vctx *v, const dval_validation *req)
{
    v->svc = &v->own_svc; /* none, until the request says */
    int rc = dval__opts_copy(&v->req, sizeof v->req, req,
                             offsetof(dval_validation, thread_id));
    if (rc)
        return bad(v, rc, "struct_size is not one this library knows (use "
                   "dval_validation_init)");
    if (!v->req.profile || !v->req.source_dir)
        return bad(v, DVAL_EINVAL, "profile and source_dir are required");
    v->prof = dval_profile_find(v->req.profile);
    if (!v->prof) {
        char msg[300];
        dval__fmt(msg, sizeof msg, "unknown profile \"%s\"", v->req.profile);
        return bad(v, DVAL_EINVAL, msg);
    }
    if ((rc = thread_id(v)))
        return rc;
    commands(v);
    profile_limits(v);
    if (v->req.isolation != DVAL_ISOLATION_SESSION &&
        v->req.isolation != DVAL_ISOLATION_SANDBOX)
        return bad(v, DVAL_EINVAL, "isolation is not a dval_isolation value");
    if (v->req.release < DVAL_RELEASE_KEEP ||
        v->req.release > DVAL_RELEASE_DELETE)
        return bad(v, DVAL_EINVAL, "release is not a dval_release value");
    if ((rc = services(v)) || (rc = limits(v)) ||
        (rc = dval__expect_check(v)) || (rc = dval__inputs_check(v)) ||
        (rc = dval__inputs_run_text(v)))
        return rc;
    return source_dir(v);
}
