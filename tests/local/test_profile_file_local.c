/* A profile file (dval_profile_load(3)) on the local executor, for real:
 * its "files" are in the snapshot with their modes, its steps ran there,
 * its run command runs the program, and an edited file builds a snapshot
 * of its own. */
#include "lt.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* Loads dir/p.json over a greet.sh printing word; returns the profile. */
static const dval_profile *load(lt *t, const char *word)
{
    char p[700], text[900];
    snprintf(text, sizeof text, "#!/bin/sh\necho '{\"greet\":\"%s\"}'\n",
             word);
    snprintf(p, sizeof p, "%s/greet.sh", t->dir);
    write_file(p, text);
    snprintf(p, sizeof p, "%s/p.json", t->dir);
    write_file(p,
        "{\"name\": \"greeter\", \"image\": \"debian:12-slim\",\n"
        " \"files\": [{\"from\": \"greet.sh\", \"to\": \"/opt/greet/greet.sh\","
        " \"mode\": \"0755\"}],\n"
        " \"build_steps\": [\"test -x /opt/greet/greet.sh\","
        " \"echo built > /opt/greet/built\"],\n"
        " \"build_command\": \"cat /opt/greet/built\",\n"
        " \"run_command\": \"/opt/greet/greet.sh > $DVAL_RESULTS_DIR/r.json\"}");
    const char *name = NULL;
    char err[512];
    CHECK_INT(dval_profile_load(p, &name, err, sizeof err), DVAL_OK);
    CHECK_STR(name, "greeter");
    return dval_profile_find("greeter");
}

static json_t *validate(lt *t, const char *src)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "greeter";
    req.source_dir = src;
    return lt_validate(t, &req);
}

static const char *greeting(json_t *j)
{
    json_t *r = json_object_get(json_object_get(j, "results"), "r.json");
    return json_string_value(json_object_get(r, "greet"));
}

TEST(test_profile_file_local__a_validation_from_a_profile_file)
{
    lt t;
    lt_open(&t, "pfile");
    char src[700];
    snprintf(src, sizeof src, "%s/src", t.dir);
    mkdir(src, 0755);
    const dval_profile *p = load(&t, "hello");
    char first[256];
    snprintf(first, sizeof first, "%s", p->snapshot_name);
    json_t *j = validate(&t, src);
    CHECK_STR(json_string_value(json_object_get(j, "verdict")), "passed");
    CHECK_STR(greeting(j), "hello");
    const char *sb = json_string_value(json_object_get(j, "sandbox"));
    CHECK_CONTAINS(sb, "greeter-sandbox-");
    json_decref(j);
    /* an edited carried file: another snapshot, the new program */
    p = load(&t, "again");
    CHECK(strcmp(first, p->snapshot_name) != 0);
    j = validate(&t, src);
    CHECK_STR(greeting(j), "again");
    json_decref(j);
    lt_close(&t);
}
