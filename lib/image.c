/* dval_image_pull / _list / _remove: the executor's image cache (the
 * local executor's; an executor without one, Daytona among them, pulls
 * images itself when it builds a snapshot). */
#include "executor.h"

typedef struct image_ctx {
    dval_client *client;
    dval_data_fn progress;
    dval_image_info_fn each;
    void *ud;
} image_ctx;

static int progress_chunk(int stream, const char *data, size_t len, void *ud)
{
    image_ctx *x = ud;
    (void)stream;
    return x->progress ? dval__cb_data(x->client, x->progress, data, len,
                                       x->ud) : 0;
}

static int on_image(const dval_image_info *info, void *ud)
{
    image_ctx *x = ud;
    const dval_client *prev = dval__cb_enter(x->client);
    int rc = x->each(info, x->ud);
    dval__cb_leave(prev);
    return rc;
}

/* DVAL_EUNSUPPORTED, worded, when the executor has no image cache. */
static int need_cache(dval_client *c, size_t member)
{
    if (dval__ex_has(c, member))
        return DVAL_OK;
    dval__client_seterr(c, "executor %s has no image cache: it pulls an "
                        "image itself when it builds a snapshot from it "
                        "(dval_snapshot_ensure)", c->executor_name);
    return DVAL_EUNSUPPORTED;
}

static int finish(dval_client *c, int rc, const char *msg)
{
    if (rc)
        dval__client_seterr(c, "%s", msg);
    return rc;
}

DVAL_API int dval_image_pull(dval_client *c, const char *ref,
                             dval_data_fn on_progress, void *userdata)
{
    if (!c || !ref || !*ref)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(c);
    int rc = need_cache(c, offsetof(struct dval_executor, image_pull));
    if (rc)
        return rc;
    image_ctx x = { c, on_progress, NULL, userdata };
    dval_image_info info;
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op; /* the pull retries inside: progress was shown */
    dval__ex_op_init(&op, "pull image", DVAL__NO_RETRY, msg, sizeof msg);
    op.subject = ref;
    rc = dval__ex_image_pull(c, &op, ref, progress_chunk, &x, &info);
    return finish(c, rc, msg);
}

DVAL_API int dval_image_list(dval_client *c, dval_image_info_fn each,
                             void *userdata)
{
    if (!c || !each)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(c);
    int rc = need_cache(c, offsetof(struct dval_executor, image_list));
    if (rc)
        return rc;
    image_ctx x = { c, NULL, each, userdata };
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, "list images", DVAL__NO_RETRY, msg, sizeof msg);
    rc = dval__ex_image_list(c, &op, on_image, &x);
    return finish(c, rc, msg);
}

DVAL_API int dval_image_remove(dval_client *c, const char *ref)
{
    if (!c || !ref || !*ref)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(c);
    int rc = need_cache(c, offsetof(struct dval_executor, image_remove));
    if (rc)
        return rc;
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, "remove image", DVAL__NO_RETRY, msg, sizeof msg);
    op.subject = ref;
    rc = dval__ex_image_remove(c, &op, ref);
    return finish(c, rc, msg);
}
