/* The §6.5 demux against the daemon's whole-log demux, over every split
 * point and random fragmentations, plus the UTF-8 chunker. */
#include <stdint.h>

#include "harness.h"
#include "output.h"

typedef struct out2 {
    dval__buf s[3];
} out2;

static int collect(int stream, const char *data, size_t len, void *ud)
{
    out2 *o = ud;
    dval__buf_append(&o->s[stream], data, len);
    return 0;
}

/* Reference: scan the whole log; a marker switches the stream; bytes
 * before the first marker are dropped. */
static void reference(const unsigned char *p, size_t n, out2 *o)
{
    int cur = 0;
    for (size_t i = 0; i < n;) {
        if (i + 2 < n && (p[i] == 1 || p[i] == 2) && p[i + 1] == p[i] &&
            p[i + 2] == p[i]) {
            cur = p[i] == 1 ? 1 : 2;
            i += 3;
            continue;
        }
        if (cur)
            dval__buf_append(&o->s[cur], p + i, 1);
        i++;
    }
}

static void feed_split(const unsigned char *p, size_t n, const size_t *cuts,
                       int ncuts, out2 *o)
{
    dval__demux d;
    dval__demux_init(&d);
    size_t prev = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        CHECK_INT(dval__demux_feed(&d, (const char *)p + prev, end - prev,
                                   collect, o), 0);
        prev = end;
    }
    CHECK_INT(dval__demux_finish(&d, collect, o), 0);
    dval__demux_free(&d);
}

static void same(out2 *a, out2 *b)
{
    for (int s = 1; s <= 2; s++) {
        CHECK_INT(a->s[s].len, b->s[s].len);
        CHECK(a->s[s].len == 0 ||
              memcmp(a->s[s].data, b->s[s].data, a->s[s].len) == 0);
    }
}

static void free2(out2 *o)
{
    for (int s = 0; s < 3; s++)
        dval__buf_free(&o->s[s]);
}

static size_t make_log(unsigned char *p, size_t cap, unsigned *seed)
{
    size_t n = 0;
    while (n + 40 < cap) {
        unsigned char m = (rand_r(seed) & 1) ? 1 : 2;
        p[n++] = m;
        p[n++] = m;
        p[n++] = m;
        int len = rand_r(seed) % 12;
        for (int i = 0; i < len; i++) {
            int r = rand_r(seed) % 10;
            /* stray 01/02 bytes inside lines, as binary output can have */
            p[n++] = r == 0 ? 1 : r == 1 ? 2 : (unsigned char)('a' + r);
        }
        p[n++] = '\n';
    }
    return n;
}

TEST(demux__sdk_bug_case_frame_ending_in_a_marker)
{
    const unsigned char a[] = { 1, 1, 1, 'a', 'b', '\n', 2, 2, 2 };
    const unsigned char b[] = { 'c', 'd', '\n' };
    unsigned char all[12];
    memcpy(all, a, 9);
    memcpy(all + 9, b, 3);
    out2 o = { 0 };
    size_t cut = 9;
    feed_split(all, 12, &cut, 1, &o);
    CHECK_STR(o.s[1].data, "ab\n");
    CHECK_STR(o.s[2].data, "cd\n");
    free2(&o);
}

TEST(demux__frame_that_is_exactly_one_marker)
{
    const unsigned char all[] = { 1, 1, 1, 'x', '\n', 2, 2, 2, 'y', '\n' };
    size_t cuts[] = { 5, 8 };
    out2 o = { 0 };
    feed_split(all, sizeof all, cuts, 2, &o);
    CHECK_STR(o.s[1].data, "x\n");
    CHECK_STR(o.s[2].data, "y\n");
    free2(&o);
}

TEST(demux__every_single_split_point)
{
    unsigned seed = 7;
    unsigned char log[600];
    size_t n = make_log(log, sizeof log, &seed);
    out2 ref = { 0 };
    reference(log, n, &ref);
    for (size_t cut = 0; cut <= n; cut++) {
        out2 o = { 0 };
        feed_split(log, n, &cut, 1, &o);
        same(&o, &ref);
        free2(&o);
    }
    free2(&ref);
}

TEST(demux__every_pair_of_split_points_near_markers)
{
    unsigned seed = 11;
    unsigned char log[120];
    size_t n = make_log(log, sizeof log, &seed);
    out2 ref = { 0 };
    reference(log, n, &ref);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            size_t cuts[2] = { a, b };
            out2 o = { 0 };
            feed_split(log, n, cuts, 2, &o);
            same(&o, &ref);
            free2(&o);
        }
    free2(&ref);
}

TEST(demux__random_fragmentation_of_a_large_log)
{
    unsigned seed = 1234;
    static unsigned char log[1 << 20];
    size_t n = make_log(log, sizeof log, &seed);
    out2 ref = { 0 };
    reference(log, n, &ref);
    for (int round = 0; round < 20; round++) {
        size_t cuts[4096];
        int ncuts = 0;
        size_t at = 0;
        while (ncuts < 4096) {
            at += 1 + (size_t)(rand_r(&seed) % 1024);
            if (at >= n)
                break;
            cuts[ncuts++] = at;
        }
        out2 o = { 0 };
        feed_split(log, n, cuts, ncuts, &o);
        same(&o, &ref);
        free2(&o);
    }
    free2(&ref);
}

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
