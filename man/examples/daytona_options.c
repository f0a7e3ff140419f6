/* Configure the daytona executor explicitly instead of through the
 * DAYTONA_* environment. */
#include <stdio.h>
#include <dval.h>

int main(void)
{
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_url = "https://app.daytona.io/api";
    d.api_key = "dtn_...";
    d.target = "eu";
    d.request_timeout_ms = 60000;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.daytona = &d;
    dval_client *client;
    int rc = dval_client_new(&client, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "dval_client_new: %s\n", dval_strerror(rc));
        return 1;
    }
    printf("executor: %s\n", dval_client_executor_name(client));
    dval_client_free(client);
    return 0;
}
