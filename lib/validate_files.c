/* The results files that are not *.json (issue 39): every plain file a
 * program writes under its results directory comes back, byte-exact, in
 * the summary's "files" ({"text": ...} when it is UTF-8 without NUL, else
 * {"base64": ...}, with "bytes"), within the same bounds as the JSON
 * ones (validate_results.c). Only a *.json file counts as a result: a
 * program that wrote other files only still has its results missing,
 * and the message names what it did write. */
#include <string.h>

#include "base64.h"
#include "validate.h"

int dval__results_is_json(const char *name)
{
    size_t n = strlen(name);
    return n >= 5 && !strcmp(name + n - 5, ".json");
}

/* The length of the UTF-8 text [p, p+n) as a JSON string in the ASCII
 * summary: escapes, and \uXXXX (a pair beyond the BMP) for the others. */
static size_t escaped_len(const unsigned char *p, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c >= 0xf0)
            out += 12;
        else if (c >= 0xc0)
            out += 6;
        else if (c >= 0x80)
            continue;           /* a continuation byte, counted above */
        else if (c == '"' || c == '\\' || c == '\b' || c == '\f' ||
                 c == '\n' || c == '\r' || c == '\t')
            out += 2;
        else
            out += c < 0x20 ? 6 : 1;
    }
    return out;
}

size_t dval__results_file_cost(const char *data, size_t len, int *text)
{
    *text = !memchr(data, '\0', len) && dval__utf8_valid(data, len);
    return *text ? escaped_len((const unsigned char *)data, len)
                 : (len + 2) / 3 * 4;
}

static json_t *as_base64(const char *data, size_t len)
{
    dval__buf b = { 0 };
    json_t *s = NULL;
    if (!dval__base64_append(&b, (const unsigned char *)data, len))
        s = json_stringn(b.data ? b.data : "", b.len);
    dval__buf_free(&b);
    return s;
}

void dval__validate_keep_file(dval__vctx *v, const char *name,
                              const char *data, size_t len, int text)
{
    json_t *o = json_object();
    int rc = !o;
    if (!rc && text)
        rc = json_object_set_new(o, "text", json_stringn(data, len));
    else if (!rc)
        rc = json_object_set_new(o, "base64", as_base64(data, len));
    rc = rc ? rc : json_object_set_new(o, "bytes", json_integer((json_int_t)
                                                                len));
    rc = rc ? rc : json_object_set(v->other, name, o);
    json_decref(o);
    if (rc)
        dval__validate_note(v, "results/%s: %s", name, "out of memory");
}

void dval__validate_other_names(const dval__vctx *v, char *m, size_t cap)
{
    if (!json_object_size(v->other))
        return;
    size_t n = strlen(m);
    const char *sep = " (only other files: ", *name;
    json_t *f;
    json_object_foreach(v->other, name, f) {
        /* room for this name, ", ...)" and the NUL */
        if (n + strlen(sep) + strlen(name) + 7 > cap) {
            dval__fmt(m + n, cap - n, "%s...", sep);
            n += strlen(m + n);
            break;
        }
        dval__fmt(m + n, cap - n, "%s%s", sep, name);
        n += strlen(m + n);
        sep = ", ";
    }
    dval__fmt(m + n, cap - n, "%s", ")");
}
