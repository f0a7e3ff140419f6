/* The typed result (dval_result): dval_validate's summary read once into
 * a value a C host queries with accessors. Everything it hands out is
 * made when it is built (the summary's strings, the results files' and
 * the differences' JSON texts; the files in result_files.c), so it is never changed after and any
 * thread may read it. The per-part accessors are in result_parts.c. */
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "result.h"

static void free_texts(char **t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        dval__free(t[i]);
    dval__free(t);
}

DVAL_API void dval_result_free(dval_result *r)
{
    if (!r)
        return;
    dval__result_files_free(r);
    free_texts(r->diff_text, 2 * r->ndiffs);
    json_decref(r->doc);
    dval__free(r->summary);
    dval__free(r);
}

/* The listed differences' expected and actual values as JSON texts. */
static int diffs(dval_result *r)
{
    const json_t *cmp = json_object_get(r->doc, "comparison");
    const json_t *list = json_object_get(cmp, "diff");
    r->differences = (size_t)json_integer_value(json_object_get(cmp,
                                                "differences"));
    r->ndiffs = json_array_size(list);
    if (!r->ndiffs)
        return DVAL_OK;
    r->diff_text = dval__calloc(2 * r->ndiffs, sizeof *r->diff_text);
    if (!r->diff_text)
        return DVAL_ENOMEM;
    for (size_t i = 0; i < r->ndiffs; i++) {
        const json_t *e = json_array_get(list, i);
        const json_t *x = json_object_get(e, "expected");
        const json_t *y = json_object_get(e, "actual");
        if ((x && !(r->diff_text[2 * i] = dval__json_dump(x))) ||
            (y && !(r->diff_text[2 * i + 1] = dval__json_dump(y))))
            return DVAL_ENOMEM;
    }
    return DVAL_OK;
}

/* The summary's verdict and last exit code. */
static void outcome(dval_result *r)
{
    r->verdict = dval_verdict_parse(json_string_value(
        json_object_get(r->doc, "verdict")));
    const json_t *code = json_object_get(r->doc, "exit_code");
    r->exit_code = json_is_integer(code) ? (int)json_integer_value(code)
                                         : -1;
}

int dval__result_new(dval_result **out, int status, char *summary)
{
    *out = NULL;
    dval_result *r = dval__calloc(1, sizeof *r);
    if (!r) {
        dval__free(summary);
        return DVAL_ENOMEM;
    }
    r->status = status;
    r->summary = summary;
    /* a program's output may hold NUL bytes ("\u0000" in the summary) */
    r->doc = json_loads(summary, JSON_ALLOW_NUL, NULL);
    int rc = r->doc ? DVAL_OK : DVAL_ENOMEM;
    if (!rc) {
        outcome(r);
        rc = dval__result_files(r);
    }
    rc = rc ? rc : diffs(r);
    if (rc) {
        dval_result_free(r);
        return rc;
    }
    *out = r;
    return DVAL_OK;
}

/* The result of a validation that returned rc and summary. */
static int made(dval_result **result, int rc, char *summary)
{
    if (!summary)
        return rc;
    int m = dval__result_new(result, rc, summary);
    return m ? m : rc;
}

DVAL_API int dval_validate_result(dval_result **result, dval_client *client,
                                  const dval_validation *req,
                                  dval_event_fn on_event, void *userdata)
{
    if (!result)
        return DVAL_EINVAL;
    *result = NULL;
    char *summary = NULL;
    int rc = dval_validate(client, req, on_event, userdata, &summary);
    return made(result, rc, summary);
}

DVAL_API int dval_pool_validate_result(dval_result **result, dval_pool *pool,
                                       const dval_validation *req,
                                       dval_event_fn on_event,
                                       void *userdata)
{
    if (!result)
        return DVAL_EINVAL;
    *result = NULL;
    char *summary = NULL;
    int rc = dval_pool_validate(pool, req, on_event, userdata, &summary);
    return made(result, rc, summary);
}
