/* A profile file's limits (dval_profile_load(3)): memory_mib,
 * max_processes, cpu_time_ms, output_bytes and timeout_ms become the
 * profile's, the defaults of its validations; a profile that extends
 * another keeps the base's unless it gives its own; a value of the wrong
 * type or out of range is refused, naming the field. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tmpfiles.h"

#include <dval.h>

static char dir[] = "/tmp/dval-unit-plimits-XXXXXX";

static int load(const char *text, char *err, size_t cap)
{
    return dval_profile_load(tmp_put(dir, "p.json", text), NULL, err, cap);
}

TEST(test_profile_limits__a_file_gives_its_profile_limits)
{
    char err[512];
    CHECK_INT(load("{\"name\": \"lim\", \"image\": \"debian:12-slim\", "
                   "\"run_command\": \"true\", \"memory_mib\": 256, "
                   "\"max_processes\": 32, \"cpu_time_ms\": 5000, "
                   "\"output_bytes\": 4096, \"timeout_ms\": 30000}",
                   err, sizeof err), DVAL_OK);
    const dval_profile *p = dval_profile_find("lim");
    CHECK(p != NULL);
    CHECK_INT(p->memory_mib, 256);
    CHECK_INT(p->max_processes, 32);
    CHECK_INT(p->cpu_time_ms, 5000);
    CHECK_INT(p->output_bytes, 4096);
    CHECK_INT(p->timeout_ms, 30000);
    /* extends: the base's stand, the file's own replace them */
    CHECK_INT(load("{\"name\": \"lim2\", \"extends\": \"lim\", "
                   "\"output_bytes\": 100}", err, sizeof err), DVAL_OK);
    p = dval_profile_find("lim2");
    CHECK_INT(p->memory_mib, 256);
    CHECK_INT(p->output_bytes, 100);
    CHECK_INT(p->timeout_ms, 30000);
    /* none given: none */
    p = dval_profile_find("shell");
    CHECK_INT(p->memory_mib, 0);
    CHECK_INT(p->output_bytes, 0);
    tmp_remove(dir);
}

TEST(test_profile_limits__bad_limits_are_refused_by_name)
{
    static const struct { const char *field, *value; } t[] = {
        {"memory_mib", "-1"},         {"memory_mib", "\"256\""},
        {"memory_mib", "1.5"},        {"memory_mib", "4294967296"},
        {"max_processes", "-5"},      {"max_processes", "true"},
        {"cpu_time_ms", "-1"},        {"cpu_time_ms", "null"},
        {"output_bytes", "[1]"},      {"output_bytes", "-100"},
        {"timeout_ms", "{}"},         {"timeout_ms", "-1"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char text[300], err[512] = "";
        snprintf(text, sizeof text, "{\"name\": \"badlim\", \"image\": "
                 "\"debian:12-slim\", \"run_command\": \"true\", \"%s\": %s}",
                 t[i].field, t[i].value);
        CHECK_INT(load(text, err, sizeof err), DVAL_EINVAL);
        char want[64];
        snprintf(want, sizeof want, "\"%s\" must be an integer", t[i].field);
        CHECK_CONTAINS(err, want);
    }
    CHECK(dval_profile_find("badlim") == NULL);
    tmp_remove(dir);
}

TEST(test_profile_limits__register_refuses_negative_limits)
{
    dval_profile p = *dval_profile_find("shell");
    p.name = "neglim";
    p.output_bytes = -1;
    CHECK_INT(dval_profile_register(&p), DVAL_EINVAL);
    p.output_bytes = 10;
    CHECK_INT(dval_profile_register(&p), DVAL_OK);
    CHECK_INT(dval_profile_find("neglim")->output_bytes, 10);
}

TEST(test_profile_limits__a_bad_sandbox_name_is_named)
{
    char err[512] = "";
    CHECK_INT(load("{\"name\": \"sbname\", \"image\": \"debian:12-slim\", "
                   "\"run_command\": \"true\", \"sandbox_name\": \"a/b\"}",
                   err, sizeof err), DVAL_EINVAL);
    CHECK_CONTAINS(err, "sandbox_name");
    CHECK_INT(load("{\"name\": \"sbname\", \"image\": \"debian:12-slim\", "
                   "\"run_command\": \"true\", \"sandbox_name\": \"my-box\"}",
                   err, sizeof err), DVAL_OK);
    CHECK_CONTAINS(dval_profile_find("sbname")->sandbox_name, "my-box-");
    tmp_remove(dir);
}
