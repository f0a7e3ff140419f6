/* List every snapshot the executor has (a profile's, a profile file's,
 * one made through the API), with its state and runtime. */
#include <stdio.h>
#include <dval.h>

static int each(const dval_snapshot_info *info, void *userdata)
{
    int *count = userdata;
    printf("%-48s %-10s %s\n", info->name,
           dval_snapshot_state_name(info->state),
           info->runtime[0] ? info->runtime : "-");
    ++*count;
    return 0; /* non-zero would stop the listing (DVAL_EABORTED) */
}

int main(void)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    int count = 0;
    int rc = dval_snapshot_list(client, each, &count);
    if (rc == DVAL_OK)
        printf("%d snapshots\n", count);
    else
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
