/* Public API against the emulator: the API key is a secret. A canary key
 * never shows up in an error message, a log line (DEBUG, everything) or
 * any recorded request other than in its Authorization header - also when
 * the server echoes it back in an error body or an HTML page. */
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define CANARY "dtn_CANARY_7f3a"
#define JWT_CANARY "eyJCANARY.jwt.9c1d"
#define SNAP "snap-secret"

static char *logbuf;
static size_t nlog;
static long nlines;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_fn(int level, const char *msg, void *ud)
{
    (void)level, (void)ud;
    pthread_mutex_lock(&log_lock);
    size_t n = strlen(msg);
    logbuf = realloc(logbuf, nlog + n + 2);
    memcpy(logbuf + nlog, msg, n);
    nlog += n;
    logbuf[nlog++] = '\n';
    logbuf[nlog] = '\0';
    nlines++;
    pthread_mutex_unlock(&log_lock);
}

static const char *secret;   /* the canary of the running test */

static void no_secret(const char *where, const char *text)
{
    if (text && strstr(text, secret))
        th_fail(__FILE__, __LINE__, "the secret leaked into %s: %s", where,
                text);
}

static int on_output(int stream, const char *channel, const char *data,
                     size_t len, void *ud)
{
    (void)stream, (void)channel, (void)data, (void)len, (void)ud;
    return 0;
}

/* Every recorded request: the secret only as "Bearer <secret>" in
 * Authorization. Returns how many requests carried it there. */
static int check_requests(emu *e)
{
    char *body = emu_get(e, "/_emu/requests");
    CHECK(body);
    json_t *list = json_loads(body, JSON_ALLOW_NUL, NULL);
    CHECK(json_is_array(list));
    size_t i;
    json_t *r;
    int authorized = 0;
    char want[128];
    snprintf(want, sizeof want, "Bearer %s", secret);
    json_array_foreach(list, i, r) {
        json_t *h = json_object_get(r, "headers");
        const char *k;
        json_t *v;
        json_object_foreach(h, k, v) {
            const char *s = json_string_value(v);
            if (!strcmp(k, "authorization")) {
                CHECK_STR(s, want);
                authorized++;
                continue;
            }
            no_secret(k, s);
        }
        no_secret("path", json_string_value(json_object_get(r, "path")));
        no_secret("query", json_string_value(json_object_get(r, "query")));
        no_secret("body", json_string_value(json_object_get(r, "body")));
    }
    int n = (int)json_array_size(list);
    json_decref(list);
    free(body);
    CHECK_INT(authorized, n);
    return n;
}

static void workflow(emu *e, dval_client *c, int html_echo)
{
    /* the happy path, every kind of call */
    dval_snapshot_spec sp;
    dval_snapshot_spec_init(&sp, sizeof sp);
    sp.name = SNAP;
    sp.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    CHECK_INT(dval_snapshot_ensure(&snap, c, &sp, NULL, NULL), DVAL_OK);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "sb";
    o.snapshot = SNAP;
    o.zombie_pause_ms = -1;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    CHECK_INT(dval_sandbox_upload(sb, "/sandbox/in.txt", "data", 4), 0);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    int code = -1;
    CHECK_INT(dval_session_exec(s, "cat /sandbox/in.txt; echo e >&2", NULL,
                                on_output, NULL, &code), DVAL_OK);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(dval_sandbox_download(sb, "/sandbox/in.txt", &data, &len), 0);
    dval_free(data);

    /* failures: each message is checked */
    CHECK(dval_sandbox_download(sb, "/sandbox/missing", &data, &len) != 0);
    no_secret("sandbox errmsg (404)", dval_sandbox_errmsg(sb));
    /* servers that echo the credentials back */
    char rest[512];
    snprintf(rest, sizeof rest, "\"action\":\"status\",\"status\":400,"
             "\"body\":\"{\\\"statusCode\\\":400,\\\"message\\\":\\\"bad "
             "token Bearer %s\\\"}\"", secret);
    CHECK_INT(emu_fault(e, "POST", "^/api/sandbox/.+/stop$", 1, rest), 200);
    CHECK(dval_sandbox_stop(sb) != 0);
    no_secret("sandbox errmsg (echoed JSON)", dval_sandbox_errmsg(sb));
    CHECK(dval_sandbox_errmsg(sb)[0]);
    if (html_echo) {
        /* a 200 that is an HTML page quoting the key: the parser's
         * message quotes the page */
        snprintf(rest, sizeof rest, "\"action\":\"status\",\"status\":200,"
                 "\"content_type\":\"text/html\",\"body\":\"<html>key %s "
                 "is not valid</html>\"", secret);
        CHECK_INT(emu_fault(e, "GET", "^/api/sandbox/", 1, rest), 200);
        CHECK(dval_sandbox_refresh(sb) != 0);
        no_secret("sandbox errmsg (echoed HTML)", dval_sandbox_errmsg(sb));
        CHECK_INT(emu_fault(e, "POST", "/exec$", 1, rest), 200);
        CHECK(dval_session_exec(s, "true", NULL, NULL, NULL, &code) != 0);
        no_secret("session errmsg (echoed HTML)", dval_session_errmsg(s));
    }
    snprintf(rest, sizeof rest, "\"action\":\"status\",\"status\":401,"
             "\"body\":\"{\\\"message\\\":\\\"Unauthorized: %s\\\"}\"",
             secret);
    CHECK_INT(emu_fault(e, "GET", "^/api/snapshots/", 1, rest), 200);
    dval_snapshot *snap2 = NULL;
    CHECK_INT(dval_snapshot_ensure(&snap2, c, &sp, NULL, NULL), DVAL_EAUTH);
    no_secret("client errmsg (401)", dval_client_errmsg(c));
    CHECK(dval_client_errmsg(c)[0]);
    /* a key the server refuses */
    CHECK_INT(emu_post(e, "/_emu/config", "{\"api_key\":\"another\"}"), 200);
    dval_sandbox *sb2 = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb2, c, &o), DVAL_EAUTH);
    no_secret("client errmsg (refused)", dval_client_errmsg(c));
    CHECK_INT(emu_post(e, "/_emu/config", "{\"api_key\":null}"), 200);

    dval_session_close(s);
    no_secret("session errmsg", dval_session_errmsg(s));
    dval_session_free(s);
    dval_sandbox_free(sb);
    dval_snapshot_free(snap);
}

static void run_with(const char *key, const char *jwt, int html_echo)
{
    secret = key ? key : jwt;
    emu e;
    emu_start(&e);
    CHECK_INT(emu_post(&e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.log_fn = log_fn;
    o.log_level = DVAL_LOG_DEBUG;
    o.retry_attempts = 2;
    dval_client *c;
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    if (key) {
        c = emu_client(&e, key, 10, &o);
    } else {
        d.api_url = e.api;
        d.jwt_token = jwt;
        d.organization_id = "org-1";
        o.daytona = &d;
        o.executor = "daytona";
        o.retry_base_ms = 10;
        CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    }
    workflow(&e, c, html_echo);
    dval_client_free(c);
    int n = check_requests(&e);
    fprintf(stderr, "    %d requests and %ld log lines (%zu bytes) free of "
            "the secret\n", n, nlines, nlog);
    CHECK(n >= 15);
    CHECK(nlines >= 10);
    no_secret("the log", logbuf);
    free(logbuf);
    emu_stop(&e);
}

TEST(api_key_never_leaks)
{
    run_with(CANARY, NULL, 0);
}

TEST(jwt_never_leaks)
{
    run_with(NULL, JWT_CANARY, 0);
}

/* Parse errors quote the start of an HTML/XML reply; a server echoing the
 * key there must not make it reach dval_sandbox_errmsg(). */
TEST(key_echoed_in_an_html_reply_never_leaks)
{
    run_with(CANARY, NULL, 1);
}

/* client construction errors do not quote the key either */
TEST(bad_configuration_messages_do_not_quote_the_key)
{
    secret = CANARY;
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_key = CANARY;
    d.api_url = "ftp://" CANARY "@example";
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.daytona = &d;
    o.executor = "daytona";
    o.log_fn = log_fn;
    o.log_level = DVAL_LOG_DEBUG;
    dval_client *c = NULL;
    CHECK(dval_client_new(&c, &o) != DVAL_OK);
    d.api_url = "http://127.0.0.1:1/api";
    o.executor = "nonsense";
    CHECK(dval_client_new(&c, &o) != DVAL_OK);
    /* an unreachable server: connection refused */
    o.executor = "daytona";
    o.retry_attempts = 1;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_ENETWORK);
    no_secret("client errmsg (refused)", dval_client_errmsg(c));
    dval_client_free(c);
    no_secret("the log", logbuf);
    free(logbuf);
}
