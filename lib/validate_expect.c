/* dval_validate's expected result: checked with the request (so a bad
 * ignore path or an expected JSON that is not JSON fails before anything
 * runs), compared after the download in a phase of its own ("compare"),
 * and shown in the summary's "comparison". The comparisons themselves
 * are compare*.c's. */
#include <string.h>

#include "jsonutil.h"
#include "validate.h"

static int bad(dval__vctx *v, const char *msg)
{
    return dval__validate_fail(v, DVAL_EINVAL, "request", msg);
}

/* A results file's name as the download lists it: relative, no ".."
 * step, *.json (only those come back). */
static int file_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 6 || n > 255 || name[0] == '/' || strcmp(name + n - 5, ".json") ||
        strstr(name, "//") || strchr(name, '\n'))
        return 0;
    for (const char *s = name; s;) {
        if (!strncmp(s, "..", 2) && (s[2] == '/' || !s[2]))
            return 0;
        s = strchr(s, '/');
        s = s ? s + 1 : NULL;
    }
    return strncmp(name, "./", 2) != 0;
}

static int expected_is_json(dval__vctx *v)
{
    json_error_t err;
    json_t *doc = json_loadb(v->req.expected, v->req.expected_len,
                             JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (doc) {
        json_decref(doc);
        return DVAL_OK;
    }
    char msg[400];
    dval__fmt(msg, sizeof msg, "the expected result is not JSON: %s (line "
              "%d)", err.text, err.line);
    return bad(v, msg);
}

int dval__expect_check(dval__vctx *v)
{
    const dval_validation *r = &v->req;
    if (!r->expected) {
        if (r->expected_len || r->expected_file || r->compare)
            return bad(v, "expected_len, expected_file and compare need an "
                       "expected result (expected)");
        return DVAL_OK;
    }
    if (r->expected_file && !file_name_ok(r->expected_file))
        return bad(v, "expected_file must name a *.json file below the "
                   "results directory (relative, no \"..\")");
    char msg[512];
    int rc = dval__cmp_init(&v->cmp, r->compare, r->expected_file
                            ? DVAL_COMPARE_JSON : DVAL_COMPARE_TEXT,
                            msg, sizeof msg);
    if (rc)
        return dval__validate_fail(v, rc, "request", msg);
    if (r->expected_file && v->cmp.mode != DVAL_COMPARE_JSON)
        return bad(v, "a results file is compared as JSON (compare mode "
                   "DVAL_COMPARE_JSON or AUTO)");
    if (v->cmp.mode == DVAL_COMPARE_JSON && (rc = expected_is_json(v)))
        return rc;
    v->expect = 1;
    /* what is compared is the output: no results file is due */
    if (!r->expected_file)
        v->req.allow_missing_results = 1;
    return DVAL_OK;
}

/* What was compared with the expected result, in words. */
static void source(const dval__vctx *v, char *buf, size_t cap)
{
    if (v->req.expected_file)
        dval__fmt(buf, cap, "results/%s", v->req.expected_file);
    else
        dval__fmt(buf, cap, "stdout");
}

void dval__expect_detail(const dval__vctx *v, char *detail, size_t cap)
{
    char src[300], first[1024];
    source(v, src, sizeof src);
    dval__cmp_describe(json_array_get(v->cmp.diff, 0), first, sizeof first);
    dval__fmt(detail, cap, "%s differs from the expected result in %zu "
              "place%s: %s%s", src, v->cmp.count, v->cmp.count == 1 ? ""
              : "s", first, v->run.truncated && !v->req.expected_file
              ? " (the output was cut at 1 MiB)" : "");
}

/* The results file against the expected JSON. */
static int compare_file(dval__vctx *v)
{
    json_t *want = json_loadb(v->req.expected, v->req.expected_len,
                              JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    const json_t *got = json_object_get(v->results, v->req.expected_file);
    int rc = DVAL_OK;
    if (!want)
        rc = DVAL_ENOMEM; /* it parsed when the request was checked */
    else if (!got)
        dval__cmp_add_at(&v->cmp, "$", "missing", want, NULL);
    else
        rc = dval__cmp_json(&v->cmp, want, got);
    json_decref(want);
    return rc ? rc : v->cmp.oom ? DVAL_ENOMEM : DVAL_OK;
}

int dval__validate_expect(dval__vctx *v)
{
    char msg[512] = "";
    int rc = v->req.expected_file
                 ? compare_file(v)
                 : dval__cmp_bytes(&v->cmp, v->req.expected,
                                   v->req.expected_len, v->run.out.data,
                                   v->run.out.len, msg, sizeof msg);
    if (rc)
        return dval__validate_fail(v, rc, "compare", msg);
    v->compared = 1;
    if (v->cmp.count == 0)
        return DVAL_OK;
    char detail[DVAL_ERRMSG_MAX];
    dval__expect_detail(v, detail, sizeof detail);
    return dval__validate_fail(v, DVAL_ERESULTS, "compare", detail);
}

void dval__expect_reset(dval__vctx *v)
{
    v->compared = 0;
    v->cmp.count = 0;
    json_array_clear(v->cmp.diff);
}

static const char *mode_name(int mode)
{
    return mode == DVAL_COMPARE_EXACT ? "exact"
           : mode == DVAL_COMPARE_TEXT ? "text" : "json";
}

json_t *dval__expect_json(const dval__vctx *v)
{
    if (!v->compared)
        return json_null();
    char src[300];
    source(v, src, sizeof src);
    return json_pack("{s:s, s:s, s:I, s:O}", "with", src, "mode",
                     mode_name(v->cmp.mode), "differences",
                     (json_int_t)v->cmp.count, "diff", v->cmp.diff);
}
