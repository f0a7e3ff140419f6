/* Optional executor members around a validation's working directory: the
 * host-side results listing and the per-thread-id claim. Executors
 * without them (daytona, custom) keep the older behaviour: a listing made
 * by a command in the sandbox, and no claim. */
#include <string.h>

#include "retry.h"
#include "workdir.h"

int dval__sandbox_can_list(const dval_sandbox *sb)
{
    return sb && sb->client->ex.file_list != NULL;
}

int dval__sandbox_file_list(dval_sandbox *sb, const char *dir,
                            dval_file_list_fn each, void *ud)
{
    struct dval_executor *x = &sb->client->ex;
    sb->errmsg[0] = '\0';
    if (!x->file_list)
        return DVAL_EUNSUPPORTED;
    dval_call call;
    dval__retry r;
    /* a listing delivers names as it goes: never replayed */
    dval__retry_begin(&r, sb->client, "list", DVAL__ONCE, -1);
    dval__retry_call(&r, &call, 0);
    int rc = x->file_list(x->userdata, &call, sb->info.id, dir, each, ud);
    if (rc)
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "list %s: %s", dir,
                  call.errmsg[0] ? call.errmsg : dval_strerror(rc));
    return rc;
}

int dval__sandbox_claim(dval_sandbox *sb, const char *dir, void **claim)
{
    struct dval_executor *x = &sb->client->ex;
    *claim = NULL;
    sb->errmsg[0] = '\0';
    if (!x->workdir_claim || !x->workdir_release)
        return DVAL_OK;
    dval_call call;
    dval__retry r;
    dval__retry_begin(&r, sb->client, "claim", DVAL__ONCE, -1);
    dval__retry_call(&r, &call, 0);
    int rc = x->workdir_claim(x->userdata, &call, sb->info.id, dir, claim);
    if (rc) {
        *claim = NULL;
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s",
                  call.errmsg[0] ? call.errmsg : dval_strerror(rc));
    }
    return rc;
}

void dval__sandbox_release(dval_sandbox *sb, void *claim)
{
    struct dval_executor *x = &sb->client->ex;
    if (claim && x->workdir_release)
        x->workdir_release(x->userdata, claim);
}
