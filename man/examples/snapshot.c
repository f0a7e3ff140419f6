/* Make sure a snapshot exists and is active, streaming its build log. */
#include <stdio.h>
#include <dval.h>

static int on_build_log(const char *data, size_t len, void *userdata)
{
    (void)userdata;
    fwrite(data, 1, len, stderr);
    return 0;
}

int main(void)
{
    static const char *const steps[] = { "apt-get update", NULL };
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "example-snapshot";
    spec.image = "debian:12-slim";
    spec.build_commands = steps;
    dval_snapshot *snap;
    int rc = dval_snapshot_ensure(&snap, client, &spec, on_build_log, NULL);
    if (rc == DVAL_OK) {
        printf("%s (%s): %s\n", dval_snapshot_name(snap), dval_snapshot_id(snap),
               dval_snapshot_state_name(dval_snapshot_state(snap)));
        dval_snapshot_free(snap);
    } else {
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    }
    /* later, by name: look it up and delete it */
    if (dval_snapshot_get(&snap, client, "example-snapshot") == DVAL_OK) {
        if (dval_snapshot_state(snap) !=
            dval_snapshot_state_parse("removing"))
            rc = dval_snapshot_delete(snap);
        dval_snapshot_free(snap);
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
