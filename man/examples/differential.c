/* Validate an original program and its translation at the same time, on
 * two threads of one client, then ask whether they agree:
 *   ./differential java-original/ dotnet-translation/ */
#include <pthread.h>
#include <stdio.h>
#include <dval.h>

typedef struct side {
    dval_client *client;
    const char *profile, *dir;
    char *summary;
} side;

static void *validate(void *arg)
{
    side *s = arg;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = s->profile;
    req.source_dir = s->dir;
    req.timeout_ms = 120000;
    dval_validate(s->client, &req, NULL, NULL, &s->summary);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 64;
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 70;
    side s[2] = { { client, "java", argv[1], NULL },
                  { client, "dotnet", argv[2], NULL } };
    pthread_t th;
    if (pthread_create(&th, NULL, validate, &s[0]) != 0)
        return 70;
    validate(&s[1]);
    pthread_join(th, NULL);

    const char *ignore[] = { "$..generated_at", NULL };
    dval_compare_options opts;
    dval_compare_options_init(&opts, sizeof opts);
    opts.ignore = ignore;
    opts.rel_tolerance = 1e-9;
    int outcome = 0;
    char *report = NULL;
    int rc = dval_differential(&outcome, &report, s[0].summary,
                               s[1].summary, &opts);
    if (rc == DVAL_OK)
        printf("%s\n", report);  /* {"verdict":"equivalent",...} */
    else
        fprintf(stderr, "differential: %s\n", dval_strerror(rc));
    dval_free(report);
    dval_free(s[0].summary);
    dval_free(s[1].summary);
    dval_client_free(client);
    return outcome == DVAL_DIFF_EQUIVALENT ? 0 : 1;
}
