/* Public API against broken servers: truncated JSON, wrong types, HTML
 * error pages, empty 200s and lying Content-Lengths on the main API and
 * the toolbox give a clear error (status + non-empty message), never a
 * crash or a leak (run under valgrind). */
#include <stdint.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define SNAP "snap-bad"

typedef struct bad {
    const char *rest;      /* fault rule members */
    const char *label;
} bad;

static const bad BAD[] = {
    {"\"action\":\"status\",\"status\":200,\"body\":\"{\\\"id\\\":\\\"a\\\",\"",
     "truncated JSON"},
    {"\"action\":\"status\",\"status\":200,\"body\":\"{\\\"id\\\":5,"
     "\\\"state\\\":true}\"", "wrong types"},
    {"\"action\":\"status\",\"status\":200,\"body\":\"[1,2,3]\"",
     "an array"},
    {"\"action\":\"status\",\"status\":200,\"content_type\":\"text/html\","
     "\"body\":\"<html><body><h1>502 Bad Gateway</h1></body></html>\"",
     "HTML page with 200"},
    {"\"action\":\"status\",\"status\":200,\"body\":\"\"", "empty 200"},
    {"\"action\":\"status\",\"status\":200,\"body\":\"nul\\u0000byte\"",
     "NUL in the body"},
    {"\"action\":\"truncate\"", "cut body"},
};
#define NBAD (sizeof BAD / sizeof BAD[0])

typedef struct fx {
    emu e;
    dval_client *c;
} fx;

static void fx_start(fx *f)
{
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.retry_attempts = 2;
    f->c = emu_client(&f->e, NULL, 10, &o);
}

static void fx_stop(fx *f)
{
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static int ensure(fx *f)
{
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = SNAP;
    s.image = "debian:12-slim";
    s.build_timeout_ms = 20000;
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, f->c, &s, NULL, NULL);
    dval_snapshot_free(snap);
    return rc;
}

static int acquire(fx *f, dval_sandbox **sb)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "sb";
    o.snapshot = SNAP;
    o.start_timeout_ms = 5000;
    return dval_sandbox_acquire(sb, f->c, &o);
}

/* the call failed, said why, and handed nothing back */
static void expect_error(int rc, const char *msg, const char *what,
                         const char *label)
{
    if (rc == DVAL_OK)
        th_fail(__FILE__, __LINE__, "%s with %s: succeeded", what, label);
    if (!msg || !msg[0])
        th_fail(__FILE__, __LINE__, "%s with %s: %s without a message",
                what, label, dval_status_name(rc));
    fprintf(stderr, "    %-22s %-18s -> %s: %s\n", what, label,
            dval_status_name(rc), msg);
}

TEST(main_api_garbage_fails_cleanly)
{
    fx f;
    fx_start(&f);
    for (size_t i = 0; i < NBAD; i++) {
        CHECK_INT(emu_post(&f.e, "/_emu/reset", "{}"), 200);
        CHECK_INT(emu_fault(&f.e, "GET", "^/api/snapshots/", 3, BAD[i].rest),
                  200);
        int rc = ensure(&f);
        expect_error(rc, dval_client_errmsg(f.c), "snapshot ensure",
                     BAD[i].label);
        CHECK_INT(emu_clear_faults(&f.e), 200);
        CHECK_INT(ensure(&f), DVAL_OK);
        CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/", 3, BAD[i].rest),
                  200);
        dval_sandbox *sb = (dval_sandbox *)1;
        rc = acquire(&f, &sb);
        CHECK(sb == NULL);
        expect_error(rc, dval_client_errmsg(f.c), "sandbox acquire",
                     BAD[i].label);
        CHECK_INT(emu_clear_faults(&f.e), 200);
        CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox$", 3, BAD[i].rest),
                  200);
        rc = acquire(&f, &sb);
        expect_error(rc, dval_client_errmsg(f.c), "sandbox create",
                     BAD[i].label);
        CHECK_INT(emu_clear_faults(&f.e), 200);
    }
    fx_stop(&f);
}

TEST(toolbox_garbage_fails_cleanly)
{
    fx f;
    fx_start(&f);
    CHECK_INT(ensure(&f), DVAL_OK);
    dval_sandbox *sb = NULL;
    CHECK_INT(acquire(&f, &sb), DVAL_OK);
    CHECK_INT(dval_sandbox_upload(sb, "/sandbox/a.txt", "abc", 3), DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    for (size_t i = 0; i < NBAD; i++) {
        /* downloads: a 200 that is no multipart body */
        CHECK_INT(emu_fault(&f.e, "POST", "bulk-download", 3, BAD[i].rest),
                  200);
        char *data = (char *)1;
        size_t len = 9;
        int rc = dval_sandbox_download(sb, "/sandbox/a.txt", &data, &len);
        CHECK(data == NULL);
        CHECK_INT(len, 0);
        if (!strstr(BAD[i].label, "404"))
            expect_error(rc, dval_sandbox_errmsg(sb), "download",
                         BAD[i].label);
        CHECK_INT(emu_clear_faults(&f.e), 200);
        /* exec: the command id reply */
        CHECK_INT(emu_fault(&f.e, "POST", "/exec$", 1, BAD[i].rest), 200);
        int code = -1;
        rc = dval_session_exec(s, "echo hi", NULL, NULL, NULL, &code);
        expect_error(rc, dval_session_errmsg(s), "exec start", BAD[i].label);
        CHECK_INT(emu_clear_faults(&f.e), 200);
        /* exec: the status poll ({"id":5} without exitCode reads as
         * "running": give exitCode the wrong type instead) */
        const char *st = strstr(BAD[i].label, "wrong types")
            ? "\"action\":\"status\",\"status\":200,\"body\":"
              "\"{\\\"id\\\":\\\"c\\\",\\\"exitCode\\\":\\\"zero\\\"}\""
            : BAD[i].rest;
        CHECK_INT(emu_fault(&f.e, "GET", "/command/[^/]+$", 100, st), 200);
        rc = dval_session_exec(s, "echo hi", NULL, NULL, NULL, &code);
        expect_error(rc, dval_session_errmsg(s), "exec status",
                     BAD[i].label);
        CHECK_CONTAINS(dval_session_errmsg(s), "command status");
        CHECK_INT(emu_clear_faults(&f.e), 200);
    }
    /* and the session still works */
    int code = -1;
    CHECK_INT(dval_session_exec(s, "exit 4", NULL, NULL, NULL, &code),
              DVAL_OK);
    CHECK_INT(code, 4);
    dval_session_close(s);
    dval_session_free(s);
    dval_sandbox_free(sb);
    fx_stop(&f);
}

/* An HTML 404 from a proxy in front of a wrong api_url: "absent", then
 * the create fails too, with a message. */
TEST(html_404_pages_everywhere_fail_cleanly)
{
    fx f;
    fx_start(&f);
    CHECK_INT(ensure(&f), DVAL_OK);
    CHECK_INT(emu_fault(&f.e, "*", "^/api/", 100, "\"action\":\"status\","
                        "\"status\":404,\"content_type\":\"text/html\","
                        "\"body\":\"<html><body>nginx</body></html>\""), 200);
    dval_sandbox *sb = (dval_sandbox *)1;
    int rc = acquire(&f, &sb);
    CHECK(sb == NULL);
    expect_error(rc, dval_client_errmsg(f.c), "acquire", "HTML 404 pages");
    CHECK_INT(rc, DVAL_ENOTFOUND);
    rc = ensure(&f);
    expect_error(rc, dval_client_errmsg(f.c), "snapshot ensure",
                 "HTML 404 pages");
    fx_stop(&f);
}

/* A raw reply with a Content-Length of 2 GB: refused before reading it. */
TEST(huge_content_length_is_refused)
{
    emu e;
    emu_start(&e);    /* only for the skip check and a uniform setup */
    const char huge[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        "Content-Length: 2000000000\r\n\r\n{\"id\":\"x\",";
    int port = raw_server(huge, sizeof huge - 1);
    CHECK(port > 0);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api", port);
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_url = url;
    d.api_key = "k";
    d.request_timeout_ms = 5000;
    o.daytona = &d;
    o.executor = "daytona";
    o.retry_attempts = 1;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    dval_sandbox *sb = (dval_sandbox *)1;
    int rc = dval_sandbox_acquire(&sb, c, &so);
    CHECK(sb == NULL);
    expect_error(rc, dval_client_errmsg(c), "acquire", "2 GB length");
    CHECK_INT(rc, DVAL_ETOOBIG);

    /* the toolbox: a started sandbox whose toolbox lies the same way */
    const char mp[] = "HTTP/1.1 200 OK\r\nContent-Type: multipart/form-data;"
                      " boundary=B\r\nContent-Length: 2000000000\r\n\r\n"
                      "--B\r\nContent-Disposition: form-data; name=\"file\""
                      "\r\n\r\nabc";
    int tport = raw_server(mp, sizeof mp - 1);
    char dto[512], reply[1024];
    snprintf(dto, sizeof dto, "{\"id\":\"11111111-2222-3333-4444-555555555555"
             "\",\"name\":\"sb\",\"state\":\"started\",\"toolboxProxyUrl\":"
             "\"http://127.0.0.1:%d/toolbox\"}", tport);
    snprintf(reply, sizeof reply, "HTTP/1.1 200 OK\r\nContent-Type: "
             "application/json\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(dto), dto);
    port = raw_server(reply, strlen(reply));
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api", port);
    dval_client *c2 = NULL;
    CHECK_INT(dval_client_new(&c2, &o), DVAL_OK);
    CHECK_INT(dval_sandbox_acquire(&sb, c2, &so), DVAL_OK);
    char *data = (char *)1;
    size_t len = 1;
    rc = dval_sandbox_download(sb, "/sandbox/x", &data, &len);
    CHECK(data == NULL);
    expect_error(rc, dval_sandbox_errmsg(sb), "download", "2 GB length");
    CHECK_INT(rc, DVAL_ETOOBIG);
    dval_sandbox_free(sb);
    dval_client_free(c2);
    dval_client_free(c);
    emu_stop(&e);
    /* let the one-shot servers' detached threads end (each lingers 200 ms
     * after its reply), so leak checkers see no live thread stacks */
    usleep(500000);
}
