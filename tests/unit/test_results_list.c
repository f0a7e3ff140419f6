/* The results listing, both ways the core lists: the executor's file_list
 * and, for an executor without one, the core's listing command (a real sh
 * and find here, over a real directory standing for the sandbox). Both
 * must list the same: every plain file by its whole name, the others
 * refused by name, nothing for a missing or empty results dir. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

/* what the program leaves in its results dir (shell, run there) */
static const char *g_script;
static int g_ran;           /* the program was started from argv */

static void program(fake *f, const dval_command *cmd)
{
    const char *res = NULL;
    for (size_t i = 0; cmd->env && cmd->env[i]; i++)
        if (!strncmp(cmd->env[i], "DVAL_RESULTS_DIR=", 17))
            res = cmd->env[i] + 17;
    CHECK(res != NULL);
    g_ran++;
    char host[512], sh[2048];
    fake_map(f, res, host, sizeof host);
    snprintf(sh, sizeof sh, "cd '%s' && { %s; }", host, g_script);
    CHECK_INT(system(sh), 0);
}

/* A validation whose program runs script; file_list present or not. The
 * summary into *sum, the started commands into started. */
static int validate(int file_list, const char *script, int allow_missing,
                    char **sum, char *started, size_t cap)
{
    fake f;
    fake_init(&f);
    f.mkdir_ok = 1;
    CHECK(mkdtemp(strcpy(f.root, "/tmp/dval-unit-reslist-XXXXXX")) != NULL);
    f.on_argv = program;
    g_script = script;
    if (!file_list)
        fake_omit(&f, "file_list");
    dval_client *c = fake_client(&f, 0);
    char src[] = "/tmp/dval-unit-reslist-src-XXXXXX";
    CHECK(mkdtemp(src) != NULL);
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "shell";
    v.source_dir = src;
    v.run_command = "true";
    v.allow_missing_results = allow_missing;
    v.thread_id = "t1";  /* the same summary either way */
    *sum = NULL;
    g_ran = 0;
    int rc = dval_validate(c, &v, NULL, NULL, sum);
    /* the run command is a program (argv) with file_list or without */
    CHECK_INT(g_ran, 1);
    snprintf(started, cap, "%s", f.all_started);
    CHECK_CONTAINS(f.trace, file_list ? "file_list" : "cmd_start");
    dval_client_free(c);
    rmdir(src);
    char rm[400];
    snprintf(rm, sizeof rm, "rm -rf '%s'", f.root);
    CHECK_INT(system(rm), 0);
    return rc;
}

/* The summary's member name, as JSON text. */
static char *member(const char *sum, const char *name)
{
    json_t *o = json_loads(sum, 0, NULL);
    CHECK(o != NULL);
    char *text = json_dumps(json_object_get(o, name),
                            JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(o);
    return text;
}

/* Runs script both ways: the same status and the same results, files and
 * errors (errors sorted: the two walk in different orders). */
static int both(const char *script, int allow_missing, char **results,
                char **files, char **errors)
{
    int rc[2];
    char *r[2], *fl[2], *e[2], started[2][4096];
    for (int k = 0; k < 2; k++) {
        char *sum;
        rc[k] = validate(k, script, allow_missing, &sum, started[k],
                         sizeof started[k]);
        CHECK(sum != NULL);
        json_t *o = json_loads(sum, 0, NULL);
        json_t *errs = json_object_get(o, "errors");
        /* sort the notes by their text */
        size_t n = json_array_size(errs);
        for (size_t i = 0; i + 1 < n; i++)
            for (size_t j = 0; j + 1 < n - i; j++)
                if (strcmp(json_string_value(json_array_get(errs, j)),
                           json_string_value(json_array_get(errs, j + 1)))
                    > 0) {
                    json_t *t = json_incref(json_array_get(errs, j));
                    json_array_set(errs, j, json_array_get(errs, j + 1));
                    json_array_set_new(errs, j + 1, t);
                }
        e[k] = json_dumps(errs, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(o);
        r[k] = member(sum, "results");
        fl[k] = member(sum, "files");
        dval_free(sum);
    }
    /* the fallback listed with one command in the sandbox; file_list
     * without any */
    CHECK_CONTAINS(started[0], "-print0");
    CHECK(strstr(started[1], "-print0") == NULL);
    CHECK_INT(rc[0], rc[1]);
    CHECK_STR(r[0], r[1]);
    CHECK_STR(fl[0], fl[1]);
    CHECK_STR(e[0], e[1]);
    *results = r[1];
    *files = fl[1];
    *errors = e[1];
    free(r[0]);
    free(fl[0]);
    free(e[0]);
    return rc[1];
}

static void free3(char *a, char *b, char *c)
{
    free(a);
    free(b);
    free(c);
}

TEST(results_list__plain_files_by_their_whole_names_and_sizes)
{
    char *r, *f, *e;
    int rc = both("printf '{\"v\":1}' > 'a b.json'; mkdir -p sub/deeper; "
                  "printf '[1,2]' > sub/x.json; : > empty.txt; "
                  "printf hello > 'sub/deeper/c d.txt'", 0, &r, &f, &e);
    CHECK_INT(rc, DVAL_OK);
    CHECK_STR(r, "{\"a b.json\":{\"v\":1},\"sub/x.json\":[1,2]}");
    CHECK_STR(f, "{\"empty.txt\":{\"bytes\":0,\"text\":\"\"},"
                 "\"sub/deeper/c d.txt\":{\"bytes\":5,\"text\":\"hello\"}}");
    CHECK_STR(e, "[]");
    free3(r, f, e);
}

/* Links, FIFOs and a name the download cannot ask for (a newline in it)
 * are each refused by name, never dropped or split into other names. */
TEST(results_list__other_entries_and_odd_names_refused_by_name)
{
    char *r, *f, *e;
    int rc = both("printf '{\"ok\":1}' > good.json; "
                  "printf '{}' > \"$(printf 'n\\nl.json')\"; "
                  "ln -s good.json link.json; mkfifo fifo.json; "
                  "printf '{}' > h1.json; ln h1.json h2.json", 0, &r, &f,
                  &e);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_STR(r, "{\"good.json\":{\"ok\":1}}");
    CHECK_STR(f, "{}");
    const char *refused[] = { "fifo.json", "h1.json", "h2.json",
                              "link.json" };
    for (int i = 0; i < 4; i++) {
        char want[128];
        snprintf(want, sizeof want, "results/%s: not a plain file",
                 refused[i]);
        CHECK_CONTAINS(e, want);
    }
    CHECK_CONTAINS(e, "results/n?l.json: remote path contains control "
                      "characters");
    free3(r, f, e);
}

TEST(results_list__a_missing_or_empty_results_dir_lists_nothing)
{
    char *r, *f, *e;
    CHECK_INT(both("cd .. && rmdir results", 1, &r, &f, &e), DVAL_OK);
    CHECK_STR(r, "{}");
    CHECK_STR(f, "{}");
    CHECK_STR(e, "[]");
    free3(r, f, e);
    CHECK_INT(both(":", 1, &r, &f, &e), DVAL_OK);
    CHECK_STR(r, "{}");
    CHECK_STR(f, "{}");
    CHECK_STR(e, "[]");
    free3(r, f, e);
    /* and when results were due, the validation says none came */
    CHECK_INT(both("cd .. && rmdir results", 0, &r, &f, &e), DVAL_ERESULTS);
    CHECK_CONTAINS(e, "the program wrote no *.json file");
    free3(r, f, e);
}

/* A results dir that is a symbolic link is not followed either way. */
TEST(results_list__a_results_dir_that_is_a_symlink_is_refused)
{
    int rc[2];
    for (int k = 0; k < 2; k++) {
        char *sum, started[4096];
        rc[k] = validate(k, "cd .. && rmdir results && mkdir elsewhere && "
                         "printf '{}' > elsewhere/x.json && "
                         "ln -s elsewhere results", 0, &sum, started,
                         sizeof started);
        CHECK_CONTAINS(sum, "not a directory");
        CHECK(strstr(sum, "x.json") == NULL);
        dval_free(sum);
    }
    CHECK_INT(rc[0], DVAL_ERESULTS);
    CHECK_INT(rc[1], DVAL_ERESULTS);
}
