/* The typed result's results files: the summary's "results" (the *.json
 * files, parsed) and "files" (the others, as text or base64) as one list
 * in name order, each with its bytes (dval_file_info.data). */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "jsonutil.h"
#include "result.h"

static int by_name(const void *x, const void *y)
{
    return strcmp(((const dval__rfile *)x)->name,
                  ((const dval__rfile *)y)->name);
}

/* The bytes of a "files" entry: its text (borrowed from doc), else its
 * base64 decoded. */
static int other_bytes(dval__rfile *f, const json_t *entry)
{
    const json_t *t = json_object_get(entry, "text");
    if (json_is_string(t)) {
        f->data = json_string_value(t);
        f->len = json_string_length(t);
        return DVAL_OK;
    }
    const json_t *b = json_object_get(entry, "base64");
    size_t n = json_string_length(b);
    if (!(f->owned = dval__malloc(n / 4 * 3 + 1)))
        return DVAL_ENOMEM;
    if (dval__base64_decode(json_string_value(b) ? json_string_value(b) : "",
                            n, (unsigned char *)f->owned, &f->len))
        f->len = 0, f->owned[0] = '\0';
    f->data = f->owned;
    return DVAL_OK;
}

/* Adds the members of o (is_json: from "results") to r->files. */
static int add(dval_result *r, const json_t *o, int is_json)
{
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)o, name, v) {
        dval__rfile *f = &r->files[r->nfiles++];
        f->name = name;
        f->is_json = is_json;
        if (!(f->json = dval__json_dump(v)))
            return DVAL_ENOMEM;
        if (is_json) {
            f->data = f->json;
            f->len = strlen(f->json);
        } else if (other_bytes(f, v)) {
            return DVAL_ENOMEM;
        }
    }
    return DVAL_OK;
}

int dval__result_files(dval_result *r)
{
    const json_t *results = json_object_get(r->doc, "results");
    const json_t *other = json_object_get(r->doc, "files");
    size_t n = json_object_size(results) + json_object_size(other);
    if (!n)
        return DVAL_OK;
    if (!(r->files = dval__calloc(n, sizeof *r->files)))
        return DVAL_ENOMEM;
    int rc = add(r, results, 1);
    rc = rc ? rc : add(r, other, 0);
    if (!rc)
        qsort(r->files, r->nfiles, sizeof *r->files, by_name);
    return rc;
}

void dval__result_files_free(dval_result *r)
{
    for (size_t i = 0; r->files && i < r->nfiles; i++) {
        dval__free(r->files[i].json);
        dval__free(r->files[i].owned);
    }
    dval__free(r->files);
}
