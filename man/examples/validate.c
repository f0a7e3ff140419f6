/* Validate a program directory with a registered profile and print the
 * summary. */
#include <stdio.h>
#include <dval.h>

static int on_event(const dval_event *ev, void *userdata)
{
    (void)userdata;
    if (ev->type == DVAL_EVENT_OUTPUT)
        fwrite(ev->data, 1, ev->len, stdout);
    else if (ev->type == DVAL_EVENT_PHASE && ev->done)
        fprintf(stderr, "%s: %s\n", ev->phase, dval_status_name(ev->status));
    return 0;
}

int main(int argc, char **argv)
{
    dval_profile p = *dval_profile_find("shell");
    p.struct_size = sizeof p;
    p.name = "example";
    p.run_command = "sh ./run.sh";
    if (dval_profile_register(&p) != DVAL_OK)
        return 1;
    const char *const *names;
    if (dval_profile_names(&names) == DVAL_OK)
        for (int i = 0; names[i]; i++)
            printf("profile %s\n", names[i]);

    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "example";
    req.source_dir = argc > 1 ? argv[1] : ".";
    req.timeout_ms = 120000;
    char *summary = NULL;
    int rc = dval_validate(client, &req, on_event, NULL, &summary);
    if (rc == DVAL_OK)
        printf("%s\n", summary);
    else
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    dval_free(summary);
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
