/* Recycling a pool slot's isolation=sandbox sandbox (recycle.h): after
 * each validation, in the caller's thread, the executor's guaranteed
 * reset makes it as if fresh from its snapshot; without that guarantee
 * (the reset failed) it is deleted and the slot's next validation creates
 * a fresh one. Also the release policy applied to a pool sandbox. */
#include "executor.h"
#include "recycle.h"

int dval__recycle_release(dval_client *client, const char *name,
                          int release, int shared)
{
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

static int reset(dval_client *client, const dval__lease *ls)
{
    char msg[DVAL_ERRMSG_MAX] = "";
    dval__ex_op op;
    dval__ex_op_init(&op, "reset sandbox", DVAL__IDEMPOTENT, msg,
                     sizeof msg);
    op.subject = ls->name;
    int rc = dval__ex_sandbox_reset(client, &op, ls->id);
    if (rc)
        DVAL__LOG(client, DVAL_LOG_WARN, "pool: %s; deleting it instead",
                  msg);
    return rc;
}

int dval__recycle_supported(const dval_client *client)
{
    return DVAL__EX_HAS(client, sandbox_reset);
}

int dval__recycle_after(dval_client *client, dval__lease *ls)
{
    if (!ls->name[0])
        return 0;
    /* the caller checked dval__recycle_supported */
    if (ls->id[0] && reset(client, ls) == DVAL_OK)
        return 1;
    /* no guarantee: it never serves another validation */
    dval__recycle_release(client, ls->name, DVAL_RELEASE_DELETE, 0);
    ls->name[0] = ls->id[0] = '\0';
    return 0;
}
