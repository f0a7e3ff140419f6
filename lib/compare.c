/* The comparisons' frame (compare.h): options resolved, differences
 * recorded (values shown whole up to a bound), and a difference put in
 * words for a verdict's detail. The JSON and text walks are
 * compare_json.c and compare_text.c; compare_api.c chooses between them. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "jsonutil.h"

#define MAX_DIFFS_DEFAULT 20
#define MAX_DIFFS_LIMIT 10000
/* A value shown in a difference: whole up to this many bytes of JSON;
 * longer strings are cut, larger containers described. */
#define SHOWN_MAX 1024

static int bad(char *msg, size_t cap, const char *why)
{
    dval__fmt(msg, cap, "%s", why);
    return DVAL_EINVAL;
}

static int tolerances(dval__cmp *c, const dval_compare_options *o,
                      char *msg, size_t cap)
{
    if (!isfinite(o->abs_tolerance) || !isfinite(o->rel_tolerance) ||
        o->abs_tolerance < 0 || o->rel_tolerance < 0)
        return bad(msg, cap, "tolerances must be finite and >= 0");
    c->abs_tol = o->abs_tolerance;
    c->rel_tol = o->rel_tolerance;
    if (o->max_diffs < 0 || o->max_diffs > MAX_DIFFS_LIMIT)
        return bad(msg, cap, "max_diffs must be 0..10000");
    c->max = o->max_diffs ? (size_t)o->max_diffs : MAX_DIFFS_DEFAULT;
    if (o->mode < DVAL_COMPARE_AUTO || o->mode > DVAL_COMPARE_JSON)
        return bad(msg, cap, "mode is not a dval_compare_mode value");
    return DVAL_OK;
}

static int ignores(dval__cmp *c, const char *const *ignore, char *msg,
                   size_t cap)
{
    size_t n = 0;
    while (ignore && ignore[n])
        n++;
    if (n > 1024)
        return bad(msg, cap, "more than 1024 ignore paths");
    c->ignore = n ? dval__calloc(n, sizeof *c->ignore) : NULL;
    if (n && !c->ignore)
        return DVAL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc = dval__pattern_parse(&c->ignore[i], ignore[i], msg, cap);
        if (rc)
            return rc;
        c->nignore++;
    }
    return DVAL_OK;
}

int dval__cmp_init(dval__cmp *c, const dval_compare_options *opts,
                   int dflt_mode, char *msg, size_t cap)
{
    memset(c, 0, sizeof *c);
    dval_compare_options o;
    dval__opts_init(&o, sizeof o, sizeof o); /* as dval_compare_options_init */
    if (opts && dval__opts_copy(&o, sizeof o, opts, sizeof o.struct_size)) {
        bad(msg, cap, "compare options: struct_size is not one this "
            "library knows (use dval_compare_options_init)");
        return DVAL_EABI;
    }
    int rc = tolerances(c, &o, msg, cap);
    if (rc)
        return rc;
    c->mode = o.mode ? o.mode : dflt_mode;
    c->diff = json_array();
    if (!c->diff)
        return DVAL_ENOMEM;
    return ignores(c, o.ignore, msg, cap);
}

void dval__cmp_free(dval__cmp *c)
{
    for (size_t i = 0; i < c->nignore; i++)
        dval__pattern_free(&c->ignore[i]);
    dval__free(c->ignore);
    dval__free(c->path);
    json_decref(c->diff);
    memset(c, 0, sizeof *c);
}

/* ---- a difference */

typedef struct bounded {
    size_t len;
} bounded;

static int count_up(const char *buf, size_t n, void *ud)
{
    (void)buf;
    bounded *b = ud;
    b->len += n;
    return b->len > SHOWN_MAX ? -1 : 0;
}

/* v as a difference shows it: itself when its JSON is short, else a
 * string cut short or a container described. */
static json_t *shown(const json_t *v)
{
    if (json_is_string(v) && json_string_length(v) > SHOWN_MAX) {
        size_t n = dval__utf8_complete_prefix(json_string_value(v),
                                              SHOWN_MAX);
        json_t *s = json_sprintf("%.*s... (%zu bytes)", (int)n,
                                 json_string_value(v), json_string_length(v));
        return s;
    }
    if (!json_is_object(v) && !json_is_array(v))
        return json_deep_copy(v);
    bounded b = { 0 };
    if (json_dump_callback(v, count_up, &b, JSON_COMPACT) == 0)
        return json_deep_copy(v);
    if (json_is_object(v))
        return json_sprintf("<an object of %zu members>",
                            json_object_size(v));
    return json_sprintf("<an array of %zu elements>", json_array_size(v));
}

void dval__cmp_add_at(dval__cmp *c, const char *path, const char *kind,
                   const json_t *expected, const json_t *actual)
{
    c->count++;
    if (json_array_size(c->diff) >= c->max)
        return;
    json_t *e = json_object();
    if (!e || json_object_set_new(e, "path", json_string(path)) ||
        json_object_set_new(e, "kind", json_string(kind)) ||
        (expected && json_object_set_new(e, "expected", shown(expected))) ||
        (actual && json_object_set_new(e, "actual", shown(actual))) ||
        json_array_append_new(c->diff, e))
        c->oom = 1;
}

void dval__cmp_add(dval__cmp *c, const char *kind, const json_t *expected,
                   const json_t *actual)
{
    if (json_array_size(c->diff) >= c->max) {
        c->count++;
        return;
    }
    dval__buf p = { 0 };
    if (dval__path_text(&p, c->path, c->depth))
        c->oom = 1;
    dval__cmp_add_at(c, p.data ? p.data : "$", kind, expected, actual);
    dval__buf_free(&p);
}

/* ---- in words */

/* v's JSON, cut to fit a line. */
static void show(const json_t *v, char *buf, size_t cap)
{
    char *t = v ? dval__json_dump(v) : NULL;
    if (t && strlen(t) > 200)
        dval__fmt(buf, cap, "%.*s...", (int)dval__utf8_complete_prefix(t,
                  197), t);
    else
        dval__fmt(buf, cap, "%s", t ? t : "nothing");
    dval__free(t);
}

void dval__cmp_describe(const json_t *entry, char *buf, size_t cap)
{
    const char *path = json_string_value(json_object_get(entry, "path"));
    const char *kind = json_string_value(json_object_get(entry, "kind"));
    char e[256], a[256];
    show(json_object_get(entry, "expected"), e, sizeof e);
    show(json_object_get(entry, "actual"), a, sizeof a);
    kind = kind ? kind : "";
    if (!strcmp(kind, "missing"))
        dval__fmt(buf, cap, "%s: missing (expected %s)", path, e);
    else if (!strcmp(kind, "unexpected"))
        dval__fmt(buf, cap, "%s: not expected (got %s)", path, a);
    else if (!strcmp(kind, "length"))
        dval__fmt(buf, cap, "%s: expected %s elements, got %s", path, e, a);
    else if (!strcmp(kind, "invalid"))
        dval__fmt(buf, cap, "%s: not JSON: %s", path,
                  json_string_value(json_object_get(entry, "actual")));
    else
        dval__fmt(buf, cap, "%s: expected %s, got %s", path, e, a);
}
