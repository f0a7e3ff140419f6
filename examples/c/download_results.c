/* Download a JSON results file from a sandbox (checked UTF-8 JSON). CC0.
 * usage: download_results SANDBOX SNAPSHOT REMOTE_PATH */
#include <stdio.h>

#include "dval.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SANDBOX SNAPSHOT REMOTE_PATH\n", argv[0]);
        return 2;
    }
    dval_client *c = NULL;
    dval_sandbox *sb = NULL;
    char *json = NULL;
    int rc = dval_client_new(&c, NULL);
    if (rc == DVAL_OK) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        o.name = argv[1];
        o.snapshot = argv[2];
        rc = dval_sandbox_acquire(&sb, c, &o);
        if (rc != DVAL_OK)
            fprintf(stderr, "acquire: %s\n", dval_client_errmsg(c));
    }
    if (rc == DVAL_OK) {
        rc = dval_sandbox_download_json(sb, argv[3], &json);
        if (rc == DVAL_OK)
            printf("%s\n", json);
        else
            fprintf(stderr, "download: %s: %s\n", dval_status_name(rc), dval_sandbox_errmsg(sb));
    }
    dval_free(json);
    dval_sandbox_free(sb);
    dval_client_free(c);
    return rc == DVAL_OK ? 0 : 1;
}
