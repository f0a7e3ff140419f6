/* A profile file's limits (dval_profile_load(3)) on the local executor,
 * for real: they are the defaults of the profile's validations, and a
 * request's own value wins. */
#include "lt.h"

#include <jansson.h>
#include <stdio.h>

static void load_profile(lt *t)
{
    char path[700];
    snprintf(path, sizeof path, "%s/limits.json", t->dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\"name\": \"shell-limited\", \"extends\": \"shell\",\n"
          " \"memory_mib\": 64, \"output_bytes\": 100000}\n", f);
    fclose(f);
    char err[512];
    CHECK_INT(dval_profile_load(path, NULL, err, sizeof err), DVAL_OK);
}

/* dval_validate's status; *verdict (json_decref it) the summary. */
static int validate(lt *t, const char *src, int64_t output_bytes,
                    json_t **sum)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell-limited";
    req.source_dir = src;
    req.output_bytes = output_bytes;
    req.allow_missing_results = 1;
    char *text = NULL;
    dval_client *c = lt_client(t);
    int rc = dval_validate(c, &req, NULL, NULL, &text);
    dval_client_free(c);
    CHECK(text != NULL);
    *sum = json_loads(text, 0, NULL);
    dval_free(text);
    CHECK(*sum != NULL);
    return rc;
}

static const char *verdict(json_t *j)
{
    return json_string_value(json_object_get(j, "verdict"));
}

TEST(test_profile_limits_local__the_profile_output_limit_applies)
{
    lt t;
    lt_open(&t, "plimits");
    load_profile(&t);
    const char *src = lt_shell_dir(&t, "chatty", "yes 0123456789 | head -c "
                                   "300000\n");
    json_t *j;
    CHECK_INT(validate(&t, src, 0, &j), DVAL_ETOOBIG);
    CHECK_STR(verdict(j), "output_limit");
    json_decref(j);
    /* the request's own limit wins over the profile's */
    CHECK_INT(validate(&t, src, 1000000, &j), DVAL_OK);
    CHECK_STR(verdict(j), "passed");
    json_decref(j);
    lt_close(&t);
}

TEST(test_profile_limits_local__the_profile_memory_limit_applies)
{
    lt t;
    lt_open(&t, "plimits-mem");
    load_profile(&t);
    /* a program that touches 200 MiB: over the profile's 64 MiB */
    const char *src = lt_shell_dir(&t, "hungry", "dd if=/dev/zero "
                                   "of=/dev/null bs=100M count=2 "
                                   "2>/dev/null\necho survived\n");
    json_t *j;
    validate(&t, src, 0, &j);
    CHECK_STR(verdict(j), "memory_limit");
    json_decref(j);
    lt_close(&t);
}
