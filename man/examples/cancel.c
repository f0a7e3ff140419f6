/* Cancel a long command from another thread; the blocked exec returns
 * DVAL_ECANCELED. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <dval.h>

static void *canceler(void *arg)
{
    sleep(2);
    dval_session_cancel(arg); /* any thread, idempotent */
    return NULL;
}

int main(void)
{
    dval_client *client;
    dval_sandbox *sb;
    dval_session *s;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "example-sandbox";
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    int rc = dval_sandbox_acquire(&sb, client, &o);
    if (rc == DVAL_OK && (rc = dval_session_open(&s, sb)) == DVAL_OK) {
        pthread_t t;
        int code;
        pthread_create(&t, NULL, canceler, s);
        rc = dval_session_exec(s, "sleep 600", NULL, NULL, NULL, &code);
        pthread_join(t, NULL);
        printf("exec: %s\n", dval_status_name(rc)); /* DVAL_ECANCELED */
        dval_session_free(s);
    }
    if (rc != DVAL_OK && rc != DVAL_ECANCELED)
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    dval_sandbox_free(sb);
    dval_client_free(client);
    return 0;
}
