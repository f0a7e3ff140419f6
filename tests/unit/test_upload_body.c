/* The bulk-upload body built without curl_mime: the bytes curl_mime sent
 * (file name escape included), whatever sizes the source and the reader
 * use; sizes known and unknown; a source that fails or ends early;
 * rewinding. Read back with the library's own multipart parser. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "executor/daytona/multipart.h"
#include "executor/daytona/upload_body.h"

typedef struct src {
    const char *data;
    size_t len, off, step;   /* step: the most one call gives */
    int fail_at;             /* fail on this call (1-based), 0 never */
    int calls;
} src;

static int src_read(char *buf, size_t cap, size_t *len, void *ud)
{
    src *s = ud;
    if (++s->calls == s->fail_at)
        return -1;
    size_t n = s->len - s->off;
    n = n < cap ? n : cap;
    n = n < s->step ? n : s->step;
    memcpy(buf, s->data + s->off, n);
    s->off += n;
    *len = n;
    return 0;
}

/* The whole body, read cap bytes at a time (*rc: the reader's status). */
static char *read_all(dt_upbody *b, size_t cap, size_t *len, int *rc)
{
    size_t n = 0, got;
    char *out = malloc(65536);
    *rc = 0;
    do {
        got = 0;
        if ((*rc = dt_upbody_read(b, out + n, cap, &got)) != 0)
            break;
        n += got;
    } while (got);
    *len = n;
    return out;
}

static const char *boundary(const dt_upbody *b)
{
    const char *p = strstr(b->ctype, "boundary=");
    return p ? p + 9 : "";
}

static const char file[] = "echo '{\"ok\":true}' > r.json\r\n--x\n";

TEST(the_bytes_curl_mime_sent_at_every_read_size)
{
    for (size_t step = 1; step < 40; step += 3)
        for (size_t cap = 1; cap < 600; cap += cap < 20 ? 1 : 37) {
            src s = {file, sizeof file - 1, 0, step, 0, 0};
            dt_upbody b;
            CHECK_INT(dt_upbody_init(&b, "/w/d/run.sh", src_read, &s,
                                     (int64_t)s.len), 0);
            char want[2048];
            const char *bd = boundary(&b);
            int wl = snprintf(want, sizeof want, "--%s\r\nContent-Disposition:"
                              " form-data; name=\"files[0].path\"\r\n\r\n"
                              "/w/d/run.sh\r\n--%s\r\nContent-Disposition: "
                              "form-data; name=\"files[0].file\"; filename="
                              "\"run.sh\"\r\nContent-Type: application/"
                              "octet-stream\r\n\r\n%s\r\n--%s--\r\n", bd, bd,
                              file, bd);
            CHECK_INT(strlen(bd), 40);
            CHECK(strncmp(b.ctype, "Content-Type: multipart/form-data; "
                          "boundary=", 44) == 0);
            size_t n;
            int rc;
            char *got = read_all(&b, cap, &n, &rc);
            CHECK_INT(rc, 0);
            CHECK_INT(n, (size_t)wl);
            CHECK_INT(dt_upbody_length(&b), wl);
            CHECK(memcmp(got, want, n) == 0);
            free(got);
            dt_upbody_free(&b);
        }
}

typedef struct parts {
    char names[512];
    char data[2][256];
    size_t len[2];
    int n;
} parts;

static int pb(const char *name, const char *filename, void *ud)
{
    parts *p = ud;
    snprintf(p->names + strlen(p->names), sizeof p->names - strlen(p->names),
             "%s|%s;", name, filename ? filename : "");
    p->n++;
    return 0;
}

static int pd(const char *d, size_t n, void *ud)
{
    parts *p = ud;
    memcpy(p->data[p->n - 1] + p->len[p->n - 1], d, n);
    p->len[p->n - 1] += n;
    return 0;
}

static int pe(void *ud)
{
    (void)ud;
    return 0;
}

TEST(odd_names_escaped_as_curl_did_and_the_path_kept_raw)
{
    /* quotes become %22 in the file name (curl's form-data escape); the
     * path part carries the path's bytes as they are */
    const char *path = "/w/a \"b\" \xc3\xa9;x=1.sh";
    src s = {file, sizeof file - 1, 0, 7, 0, 0};
    dt_upbody b;
    CHECK_INT(dt_upbody_init(&b, path, src_read, &s, -1), 0);
    CHECK_INT(dt_upbody_length(&b), -1);
    size_t n;
    int rc;
    char *body = read_all(&b, 4096, &n, &rc);
    CHECK_INT(rc, 0);
    const char *fn = "filename=\"a %22b%22 \xc3\xa9;x=1.sh\"\r\n";
    CHECK(memmem(body, n, fn, strlen(fn)) != NULL);
    parts p = {0};
    dt_mp mp;
    static const dt_mp_cb cb = {pb, pd, pe};
    CHECK_INT(dt_mp_init(&mp, b.ctype + 14, &cb, &p, NULL, 0), 0);
    CHECK_INT(dt_mp_feed(&mp, body, n, NULL, 0), 0);
    CHECK_INT(dt_mp_finish(&mp, NULL, 0), 0);
    CHECK_INT(p.n, 2);
    CHECK_INT(p.len[0], strlen(path));
    CHECK(memcmp(p.data[0], path, p.len[0]) == 0);
    CHECK_INT(p.len[1], sizeof file - 1);
    CHECK(memcmp(p.data[1], file, p.len[1]) == 0);
    free(body);
    dt_upbody_free(&b);
}

TEST(a_source_that_fails_or_ends_early_stops_the_body)
{
    src s = {file, sizeof file - 1, 0, 4, 3, 0};
    dt_upbody b;
    CHECK_INT(dt_upbody_init(&b, "/w/f", src_read, &s, (int64_t)s.len), 0);
    size_t n;
    int rc;
    free(read_all(&b, 5, &n, &rc));
    CHECK_INT(rc, DT_UP_ESRC);
    dt_upbody_free(&b);
    /* announced one byte more than the source has: never a short body
     * under a Content-Length the server would wait out */
    src t = {file, sizeof file - 1, 0, 64, 0, 0};
    CHECK_INT(dt_upbody_init(&b, "/w/f", src_read, &t, (int64_t)t.len + 1), 0);
    free(read_all(&b, 4096, &n, &rc));
    CHECK_INT(rc, DT_UP_ESHORT);
    dt_upbody_free(&b);
    /* more than announced: only the announced bytes are sent */
    src u = {file, sizeof file - 1, 0, 64, 0, 0};
    CHECK_INT(dt_upbody_init(&b, "/w/f", src_read, &u, 4), 0);
    char *body = read_all(&b, 4096, &n, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(n, (size_t)dt_upbody_length(&b));
    CHECK(memmem(body, n, "\r\n\r\necho\r\n--", 12) != NULL);
    free(body);
    dt_upbody_free(&b);
}

TEST(rewind_until_the_source_is_read_and_fresh_boundaries)
{
    src s = {file, sizeof file - 1, 0, 64, 0, 0};
    dt_upbody a, b;
    CHECK_INT(dt_upbody_init(&a, "/w/f", src_read, &s, (int64_t)s.len), 0);
    CHECK_INT(dt_upbody_init(&b, "/w/f", src_read, &s, (int64_t)s.len), 0);
    CHECK(strcmp(a.ctype, b.ctype) != 0);
    char buf[16];
    size_t n;
    CHECK_INT(dt_upbody_read(&a, buf, sizeof buf, &n), 0);
    CHECK_INT(n, sizeof buf);
    CHECK_INT(dt_upbody_rewind(&a), 0);     /* headers only so far */
    size_t len;
    int rc;
    char *body = read_all(&a, 4096, &len, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(len, (size_t)dt_upbody_length(&a));
    CHECK(strncmp(body, "--", 2) == 0);
    CHECK_INT(dt_upbody_rewind(&a), -1);    /* the source was read */
    free(body);
    dt_upbody_free(&a);
    dt_upbody_free(&b);
}
