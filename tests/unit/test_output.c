/* The UTF-8-safe output chunker (lib/output.c), the results JSON check
 * and the UTF-8 validator. */
#include <stdint.h>

#include "harness.h"
#include "output.h"

/* ---- UTF-8 chunker */
typedef struct chunks {
    dval__buf all[3];
    int bad_boundary;
    char channel[3][160];
} chunks;

static int on_out(int stream, const char *channel, const char *d, size_t n,
                  void *ud)
{
    chunks *c = ud;
    snprintf(c->channel[stream], sizeof c->channel[stream], "%s", channel);
    if (n && ((unsigned char)d[0] & 0xC0) == 0x80)
        c->bad_boundary = 1; /* a chunk started mid-sequence */
    if (n && dval__utf8_complete_prefix(d, n) != n)
        c->bad_boundary = 1; /* a chunk ended mid-sequence */
    CHECK(n <= DVAL__CHUNK_MAX);
    dval__buf_append(&c->all[stream], d, n);
    return 0;
}

TEST(output__never_splits_utf8_at_any_split_point)
{
    const char *text = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 end\n";
    size_t n = strlen(text);
    for (size_t cut = 0; cut <= n; cut++) {
        chunks c = { 0 };
        dval__out o;
        dval__out_init(&o, "JAVA_SANDBOX_", on_out, &c);
        CHECK_INT(dval__out_write(&o, DVAL_STDOUT, text, cut), 0);
        CHECK_INT(dval__out_write(&o, DVAL_STDOUT, text + cut, n - cut), 0);
        CHECK_INT(dval__out_flush(&o), 0);
        CHECK(!c.bad_boundary);
        CHECK_STR(c.all[DVAL_STDOUT].data, text);
        CHECK_STR(c.channel[DVAL_STDOUT],
                  "JAVA_SANDBOX_COMMAND_EXECUTION_STDOUT");
        dval__buf_free(&c.all[DVAL_STDOUT]);
    }
}

TEST(output__byte_by_byte_and_invalid_bytes_pass_through)
{
    const char text[] = "a\xff\xfe\xc3(\xe2\x82\xac\xf0\x9f";
    size_t n = sizeof text - 1;
    chunks c = { 0 };
    dval__out o;
    dval__out_init(&o, NULL, on_out, &c);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(dval__out_write(&o, DVAL_STDERR, text + i, 1), 0);
    CHECK_INT(dval__out_flush(&o), 0);
    CHECK_INT(c.all[DVAL_STDERR].len, n); /* nothing dropped */
    CHECK(memcmp(c.all[DVAL_STDERR].data, text, n) == 0);
    CHECK_STR(c.channel[DVAL_STDERR], "COMMAND_EXECUTION_STDERR");
    dval__buf_free(&c.all[DVAL_STDERR]);
}

TEST(output__large_writes_are_capped_at_64k_on_boundaries)
{
    size_t n = 300000;
    char *big = malloc(n);
    for (size_t i = 0; i + 3 <= n; i += 3)
        memcpy(big + i, "\xe2\x82\xac", 3);
    chunks c = { 0 };
    dval__out o;
    dval__out_init(&o, "X_", on_out, &c);
    CHECK_INT(dval__out_write(&o, DVAL_STDOUT, big, n), 0);
    CHECK_INT(dval__out_flush(&o), 0);
    CHECK(!c.bad_boundary);
    CHECK_INT(c.all[DVAL_STDOUT].len, n);
    CHECK(memcmp(c.all[DVAL_STDOUT].data, big, n) == 0);
    free(big);
    dval__buf_free(&c.all[DVAL_STDOUT]);
}

/* ---- results check (lib/results_json.c) */
#include "results_json.h"

TEST(json_check__accepts_and_rejects)
{
    char m[256];
    const char *ok[] = { "{}", "[]", " {\"a\":[1,-2.5e+3,true,false,null]} ",
                         "\"x\\u00e9\\ud83d\\ude00\"", "0", "-0.0E1",
                         "{\"k\":{\"n\":[[[]]]}}", "\"\xc3\xa9\"", NULL };
    const char *no[] = { "", "{", "{\"a\":}", "[1,]", "01", "1.", "-",
                         "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"",
                         "\"a\nb\"", "{\"a\" 1}", "tru", "[1] 2", "NaN",
                         "\"\xff\"", "{1:2}", NULL };
    for (int i = 0; ok[i]; i++)
        CHECK_INT(dval__json_check(ok[i], strlen(ok[i]), m, sizeof m), DVAL_OK);
    for (int i = 0; no[i]; i++) {
        CHECK_INT(dval__json_check(no[i], strlen(no[i]), m, sizeof m),
                  DVAL_ERESULTS);
        CHECK(m[0]);
    }
    static char deep[5000];
    memset(deep, '[', 2500);
    memset(deep + 2500, ']', 2500);
    CHECK_INT(dval__json_check(deep, 5000, m, sizeof m), DVAL_ERESULTS);
    CHECK_CONTAINS(m, "nested too deeply");
}

/* The ASCII fast path of dval__utf8_valid (8 bytes at a time) must still
 * see a bad or a multi-byte sequence at any offset and alignment. */
TEST(utf8_valid_sees_every_byte_at_any_offset)
{
    char buf[64];
    for (size_t at = 0; at < 40; at++) {
        for (size_t len = at + 1; len <= 48; len += 7) {
            memset(buf, 'a', sizeof buf);
            buf[at] = (char)0xff;                  /* never valid */
            CHECK(!dval__utf8_valid(buf, len));
            memset(buf, 'a', sizeof buf);
            if (at + 3 <= len) {
                memcpy(buf + at, "\xe2\x82\xac", 3); /* U+20AC */
                CHECK(dval__utf8_valid(buf, len));
                buf[at + 2] = 'x';                 /* cut sequence */
                CHECK(!dval__utf8_valid(buf, len));
            }
            memset(buf, 'a', sizeof buf);
            buf[at] = (char)0xc3;                  /* truncated at the end */
            CHECK(!dval__utf8_valid(buf, at + 1));
        }
    }
    CHECK(dval__utf8_valid("", 0));
}
