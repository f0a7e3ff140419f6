/* Stop a validation from another thread after 30 s with a cancel token. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <dval.h>

static void *watchdog(void *arg)
{
    sleep(30);
    dval_cancel_fire(arg); /* any thread; idempotent */
    return NULL;
}

int main(int argc, char **argv)
{
    dval_cancel *token;
    dval_client *client;
    if (dval_cancel_new(&token) != DVAL_OK)
        return 1;
    if (dval_client_new(&client, NULL) != DVAL_OK) {
        dval_cancel_free(token);
        return 1;
    }
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = argc > 1 ? argv[1] : ".";
    req.cancel = token;
    pthread_t t;
    pthread_create(&t, NULL, watchdog, token);
    char *summary = NULL;
    int rc = dval_validate(client, &req, NULL, NULL, &summary);
    if (rc == DVAL_ECANCELED && dval_cancel_fired(token))
        fprintf(stderr, "stopped: %s\n", dval_client_errmsg(client));
    else if (rc == DVAL_OK)
        printf("%s\n", summary);
    dval_cancel_fire(token); /* ends the watchdog's purpose early */
    pthread_cancel(t);
    pthread_join(t, NULL);
    dval_free(summary);
    dval_client_free(client);
    dval_cancel_free(token);
    return rc == DVAL_OK ? 0 : 1;
}
