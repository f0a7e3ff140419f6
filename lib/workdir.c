/* Optional executor members around a validation's working directory: the
 * results listing from outside the session (local: the host; daytona: the
 * toolbox) and the per-thread-id claim (local only). Executors without
 * them (custom ones) keep the older behaviour: a listing made by a command
 * in the sandbox, and no claim. */
#include <string.h>

#include "executor.h"
#include "workdir.h"

int dval__sandbox_can_list(const dval_sandbox *sb)
{
    return sb && DVAL__EX_HAS(sb->client, file_list);
}

int dval__sandbox_file_list(dval_sandbox *sb, const char *dir,
                            dval_file_list_fn each, void *ud)
{
    sb->errmsg[0] = '\0';
    dval__ex_op op; /* a listing delivers names as it goes: never replayed */
    dval__ex_op_init(&op, "list", DVAL__NO_RETRY, sb->errmsg,
                     sizeof sb->errmsg);
    op.subject = dir;
    op.cancel_fd = sb->cancel_fd;
    return dval__ex_file_list(sb->client, &op, sb->info.id, dir, each, ud);
}

int dval__sandbox_claim(dval_sandbox *sb, const char *dir, void **claim)
{
    *claim = NULL;
    sb->errmsg[0] = '\0';
    if (!DVAL__EX_HAS(sb->client, workdir_claim) ||
        !DVAL__EX_HAS(sb->client, workdir_release))
        return DVAL_OK;
    dval__ex_op op; /* the executor words a claim held elsewhere */
    dval__ex_op_init(&op, NULL, DVAL__NO_RETRY, sb->errmsg, sizeof sb->errmsg);
    int rc = dval__ex_workdir_claim(sb->client, &op, sb->info.id, dir, claim);
    if (rc)
        *claim = NULL;
    return rc;
}

void dval__sandbox_release(dval_sandbox *sb, void *claim)
{
    dval__ex_workdir_release(sb->client, claim);
}
