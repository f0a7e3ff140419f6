/* Profile files (dval_profile_load(3)): a JSON file becomes a registered
 * profile whose snapshot carries the file's "files"; every mistake is
 * named with the file's path; and the snapshot's name changes when
 * anything it holds changes (a carried file's content included), so an
 * edited profile never reuses a stale snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tmpfiles.h"

#include <dval.h>

static char dir[] = "/tmp/dval-unit-pfile-XXXXXX";

static const char *put(const char *name, const char *text)
{
    return tmp_put(dir, name, text);
}

static void cleanup(void)
{
    tmp_remove(dir);
}

/* The error dval_profile_load gives for a file holding text. */
static int load_err(const char *text, char *err, size_t cap)
{
    const char *name = "x";
    int rc = dval_profile_load(put("bad.json", text), &name, err, cap);
    CHECK(name == NULL);
    return rc;
}

TEST(test_profile_file__a_valid_file_registers_its_profile)
{
    put("tool.sh", "echo hello\n");
    put("seed.sql", "CREATE TABLE t (a int);\n");
    const char *path = put("p.json",
        "{\"name\": \"myjava\", \"image\": \"debian-12\",\n"
        " \"services\": [\"postgres\", \"sqlite\"], \"seeds\": [\"seed.sql\"],\n"
        " \"run_command\": \"sh run.sh\", \"build_command\": \"true\",\n"
        " \"build_steps\": [\"echo built\"],\n"
        " \"files\": [{\"from\": \"tool.sh\", \"to\": \"/opt/t/tool.sh\","
        " \"mode\": \"0755\"}],\n"
        " \"description\": \"mine\"}");
    const char *name = NULL;
    char err[512];
    CHECK_INT(dval_profile_load(path, &name, err, sizeof err), DVAL_OK);
    CHECK_STR(err, "");
    CHECK_STR(name, "myjava");
    const dval_profile *p = dval_profile_find("myjava");
    CHECK(p != NULL);
    CHECK_STR(p->image, "debian-12");
    CHECK_STR(p->run_command, "sh run.sh");
    CHECK_STR(p->build_command, "true");
    CHECK_STR(p->channel_prefix, "MYJAVA_SANDBOX_");
    CHECK(p->services && p->services[2] == NULL);
    CHECK_STR(p->services[0], "postgres");
    CHECK_STR(p->services[1], "sqlite");
    char seed_path[700];
    snprintf(seed_path, sizeof seed_path, "%s/seed.sql", dir);
    CHECK(p->seeds && p->seeds[1] == NULL);
    CHECK_STR(p->seeds[0], seed_path);
    CHECK_CONTAINS(p->snapshot_name, "validation-snapshot-myjava-");
    CHECK_CONTAINS(p->sandbox_name, "myjava-sandbox-");
    /* the carried file comes first, the file's own steps after it */
    int n = 0;
    while (p->build_commands[n])
        n++;
    CHECK(n >= 2);
    CHECK_CONTAINS(p->build_commands[0], "/opt/t/tool.sh");
    CHECK_STR(p->build_commands[n - 1], "echo built");
    int listed = 0;
    const char *const *names;
    CHECK_INT(dval_profile_names(&names), DVAL_OK);
    for (; *names; names++)
        listed += !strcmp(*names, "myjava");
    CHECK_INT(listed, 1);
    cleanup();
}

/* Reloads p.json with tool.sh holding `tool` and returns its snapshot's
 * name (static storage of the registry). */
static const char *snapshot_with(const char *tool, const char *image)
{
    put("tool.sh", tool);
    char text[600];
    snprintf(text, sizeof text, "{\"name\": \"stamped\", \"image\": \"%s\", "
             "\"run_command\": \"true\", \"files\": [{\"from\": \"tool.sh\", "
             "\"to\": \"/opt/tool.sh\"}]}", image);
    char err[512];
    CHECK_INT(dval_profile_load(put("s.json", text), NULL, err, sizeof err),
              DVAL_OK);
    return dval_profile_find("stamped")->snapshot_name;
}

TEST(test_profile_file__an_edit_names_another_snapshot)
{
    char a[256], b[256], c[256], again[256];
    snprintf(a, sizeof a, "%s", snapshot_with("one\n", "debian-12"));
    snprintf(b, sizeof b, "%s", snapshot_with("two\n", "debian-12"));
    snprintf(c, sizeof c, "%s", snapshot_with("two\n", "debian-13"));
    snprintf(again, sizeof again, "%s", snapshot_with("one\n", "debian-12"));
    CHECK(strcmp(a, b) != 0);
    CHECK(strcmp(b, c) != 0);
    CHECK_STR(a, again);
    cleanup();
}

TEST(test_profile_file__each_mistake_is_named)
{
    static const struct { const char *text, *says; int rc; } t[] = {
        {"{\"name\": \"x\"", "line", DVAL_EINVAL},
        {"[1]", "one JSON object", DVAL_EINVAL},
        {"{\"image\": \"debian-12\", \"run_command\": \"true\"}",
         "\"name\" must be a non-empty string (it is required)", DVAL_EINVAL},
        {"{\"name\": \"a/b\", \"image\": \"i\", \"run_command\": \"true\"}",
         "\"name\":", DVAL_EINVAL},
        {"{\"name\": \"a\", \"run_command\": \"true\"}", "\"image\"",
         DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\"}", "\"run_command\"",
         DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"colour\": 1}", "unknown field \"colour\"", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"build_steps\": \"make\"}", "must be an array", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"build_steps\": [\"\"]}", "non-empty string", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"channel_prefix\": \"lower\"}", "capital letters", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"files\": [{\"from\": \"nope.sh\", \"to\": \"/x\"}]}", "nope.sh",
         DVAL_EIO},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"files\": [{\"from\": \"p.json\"}]}", "each of \"files\"",
         DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"files\": [{\"from\": \"bad.json\", \"to\": \"/x\", \"mode\": "
         "\"rwx\"}]}", "octal", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"services\": [\"mongodb\"]}", "unknown service \"mongodb\"",
         DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"services\": \"postgres\"}", "must be an array", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"seeds\": [\"bad.json\"]}", "without \"services\"", DVAL_EINVAL},
        {"{\"name\": \"a\", \"extends\": \"cobol\"}",
         "\"extends\": unknown profile \"cobol\"", DVAL_EINVAL},
        {"{\"name\": \"a\", \"image\": \"i\", \"run_command\": \"t\", "
         "\"services\": [\"sqlite\"], \"seeds\": [\"nope.sql\"]}",
         "nope.sql", DVAL_EIO},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char err[512];
        int rc = load_err(t[i].text, err, sizeof err);
        if (rc != t[i].rc || !strstr(err, t[i].says) ||
            !strstr(err, "bad.json"))
            fprintf(stderr, "case %zu: rc %d: %s\n", i, rc, err);
        CHECK_INT(rc, t[i].rc);
        CHECK_CONTAINS(err, t[i].says);
        CHECK_CONTAINS(err, "bad.json");
    }
    char err[64] = "unchanged";
    CHECK_INT(dval_profile_load(NULL, NULL, err, sizeof err), DVAL_EINVAL);
    CHECK_INT(dval_profile_load("/nonexistent/p.json", NULL, NULL, 0),
              DVAL_EIO);
    CHECK(dval_profile_find("a") == NULL);
    cleanup();
}

/* "extends": the base's image, commands, channels and steps stand; the
 * file's steps come after the base's, in both step lists; what the file
 * gives replaces the base's. */
TEST(test_profile_file__extends_a_profile)
{
    const dval_profile *java = dval_profile_find("java");
    const char *path = put("more.json",
        "{\"name\": \"java-more\", \"extends\": \"java\",\n"
        " \"build_steps\": [\"echo more\"]}");
    char err[512];
    CHECK_INT(dval_profile_load(path, NULL, err, sizeof err), DVAL_OK);
    const dval_profile *p = dval_profile_find("java-more");
    CHECK(p != NULL);
    CHECK_STR(p->image, java->image);
    CHECK_STR(p->run_command, java->run_command);
    CHECK_STR(p->build_command, java->build_command);
    CHECK_STR(p->channel_prefix, java->channel_prefix);
    size_t n = 0, nl = 0, jn = 0, jl = 0;
    while (java->build_commands[jn])
        jn++;
    while (java->local_build_commands[jl])
        jl++;
    while (p->build_commands[n])
        n++;
    while (p->local_build_commands[nl])
        nl++;
    CHECK_INT(n, jn + 1);
    CHECK_INT(nl, jl + 1);
    for (size_t i = 0; i < jn; i++)
        CHECK_STR(p->build_commands[i], java->build_commands[i]);
    CHECK_STR(p->build_commands[jn], "echo more");
    CHECK_STR(p->local_build_commands[jl], "echo more");
    CHECK(strcmp(p->snapshot_name, java->snapshot_name) != 0);
    /* what the file gives replaces the base's */
    path = put("other.json", "{\"name\": \"java-other\", \"extends\": "
               "\"java\", \"run_command\": \"exec sh mine.sh\", "
               "\"image\": \"debian:12-slim\"}");
    CHECK_INT(dval_profile_load(path, NULL, err, sizeof err), DVAL_OK);
    p = dval_profile_find("java-other");
    CHECK_STR(p->run_command, "exec sh mine.sh");
    CHECK_STR(p->image, "debian:12-slim");
    CHECK_STR(p->build_command, java->build_command);
    cleanup();
}
