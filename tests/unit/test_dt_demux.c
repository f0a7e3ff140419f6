/* The daytona executor's §6.5 demux (lib/executor/daytona/demux.c)
 * against the daemon's whole-log demux, over every split point and random
 * fragmentations, and its resuming: with the counts of what the core
 * already has, every byte is delivered once whatever the replay's
 * fragmentation. */
#include <stdint.h>

#include "harness.h"
#include "executor/daytona/demux.h"

typedef struct out2 {
    dval__buf s[3];
    int bad_stream;
    int stop_at;          /* return non-zero on this call (1-based; 0 off) */
    int calls;
} out2;

static int collect(int stream, const char *data, size_t len, void *ud)
{
    out2 *o = ud;
    if (stream != DVAL_STDOUT && stream != DVAL_STDERR) {
        o->bad_stream++;
        return 1;
    }
    CHECK(len > 0);
    dval__buf_append(&o->s[stream], data, len);
    return ++o->calls == o->stop_at;
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

/* The log cut at cuts[], resuming after out_from / err_from bytes. */
static void feed_from(const unsigned char *p, size_t n, const size_t *cuts,
                      int ncuts, uint64_t out_from, uint64_t err_from,
                      out2 *o)
{
    dt_demux d;
    dt_demux_init(&d, out_from, err_from, collect, o);
    size_t prev = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        CHECK_INT(dt_demux_feed(&d, (const char *)p + prev, end - prev), 0);
        prev = end;
    }
    CHECK_INT(dt_demux_finish(&d), 0);
    dt_demux_free(&d);
    CHECK_INT(o->bad_stream, 0);
}

static void feed_split(const unsigned char *p, size_t n, const size_t *cuts,
                       int ncuts, out2 *o)
{
    feed_from(p, n, cuts, ncuts, 0, 0, o);
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

/* ---- resuming after what the core has (a reconnect, the final log) */

/* ref's streams without their first skip bytes equal o's */
static void same_past(out2 *o, out2 *ref, size_t skip_out, size_t skip_err)
{
    size_t skip[3] = { 0, skip_out, skip_err };
    for (int s = 1; s <= 2; s++) {
        size_t k = skip[s] < ref->s[s].len ? skip[s] : ref->s[s].len;
        CHECK_INT(o->s[s].len, ref->s[s].len - k);
        CHECK(o->s[s].len == 0 ||
              memcmp(o->s[s].data, ref->s[s].data + k, o->s[s].len) == 0);
    }
}

TEST(demux__resumes_after_every_pair_of_counts_at_every_split)
{
    unsigned seed = 5;
    unsigned char log[160];
    size_t n = make_log(log, sizeof log, &seed);
    out2 ref = { 0 };
    reference(log, n, &ref);
    for (size_t so = 0; so <= ref.s[1].len + 1; so += 3)
        for (size_t se = 0; se <= ref.s[2].len + 1; se += 2)
            for (size_t cut = 0; cut <= n; cut++) {
                out2 o = { 0 };
                feed_from(log, n, &cut, 1, so, se, &o);
                same_past(&o, &ref, so, se);
                free2(&o);
            }
    free2(&ref);
}

/* A replay that drops at random points and resumes with the counts
 * delivered so far, as the core drives it: the concatenation of all
 * connections is the whole log, each byte once. */
TEST(demux__connections_dropping_anywhere_deliver_each_byte_once)
{
    unsigned seed = 99;
    static unsigned char log[1 << 16];
    size_t n = make_log(log, sizeof log, &seed);
    out2 ref = { 0 };
    reference(log, n, &ref);
    for (int round = 0; round < 30; round++) {
        out2 all = { 0 };
        for (int conn = 0; conn < 40; conn++) {
            /* this connection gets the log up to a random point (the
             * last one all of it), in random pieces */
            size_t upto = conn == 39 ? n : (size_t)rand_r(&seed) % (n + 1);
            dt_demux d;
            dt_demux_init(&d, all.s[1].len, all.s[2].len, collect, &all);
            for (size_t at = 0; at < upto;) {
                size_t k = 1 + (size_t)rand_r(&seed) % 700;
                k = k < upto - at ? k : upto - at;
                CHECK_INT(dt_demux_feed(&d, (const char *)log + at, k), 0);
                at += k;
            }
            if (upto == n)
                CHECK_INT(dt_demux_finish(&d), 0);
            dt_demux_free(&d);
            if (upto == n)
                break;
        }
        same(&all, &ref);
        free2(&all);
    }
    free2(&ref);
}

TEST(demux__a_sink_that_stops_ends_the_feed)
{
    const unsigned char log[] = { 1, 1, 1, 'a', '\n', 2, 2, 2, 'b', '\n',
                                  1, 1, 1, 'c', '\n' };
    out2 o = { .stop_at = 2 };
    dt_demux d;
    dt_demux_init(&d, 0, 0, collect, &o);
    CHECK_INT(dt_demux_feed(&d, (const char *)log, sizeof log),
              DVAL_EABORTED);
    dt_demux_free(&d);
    CHECK_STR(o.s[1].data, "a\n");
    CHECK_STR(o.s[2].data, "b\n");
    free2(&o);
}
