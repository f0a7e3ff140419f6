/* Telling a sandbox lost under a validation from a call that just failed.
 * The toolbox of a stopped sandbox answers 400 "Is the Sandbox started?",
 * that of a vanished one 404, and a session dies with its sandbox: only
 * the sandbox's own state tells these apart from a bad request. */
#include "recover.h"

static int could_be_lost(int rc)
{
    switch (rc) {
    case DVAL_ENOTFOUND:
    case DVAL_EBADREQUEST:
    case DVAL_ESTATE:
    case DVAL_ENETWORK:
    case DVAL_ESERVER:
    case DVAL_EPROTOCOL:
    case DVAL_EGONE:
        return 1;
    default:
        return 0;
    }
}

static int not_running(int state)
{
    switch (state) {
    case DVAL_SANDBOX_STOPPED:
    case DVAL_SANDBOX_STOPPING:
    case DVAL_SANDBOX_ARCHIVED:
    case DVAL_SANDBOX_ARCHIVING:
    case DVAL_SANDBOX_ERROR:
    case DVAL_SANDBOX_DESTROYED:
    case DVAL_SANDBOX_DESTROYING:
        return 1;
    default:
        return 0;
    }
}

int dval__sandbox_lost(dval_sandbox *sb, int rc)
{
    if (!sb || !could_be_lost(rc))
        return 0;
    int r = dval_sandbox_refresh(sb);
    if (r == DVAL_ENOTFOUND)
        return 1;
    return r == DVAL_OK && not_running(dval_sandbox_state(sb));
}
