/* Public API against the emulator: the retry policy (PROTOCOL 8.3, 8.5).
 * 429 is retried on any method honouring Retry-After-<throttler>; 5xx and
 * resets on idempotent calls; a 4xx never; each failure is retried by one
 * layer only (requests counted on the emulator). */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define SNAP "snap-retry"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- log capture with timestamps */
#define MAXLOG 512
static struct {
    int64_t t;
    char line[512];
} logs[MAXLOG];
static int nlogs;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_fn(int level, const char *msg, void *ud)
{
    (void)level, (void)ud;
    pthread_mutex_lock(&log_lock);
    if (nlogs < MAXLOG) {
        logs[nlogs].t = now_ms();
        snprintf(logs[nlogs].line, sizeof logs[nlogs].line, "%s", msg);
        nlogs++;
    }
    pthread_mutex_unlock(&log_lock);
}

/* timestamps of log lines containing needle */
static int log_times(const char *needle, int64_t *t, int max)
{
    int n = 0;
    for (int i = 0; i < nlogs && n < max; i++)
        if (strstr(logs[i].line, needle))
            t[n++] = logs[i].t;
    return n;
}

typedef struct fx {
    emu e;
    dval_client *c;
} fx;

static void fx_start(fx *f, int attempts)
{
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.log_fn = log_fn;
    o.retry_attempts = attempts;
    f->c = emu_client(&f->e, NULL, 20, &o);
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
    o.start_timeout_ms = 20000;
    return dval_sandbox_acquire(sb, f->c, &o);
}

#define OK(expr)                                                           \
    do {                                                                   \
        int ok_rc = (expr);                                                \
        if (ok_rc)                                                         \
            th_fail(__FILE__, __LINE__, "%s: %s: %s", #expr,               \
                    dval_status_name(ok_rc), dval_client_errmsg(f.c));     \
    } while (0)

TEST(storm_of_429_on_create_honours_retry_after)
{
    fx f;
    fx_start(&f, 5);
    OK(ensure(&f));
    CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox$", 3,
                        "\"action\":\"status\",\"status\":429,\"headers\":"
                        "{\"Retry-After-sandbox-create\":\"1\"}"), 200);
    nlogs = 0;
    dval_sandbox *sb = NULL;
    int64_t t0 = now_ms();
    OK(acquire(&f, &sb));
    int64_t took = now_ms() - t0;
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 4);
    /* one log line per failed attempt: the gaps are the server's 1 s, not
     * the client's 20 ms base */
    int64_t t[8];
    int n = log_times("create sandbox: attempt", t, 8);
    CHECK_INT(n, 3);
    int hinted = 0;
    for (int i = 0; i < nlogs; i++)
        hinted += strstr(logs[i].line, "create sandbox: attempt") &&
                  strstr(logs[i].line, "retrying in 1000 ms");
    CHECK_INT(hinted, 3);
    fprintf(stderr, "    3 x 429 (Retry-After-sandbox-create: 1): gaps %lld, "
            "%lld ms; acquire %lld ms\n", (long long)(t[1] - t[0]),
            (long long)(t[2] - t[1]), (long long)took);
    CHECK(t[1] - t[0] >= 1000);
    CHECK(t[2] - t[1] >= 1000);
    CHECK(took >= 3000);
    dval_sandbox_free(sb);
    fx_stop(&f);
}

TEST(rate_limit_without_hint_gives_up_after_the_attempts)
{
    fx f;
    fx_start(&f, 4);
    OK(ensure(&f));
    CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox$", 100,
                        "\"action\":\"status\",\"status\":429"), 200);
    dval_sandbox *sb = NULL;
    CHECK_INT(acquire(&f, &sb), DVAL_ERATELIMIT);
    CHECK(sb == NULL);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "Too Many Requests");
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 4);
    fx_stop(&f);
}

/* Each transient failure is retried by one layer only: snapshot ensure's
 * get-or-create pass must not multiply the per-call attempts. */
TEST(snapshot_ensure_does_not_multiply_retries)
{
    fx f;
    fx_start(&f, 3);
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/snapshots/", 100,
                        "\"action\":\"status\",\"status\":503"), 200);
    CHECK_INT(ensure(&f), DVAL_ESERVER);
    CHECK_CONTAINS(dval_client_errmsg(f.c), "503");
    CHECK_INT(emu_count(&f.e, "GET", "^/api/snapshots/"), 3);
    CHECK_INT(emu_post(&f.e, "/_emu/reset", "{}"), 200);
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/snapshots/", 100,
                        "\"action\":\"status\",\"status\":429"), 200);
    CHECK_INT(ensure(&f), DVAL_ERATELIMIT);
    CHECK_INT(emu_count(&f.e, "GET", "^/api/snapshots/"), 3);
    fx_stop(&f);
}

TEST(bursts_of_5xx_and_resets_on_gets_are_retried)
{
    fx f;
    fx_start(&f, 5);
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/snapshots/", 2,
                        "\"action\":\"status\",\"status\":502"), 200);
    OK(ensure(&f));
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/", 2,
                        "\"action\":\"status\",\"status\":503,"
                        "\"content_type\":\"text/html\",\"body\":"
                        "\"<html>down</html>\""), 200);
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/", 1,
                        "\"action\":\"status\",\"status\":500"), 200);
    CHECK_INT(emu_fault(&f.e, "GET", "^/api/sandbox/", 1,
                        "\"action\":\"reset\""), 200);
    dval_sandbox *sb = NULL;
    OK(acquire(&f, &sb));
    /* 4 failed GETs, then the real one (404: absent, create) */
    CHECK(emu_count(&f.e, "GET", "^/api/sandbox/") >= 5);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    /* toolbox GETs too: a download through two 502s */
    CHECK_INT(dval_sandbox_upload(sb, "f.txt", "hello", 5), DVAL_OK);
    CHECK_INT(emu_fault(&f.e, "POST", "bulk-download", 2,
                        "\"action\":\"status\",\"status\":502"), 200);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(dval_sandbox_download(sb, "f.txt", &data, &len), DVAL_OK);
    CHECK_INT(len, 5);
    CHECK_STR(data, "hello");
    dval_free(data);
    CHECK_INT(emu_count(&f.e, "POST", "bulk-download"), 3);
    dval_sandbox_free(sb);
    fx_stop(&f);
}

TEST(a_4xx_is_never_retried)
{
    fx f;
    fx_start(&f, 5);
    OK(ensure(&f));
    struct {
        int status, want;
    } cases[] = {
        {400, DVAL_EBADREQUEST}, {401, DVAL_EAUTH}, {403, DVAL_EFORBIDDEN},
        {422, DVAL_EBADREQUEST},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(emu_post(&f.e, "/_emu/reset", "{}"), 200);
        OK(ensure(&f));
        char rest[128];
        snprintf(rest, sizeof rest, "\"action\":\"status\",\"status\":%d",
                 cases[i].status);
        CHECK_INT(emu_fault(&f.e, "POST", "^/api/sandbox$", 5, rest), 200);
        dval_sandbox *sb = NULL;
        int rc = acquire(&f, &sb);
        if (rc != cases[i].want)
            th_fail(__FILE__, __LINE__, "%d: %s (%s)", cases[i].status,
                    dval_status_name(rc), dval_client_errmsg(f.c));
        CHECK(dval_client_errmsg(f.c)[0]);
        CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox$"), 1);
    }
    /* and on the toolbox: a forbidden file is asked for once */
    CHECK_INT(emu_post(&f.e, "/_emu/reset", "{}"), 200);
    OK(ensure(&f));
    dval_sandbox *sb = NULL;
    OK(acquire(&f, &sb));
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(dval_sandbox_download(sb, "/etc/passwd", &data, &len),
              DVAL_EFORBIDDEN);
    CHECK(data == NULL);
    CHECK_CONTAINS(dval_sandbox_errmsg(sb), "/etc/passwd");
    CHECK_INT(emu_count(&f.e, "POST", "bulk-download"), 1);
    dval_sandbox_free(sb);
    fx_stop(&f);
}

/* 429 on the async exec is retried (refused before running) and the
 * command runs exactly once. */
TEST(exec_429_retried_and_runs_once)
{
    fx f;
    fx_start(&f, 5);
    OK(ensure(&f));
    dval_sandbox *sb = NULL;
    OK(acquire(&f, &sb));
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    CHECK_INT(emu_fault(&f.e, "POST", "/process/session/.+/exec$", 2,
                        "\"action\":\"status\",\"status\":429"), 200);
    int code = -1;
    int rc = dval_session_exec(s, "echo x >> /home/daytona/runs", NULL, NULL,
                               NULL, &code);
    if (rc)
        th_fail(__FILE__, __LINE__, "exec: %s", dval_session_errmsg(s));
    CHECK_INT(code, 0);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(dval_sandbox_download(sb, "/home/daytona/runs", &data, &len), 0);
    CHECK_STR(data, "x\n");
    dval_free(data);
    /* a 500 on exec is not retried: it may have run */
    CHECK_INT(emu_fault(&f.e, "POST", "/process/session/.+/exec$", 1,
                        "\"action\":\"status\",\"status\":502"), 200);
    CHECK_INT(dval_session_exec(s, "true", NULL, NULL, NULL, &code),
              DVAL_ESERVER);
    CHECK(dval_session_errmsg(s)[0]);
    CHECK_INT(emu_count(&f.e, "POST", "/process/session/.+/exec$"), 4);
    CHECK_INT(dval_session_close(s), DVAL_OK);
    dval_session_free(s);
    dval_sandbox_free(sb);
    fx_stop(&f);
}

/* A toolbox still starting answers session creation with 400/404: the
 * daytona executor reports that as "not ready yet" and the core retries it
 * (the core itself no longer retries a 400 or 404 for any executor). A
 * 400 elsewhere stays final (a_4xx_is_never_retried). */
TEST(toolbox_warming_up_on_session_create_is_retried)
{
    fx f;
    fx_start(&f, 5);
    OK(ensure(&f));
    dval_sandbox *sb = NULL;
    OK(acquire(&f, &sb));
    CHECK_INT(emu_fault(&f.e, "POST", "/process/session$", 1,
                        "\"action\":\"status\",\"status\":404"), 200);
    CHECK_INT(emu_fault(&f.e, "POST", "/process/session$", 1,
                        "\"action\":\"status\",\"status\":400"), 200);
    dval_session *s = NULL;
    OK(dval_session_open(&s, sb));
    CHECK_INT(emu_count(&f.e, "POST", "/process/session$"), 3);
    dval_session_free(s);
    dval_sandbox_free(sb);
    fx_stop(&f);
}
