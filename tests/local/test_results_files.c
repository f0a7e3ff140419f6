/* Every plain file a program writes under its results directory comes
 * back (issue 39): *.json ones parsed in "results" as before, the others
 * byte-exact in "files" (text when UTF-8, else base64) and through
 * dval_result_file; links still refused, the results budget still
 * holds (a file counted as the summary holds it: escaped text or
 * base64), and "results missing" names the files that did come. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "lt.h"

/* out.txt: UTF-8 with multibyte characters; bin.dat: NUL and 0xff */
#define TXT "h\303\251llo \342\202\254 \360\237\230\200\n"
#define BIN "a\000b\377\376c"
#define BIN_LEN 6
#define CSV "x,y\n1,2\n"
#define WRITES "cd \"$DVAL_RESULTS_DIR\"\n" \
    "echo '{\"n\":1}' > r.json\n" \
    "printf '" TXT "' > out.txt\n" \
    "printf 'a\\000b\\377\\376c' > bin.dat\n" \
    "mkdir sub && printf 'x,y\\n1,2\\n' > sub/x.csv\n"

static json_t *validate(dval_client *c, const char *dir, int *rc)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    char *sum = NULL;
    *rc = dval_validate(c, &req, NULL, NULL, &sum);
    json_t *j = sum ? json_loads(sum, 0, NULL) : NULL;
    dval_free(sum);
    return j;
}

static const json_t *file(const json_t *j, const char *name)
{
    return json_object_get(json_object_get(j, "files"), name);
}

static const char *member(const json_t *j, const char *name, const char *k)
{
    return json_string_value(json_object_get(file(j, name), k));
}

static json_int_t bytes(const json_t *j, const char *name)
{
    return json_integer_value(json_object_get(file(j, name), "bytes"));
}

TEST(test_results_files__every_file_in_the_summary)
{
    lt t;
    lt_open(&t, "resfiles-sum");
    dval_client *c = lt_client(&t);
    int rc;
    json_t *j = validate(c, lt_shell_dir(&t, "all", WRITES), &rc);
    CHECK_INT(rc, DVAL_OK);
    CHECK(j != NULL);
    const json_t *res = json_object_get(j, "results");
    CHECK_INT(json_object_size(res), 1);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(res,
                                 "r.json"), "n")), 1);
    CHECK_INT(json_object_size(json_object_get(j, "files")), 3);
    CHECK_STR(member(j, "out.txt", "text"), TXT);
    CHECK_INT(bytes(j, "out.txt"), strlen(TXT));
    CHECK(!member(j, "out.txt", "base64"));
    CHECK_STR(member(j, "bin.dat", "base64"), "YQBi//5j");
    CHECK(!member(j, "bin.dat", "text"));
    CHECK_INT(bytes(j, "bin.dat"), BIN_LEN);
    CHECK_STR(member(j, "sub/x.csv", "text"), CSV);
    CHECK(!file(j, "r.json"));
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

static void check_file(const dval_result *r, size_t i, const char *name,
                       const char *data, size_t len, int is_json)
{
    dval_file_info f;
    CHECK_INT(dval_result_file(r, i, &f, sizeof f), DVAL_OK);
    CHECK_INT(f.struct_size, sizeof f);
    CHECK_STR(f.name, name);
    CHECK_INT(f.is_json, is_json);
    CHECK_INT(f.len, len);
    CHECK(f.data && !memcmp(f.data, data, len) && !f.data[len]);
    if (!is_json) /* its "files" entry, for a caller before 0.1.7 */
        CHECK(f.json && f.json[0] == '{' && f.json_len == strlen(f.json));
}

TEST(test_results_files__every_file_in_the_typed_result)
{
    lt t;
    lt_open(&t, "resfiles-typed");
    dval_client *c = lt_client(&t);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = lt_shell_dir(&t, "typed", WRITES);
    dval_result *r = NULL;
    CHECK_INT(dval_validate_result(&r, c, &req, NULL, NULL), DVAL_OK);
    CHECK_INT(dval_result_file_count(r), 4);
    check_file(r, 0, "bin.dat", BIN, BIN_LEN, 0);
    check_file(r, 1, "out.txt", TXT, strlen(TXT), 0);
    check_file(r, 2, "r.json", "{\"n\":1}", 7, 1);
    check_file(r, 3, "sub/x.csv", CSV, strlen(CSV), 0);
    dval_file_info f;
    CHECK_INT(dval_result_file(r, 2, &f, sizeof f), DVAL_OK);
    CHECK_STR(f.json, "{\"n\":1}");
    CHECK_INT(f.json_len, 7);
    CHECK_INT(dval_result_file(r, 4, &f, sizeof f), DVAL_ENOTFOUND);
    /* a caller of the struct before 0.1.7 gets name and json only */
    struct { size_t struct_size; const char *name, *json; size_t json_len; }
        old;
    CHECK_INT(dval_result_file(r, 0, (dval_file_info *)&old, sizeof old),
              DVAL_OK);
    CHECK_INT(old.struct_size, sizeof old);
    CHECK_STR(old.name, "bin.dat");
    dval_result_free(r);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_results_files__links_refused_and_budget_kept)
{
    lt t;
    lt_open(&t, "resfiles-refuse");
    dval_client *c = lt_client(&t);
    int rc;
    json_t *j = validate(c, lt_shell_dir(&t, "link", "cd \"$DVAL_RESULTS_DIR\"\n"
                         "ln -s /etc/passwd p.txt\n"
                         "echo '{}' > ok.json\n"), &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK(!file(j, "p.txt"));
    CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j,
                   "errors"), 0)), "results/p.txt: not a plain file");
    json_decref(j);
    /* three files of 30 MB: over the 64 MiB of all the results */
    j = validate(c, lt_shell_dir(&t, "big", "cd \"$DVAL_RESULTS_DIR\"\n"
                 "echo '{}' > ok.json\n"
                 "for i in 1 2 3; do head -c 30000000 /dev/zero | tr '\\0' a "
                 "> big$i.txt; done\n"), &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_INT(bytes(j, "big1.txt"), 30000000);
    CHECK_INT(bytes(j, "big2.txt"), 30000000);
    CHECK(!file(j, "big3.txt"));
    CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j,
                   "errors"), 0)), "results/big3.txt: over the bounds on all "
                   "of a validation's results");
    json_decref(j);
    /* counted as the summary holds them: 12 MB of \x01, text but 6
     * bytes each escaped ("\u0001"), is 72 MB there: refused */
    j = validate(c, lt_shell_dir(&t, "ctl", "cd \"$DVAL_RESULTS_DIR\"\n"
                 "echo '{}' > ok.json\n"
                 "head -c 12000000 /dev/zero | tr '\\0' '\\1' > ctl.txt\n"),
                 &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK(!file(j, "ctl.txt"));
    CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j,
                   "errors"), 0)), "results/ctl.txt: over the bounds");
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_results_files__missing_names_what_was_written)
{
    lt t;
    lt_open(&t, "resfiles-missing");
    dval_client *c = lt_client(&t);
    int rc;
    json_t *j = validate(c, lt_shell_dir(&t, "txt", "cd \"$DVAL_RESULTS_DIR\"\n"
                         "echo hi > out.txt\nmkdir d && echo x > d/b.csv\n"),
                         &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_STR(json_string_value(json_object_get(j, "verdict")),
              "results_missing");
    CHECK_CONTAINS(dval_client_errmsg(c), "wrote no *.json file under ");
    CHECK_CONTAINS(dval_client_errmsg(c), "(only other files: d/b.csv, "
                   "out.txt)");
    CHECK_STR(member(j, "out.txt", "text"), "hi\n");
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

/* A validation's own bound on its results (results_bytes): a program
 * that writes more than it allows gets results_invalid, one that writes
 * less passes; a bound past the library's own is refused up front. */
TEST(test_results_files__the_requests_results_bound)
{
    lt t;
    lt_open(&t, "resfiles-bound");
    dval_client *c = lt_client(&t);
    const char *dir = lt_shell_dir(&t, "two", "cd \"$DVAL_RESULTS_DIR\"\n"
                                   "echo '{\"n\":1}' > r.json\n"
                                   "head -c 200000 /dev/zero | tr '\\\\0' a"
                                   " > big.txt\n");
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.results_bytes = 100000;
    char *sum = NULL;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_ERESULTS);
    json_t *j = json_loads(sum, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(j, "verdict")),
              "results_invalid");
    CHECK_CONTAINS(json_string_value(json_object_get(j, "verdict_detail")),
                   "100000 bytes");
    json_decref(j);
    dval_free(sum);
    req.results_bytes = 300000;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_OK);
    dval_free(sum);
    req.results_bytes = -1;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "results_bytes");
    dval_free(sum);
    req.results_bytes = (int64_t)1 << 40;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_EINVAL);
    dval_free(sum);
    dval_client_free(c);
    lt_close(&t);
}
