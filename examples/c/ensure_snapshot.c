/* Ensure a snapshot exists and is active, printing its build log. CC0.
 * usage: ensure_snapshot NAME IMAGE [BUILD_COMMAND...] */
#include <stdio.h>

#include "dval.h"

static int on_log(const char *data, size_t len, void *userdata)
{
    (void)userdata;
    fwrite(data, 1, len, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NAME IMAGE [BUILD_COMMAND...]\n", argv[0]);
        return 2;
    }
    dval_client *c = NULL;
    int rc = dval_client_new(&c, NULL); /* DAYTONA_* environment or local */
    if (rc != DVAL_OK) {
        fprintf(stderr, "client: %s\n", dval_strerror(rc));
        return 1;
    }
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = argv[1];
    spec.image = argv[2];
    spec.build_commands = argc > 3 ? (const char *const *)&argv[3] : NULL; /* argv is NULL-terminated */
    dval_snapshot *snap = NULL;
    rc = dval_snapshot_ensure(&snap, c, &spec, on_log, NULL);
    if (rc != DVAL_OK)
        fprintf(stderr, "snapshot: %s: %s\n", dval_status_name(rc), dval_client_errmsg(c));
    else
        printf("snapshot %s (%s) is %s\n", dval_snapshot_name(snap), dval_snapshot_id(snap),
               dval_snapshot_state_name(dval_snapshot_state(snap)));
    dval_snapshot_free(snap);
    dval_client_free(c);
    return rc == DVAL_OK ? 0 : 1;
}
