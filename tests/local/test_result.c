/* The typed result (dval_validate_result) of real shell programs on the
 * local executor: verdict, exit code, signal, the run phase's output,
 * the results files and the differences from an expected result, read
 * with accessors only; structs of an older (smaller) size. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lt.h"

static dval_result *validate(dval_client *c, const char *dir,
                             const char *expected, int *rc)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    if (expected) {
        req.expected = expected;
        req.expected_len = strlen(expected);
        req.expected_file = "b.json";
    }
    dval_result *r = NULL;
    *rc = dval_validate_result(&r, c, &req, NULL, NULL);
    return r;
}

#define WRITES "echo hello; echo oops >&2\n" \
    "echo '{\"n\":1}' > \"$DVAL_RESULTS_DIR/b.json\"\n" \
    "echo '[true]' > \"$DVAL_RESULTS_DIR/a.json\"\n"

TEST(test_result__a_passing_program_read_without_json)
{
    lt t;
    lt_open(&t, "result-pass");
    dval_client *c = lt_client(&t);
    int rc;
    dval_result *r = validate(c, lt_shell_dir(&t, "ok", WRITES), NULL, &rc);
    CHECK(r != NULL);
    CHECK_INT(rc, DVAL_OK);
    CHECK_INT(dval_result_status(r), DVAL_OK);
    CHECK_INT(dval_result_verdict(r), DVAL_VERDICT_PASSED);
    CHECK_STR(dval_result_verdict_detail(r), "built, ran and wrote its "
              "results");
    CHECK_INT(dval_result_exit_code(r), 0);
    CHECK_INT(dval_result_signal(r), 0);
    CHECK_CONTAINS(dval_result_summary(r), "\"verdict\":\"passed\"");
    dval_phase_info p;
    CHECK_INT(dval_result_phase(r, "run", &p, sizeof p), DVAL_OK);
    CHECK_INT(p.struct_size, sizeof p);
    CHECK_INT(p.exited, 1);
    CHECK_INT(p.exit_code, 0);
    CHECK(p.wall_ms >= 0);
    CHECK_STR(p.stdout_data, "hello\n");
    CHECK_INT(p.stdout_len, 6);
    CHECK_STR(p.stderr_data, "oops\n");
    CHECK_INT(dval_result_phase(r, "build", &p, sizeof p), DVAL_ENOTFOUND);
    CHECK_INT(dval_result_file_count(r), 2);
    dval_file_info f;
    CHECK_INT(dval_result_file(r, 0, &f, sizeof f), DVAL_OK);
    CHECK_STR(f.name, "a.json");
    CHECK_STR(f.json, "[true]");
    CHECK_INT(dval_result_file(r, 1, &f, sizeof f), DVAL_OK);
    CHECK_STR(f.name, "b.json");
    CHECK_STR(f.json, "{\"n\":1}");
    CHECK_INT(f.json_len, 7);
    CHECK_INT(dval_result_file(r, 2, &f, sizeof f), DVAL_ENOTFOUND);
    CHECK_INT(dval_result_differences(r), 0);
    dval_diff_entry d;
    CHECK_INT(dval_result_diff(r, 0, &d, sizeof d), DVAL_ENOTFOUND);
    /* a caller of an older, smaller phase struct gets its fields only */
    struct { size_t struct_size; int32_t exited, exit_code, signal;
             int64_t wall_ms; } old;
    CHECK_INT(dval_result_phase(r, "run", (dval_phase_info *)&old,
                                sizeof old), DVAL_OK);
    CHECK_INT(old.struct_size, sizeof old);
    CHECK_INT(old.exited, 1);
    CHECK_INT(dval_result_phase(r, "run", &p, 4), DVAL_EABI);
    dval_result_free(r);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_result__signal_differences_and_bad_requests)
{
    lt t;
    lt_open(&t, "result-fail");
    dval_client *c = lt_client(&t);
    int rc;
    dval_result *r = validate(c, lt_shell_dir(&t, "segv", "kill -SEGV $$\n"),
                              NULL, &rc);
    CHECK(r != NULL);
    CHECK_INT(dval_result_verdict(r), DVAL_VERDICT_RUNTIME_ERROR);
    CHECK_INT(dval_result_exit_code(r), 128 + 11);
    CHECK_INT(dval_result_signal(r), 11);
    CHECK_INT(dval_result_status(r), rc);
    dval_phase_info p;
    CHECK_INT(dval_result_phase(r, "run", &p, sizeof p), DVAL_OK);
    CHECK_INT(p.signal, 11);
    dval_result_free(r);
    r = validate(c, lt_shell_dir(&t, "wrong", WRITES), "{\"n\":2}", &rc);
    CHECK(r != NULL);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_INT(dval_result_verdict(r), DVAL_VERDICT_WRONG_RESULTS);
    CHECK_INT(dval_result_differences(r), 1);
    dval_diff_entry d;
    CHECK_INT(dval_result_diff(r, 0, &d, sizeof d), DVAL_OK);
    CHECK_STR(d.path, "$.n");
    CHECK_STR(d.kind, "changed");
    CHECK_STR(d.expected, "2");
    CHECK_STR(d.actual, "1");
    dval_result_free(r);
    /* an invalid request: no result, the status */
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "nope";
    req.source_dir = t.dir;
    r = (dval_result *)1;
    CHECK_INT(dval_validate_result(&r, c, &req, NULL, NULL), DVAL_EINVAL);
    CHECK(r == NULL);
    CHECK_INT(dval_validate_result(NULL, c, &req, NULL, NULL), DVAL_EINVAL);
    dval_result_free(NULL);
    CHECK_INT(dval_result_verdict(NULL), 0);
    CHECK_STR(dval_result_verdict_detail(NULL), "");
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_result__through_a_pool)
{
    lt t;
    lt_open(&t, "result-pool");
    dval_client *c = lt_client(&t);
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    dval_pool *pool = NULL;
    CHECK_INT(dval_pool_new(&pool, c, &o), DVAL_OK);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = lt_shell_dir(&t, "pool", WRITES);
    dval_result *r = NULL;
    CHECK_INT(dval_pool_validate_result(&r, pool, &req, NULL, NULL),
              DVAL_OK);
    CHECK(r != NULL);
    CHECK_INT(dval_result_verdict(r), DVAL_VERDICT_PASSED);
    CHECK_INT(dval_result_file_count(r), 2);
    dval_result_free(r);
    CHECK_INT(dval_pool_validate_result(NULL, pool, &req, NULL, NULL),
              DVAL_EINVAL);
    dval_pool_free(pool);
    dval_client_free(c);
    lt_close(&t);
}
