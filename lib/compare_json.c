/* JSON equality, as a validation's expected result and a differential
 * validation need it: members in any order, numbers equal within the
 * tolerances (1 and 1.0 alike), strings byte for byte (UTF-8, so "\u00e9"
 * and "é" are one string), arrays element by element, and the paths of
 * the ignore list left out with everything below them. Every difference
 * is counted; the first ones are listed, members in name order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* jansson's parser stops at 2048 levels: a tree no deeper. */
#define MAX_DEPTH 4096

enum { T_NULL, T_BOOL, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT };

static int type_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return T_OBJECT;
    case JSON_ARRAY: return T_ARRAY;
    case JSON_STRING: return T_STRING;
    case JSON_INTEGER:
    case JSON_REAL: return T_NUMBER;
    case JSON_TRUE:
    case JSON_FALSE: return T_BOOL;
    default: return T_NULL;
    }
}

static int push(dval__cmp *c, int kind, const char *key, size_t index)
{
    if (c->depth == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        dval__seg *p = cap <= MAX_DEPTH
                           ? dval__realloc(c->path, cap * sizeof *p) : NULL;
        if (!p) {
            c->oom = 1;
            return -1;
        }
        c->path = p;
        c->cap = cap;
    }
    c->path[c->depth++] = (dval__seg){ kind, key, index };
    return 0;
}

static int ignored(const dval__cmp *c)
{
    for (size_t i = 0; i < c->nignore; i++)
        if (dval__pattern_match(&c->ignore[i], c->path, c->depth))
            return 1;
    return 0;
}

static double larger(double x, double y)
{
    return fabs(x) > fabs(y) ? fabs(x) : fabs(y);
}

static int numbers_equal(const dval__cmp *c, const json_t *e,
                         const json_t *a)
{
    double d, m;
    if (json_is_integer(e) && json_is_integer(a)) {
        json_int_t x = json_integer_value(e), y = json_integer_value(a), k;
        if (x == y)
            return 1;
        /* the difference in integers, exact: two integers one double
         * cannot tell apart (2^53 + 1 and 2^53) still differ */
        d = __builtin_sub_overflow(x, y, &k) ? fabs((double)x - (double)y)
                                              : fabs((double)k);
        m = larger((double)x, (double)y);
    } else {
        double x = json_number_value(e), y = json_number_value(a);
        if (x == y)
            return 1;
        d = fabs(x - y);
        m = larger(x, y);
    }
    return d <= c->abs_tol || d <= c->rel_tol * m;
}

static int scalars_equal(const dval__cmp *c, const json_t *e,
                         const json_t *a)
{
    switch (type_of(e)) {
    case T_NUMBER:
        return numbers_equal(c, e, a);
    case T_STRING:
        return json_string_length(e) == json_string_length(a) &&
               !memcmp(json_string_value(e), json_string_value(a),
                       json_string_length(e));
    case T_BOOL:
        return json_typeof(e) == json_typeof(a);
    default:
        return 1;
    }
}

static void value(dval__cmp *c, const json_t *e, const json_t *a);

/* A member or element present on one side or both (NULL: absent). */
static void member(dval__cmp *c, const json_t *e, const json_t *a)
{
    if (ignored(c))
        return;
    if (!a)
        dval__cmp_add(c, "missing", e, NULL);
    else if (!e)
        dval__cmp_add(c, "unexpected", NULL, a);
    else
        value(c, e, a);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Both objects' member names, sorted, each once; NULL: out of memory. */
static const char **names(const json_t *e, const json_t *a, size_t *n)
{
    const char **k = dval__malloc((json_object_size(e) +
                                   json_object_size(a) + 1) * sizeof *k);
    const char *key;
    json_t *v;
    *n = 0;
    if (!k)
        return NULL;
    json_object_foreach((json_t *)e, key, v)
        k[(*n)++] = key;
    json_object_foreach((json_t *)a, key, v)
        if (!json_object_get(e, key))
            k[(*n)++] = key;
    qsort(k, *n, sizeof *k, by_name);
    return k;
}

static void objects(dval__cmp *c, const json_t *e, const json_t *a)
{
    size_t n;
    const char **k = names(e, a, &n);
    if (!k) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < n && !c->oom; i++) {
        if (push(c, DVAL__SEG_KEY, k[i], 0))
            break;
        member(c, json_object_get(e, k[i]), json_object_get(a, k[i]));
        c->depth--;
    }
    dval__free(k);
}

static void arrays(dval__cmp *c, const json_t *e, const json_t *a)
{
    size_t ne = json_array_size(e), na = json_array_size(a);
    if (ne != na) {
        json_t *x = json_integer((json_int_t)ne);
        json_t *y = json_integer((json_int_t)na);
        dval__cmp_add(c, "length", x, y);
        json_decref(x);
        json_decref(y);
    }
    size_t n = ne > na ? ne : na;
    for (size_t i = 0; i < n && !c->oom; i++) {
        if (push(c, DVAL__SEG_INDEX, NULL, i))
            break;
        member(c, json_array_get(e, i), json_array_get(a, i));
        c->depth--;
    }
}

static void value(dval__cmp *c, const json_t *e, const json_t *a)
{
    int t = type_of(e);
    if (t != type_of(a))
        dval__cmp_add(c, "type", e, a);
    else if (t == T_OBJECT)
        objects(c, e, a);
    else if (t == T_ARRAY)
        arrays(c, e, a);
    else if (!scalars_equal(c, e, a))
        dval__cmp_add(c, "changed", e, a);
}

int dval__cmp_json(dval__cmp *c, const json_t *expected, const json_t *actual)
{
    c->depth = 0;
    member(c, expected, actual);
    return c->oom ? DVAL_ENOMEM : DVAL_OK;
}
