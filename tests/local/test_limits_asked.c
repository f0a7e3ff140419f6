/* Limits are never silently dropped (red team, round three): a run that
 * asks for a 1 GiB disk on the profile's shared sandbox, after another
 * run made that sandbox with the default 10 GiB, used to get the 10 GiB
 * one and wrote 1.5 GB. It now gets a shared sandbox of the resources it
 * asked for, and the program sees them. */
#include "lt.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Runs `df` on the validation's disk; *kib its size, returns the
 * sandbox's name (static). */
static const char *disk_of(lt *t, const char *src, int disk_gib,
                           long long *kib)
{
    static char sandbox[256];
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = src;
    req.disk_gib = disk_gib;
    req.memory_gib = disk_gib ? 1 : 0;
    req.run_command = "df -Pk . | tail -n 1 | awk '{print \"{\\\"kib\\\":\" "
                      "$2 \"}\"}' > \"$DVAL_RESULTS_DIR/df.json\"";
    json_t *j = lt_validate(t, &req);
    json_t *df = json_object_get(json_object_get(j, "results"), "df.json");
    *kib = json_integer_value(json_object_get(df, "kib"));
    snprintf(sandbox, sizeof sandbox, "%s",
             json_string_value(json_object_get(j, "sandbox")));
    json_decref(j);
    return sandbox;
}

TEST(test_limits_asked__a_shared_sandbox_of_the_resources_asked_for)
{
    lt t;
    lt_open(&t, "limits-asked");
    char src[700], plain[256];
    snprintf(src, sizeof src, "%s/src", t.dir);
    mkdir(src, 0755);
    long long big, small, again;
    snprintf(plain, sizeof plain, "%s", disk_of(&t, src, 0, &big));
    const char *sized = disk_of(&t, src, 1, &small);
    CHECK(strcmp(plain, sized) != 0);
    CHECK_CONTAINS(sized, "-c0m1d1");
    CHECK(big > 2 * 1024 * 1024);            /* the default 10 GiB */
    CHECK(small > 0 && small <= 1100 * 1024); /* the 1 GiB asked for */
    /* and the same request shares that sandbox */
    CHECK_STR(disk_of(&t, src, 1, &again), sized);
    CHECK(again == small);
    lt_close(&t);
}
