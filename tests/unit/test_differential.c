/* Differential validation's judgement through its public call:
 * dval_differential over two validations' summaries (equivalent,
 * differs with the diff, a side that did not pass, bad input). */
#include <jansson.h>
#include <string.h>

#include "harness.h"
#include "dval.h"

#define PASSED(results) \
    "{\"verdict\":\"passed\",\"verdict_detail\":\"\",\"results\":" results "}"

typedef struct judged {
    int rc, outcome;
    json_t *report;
} judged;

static judged judge(const char *orig, const char *trans,
                    const dval_compare_options *o)
{
    judged j = { 0 };
    char *report = NULL;
    j.rc = dval_differential(&j.outcome, &report, orig, trans, o);
    if (j.rc == DVAL_OK) {
        CHECK(report != NULL);
        j.report = json_loads(report, 0, NULL);
        CHECK(json_is_object(j.report));
    } else {
        CHECK(report == NULL);
    }
    dval_free(report);
    return j;
}

static const char *str(json_t *j, const char *k)
{
    return json_string_value(json_object_get(j, k));
}

TEST(test_differential__equivalent_and_differs)
{
    judged j = judge(PASSED("{\"r.json\":{\"n\":1,\"rows\":[1,2]}}"),
                     PASSED("{\"r.json\":{\"rows\":[1,2],\"n\":1}}"), NULL);
    CHECK_INT(j.rc, DVAL_OK);
    CHECK_INT(j.outcome, DVAL_DIFF_EQUIVALENT);
    CHECK_STR(str(j.report, "verdict"), "equivalent");
    CHECK_STR(str(j.report, "verdict_detail"),
              "both passed with the same results");
    CHECK_INT(json_integer_value(json_object_get(j.report, "differences")),
              0);
    CHECK(json_is_null(json_object_get(j.report, "failed_side")));
    json_decref(j.report);

    j = judge(PASSED("{\"r.json\":{\"n\":1,\"rows\":[1,2]}}"),
              PASSED("{\"r.json\":{\"n\":1,\"rows\":[1,3]}}"), NULL);
    CHECK_INT(j.outcome, DVAL_DIFF_DIFFERS);
    CHECK_STR(str(j.report, "verdict"), "differs");
    CHECK_STR(str(j.report, "verdict_detail"), "1 difference in the "
              "results, the first at $[\"r.json\"].rows[1]");
    json_t *d = json_array_get(json_object_get(j.report, "diff"), 0);
    CHECK_INT(json_integer_value(json_object_get(d, "expected")), 2);
    CHECK_INT(json_integer_value(json_object_get(d, "actual")), 3);
    json_decref(j.report);
}

TEST(test_differential__options_reach_the_comparison)
{
    const char *ign[] = { "$..at", NULL };
    dval_compare_options o;
    dval_compare_options_init(&o, sizeof o);
    o.ignore = ign;
    o.abs_tolerance = 0.01;
    judged j = judge(PASSED("{\"r.json\":{\"x\":1.0,\"at\":\"12:00\"}}"),
                     PASSED("{\"r.json\":{\"x\":1.005,\"at\":\"12:01\"}}"),
                     &o);
    CHECK_INT(j.outcome, DVAL_DIFF_EQUIVALENT);
    json_decref(j.report);
    o.abs_tolerance = -1;
    j = judge(PASSED("{}"), PASSED("{}"), &o);
    CHECK_INT(j.rc, DVAL_EINVAL);
}

TEST(test_differential__a_side_that_did_not_pass_gives_its_verdict)
{
    const char *bad = "{\"verdict\":\"compile_error\",\"verdict_detail\":"
                      "\"Main.java:3: error: ';' expected\"}";
    judged j = judge(PASSED("{}"), bad, NULL);
    CHECK_INT(j.rc, DVAL_OK);
    CHECK_INT(j.outcome, DVAL_DIFF_TRANSLATION_FAILED);
    CHECK_STR(str(j.report, "verdict"), "compile_error");
    CHECK_STR(str(j.report, "failed_side"), "translation");
    CHECK_STR(str(j.report, "verdict_detail"), "the translation did not "
              "pass: Main.java:3: error: ';' expected");
    json_decref(j.report);
    /* both failed: the original's is told first */
    j = judge("{\"verdict\":\"runtime_error\",\"verdict_detail\":\"exit 1\"}",
              bad, NULL);
    CHECK_INT(j.outcome, DVAL_DIFF_ORIGINAL_FAILED);
    CHECK_STR(str(j.report, "verdict"), "runtime_error");
    json_decref(j.report);
}

TEST(test_differential__bad_input_refused)
{
    int outcome = 7;
    char *report = (char *)"x";
    CHECK_INT(dval_differential(&outcome, &report, NULL, PASSED("{}"), NULL),
              DVAL_EINVAL);
    CHECK(report == NULL);
    CHECK_INT(outcome, 0);
    CHECK_INT(dval_differential(&outcome, &report, "not json", PASSED("{}"),
                                NULL), DVAL_EINVAL);
    CHECK_INT(dval_differential(&outcome, &report, "{}", PASSED("{}"), NULL),
              DVAL_EINVAL); /* no verdict: not a summary */
    CHECK_INT(dval_differential(NULL, &report, PASSED("{}"), PASSED("{}"),
                                NULL), DVAL_EINVAL);
    CHECK_INT(dval_differential(&outcome, NULL, PASSED("{}"), PASSED("{}"),
                                NULL), DVAL_EINVAL);
    /* a passed summary with no results compares as no results */
    judged j = judge("{\"verdict\":\"passed\"}", PASSED("{}"), NULL);
    CHECK_INT(j.outcome, DVAL_DIFF_EQUIVALENT);
    json_decref(j.report);
}
