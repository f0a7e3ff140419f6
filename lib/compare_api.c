/* The comparison of two texts as the mode says (dval__cmp_bytes: the
 * validation's expected result, and the public dval_compare). It only
 * compares; a host that compares two validations (an original program
 * and its translation, as the CLI's diff does) runs them as it likes and
 * compares their "results" members with it. */
#include <string.h>

#include "compare.h"
#include "jsonutil.h"

static json_t *parse(const char *data, size_t len, json_error_t *err)
{
    return json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, err);
}

int dval__cmp_bytes(dval__cmp *c, const char *expected, size_t elen,
                    const char *actual, size_t alen, char *msg, size_t cap)
{
    if (c->mode != DVAL_COMPARE_JSON) {
        int rc = dval__cmp_text(c, expected, elen, actual, alen);
        return rc ? rc : c->oom ? DVAL_ENOMEM : DVAL_OK;
    }
    json_error_t err;
    json_t *e = parse(expected ? expected : "", elen, &err);
    if (!e) {
        dval__fmt(msg, cap, "the expected result is not JSON: %s (line "
                  "%d)", err.text, err.line);
        return DVAL_EINVAL;
    }
    json_t *a = parse(actual ? actual : "", alen, &err);
    int rc = DVAL_OK;
    if (a) {
        rc = dval__cmp_json(c, e, a);
    } else {
        json_t *why = json_sprintf("%s (line %d)", err.text, err.line);
        dval__cmp_add_at(c, "$", "invalid", e, why);
        json_decref(why);
    }
    json_decref(a);
    json_decref(e);
    return rc ? rc : c->oom ? DVAL_ENOMEM : DVAL_OK;
}

DVAL_API int dval_compare_options_init(dval_compare_options *opts,
                                       size_t size)
{
    return dval__opts_init(opts, size, sizeof *opts);
}

DVAL_API int dval_compare(char **diff_json, size_t *differences,
                          const char *expected, size_t expected_len,
                          const char *actual, size_t actual_len,
                          const dval_compare_options *opts)
{
    if (diff_json)
        *diff_json = NULL;
    if (differences)
        *differences = 0;
    if (!diff_json || (!expected && expected_len) || (!actual && actual_len))
        return DVAL_EINVAL;
    dval__cmp c;
    char msg[512];
    int rc = dval__cmp_init(&c, opts, DVAL_COMPARE_JSON, msg, sizeof msg);
    if (!rc)
        rc = dval__cmp_bytes(&c, expected, expected_len, actual, actual_len,
                             msg, sizeof msg);
    if (!rc && !(*diff_json = dval__json_dump(c.diff)))
        rc = DVAL_ENOMEM;
    if (!rc && differences)
        *differences = c.count;
    dval__cmp_free(&c);
    return rc;
}
