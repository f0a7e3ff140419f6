/* The reply scan against jansson: wherever the scan vouches for a body,
 * jansson loads it as an object whose members named are the ones the scan
 * found (the last of duplicates); everything the scan is not sure of
 * (reals, NUL and surrogate escapes, malformed text) it refuses, so the
 * caller's jansson path keeps its verdict and message. */
#include <jansson.h>
#include <stdlib.h>

#include "harness.h"
#include "executor/daytona/json_scan.h"

/* 1 when the scan's answer on s agrees with jansson's load of it */
static int agrees(const char *s, size_t n, int want_scan)
{
    const char *keys[] = {"exitCode", "cmdId"};
    dt_span v[2];
    int sc = dt_json_scan(s, n, keys, v, 2);
    json_t *j = json_loadb(s, n, 0, NULL);
    int ok = want_scan < 0 || sc == want_scan;
    if (sc) {
        ok = ok && json_is_object(j);
        for (int i = 0; ok && i < 2; i++) {
            json_t *m = json_object_get(j, keys[i]);
            json_t *x = v[i].p ? json_loadb(v[i].p, v[i].n, JSON_DECODE_ANY,
                                            NULL) : NULL;
            ok = (m == NULL) == (v[i].p == NULL) && (!m || json_equal(m, x));
            json_decref(x);
        }
    }
    if (!ok)
        fprintf(stderr, "disagree (scan %d, jansson %s): %.*s\n", sc,
                j ? "loads" : "refuses", (int)n, s);
    json_decref(j);
    return ok;
}

#define AGREE(s, want) CHECK(agrees(s, strlen(s), want))

TEST(json_scan_replies_it_vouches_for)
{
    AGREE("{\"cmdId\":\"c-1\",\"output\":null,\"exitCode\":null}", 1);
    AGREE(" {\"id\":\"x\",\"command\":\"echo \\u003e \\\"a\\\\b\\\" \\n\\t\\/ "
          "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"exitCode\":0}\n", 1);
    AGREE("{\"exitCode\":-17,\"x\":[1,[true,false,null],{\"a\":{}}],\"y\":[]}", 1);
    AGREE("{\"exitCode\":1,\"exitCode\":2}", 1);      /* the last one */
    AGREE("{}", 1);
    AGREE("{\"exitCode\":\"3\"}", 1);                 /* a type: the caller's */
    AGREE("{\"cmdId\":{\"exitCode\":5}}", 1);         /* nested: not top level */
    AGREE("{\"exitCode\":999999999999999999}", 1);
}

TEST(json_scan_leaves_to_jansson)
{
    const char *refused[] = {
        "", " ", "[]", "\"s\"", "1", "<html>", "{", "{\"a\"}", "{\"a\":}",
        "{\"a\":1,}", "{,}", "{\"a\":1}x", "{\"a\":1}{}", "{\"a\":01}",
        "{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":-}", "{\"a\":1234567890123456789}",
        "{\"a\":tru}", "{\"a\":truex}", "{\"a\":nul}", "{\"a\":\"\\u0000\"}",
        "{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12g4\"}", "{\"a\":\"\x01\"}", "{\"a\":\"\xc3\"}",
        "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xc0\x80\"}", "{\"a\":\"abc}",
        "{\"exit\\u0043ode\":1}", "{'a':1}", "{\"a\":[1,2}", "{\"a\":[1 2]}",
        "\xef\xbb\xbf{}", ("{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]"
                          "]]]]]]]]]]]]]]]]]]]]]]]]]]}"),
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        AGREE(refused[i], 0);
    /* a NUL byte inside the body */
    CHECK(agrees("{\"a\":\"x\0y\"}", 11, 0));
    CHECK(agrees("{\"a\":1}\0", 8, 0));
}

TEST(json_scan_random_mutations)
{
    /* bytes changed, dropped or cut at random in a real reply: whatever
     * the scan accepts, jansson loads alike */
    const char *base = "{\"id\":\"c\",\"command\":\"cd '/w' && sh run.sh "
                       "2\\u003e\\u00261\",\"exitCode\":0,\"n\":[1,{\"a\":"
                       "true}],\"s\":\"\xc3\xa9\\n\"}";
    const char pool[] = "{}[]\":,\\u0123456789-.eE tfnrlsa\xc3\xa9\x80";
    char s[256];
    srand(16);
    for (int round = 0; round < 20000; round++) {
        size_t n = strlen(base);
        memcpy(s, base, n);
        for (int k = rand() % 3 + 1; k > 0; k--) {
            size_t at = (size_t)rand() % n;
            if (rand() % 4 == 0 && n > 1)
                memmove(s + at, s + at + 1, --n - at);
            else
                s[at] = pool[rand() % (int)(sizeof pool - 1)];
        }
        CHECK(agrees(s, n, -1));
    }
}

typedef struct elems {
    json_t *want;   /* jansson's array */
    size_t i;
    int ok, stop_at;
} elems;

static int each_elem(dt_span el, void *ud)
{
    elems *e = ud;
    json_t *x = json_loadb(el.p, el.n, JSON_DECODE_ANY, NULL);
    e->ok = e->ok && json_equal(x, json_array_get(e->want, e->i));
    json_decref(x);
    return ++e->i == (size_t)e->stop_at ? 7 : 0;
}

/* dt_json_scan_array on s: refused where jansson refuses or s is not an
 * array; else every element in order, stopping where each says */
static int array_agrees(const char *s, int stop_at)
{
    json_t *j = json_loads(s, 0, NULL);
    elems e = {j, 0, 1, stop_at};
    int rc = -1;
    int sc = dt_json_scan_array(s, strlen(s), each_elem, &e, &rc);
    int ok = sc ? json_is_array(j) && e.ok &&
                  e.i == (stop_at ? (size_t)stop_at : json_array_size(j)) &&
                  rc == (stop_at ? 7 : 0)
                : e.i == 0;
    json_decref(j);
    return ok;
}

TEST(json_scan_array_elements)
{
    CHECK(array_agrees("[]", 0));
    CHECK(array_agrees(" [ {\"name\":\"r.json\",\"size\":12,\"isDir\":false,"
                       "\"mode\":\"-rw-r--r--\"} , 1,\"x\",[2,{}],null ] ", 0));
    CHECK(array_agrees("[1,2,3,4]", 2));
    const char *refused[] = {"", "{}", "[", "[1,]", "[1 2]", "[1]x",
                             "[1.5]", "[\"\\u0000\"]", "[{\"a\":}]"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        int rc = -1;
        CHECK(!dt_json_scan_array(refused[i], strlen(refused[i]), each_elem,
                                  &(elems){NULL, 0, 1, 0}, &rc));
        CHECK(array_agrees(refused[i], 0));
    }
}
