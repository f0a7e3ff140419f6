/* The comparison engine through its public calls: dval_compare (JSON,
 * exact and text modes, ignore paths, tolerances, unicode, bounds). */
#include <jansson.h>
#include <string.h>

#include "harness.h"
#include "dval.h"

typedef struct res {
    int rc;
    size_t n;
    json_t *diff;
} res;

static res cmp_opts(const char *e, const char *a,
                    const dval_compare_options *o)
{
    res r = { 0 };
    char *d = NULL;
    r.rc = dval_compare(&d, &r.n, e, strlen(e), a, strlen(a), o);
    if (r.rc == DVAL_OK) {
        CHECK(d != NULL);
        r.diff = json_loads(d, 0, NULL);
        CHECK(json_is_array(r.diff));
    } else {
        CHECK(d == NULL);
    }
    dval_free(d);
    return r;
}

static res cmp(const char *e, const char *a)
{
    return cmp_opts(e, a, NULL);
}

static const char *field(const res *r, size_t i, const char *k)
{
    return json_string_value(json_object_get(json_array_get(r->diff, i), k));
}

/* entry i's member k as compact JSON (static buffer) */
static const char *val(const res *r, size_t i, const char *k)
{
    static char buf[2][4096];
    static int w;
    json_t *v = json_object_get(json_array_get(r->diff, i), k);
    char *t = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    char *b = buf[w++ & 1];
    snprintf(b, sizeof buf[0], "%s", t ? t : "(absent)");
    free(t);
    return b;
}

static dval_compare_options opts(int mode)
{
    dval_compare_options o;
    dval_compare_options_init(&o, sizeof o);
    o.mode = mode;
    return o;
}

TEST(compare__equal_json_in_any_member_order)
{
    res r = cmp("{\"a\":1,\"b\":[1,2,{\"c\":null}],\"d\":\"x\"}",
                " { \"d\" : \"x\", \"b\":[1, 2.0, {\"c\":null}], \"a\":1.0 }");
    CHECK_INT(r.rc, DVAL_OK);
    CHECK_INT(r.n, 0);
    CHECK_INT(json_array_size(r.diff), 0);
    json_decref(r.diff);
}

TEST(compare__nested_objects_name_the_path)
{
    res r = cmp("{\"order\":{\"lines\":[{\"sku\":\"A\",\"qty\":2}],"
                "\"total\":42}}",
                "{\"order\":{\"lines\":[{\"sku\":\"A\",\"qty\":3}],"
                "\"total\":42,\"note\":\"x\"},\"extra\":true}");
    CHECK_INT(r.rc, DVAL_OK);
    CHECK_INT(r.n, 3);
    /* members in name order, depth first */
    CHECK_STR(field(&r, 0, "path"), "$.extra");
    CHECK_STR(field(&r, 0, "kind"), "unexpected");
    CHECK_STR(val(&r, 0, "actual"), "true");
    CHECK_STR(val(&r, 0, "expected"), "(absent)");
    CHECK_STR(field(&r, 1, "path"), "$.order.lines[0].qty");
    CHECK_STR(field(&r, 1, "kind"), "changed");
    CHECK_STR(val(&r, 1, "expected"), "2");
    CHECK_STR(val(&r, 1, "actual"), "3");
    CHECK_STR(field(&r, 2, "path"), "$.order.note");
    CHECK_STR(field(&r, 2, "kind"), "unexpected");
    json_decref(r.diff);
    r = cmp("{\"a\":{\"b\":1}}", "{\"a\":{}}");
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "$.a.b");
    CHECK_STR(field(&r, 0, "kind"), "missing");
    CHECK_STR(val(&r, 0, "expected"), "1");
    CHECK_STR(val(&r, 0, "actual"), "(absent)");
    json_decref(r.diff);
}

TEST(compare__arrays_of_different_lengths)
{
    res r = cmp("[1,2,3]", "[1,5]");
    CHECK_INT(r.rc, DVAL_OK);
    CHECK_INT(r.n, 3);
    CHECK_STR(field(&r, 0, "path"), "$");
    CHECK_STR(field(&r, 0, "kind"), "length");
    CHECK_STR(val(&r, 0, "expected"), "3");
    CHECK_STR(val(&r, 0, "actual"), "2");
    CHECK_STR(field(&r, 1, "path"), "$[1]");
    CHECK_STR(field(&r, 1, "kind"), "changed");
    CHECK_STR(field(&r, 2, "path"), "$[2]");
    CHECK_STR(field(&r, 2, "kind"), "missing");
    CHECK_STR(val(&r, 2, "expected"), "3");
    json_decref(r.diff);
    r = cmp("{\"rows\":[]}", "{\"rows\":[{\"id\":1}]}");
    CHECK_INT(r.n, 2);
    CHECK_STR(field(&r, 1, "path"), "$.rows[0]");
    CHECK_STR(field(&r, 1, "kind"), "unexpected");
    CHECK_STR(val(&r, 1, "actual"), "{\"id\":1}");
    json_decref(r.diff);
}

TEST(compare__types_and_literals)
{
    res r = cmp("{\"a\":1,\"b\":true,\"c\":null,\"d\":[],\"e\":\"1\"}",
                "{\"a\":\"1\",\"b\":false,\"c\":0,\"d\":{},\"e\":\"1\"}");
    CHECK_INT(r.n, 4);
    CHECK_STR(field(&r, 0, "kind"), "type");    /* a: number, string */
    CHECK_STR(field(&r, 1, "kind"), "changed"); /* b: true, false */
    CHECK_STR(field(&r, 2, "kind"), "type");    /* c */
    CHECK_STR(field(&r, 3, "kind"), "type");    /* d */
    json_decref(r.diff);
}

TEST(compare__float_tolerance_absolute_and_relative)
{
    res r = cmp("{\"x\":0.3}", "{\"x\":0.30000000000000004}");
    CHECK_INT(r.n, 1); /* no tolerance: exact */
    json_decref(r.diff);
    dval_compare_options o = opts(0);
    o.abs_tolerance = 1e-9;
    r = cmp_opts("{\"x\":0.3,\"y\":100}", "{\"x\":0.30000000000000004,"
                 "\"y\":100.0000000001}", &o);
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
    r = cmp_opts("{\"x\":0.3}", "{\"x\":0.3001}", &o);
    CHECK_INT(r.n, 1);
    CHECK(json_real_value(json_object_get(json_array_get(r.diff, 0),
                                          "actual")) == 0.3001);
    json_decref(r.diff);
    o = opts(0);
    o.rel_tolerance = 1e-3; /* 0.1 % of the larger magnitude */
    r = cmp_opts("[1000000, 1.0, 0]", "[1000900, 1.0015, 0.0]", &o);
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "$[1]");
    json_decref(r.diff);
    /* integers that one double cannot tell apart still differ */
    r = cmp("9007199254740993", "9007199254740992");
    CHECK_INT(r.n, 1);
    json_decref(r.diff);
}

TEST(compare__ignore_paths)
{
    const char *ign[] = { "$.meta", "$.rows[*].id", "$..generated_at",
                          "$[\"a key\"]", "$.list[1]", NULL };
    dval_compare_options o = opts(0);
    o.ignore = ign;
    res r = cmp_opts(
        "{\"meta\":{\"t\":1},\"rows\":[{\"id\":1,\"v\":2}],\"a key\":1,"
        "\"deep\":{\"x\":{\"generated_at\":\"today\"}},\"list\":[1,2,3],"
        "\"generated_at\":5}",
        "{\"meta\":{\"t\":2,\"u\":3},\"rows\":[{\"id\":9,\"v\":2}],"
        "\"a key\":2,\"deep\":{\"x\":{\"generated_at\":\"now\"}},"
        "\"list\":[1,7,3],\"generated_at\":6}", &o);
    CHECK_INT(r.rc, DVAL_OK);
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
    /* what the ignore list does not name still counts */
    r = cmp_opts("{\"rows\":[{\"id\":1,\"v\":2}],\"list\":[1,2]}",
                 "{\"rows\":[{\"id\":9,\"v\":3}],\"list\":[0,2]}", &o);
    CHECK_INT(r.n, 2);
    CHECK_STR(field(&r, 0, "path"), "$.list[0]");
    CHECK_STR(field(&r, 1, "path"), "$.rows[0].v");
    json_decref(r.diff);
    /* a missing member on an ignored path is no difference either */
    const char *ign2[] = { "$.*.x", NULL };
    o.ignore = ign2;
    r = cmp_opts("{\"a\":{\"x\":1},\"b\":{\"x\":1,\"y\":1}}",
                 "{\"a\":{},\"b\":{\"y\":1}}", &o);
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
}

TEST(compare__bad_ignore_paths_and_options_are_refused)
{
    const char *bads[] = { "a.b", "$.", "$[", "$[1", "$[\"x]", "$x",
                           "$..", "$[-1]", NULL };
    for (int i = 0; bads[i]; i++) {
        const char *ign[] = { bads[i], NULL };
        dval_compare_options o = opts(0);
        o.ignore = ign;
        res r = cmp_opts("1", "1", &o);
        if (r.rc != DVAL_EINVAL)
            th_fail(__FILE__, __LINE__, "ignore path %s accepted", bads[i]);
    }
    dval_compare_options o = opts(0);
    o.abs_tolerance = -1;
    CHECK_INT(cmp_opts("1", "1", &o).rc, DVAL_EINVAL);
    o = opts(9);
    CHECK_INT(cmp_opts("1", "1", &o).rc, DVAL_EINVAL);
    /* an expected text that is not JSON is the caller's mistake ... */
    CHECK_INT(cmp("{", "{}").rc, DVAL_EINVAL);
    /* ... an actual one a difference */
    res r = cmp("{\"a\":1}", "{\"a\":");
    CHECK_INT(r.rc, DVAL_OK);
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "kind"), "invalid");
    CHECK_STR(field(&r, 0, "path"), "$");
    json_decref(r.diff);
    char *d = (char *)1;
    CHECK_INT(dval_compare(&d, NULL, NULL, 3, "1", 1, NULL), DVAL_EINVAL);
    CHECK(d == NULL);
    CHECK_INT(dval_compare(NULL, NULL, "1", 1, "1", 1, NULL), DVAL_EINVAL);
}

TEST(compare__unicode_strings_and_keys)
{
    /* one string however it was escaped; another normalisation is
     * another string (bytes) */
    res r = cmp("{\"caf\\u00e9\":\"\\u65e5\\u672c\"}",
                "{\"café\":\"日本\"}");
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
    r = cmp("{\"k\":\"caf\\u00e9\"}", "{\"k\":\"cafe\\u0301\"}");
    CHECK_INT(r.n, 1);
    CHECK_STR(val(&r, 0, "expected"), "\"café\"");
    json_decref(r.diff);
    /* a key that is no identifier is written as a JSON string, and that
     * path, put in an ignore list, names the member */
    r = cmp("{\"naïve key\":{\"a\\\"b\":1}}", "{\"naïve key\":{\"a\\\"b\":2}}");
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "$[\"naïve key\"][\"a\\\"b\"]");
    const char *ign[] = { field(&r, 0, "path"), NULL };
    dval_compare_options o = opts(0);
    o.ignore = ign;
    res r2 = cmp_opts("{\"naïve key\":{\"a\\\"b\":1}}",
                      "{\"naïve key\":{\"a\\\"b\":2}}", &o);
    CHECK_INT(r2.n, 0);
    json_decref(r2.diff);
    json_decref(r.diff);
}

TEST(compare__max_diffs_bounds_the_list_not_the_count)
{
    char e[4096] = "[", a[4096] = "[";
    for (int i = 0; i < 100; i++) {
        snprintf(e + strlen(e), sizeof e - strlen(e), "%s%d", i ? "," : "", i);
        snprintf(a + strlen(a), sizeof a - strlen(a), "%s%d", i ? "," : "",
                 -i - 1);
    }
    strcat(e, "]");
    strcat(a, "]");
    res r = cmp(e, a);
    CHECK_INT(r.n, 100);
    CHECK_INT(json_array_size(r.diff), 20);
    json_decref(r.diff);
    dval_compare_options o = opts(0);
    o.max_diffs = 3;
    r = cmp_opts(e, a, &o);
    CHECK_INT(r.n, 100);
    CHECK_INT(json_array_size(r.diff), 3);
    json_decref(r.diff);
}

TEST(compare__large_values_are_shown_bounded)
{
    static char e[40000], a[40000];
    strcpy(e, "{\"big\":[");
    for (int i = 0; i < 2000; i++)
        snprintf(e + strlen(e), sizeof e - strlen(e), "%s%d", i ? "," : "", i);
    strcat(e, "],\"s\":\"");
    memset(e + strlen(e), 'x', 3000);
    strcat(e, "\"}");
    strcpy(a, "{\"s\":\"y\"}");
    res r = cmp(e, a);
    CHECK_INT(r.n, 2);
    CHECK_STR(val(&r, 0, "expected"), "\"<an array of 2000 elements>\"");
    CHECK_CONTAINS(val(&r, 1, "expected"), "... (3000 bytes)\"");
    CHECK(strlen(val(&r, 1, "expected")) < 1100);
    json_decref(r.diff);
}

TEST(compare__exact_bytes)
{
    dval_compare_options o = opts(DVAL_COMPARE_EXACT);
    res r = cmp_opts("a\nb\n", "a\nb\n", &o);
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
    r = cmp_opts("a\nb\n", "a\nb", &o); /* the last newline */
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "line 2");
    CHECK_STR(val(&r, 0, "expected"), "\"b\\n\"");
    CHECK_STR(val(&r, 0, "actual"), "\"b\"");
    json_decref(r.diff);
    r = cmp_opts("x\n", "x \r\n", &o);
    CHECK_INT(r.n, 1);
    json_decref(r.diff);
    r = cmp_opts("1\n2\n3\n", "1\n2\n", &o);
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "line 3");
    CHECK_STR(field(&r, 0, "kind"), "missing");
    json_decref(r.diff);
}

TEST(compare__text_ignores_trailing_whitespace_only)
{
    dval_compare_options o = opts(DVAL_COMPARE_TEXT);
    res r = cmp_opts("a\nb\n", "a  \r\nb\t\n\n\n  \n", &o);
    CHECK_INT(r.n, 0);
    json_decref(r.diff);
    r = cmp_opts("a\nb", " a\nb", &o); /* leading space counts */
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "line 1");
    json_decref(r.diff);
    r = cmp_opts("a\n\nb\n", "a\nb\n", &o); /* a blank line inside too */
    CHECK_INT(r.n, 2);
    CHECK_STR(field(&r, 1, "kind"), "missing");
    json_decref(r.diff);
    r = cmp_opts("sum=5050\n", "sum=5050\nextra\n", &o);
    CHECK_INT(r.n, 1);
    CHECK_STR(field(&r, 0, "path"), "line 2");
    CHECK_STR(field(&r, 0, "kind"), "unexpected");
    CHECK_STR(val(&r, 0, "actual"), "\"extra\"");
    json_decref(r.diff);
    /* invalid UTF-8 is shown replaced, still counted as it is */
    r = cmp_opts("caf\xc3\xa9\n", "caf\xe9\n", &o);
    CHECK_INT(r.n, 1);
    CHECK_STR(val(&r, 0, "actual"), "\"caf\xef\xbf\xbd\"");
    json_decref(r.diff);
}

/* ---- allocation failures (the library's own allocations, in turn) */

void dval__alloc_fail_at(long n);
long dval__alloc_count(void);

/* One JSON and one text comparison; DVAL_ERROR when a finished one
 * found other than the known differences. */
static int compare_twice(void)
{
    const char *ign[] = { "$..at", "$.rows[*].id", NULL };
    const char *e = "{\"a\":{\"b\":[1,2,3]},\"rows\":[{\"id\":1}],\"s\":\"x\","
                    "\"at\":1}";
    const char *a = "{\"a\":{\"b\":[1,5]},\"rows\":[{\"id\":2}],\"t\":1,"
                    "\"at\":2}";
    dval_compare_options o = opts(0);
    o.ignore = ign;
    char *d = NULL;
    size_t n = 0;
    int rc = dval_compare(&d, &n, e, strlen(e), a, strlen(a), &o);
    dval_free(d);
    if (rc)
        return rc;
    if (n != 5)
        return DVAL_ERROR;
    o = opts(DVAL_COMPARE_TEXT);
    d = NULL;
    rc = dval_compare(&d, &n, "a\nb\nc\n", 6, "a\nB\n", 4, &o);
    dval_free(d);
    return rc ? rc : n == 2 ? DVAL_OK : DVAL_ERROR;
}

TEST(compare__every_allocation_may_fail)
{
    dval__alloc_fail_at(0);
    CHECK_INT(compare_twice(), DVAL_OK);
    long total = dval__alloc_count();
    CHECK(total > 5);
    for (long k = 1; k <= total; k++) {
        dval__alloc_fail_at(k);
        int rc = compare_twice();
        if (rc != DVAL_OK && rc != DVAL_ENOMEM)
            th_fail(__FILE__, __LINE__, "allocation %ld failed: %s", k,
                    dval_status_name(rc));
    }
    dval__alloc_fail_at(0);
}
