/* A local-executor client with its own state directory and tighter
 * default limits for its sandboxes. */
#include <stdio.h>
#include <dval.h>

int main(void)
{
    dval_local_options l;
    dval_local_options_init(&l, sizeof l);
    l.state_dir = "/var/tmp/validations";
    l.max_pids = 128;
    l.max_memory_bytes = (int64_t)512 << 20;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.local = &l;
    dval_client *client;
    int rc = dval_client_new(&client, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "dval_client_new: %s\n", dval_strerror(rc));
        return 1;
    }
    dval_client_free(client);
    return 0;
}
