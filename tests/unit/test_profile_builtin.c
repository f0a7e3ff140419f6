/* The built-in profiles are the files profiles/builtin/NAME.json (issue
 * 42): what the library embedded is what the profile-file parser gives
 * for those files, once the build's packed files (the compile services'
 * sources, base64) stand in for their @NAME@ marks, so the two never
 * drift apart; and every file there is a built-in profile. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dotnet_profile_files.h"
#include "javac_service_files.h"
#include "tmpfiles.h"

#include <dval.h>

static char dir[] = "/tmp/dval-unit-pbuiltin-XXXXXX";

static const char *const marks[][2] = {
    {"@JAVAC_SERVICE_JAVA_B64@", JAVAC_SERVICE_JAVA_B64},
    {"@JAVAC_SERVICE_CLIENT_B64@", JAVAC_SERVICE_CLIENT_B64},
    {"@JAVAC_SERVICE_BUILD_B64@", JAVAC_SERVICE_BUILD_B64},
    {"@JAVAC_SERVICE_RUN_B64@", JAVAC_SERVICE_RUN_B64},
    {"@JAVAC_SERVICE_RELAY_B64@", JAVAC_SERVICE_RELAY_B64},
    {"@DOTNET_PROFILE_TGZ_B64@", DOTNET_PROFILE_TGZ_B64},
};

/* The file's text with the marks filled in (free it). */
static char *filled(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t cap = 1 << 20, n = 0;
    char *in = calloc(1, cap), *out = calloc(1, 4 * cap);
    CHECK(in && out);
    n = fread(in, 1, cap - 1, f);
    fclose(f);
    CHECK(n < cap - 1);
    char *o = out;
    for (const char *p = in; *p;) {
        size_t k = 0;
        while (k < sizeof marks / sizeof marks[0] &&
               strncmp(p, marks[k][0], strlen(marks[k][0])))
            k++;
        if (k == sizeof marks / sizeof marks[0]) {
            *o++ = *p++;
            continue;
        }
        o += sprintf(o, "%s", marks[k][1]);
        p += strlen(marks[k][0]);
    }
    free(in);
    return out;
}

static void same_str(const char *a, const char *b)
{
    CHECK((a == NULL) == (b == NULL));
    if (a)
        CHECK_STR(a, b);
}

static void same_strv(const char *const *a, const char *const *b)
{
    size_t i = 0;
    for (; a && a[i]; i++) {
        CHECK(b && b[i]);
        CHECK_STR(a[i], b[i]);
    }
    CHECK(!b || !b[i]);
}

static void same_profile(const dval_profile *a, const dval_profile *b)
{
    same_str(a->name, b->name);
    same_str(a->sandbox_name, b->sandbox_name);
    same_str(a->snapshot_name, b->snapshot_name);
    same_str(a->image, b->image);
    same_strv(a->build_commands, b->build_commands);
    same_str(a->channel_prefix, b->channel_prefix);
    same_str(a->run_command, b->run_command);
    same_strv(a->local_build_commands, b->local_build_commands);
    same_str(a->local_requires, b->local_requires);
    same_str(a->local_unavailable_msg, b->local_unavailable_msg);
    same_str(a->build_command, b->build_command);
    same_strv(a->services, b->services);
    same_strv(a->seeds, b->seeds);
    CHECK_INT(a->memory_mib, b->memory_mib);
    CHECK_INT(a->max_processes, b->max_processes);
    CHECK_INT(a->cpu_time_ms, b->cpu_time_ms);
    CHECK_INT(a->output_bytes, b->output_bytes);
    CHECK_INT(a->timeout_ms, b->timeout_ms);
}

TEST(test_profile_builtin__the_embedded_profiles_are_the_files)
{
    glob_t g;
    CHECK_INT(glob("profiles/builtin/*.json", 0, NULL, &g), 0);
    CHECK(g.gl_pathc >= 3);
    const char *const *names = NULL;
    CHECK_INT(dval_profile_names(&names), DVAL_OK);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s", strrchr(g.gl_pathv[i], '/') + 1);
        *strstr(name, ".json") = '\0';
        /* every file a built-in, in the files' order */
        CHECK(names[i] != NULL);
        CHECK_STR(names[i], name);
        const dval_profile *builtin = dval_profile_find(name);
        CHECK(builtin != NULL);
        char *text = filled(g.gl_pathv[i]);
        char file[80], err[512];
        snprintf(file, sizeof file, "%s.json", name);
        const char *loaded = NULL;
        CHECK_INT(dval_profile_load(tmp_put(dir, file, text), &loaded, err,
                                    sizeof err), DVAL_OK);
        free(text);
        const dval_profile *p = dval_profile_find(loaded);
        CHECK(p != builtin); /* the file's, registered over the built-in */
        same_profile(builtin, p);
    }
    CHECK(names[g.gl_pathc] == NULL);
    globfree(&g);
    tmp_remove(dir);
}

TEST(test_profile_builtin__the_built_ins_keep_their_names)
{
    /* the sandboxes' names the profiles have always had, then a stamp */
    CHECK_CONTAINS(dval_profile_find("java")->sandbox_name,
                   "java-25-sandbox-");
    CHECK_CONTAINS(dval_profile_find("dotnet")->sandbox_name,
                   "dotnet-10-sandbox-");
    CHECK_CONTAINS(dval_profile_find("shell")->snapshot_name,
                   "validation-snapshot-shell-");
}
