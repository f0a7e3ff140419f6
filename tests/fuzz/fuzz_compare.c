/* dval_compare on a program's results, which a hostile program chooses:
 * never a crash; a document equals itself in every mode (reflexive, so a
 * difference is never invented); the diff is a JSON array listing
 * min(differences, max_diffs) entries. dval_differential on the same two
 * texts as summaries: a report object or DVAL_EINVAL, and a summary is
 * never judged to differ from itself. The first byte picks the mode, the
 * ignore paths and the tolerance; the rest is expected, then actual
 * after a "\xff\xfe" separator (without one: the rest against itself). */
#include <jansson.h>

#include "fuzz.h"
#include "dval.h"

static const char *const cmp_paths[] = { "$..id", "$.rows[*].id",
                                         "$[\"a key\"]", "$.a.b" };

static size_t cmp_run(const char *e, size_t en, const char *a, size_t an,
                      const dval_compare_options *o, int *rc)
{
    char *diff = NULL;
    size_t n = 0;
    *rc = dval_compare(&diff, &n, e, en, a, an, o);
    if (*rc == DVAL_OK) {
        json_t *j = json_loads(diff, JSON_ALLOW_NUL, NULL);
        size_t max = (size_t)(o->max_diffs > 0 ? o->max_diffs : 20);
        FUZZ_ASSERT(json_is_array(j));
        FUZZ_ASSERT(json_array_size(j) == (n < max ? n : max));
        json_decref(j);
    }
    dval_free(diff);
    return n;
}

/* Two summaries (C strings: the call takes text) judged together. */
static int cmp_judge(const char *e, size_t en, const char *a, size_t an,
                     const dval_compare_options *o, int *outcome)
{
    char *es = fuzz_cstr((const uint8_t *)e, en);
    char *as = fuzz_cstr((const uint8_t *)a, an);
    char *report = NULL;
    int rc = es && as ? dval_differential(outcome, &report, es, as, o)
                      : DVAL_ENOMEM;
    FUZZ_ASSERT(rc == DVAL_OK || rc == DVAL_EINVAL || rc == DVAL_ENOMEM);
    if (rc == DVAL_OK) {
        json_t *j = json_loads(report, JSON_ALLOW_NUL, NULL);
        FUZZ_ASSERT(json_is_object(j));
        json_decref(j);
    }
    dval_free(report);
    free(es);
    free(as);
    return rc;
}

FUZZ_TARGET(compare)
{
    if (size < 1)
        return 0;
    const char *ignore[5] = { NULL };
    dval_compare_options o;
    dval_compare_options_init(&o, sizeof o);
    o.mode = data[0] & 3;
    for (int i = 0, k = 0; i < 4; i++)
        if (data[0] & (4 << i))
            ignore[k++] = cmp_paths[i];
    o.ignore = ignore;
    o.abs_tolerance = data[0] & 64 ? 0.5 : 0;
    o.rel_tolerance = data[0] & 128 ? 1e-6 : 0;
    o.max_diffs = 3;
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    const char *sep = memmem(rest, n, "\xff\xfe", 2);
    int rc;
    if (sep) {
        size_t en = (size_t)(sep - rest);
        cmp_run(rest, en, sep + 2, n - en - 2, &o, &rc);
        FUZZ_ASSERT(rc == DVAL_OK || rc == DVAL_EINVAL ||
                    rc == DVAL_ENOMEM);
    }
    size_t en = sep ? (size_t)(sep - rest) : n;
    size_t self = cmp_run(rest, en, rest, en, &o, &rc);
    FUZZ_ASSERT(rc != DVAL_OK || self == 0);
    int outcome;
    if (sep)
        cmp_judge(rest, en, sep + 2, n - en - 2, &o, &outcome);
    if (cmp_judge(rest, en, rest, en, &o, &outcome) == DVAL_OK)
        FUZZ_ASSERT(outcome != DVAL_DIFF_DIFFERS);
    return 0;
}
