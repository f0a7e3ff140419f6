/* Differential validation's judgement, a policy of the core written once:
 * two validations' summaries in; "equivalent", "differs" with the
 * structural diff of their results, or the failed side's own verdict
 * out. The host runs the two validations as it likes (the CLI's diff on
 * two threads); the library starts none. */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "jsonutil.h"

static const char *const side_name[2] = { "original", "translation" };

/* A summary's tree, or NULL when the text is not one. */
static json_t *summary_of(const char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    if (j && !json_is_string(json_object_get(j, "verdict"))) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

static const char *member(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

/* Both passed: their results compared as JSON into report. */
static int compare(json_t *report, json_t *const side[2],
                   const dval_compare_options *opts, int *outcome)
{
    dval__cmp c;
    char msg[512], detail[1024];
    int rc = dval__cmp_init(&c, opts, DVAL_COMPARE_JSON, msg, sizeof msg);
    if (rc == DVAL_OK) {
        json_t *empty = json_object();
        c.mode = DVAL_COMPARE_JSON;
        const json_t *r0 = json_object_get(side[0], "results");
        const json_t *r1 = json_object_get(side[1], "results");
        rc = empty ? dval__cmp_json(&c, r0 ? r0 : empty, r1 ? r1 : empty)
                   : DVAL_ENOMEM;
        json_decref(empty);
    }
    if (rc != DVAL_OK) {
        dval__cmp_free(&c);
        return rc;
    }
    *outcome = c.count ? DVAL_DIFF_DIFFERS : DVAL_DIFF_EQUIVALENT;
    if (c.count)
        dval__fmt(detail, sizeof detail, "%zu difference%s in the results, "
                  "the first at %s", c.count, c.count == 1 ? "" : "s",
                  member(json_array_get(c.diff, 0), "path"));
    else
        dval__fmt(detail, sizeof detail, "both passed with the same "
                  "results");
    rc = json_object_set_new(report, "verdict", json_string(c.count
                             ? "differs" : "equivalent"));
    rc |= json_object_set_new(report, "verdict_detail", json_string(detail));
    rc |= json_object_set_new(report, "differences",
                              json_integer((json_int_t)c.count));
    rc |= json_object_set(report, "diff", c.diff);
    rc |= json_object_set_new(report, "failed_side", json_null());
    dval__cmp_free(&c);
    return rc ? DVAL_ENOMEM : DVAL_OK;
}

/* A side did not pass (the original's told first). */
static int side_failed(json_t *report, json_t *const side[2], int *outcome)
{
    int i = strcmp(member(side[0], "verdict"), "passed") ? 0 : 1;
    char detail[1200];
    dval__fmt(detail, sizeof detail, "the %s did not pass: %s", side_name[i],
              member(side[i], "verdict_detail"));
    *outcome = i ? DVAL_DIFF_TRANSLATION_FAILED : DVAL_DIFF_ORIGINAL_FAILED;
    int rc = json_object_set_new(report, "verdict",
                                 json_string(member(side[i], "verdict")));
    rc |= json_object_set_new(report, "verdict_detail", json_string(detail));
    rc |= json_object_set_new(report, "differences", json_integer(0));
    rc |= json_object_set_new(report, "diff", json_array());
    rc |= json_object_set_new(report, "failed_side",
                              json_string(side_name[i]));
    return rc ? DVAL_ENOMEM : DVAL_OK;
}

DVAL_API int dval_differential(int *outcome, char **report,
                               const char *original_summary,
                               const char *translation_summary,
                               const dval_compare_options *opts)
{
    if (outcome)
        *outcome = 0;
    if (report)
        *report = NULL;
    json_t *side[2] = { summary_of(original_summary),
                        summary_of(translation_summary) };
    json_t *r = json_object();
    int rc = !outcome || !report || !side[0] || !side[1] ? DVAL_EINVAL
             : !r ? DVAL_ENOMEM : DVAL_OK;
    int o = 0;
    if (rc == DVAL_OK) {
        int both = !strcmp(member(side[0], "verdict"), "passed") &&
                   !strcmp(member(side[1], "verdict"), "passed");
        rc = both ? compare(r, side, opts, &o) : side_failed(r, side, &o);
    }
    if (rc == DVAL_OK && !(*report = dval__json_dump(r)))
        rc = DVAL_ENOMEM;
    if (rc == DVAL_OK)
        *outcome = o;
    json_decref(side[0]);
    json_decref(side[1]);
    json_decref(r);
    return rc;
}
