/* Validates a directory with a profile of the user's own: a JSON file
 * naming the image, the build steps, the files carried into the snapshot
 * and the run command, e.g.
 *   {"name": "lua", "image": "debian:12-slim",
 *    "build_steps": ["apt-get update && apt-get install -y lua5.4"],
 *    "runtime": "lua5.4 -v", "run_command": "exec lua5.4 main.lua"} */
#include <stdio.h>
#include <dval.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROFILE.json DIR\n", argv[0]);
        return 2;
    }
    char why[512];
    const char *name;
    if (dval_profile_load(argv[1], &name, why, sizeof why) != DVAL_OK) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = name;
    req.source_dir = argv[2];
    char *summary = NULL;
    int rc = dval_validate(client, &req, NULL, NULL, &summary);
    printf("%s\n", summary ? summary : dval_client_errmsg(client));
    dval_free(summary);
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
