/* Validate many programs from several threads through one pool of
 * sandboxes: at most 4 sandboxes, one validation on each at a time. */
#include <pthread.h>
#include <stdio.h>
#include <dval.h>

static dval_pool *pool;

static void *worker(void *dir)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = dir;            /* profile: the pool's */
    char *summary = NULL;
    int rc = dval_pool_validate(pool, &req, NULL, NULL, &summary);
    printf("%s: %s\n", (char *)dir, rc == DVAL_OK ? summary
                                                  : dval_status_name(rc));
    dval_free(summary);
    return NULL;
}

int main(int argc, char **argv)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.max_sandboxes = 4;
    o.release = DVAL_RELEASE_DELETE;  /* at dval_pool_free */
    if (dval_pool_new(&pool, client, &o) != DVAL_OK) {
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
        dval_client_free(client);
        return 1;
    }
    pthread_t t[16];
    int n = argc - 1 < 16 ? argc - 1 : 16;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, argv[i + 1]);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    dval_pool_stats st;
    if (dval_pool_stats_get(pool, &st, sizeof st) == DVAL_OK)
        printf("%lld validations, %lld failed, longest wait %lld ms\n",
               (long long)st.completed, (long long)st.failed,
               (long long)st.wait_ms_max);
    dval_pool_free(pool);
    dval_client_free(client);
    return 0;
}
