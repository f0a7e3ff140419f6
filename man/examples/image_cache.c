/* Pull an image into the local executor's cache ahead of time, showing
 * its progress, list the cache, then remove the image again. */
#include <stdio.h>
#include <dval.h>

static int progress(const char *data, size_t len, void *userdata)
{
    (void)userdata;
    fwrite(data, 1, len, stderr); /* "pull layer 1/2 sha256:...: 1.2/3.4 MB" */
    return 0;
}

static int each(const dval_image_info *info, void *userdata)
{
    (void)userdata;
    printf("%s %s\n", info->ref, info->manifest);
    return 0;
}

int main(int argc, char **argv)
{
    const char *ref = argc > 1 ? argv[1] : "debian:12";
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_client *client;
    if (dval_client_new(&client, &o) != DVAL_OK)
        return 1;
    int rc = dval_image_pull(client, ref, progress, NULL);
    if (rc == DVAL_OK)
        rc = dval_image_list(client, each, NULL);
    if (rc == DVAL_OK)
        rc = dval_image_remove(client, ref);
    if (rc != DVAL_OK)
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
