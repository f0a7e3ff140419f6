/* Prepare the java profile's snapshot ahead of validations. */
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
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    const dval_profile *java = dval_profile_find("java");
    dval_snapshot *snap = NULL;
    int rc = java ? dval_profile_snapshot_ensure(&snap, client, java,
                                                 on_build_log, NULL)
                  : DVAL_ENOTFOUND;
    if (rc == DVAL_OK) {
        printf("%s is %s\n", dval_snapshot_name(snap),
               dval_snapshot_state_name(dval_snapshot_state(snap)));
        dval_snapshot_free(snap);
    } else if (rc == DVAL_EUNSUPPORTED) {
        fprintf(stderr, "not here: %s\n", dval_client_errmsg(client));
    } else {
        fprintf(stderr, "%s\n", dval_strerror(rc));
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
