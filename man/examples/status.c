/* Report a failure by code, name and message. */
#include <stdio.h>
#include <dval.h>

static int report(dval_client *client, int rc)
{
    if (rc != DVAL_OK)
        fprintf(stderr, "%s (%s): %s\n", dval_status_name(rc),
                dval_strerror(rc), dval_client_errmsg(client));
    return rc;
}

int main(void)
{
    dval_client *client = NULL;
    int rc = report(client, dval_client_new(&client, NULL));
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
