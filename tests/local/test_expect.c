/* An expected result compared with what a real program (shell profile,
 * local executor) wrote: its stdout as text, a results file as JSON with
 * an ignore path and a tolerance; passed, wrong_results with the
 * difference named, and a bad request refused before anything runs. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lt.h"

typedef struct want {
    const char *expected, *file;
    const dval_compare_options *cmp;
} want;

/* Validates dir against w; the summary (freed by the caller), *rc. */
static json_t *validate(dval_client *c, const char *dir, const want *w,
                        int *rc)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.expected = w->expected;
    req.expected_len = w->expected ? strlen(w->expected) : 0;
    req.expected_file = w->file;
    req.compare = w->cmp;
    char *sum = NULL;
    *rc = dval_validate(c, &req, NULL, NULL, &sum);
    json_t *j = sum ? json_loads(sum, 0, NULL) : NULL;
    dval_free(sum);
    return j;
}

static const char *str(const json_t *j, const char *k)
{
    return json_string_value(json_object_get(j, k));
}

static const json_t *first_diff(const json_t *j)
{
    return json_array_get(json_object_get(json_object_get(j, "comparison"),
                                          "diff"), 0);
}

#define PRINTS "printf 'sum=5050\\ncount=100\\n'\n"

TEST(test_expect__stdout_as_text)
{
    lt t;
    lt_open(&t, "expect-text");
    dval_client *c = lt_client(&t);
    const char *d = lt_shell_dir(&t, "text", PRINTS);
    int rc;
    /* trailing spaces and a last blank line are no difference in text */
    want w = { .expected = "sum=5050  \ncount=100\n\n" };
    json_t *j = validate(c, d, &w, &rc);
    CHECK_INT(rc, DVAL_OK);
    CHECK_STR(str(j, "verdict"), "passed");
    CHECK_STR(str(j, "verdict_detail"), "built, ran and gave the expected "
              "result");
    const json_t *cmp = json_object_get(j, "comparison");
    CHECK_STR(str(cmp, "with"), "stdout");
    CHECK_STR(str(cmp, "mode"), "text");
    CHECK_INT(json_integer_value(json_object_get(cmp, "differences")), 0);
    json_decref(j);
    w.expected = "sum=5051\ncount=100\n";
    j = validate(c, d, &w, &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_STR(str(j, "verdict"), "wrong_results");
    CHECK_STR(str(j, "verdict_detail"), "stdout differs from the expected "
              "result in 1 place: line 1: expected \"sum=5051\", got "
              "\"sum=5050\"");
    CHECK_STR(str(first_diff(j), "path"), "line 1");
    CHECK_STR(dval_client_errmsg(c), "compare: stdout differs from the "
              "expected result in 1 place: line 1: expected \"sum=5051\", "
              "got \"sum=5050\"");
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_expect__results_file_as_json)
{
    lt t;
    lt_open(&t, "expect-json");
    dval_client *c = lt_client(&t);
    const char *d = lt_shell_dir(&t, "json", "echo '{\"total\":10.0000001,"
                             "\"at\":\"'$(date +%s%N)'\",\"rows\":[1,2]}' "
                             "> \"$DVAL_RESULTS_DIR/out.json\"\n");
    const char *ign[] = { "$.at", NULL };
    dval_compare_options o;
    dval_compare_options_init(&o, sizeof o);
    o.ignore = ign;
    o.abs_tolerance = 1e-6;
    want w = { .expected = "{\"rows\":[1,2],\"total\":10}",
               .file = "out.json", .cmp = &o };
    int rc;
    json_t *j = validate(c, d, &w, &rc);
    CHECK_INT(rc, DVAL_OK);
    CHECK_STR(str(j, "verdict"), "passed");
    CHECK_STR(str(json_object_get(j, "comparison"), "with"),
              "results/out.json");
    json_decref(j);
    w.expected = "{\"rows\":[1,3],\"total\":10}";
    j = validate(c, d, &w, &rc);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_STR(str(j, "verdict"), "wrong_results");
    CHECK_STR(str(first_diff(j), "path"), "$.rows[1]");
    CHECK_CONTAINS(str(j, "verdict_detail"), "results/out.json differs "
                   "from the expected result in 1 place: $.rows[1]: "
                   "expected 3, got 2");
    json_decref(j);
    /* a file the program did not write is missing */
    w.file = "other.json";
    j = validate(c, d, &w, &rc);
    CHECK_STR(str(j, "verdict"), "wrong_results");
    CHECK_STR(str(first_diff(j), "kind"), "missing");
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_expect__a_failed_program_keeps_its_verdict_and_bad_requests)
{
    lt t;
    lt_open(&t, "expect-bad");
    dval_client *c = lt_client(&t);
    const char *d = lt_shell_dir(&t, "fail", PRINTS "exit 2\n");
    want w = { .expected = "sum=5050\ncount=100\n" };
    int rc;
    json_t *j = validate(c, d, &w, &rc);
    CHECK_STR(str(j, "verdict"), "runtime_error");
    CHECK(json_is_null(json_object_get(j, "comparison")));
    json_decref(j);
    /* refused before anything runs: no summary */
    want bad = { .expected = "{", .file = "out.json" };
    CHECK(validate(c, d, &bad, &rc) == NULL);
    CHECK_INT(rc, DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "request: the expected result is "
                   "not JSON");
    want esc = { .expected = "{}", .file = "../x.json" };
    CHECK(validate(c, d, &esc, &rc) == NULL);
    CHECK_INT(rc, DVAL_EINVAL);
    const char *ign[] = { "nope", NULL };
    dval_compare_options o;
    dval_compare_options_init(&o, sizeof o);
    o.ignore = ign;
    want badign = { .expected = "{}", .file = "out.json", .cmp = &o };
    CHECK(validate(c, d, &badign, &rc) == NULL);
    CHECK_CONTAINS(dval_client_errmsg(c), "ignore path \"nope\"");
    want nofile = { .file = "out.json" };
    CHECK(validate(c, d, &nofile, &rc) == NULL);
    CHECK_INT(rc, DVAL_EINVAL);
    dval_client_free(c);
    lt_close(&t);
}
