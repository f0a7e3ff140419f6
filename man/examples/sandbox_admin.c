/* List the sandboxes of a label, stop the started ones, delete the
 * stopped ones; start one by name. */
#include <stdio.h>
#include <string.h>
#include <dval.h>

static int each(const char *id, const char *name, int state, void *userdata)
{
    dval_client *client = userdata;
    (void)id;
    printf("%-40s %s\n", name, dval_sandbox_state_name(state));
    (void)client; /* calls on client are refused here (DVAL_EREENTRANT) */
    return 0;
}

static int tidy(dval_client *client, const char *name)
{
    dval_sandbox *sb;
    int rc = dval_sandbox_get(&sb, client, name);
    if (rc != DVAL_OK)
        return rc;
    if (dval_sandbox_state(sb) == dval_sandbox_state_parse("started"))
        rc = dval_sandbox_stop(sb);
    else if (dval_sandbox_state(sb) == DVAL_SANDBOX_STOPPED)
        rc = dval_sandbox_delete(sb);
    else
        rc = dval_sandbox_start(sb);
    if (rc != DVAL_OK)
        fprintf(stderr, "%s\n", dval_sandbox_errmsg(sb));
    dval_sandbox_free(sb);
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const labels[] = { "purpose=example", NULL };
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    int rc = dval_sandbox_list(client, labels, each, client);
    if (rc == DVAL_OK && argc > 1 && strlen(argv[1]) > 0)
        rc = tidy(client, argv[1]);
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
