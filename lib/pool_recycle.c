/* Recycling a pool slot's isolation=sandbox sandbox (recycle.h): after
 * each validation, in the caller's thread, the executor's guaranteed
 * reset makes it as if fresh from its snapshot; without that guarantee
 * (no member, or the reset failed) it is deleted and the slot's next
 * validation creates a fresh one. */
#include "executor.h"
#include "recycle.h"

int dval__recycle_delete(dval_client *client, const char *name)
{
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_get(&sb, client, name);
    if (rc == DVAL_OK)
        rc = dval_sandbox_delete(sb);
    if (rc && rc != DVAL_ENOTFOUND)
        DVAL__LOG(client, DVAL_LOG_WARN, "pool: cannot delete sandbox %s: "
                  "%s", name, sb ? dval_sandbox_errmsg(sb)
                                 : dval_client_errmsg(client));
    dval_sandbox_free(sb);
    return rc == DVAL_ENOTFOUND ? DVAL_OK : rc;
}

static int reset(dval_client *client, const dval__recycle *rs)
{
    char msg[DVAL_ERRMSG_MAX] = "";
    dval__ex_op op;
    dval__ex_op_init(&op, "reset sandbox", DVAL__IDEMPOTENT, msg,
                     sizeof msg);
    op.subject = rs->name;
    int rc = dval__ex_sandbox_reset(client, &op, rs->id);
    if (rc && rc != DVAL_EUNSUPPORTED)
        DVAL__LOG(client, DVAL_LOG_WARN, "pool: %s; deleting it instead",
                  msg);
    return rc;
}

int dval__recycle_supported(const dval_client *client)
{
    return DVAL__EX_HAS(client, sandbox_reset);
}

int dval__recycle_after(dval_client *client, dval__recycle *rs)
{
    if (!rs->name[0])
        return 0;
    if (rs->id[0] && DVAL__EX_HAS(client, sandbox_reset) &&
        reset(client, rs) == DVAL_OK)
        return 1;
    /* no guarantee: it never serves another validation */
    dval__recycle_delete(client, rs->name);
    rs->name[0] = rs->id[0] = '\0';
    return 0;
}
