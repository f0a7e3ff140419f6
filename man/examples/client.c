/* Create a client for the local executor, with a log callback. */
#include <stdio.h>
#include <dval.h>

static void on_log(int level, const char *msg, void *userdata)
{
    (void)userdata;
    fprintf(stderr, "[%d] %s\n", level, msg);
}

int main(void)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.log_fn = on_log;
    o.log_level = DVAL_LOG_WARN;
    dval_client *client;
    int rc = dval_client_new(&client, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "dval_client_new: %s\n", dval_strerror(rc));
        return 1;
    }
    printf("executor: %s\n", dval_client_executor_name(client));
    dval_snapshot *snap;
    if (dval_snapshot_get(&snap, client, "no-such-snapshot") != DVAL_OK)
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    else
        dval_snapshot_free(snap);
    dval_client_free(client);
    return 0;
}
