/* Recycling a pool slot's isolation=sandbox sandbox (recycle.h): after
 * each validation, in the caller's thread, the executor's guaranteed
 * reset makes it as if fresh from its snapshot; without that guarantee
 * (the reset failed) it is deleted and the slot's next validation creates
 * a fresh one. Also the release policy applied to a pool sandbox. */
#include "executor.h"
#include "recycle.h"
#include "sandbox_cache.h"

int dval__recycle_release(dval_client *client, const char *name,
                          int release, int shared)
{
    /* the caller's knowledge of it ends here, whatever the policy */
    dval__sbcache_forget(client, name);
    if (release == DVAL_RELEASE_KEEP)
        return DVAL_OK;
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_get(&sb, client, name);
    /* a shared slot's sandbox may serve another process's pool of the
     * same name: kept while its sessions are open */
    if (rc == DVAL_OK && shared && dval__sandbox_used_elsewhere(client, sb))
        release = DVAL_RELEASE_KEEP;
    else if (rc == DVAL_OK)
        rc = release == DVAL_RELEASE_DELETE ? dval_sandbox_delete(sb)
                                            : dval_sandbox_stop(sb);
    if (rc && rc != DVAL_ENOTFOUND)
        DVAL__LOG(client, DVAL_LOG_WARN, "pool: cannot %s sandbox %s: %s",
                  release == DVAL_RELEASE_DELETE ? "delete" : "stop", name,
                  sb ? dval_sandbox_errmsg(sb) : dval_client_errmsg(client));
    dval_sandbox_free(sb);
    return rc == DVAL_ENOTFOUND ? DVAL_OK : rc;
}

static int reset(dval_client *client, const dval_sandbox_info *info)
{
    char msg[DVAL_ERRMSG_MAX] = "";
    dval__ex_op op;
    dval__ex_op_init(&op, "reset sandbox", DVAL__IDEMPOTENT, msg,
                     sizeof msg);
    op.subject = info->name;
    int rc = dval__ex_sandbox_reset(client, &op, info->id);
    if (rc)
        DVAL__LOG(client, DVAL_LOG_WARN, "pool: %s; deleting it instead",
                  msg);
    return rc;
}

int dval__recycle_supported(const dval_client *client)
{
    return DVAL__EX_HAS(client, sandbox_reset);
}

/* The cache says what the validation did with the name: nothing (no
 * entry: it never reached its sandbox phase, nothing was made), tried
 * (no id: it may exist), or acquired it (its id). */
int dval__recycle_after(dval_client *client, const char *name)
{
    dval_sandbox_info info;
    if (!dval__sbcache_get(client, name, &info))
        return 0;
    /* the caller checked dval__recycle_supported */
    if (info.id[0] && reset(client, &info) == DVAL_OK)
        return 1;
    /* no guarantee: it never serves another validation */
    dval__recycle_release(client, name, DVAL_RELEASE_DELETE, 0);
    return 0;
}
