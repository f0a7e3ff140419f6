/* profile_prepare through the dispatch rules: a missing member is not an
 * error here (every profile then runs as it is), and the executor's reason
 * becomes the one message. */
#include "executor_profile.h"

int dval__ex_profile_prepare(dval_client *c, dval__ex_op *op,
                             const dval_profile *p,
                             const char *const **build_commands)
{
    *build_commands = NULL;
    if (!DVAL__EX_HAS(c, profile_prepare))
        return DVAL_OK;
    dval__call_init(c, &op->call, op->timeout_ms, op->cancel_fd);
    op->attempts = 1;
    const char *const *steps = NULL;
    int rc = c->ex.profile_prepare(c->ex.userdata, &op->call, p, &steps);
    if (rc == DVAL_EPASSTHROUGH)
        return DVAL_OK;
    if (rc == DVAL_OK) {
        *build_commands = steps;
        return DVAL_OK;
    }
    if (op->msg && rc != op->quiet) {
        const char *why = op->call.errmsg[0] ? op->call.errmsg
                                             : dval_strerror(rc);
        if (op->what)
            dval__fmt(op->msg, op->cap, "%s %s: %s", op->what,
                      op->subject ? op->subject : p->name, why);
        else
            dval__fmt(op->msg, op->cap, "%s", why);
    }
    return rc;
}
