/* A program that reads a seeded PostgreSQL database of its own: list the
 * services, then validate a directory with the postgres service and two
 * seed files (schema, then data). The program finds its database in
 * DVAL_DB_URL (and DVAL_DB_ADO, DVAL_DB_JDBC, DVAL_DB_HOST, ...). */
#include <stdio.h>
#include <dval.h>

int main(int argc, char **argv)
{
    const char *const *names;
    if (dval_service_names(&names) == DVAL_OK)
        for (int i = 0; names[i]; i++)
            printf("service %s\n", names[i]);

    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    const char *const services[] = {"postgres", NULL};
    const char *const seeds[] = {"schema.sql", "data.sql", NULL};
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "java";
    req.source_dir = argc > 1 ? argv[1] : ".";
    req.services = services;
    req.seeds = seeds;
    char *summary = NULL;
    int rc = dval_validate(client, &req, NULL, NULL, &summary);
    if (rc == DVAL_OK)
        printf("%s\n", summary);  /* exit_code 70: the service failed */
    else
        fprintf(stderr, "%s\n", dval_client_errmsg(client));
    dval_free(summary);
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
