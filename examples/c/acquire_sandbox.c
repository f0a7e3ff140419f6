/* Acquire a sandbox (get or create, recover, start) and show its states. CC0.
 * usage: acquire_sandbox NAME SNAPSHOT */
#include <stdio.h>

#include "dval.h"

static void on_state(const char *name, int state, void *userdata)
{
    (void)userdata;
    printf("%s: %s\n", name, dval_sandbox_state_name(state));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NAME SNAPSHOT\n", argv[0]);
        return 2;
    }
    dval_client *c = NULL;
    int rc = dval_client_new(&c, NULL);
    if (rc != DVAL_OK) {
        fprintf(stderr, "client: %s\n", dval_strerror(rc));
        return 1;
    }
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = argv[1];
    o.snapshot = argv[2];
    o.release = DVAL_RELEASE_STOP; /* pause on exit */
    o.on_state = on_state;
    dval_sandbox *sb = NULL;
    rc = dval_sandbox_acquire(&sb, c, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "acquire: %s: %s\n", dval_status_name(rc), dval_client_errmsg(c));
    } else {
        printf("sandbox %s (%s) is %s\n", dval_sandbox_name(sb), dval_sandbox_id(sb),
               dval_sandbox_state_name(dval_sandbox_state(sb)));
        rc = dval_sandbox_release(sb);
        if (rc != DVAL_OK)
            fprintf(stderr, "release: %s\n", dval_sandbox_errmsg(sb));
    }
    dval_sandbox_free(sb);
    dval_client_free(c);
    return rc == DVAL_OK ? 0 : 1;
}
