/* The comparison as a public call: dval_compare (two texts). It only
 * compares; a host that compares two validations (an original program
 * and its translation, as the CLI's diff does) runs them as it likes and
 * compares their "results" members with it. */
#include <string.h>

#include "compare.h"
#include "jsonutil.h"

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
