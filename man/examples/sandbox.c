/* Acquire a sandbox (create, start or recover it as needed), then release
 * it by its policy. */
#include <stdio.h>
#include <dval.h>

static void on_state(const char *name, int state, void *userdata)
{
    (void)userdata;
    fprintf(stderr, "%s: %s\n", name, dval_sandbox_state_name(state));
}

int main(void)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "example-sandbox";
    o.snapshot = "example-snapshot";
    o.release = DVAL_RELEASE_STOP;
    o.on_state = on_state;
    dval_sandbox *sb;
    int rc = dval_sandbox_acquire(&sb, client, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "acquire: %s\n", dval_client_errmsg(client));
        dval_client_free(client);
        return 1;
    }
    printf("%s is %s (id %s)\n", dval_sandbox_name(sb),
           dval_sandbox_state_name(dval_sandbox_state(sb)), dval_sandbox_id(sb));
    if (dval_sandbox_refresh(sb) != DVAL_OK ||
        dval_sandbox_release(sb) != DVAL_OK)
        fprintf(stderr, "%s\n", dval_sandbox_errmsg(sb));
    dval_sandbox_free(sb);
    dval_client_free(client);
    return 0;
}
