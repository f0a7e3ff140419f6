/* Build (or find) the dotnet profile's snapshot and say which SDK it
 * holds. */
#include <stdio.h>
#include <dval.h>

int main(void)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_snapshot *snap;
    int rc = dval_profile_snapshot_ensure(&snap, client,
                                          dval_profile_find("dotnet"),
                                          NULL, NULL);
    if (rc == DVAL_OK) {
        const char *rt = dval_snapshot_runtime(snap);
        printf("%s holds %s\n", dval_snapshot_name(snap),
               *rt ? rt : "an unknown runtime");
        dval_snapshot_free(snap);
    } else {
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
