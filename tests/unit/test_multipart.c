/* Incremental multipart parser: split at every offset, error parts,
 * truncation, malformed input. */
#include "harness.h"
#include "executor/daytona/multipart.h"

typedef struct rec {
    char names[256];
    char data[4096];
    size_t len;
    int begins, ends;
} rec;

static int pb(const char *name, const char *filename, void *ud)
{
    rec *r = ud;
    r->begins++;
    snprintf(r->names + strlen(r->names), sizeof r->names - strlen(r->names),
             "%s:%s;", name, filename);
    return 0;
}

static int pd(const char *p, size_t n, void *ud)
{
    rec *r = ud;
    memcpy(r->data + r->len, p, n);
    r->len += n;
    return 0;
}

static int pe(void *ud)
{
    rec *r = ud;
    r->ends++;
    return 0;
}

static const dt_mp_cb cb = {pb, pd, pe};
#define CT "multipart/form-data; boundary=DAYTONA-FILE-BOUNDARY"

static const char body[] =
    "--DAYTONA-FILE-BOUNDARY\r\n"
    "Content-Disposition: form-data; name=\"file\"; filename=\"/a.txt\"; "
    "filename*=utf-8''%2Fa.txt\r\n"
    "Content-Length: 25\r\n"
    "Content-Type: text/plain\r\n\r\n"
    "a\r\n--DAYTONA-FILE-BOUNDAR\r\r\n-\r\n"   /* near-delimiters inside */
    "end\r\n"
    "--DAYTONA-FILE-BOUNDARY\r\n"
    "Content-Disposition: form-data; name=\"error\"; filename=\"/m\"\r\n"
    "Content-Type: application/json\r\n\r\n"
    "{\"statusCode\":404}\r\n"
    "--DAYTONA-FILE-BOUNDARY--\r\n";

static const char expect_data[] =
    "a\r\n--DAYTONA-FILE-BOUNDAR\r\r\n-\r\nend{\"statusCode\":404}";

TEST(every_split_point)
{
    size_t n = sizeof body - 1;
    for (size_t cut = 0; cut <= n; cut++) {
        rec r = {0};
        dt_mp mp;
        char err[128];
        CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, err, sizeof err), 0);
        CHECK_INT(dt_mp_feed(&mp, body, cut, err, sizeof err), 0);
        CHECK_INT(dt_mp_feed(&mp, body + cut, n - cut, err, sizeof err), 0);
        CHECK_INT(dt_mp_finish(&mp, err, sizeof err), 0);
        CHECK_STR(r.names, "file:/a.txt;error:/m;");
        CHECK_INT(r.len, sizeof expect_data - 1);
        CHECK(memcmp(r.data, expect_data, r.len) == 0);
        CHECK_INT(r.begins, 2);
        CHECK_INT(r.ends, 2);
    }
}

TEST(byte_by_byte_and_three_way_splits)
{
    size_t n = sizeof body - 1;
    rec r = {0};
    dt_mp mp;
    CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, NULL, 0), 0);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(dt_mp_feed(&mp, body + i, 1, NULL, 0), 0);
    CHECK_INT(dt_mp_finish(&mp, NULL, 0), 0);
    CHECK_INT(r.len, sizeof expect_data - 1);
    for (size_t a = 0; a < n; a += 7)
        for (size_t b = a; b <= n; b += 5) {
            rec q = {0};
            CHECK_INT(dt_mp_init(&mp, CT, &cb, &q, NULL, 0), 0);
            CHECK_INT(dt_mp_feed(&mp, body, a, NULL, 0), 0);
            CHECK_INT(dt_mp_feed(&mp, body + a, b - a, NULL, 0), 0);
            CHECK_INT(dt_mp_feed(&mp, body + b, n - b, NULL, 0), 0);
            CHECK_INT(dt_mp_finish(&mp, NULL, 0), 0);
            CHECK(memcmp(q.data, expect_data, q.len) == 0);
        }
}

TEST(truncation_detected_at_every_length)
{
    size_t n = sizeof body - 1;
    /* cutting anywhere before the closing "--" is truncation */
    size_t close_at = (size_t)(strstr(body, "BOUNDARY--") - body) + 10;
    for (size_t cut = 0; cut < close_at; cut++) {
        rec r = {0};
        dt_mp mp;
        char err[128] = "";
        CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, err, sizeof err), 0);
        CHECK_INT(dt_mp_feed(&mp, body, cut, err, sizeof err), 0);
        CHECK_INT(dt_mp_finish(&mp, err, sizeof err), DT_MP_ETRUNC);
        CHECK_CONTAINS(err, "truncated");
    }
    (void)n;
}

TEST(quoted_boundary_preamble_and_padding)
{
    const char *b = "preamble text\r\n--xyz  \r\n"
                    "content-disposition: form-data; name=file\r\n\r\n"
                    "DATA\r\n--xyz--";
    rec r = {0};
    dt_mp mp;
    CHECK_INT(dt_mp_init(&mp, "multipart/form-data; boundary=\"xyz\"", &cb,
                         &r, NULL, 0), 0);
    CHECK_INT(dt_mp_feed(&mp, b, strlen(b), NULL, 0), 0);
    CHECK_INT(dt_mp_finish(&mp, NULL, 0), 0);
    CHECK_STR(r.names, "file:;");
    CHECK_INT(r.len, 4);
}

TEST(malformed)
{
    rec r = {0};
    dt_mp mp;
    char err[128];
    CHECK_INT(dt_mp_init(&mp, "application/json", &cb, &r, err, sizeof err),
              DT_MP_EPROTO);
    CHECK_INT(dt_mp_init(&mp, "multipart/form-data", &cb, &r, err,
                         sizeof err), DT_MP_EPROTO);
    CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, err, sizeof err), 0);
    const char *bad = "--DAYTONA-FILE-BOUNDARYxx\r\n";
    CHECK_INT(dt_mp_feed(&mp, bad, strlen(bad), err, sizeof err),
              DT_MP_EPROTO);
    /* a part without a name */
    CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, err, sizeof err), 0);
    const char *noname = "--DAYTONA-FILE-BOUNDARY\r\nX: y\r\n\r\n";
    CHECK_INT(dt_mp_feed(&mp, noname, strlen(noname), err, sizeof err),
              DT_MP_EPROTO);
    /* endless headers are bounded */
    CHECK_INT(dt_mp_init(&mp, CT, &cb, &r, err, sizeof err), 0);
    CHECK_INT(dt_mp_feed(&mp, "--DAYTONA-FILE-BOUNDARY\r\n", 25, err,
                         sizeof err), 0);
    static char junk[DT_MP_HDR_MAX + 10];
    memset(junk, 'h', sizeof junk);
    CHECK_INT(dt_mp_feed(&mp, junk, sizeof junk, err, sizeof err),
              DT_MP_EPROTO);
}

static int stop_data(const char *p, size_t n, void *ud)
{
    (void)p, (void)n, (void)ud;
    return -17;
}

TEST(callback_status_is_returned)
{
    dt_mp_cb c2 = {pb, stop_data, pe};
    rec r = {0};
    dt_mp mp;
    CHECK_INT(dt_mp_init(&mp, CT, &c2, &r, NULL, 0), 0);
    CHECK_INT(dt_mp_feed(&mp, body, sizeof body - 1, NULL, 0), -17);
}
