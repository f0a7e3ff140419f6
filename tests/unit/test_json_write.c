/* dval__json_write against json_dumps itself: the summary and the request
 * bodies are public bytes, so the one-pass writer must give jansson's
 * text exactly (compact, with and without JSON_ENSURE_ASCII), and fail
 * where jansson fails (invalid UTF-8). */
#include <stdlib.h>

#include "harness.h"
#include "json_write.h"

static const size_t flag_sets[] = {
    JSON_COMPACT, JSON_COMPACT | JSON_ENSURE_ASCII,
    JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15),
};

/* both writers on v; 1 when they agree (text, or both failing) */
static int same_text(const json_t *v)
{
    int ok = 1;
    for (size_t i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
        char *want = json_dumps(v, flag_sets[i] | JSON_ENCODE_ANY);
        char *got = dval__json_text_of(v, flag_sets[i]);
        dval__buf b = {0};
        int rc = dval__json_write(&b, v, flag_sets[i]);
        dval__buf_free(&b);
        if ((want == NULL) != (got == NULL) ||
            (want && strcmp(want, got) != 0)) {
            fprintf(stderr, "flags %zx:\n want %s\n got  %s (%d)\n",
                    flag_sets[i], want ? want : "(fail)", got ? got : "(fail)",
                    rc);
            ok = 0;
        }
        free(want);
        dval__free(got);
    }
    return ok;
}

TEST(json_write_scalars_and_containers)
{
    const char *docs[] = {
        "{}", "[]", "null", "true", "false", "0", "-1",
        "9223372036854775807", "-9223372036854775808", "1.5", "-0.1",
        "1e300", "3.141592653589793", "\"\"",
        "{\"a\":1,\"z\":[1,2,{\"b\":null}],\"m\":{},\"k\":[]}",
        "{\"z\":1,\"a\":2,\"m\":3}",   /* insertion order, not sorted */
        "[[[[[]]]],{\"x\":{\"y\":{\"z\":\"\\u0000\"}}}]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        json_t *v = json_loads(docs[i], JSON_DECODE_ANY | JSON_ALLOW_NUL,
                               NULL);
        CHECK(v != NULL);
        CHECK(same_text(v));
        json_decref(v);
    }
}

TEST(json_write_escapes_every_byte_and_code_point)
{
    /* every ASCII byte, then characters of 2, 3 and 4 bytes (U+FFFF,
     * U+10000, U+10FFFF: the surrogate pairs of JSON_ENSURE_ASCII) */
    char s[128 + 64];
    size_t n = 0;
    for (int c = 0; c < 128; c++)
        s[n++] = (char)c;
    const char *wide = "\xc2\x80\xc3\xa9\xdf\xbf\xe0\xa0\x80\xe2\x82\xac"
                       "\xef\xbf\xbf\xf0\x90\x80\x80\xf0\x9f\x98\x80"
                       "\xf4\x8f\xbf\xbf";
    memcpy(s + n, wide, strlen(wide));
    n += strlen(wide);
    json_t *o = json_object();
    json_object_setn_new(o, s, n, json_stringn(s, n));
    json_object_set_new(o, "plain", json_string("abc/def \x7f"));
    CHECK(same_text(o));
    json_decref(o);
}

TEST(json_write_refuses_invalid_utf8_as_jansson_does)
{
    const char *bad[] = {
        "\x80", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80",
        "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
        "\xc3", "a\xe2\x82", "\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *v = json_stringn_nocheck(bad[i], strlen(bad[i]));
        CHECK(same_text(v));
        dval__buf b = {0};
        CHECK_INT(dval__json_write_str(&b, bad[i], strlen(bad[i]),
                                       JSON_COMPACT), DVAL_EINVAL);
        dval__buf_free(&b);
        json_decref(v);
    }
}

TEST(json_write_random_documents)
{
    /* random strings of the bytes that matter, in random nestings */
    srand(40);
    /* whole characters, and now and then a lone byte of one (invalid) */
    const char *alphabet[] = {"a", "\"", "\\", "/", "\n", "\t", "\x01",
                              "\x1f", "\x7f", " ", "\xc3\xa9",
                              "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe2"};
    size_t na = sizeof alphabet / sizeof *alphabet;
    for (int round = 0; round < 300; round++) {
        json_t *root = json_object(), *cur = root;
        for (int k = 0; k < 12; k++) {
            char t[160];
            size_t n = 0;
            for (int i = rand() % 30; i > 0; i--) {
                const char *c = alphabet[(size_t)rand() % (round % 2 ? na : na - 1)];
                memcpy(t + n, c, strlen(c));
                n += strlen(c);
            }
            json_t *val = rand() % 4 == 0 ? json_array()
                        : rand() % 3 == 0 ? json_integer(rand() - RAND_MAX / 2)
                                          : json_stringn_nocheck(t, n);
            /* a key is valid UTF-8 (the library makes none other;
             * jansson writes a key it cannot encode without its closing
             * quote) */
            int kept = 1, is_array = json_is_array(val);
            if (json_is_array(cur))
                json_array_append_new(cur, val);
            else if (json_object_setn_new(cur, t, n, val)) {
                /* refused (the key): jansson has freed val */
                kept = 0;
                json_object_set_new(cur, "k", json_null());
            }
            if (kept && is_array && rand() % 2)
                cur = val;
        }
        CHECK(same_text(root));
        json_decref(root);
    }
}
