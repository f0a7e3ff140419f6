/* Plug in a custom executor that knows one member: everything else the
 * library reports as DVAL_EUNSUPPORTED. */
#include <stdio.h>
#include <string.h>
#include <dval.h>

static int my_sandbox_get(void *ud, dval_call *call, const char *name_or_id,
                          dval_sandbox_info *out)
{
    (void)ud;
    if (strcmp(name_or_id, "fixed") != 0) {
        snprintf(call->errmsg, sizeof call->errmsg, "no sandbox %s",
                 name_or_id);
        return DVAL_ENOTFOUND;
    }
    snprintf(out->id, sizeof out->id, "fixed-1");
    snprintf(out->name, sizeof out->name, "fixed");
    out->state = DVAL_SANDBOX_STARTED;
    return DVAL_OK;
}

int main(void)
{
    struct dval_executor ex;
    dval_executor_init(&ex, sizeof ex);
    ex.name = "example";
    ex.sandbox_get = my_sandbox_get;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    dval_client *client;
    if (dval_client_new(&client, &o) != DVAL_OK)
        return 1;
    dval_sandbox *sb;
    int rc = dval_sandbox_get(&sb, client, "fixed");
    if (rc == DVAL_OK) {
        printf("%s: %s\n", dval_sandbox_id(sb),
               dval_sandbox_state_name(dval_sandbox_state(sb)));
        dval_sandbox_free(sb);
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
