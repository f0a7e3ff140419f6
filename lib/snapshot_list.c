/* dval_snapshot_list: every snapshot the executor has, whoever made it
 * (a built-in profile, a profile file, dval_snapshot_ensure), for
 * listings such as `daytona-validate snapshot ls`. */
#include "executor.h"

typedef struct list_ctx {
    dval_snapshot_info_fn each;
    void *ud;
    const dval_client *client;
} list_ctx;

/* The host's callback runs as a callback: it may not re-enter the client. */
static int list_each(const dval_snapshot_info *info, void *ud)
{
    list_ctx *l = ud;
    const dval_client *prev = dval__cb_enter(l->client);
    int rc = l->each(info, l->ud);
    dval__cb_leave(prev);
    return rc;
}

DVAL_API int dval_snapshot_list(dval_client *c, dval_snapshot_info_fn each,
                                void *userdata)
{
    if (!c || !each)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(c);
    list_ctx l = { each, userdata, c };
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, "list snapshots", DVAL__NO_RETRY, msg, sizeof msg);
    int rc = dval__ex_snapshot_list(c, &op, list_each, &l);
    if (rc)
        dval__client_seterr(c, "%s", msg);
    return rc;
}
