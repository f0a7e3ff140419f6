/* The daytona executor's members driven directly against the emulator:
 * lifecycle, exact headers, sessions + async exec + WebSocket follow,
 * files (20 MB round trip), error mapping, cancellation, keep-alive. */
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "support_emulator.h"

#define KEY "dtn_test-key-123456"

typedef struct fx {
    emu e;
    dval__config cfg;
    dval_daytona_options d;     /* the executor's own options */
    struct dval_executor ex;
    void *ud;
} fx;

/* A new executor over f's settings. */
static int fx_exec(fx *f, char *err, size_t errlen)
{
    return dval__daytona_executor(&f->ex, &f->cfg, &f->d, err, errlen);
}

static void fx_start(fx *f)
{
    emu_start(&f->e);
    memset(&f->cfg, 0, sizeof f->cfg);
    dval_daytona_options_init(&f->d, sizeof f->d);
    f->d.api_url = f->e.api;
    f->d.api_key = KEY;
    f->d.target = "us";
    f->d.connect_timeout_ms = 5000;
    f->d.request_timeout_ms = 60000;
    f->cfg.max_download_bytes = 64 << 20;
    char err[256] = "";
    int rc = fx_exec(f, err, sizeof err);
    if (rc)
        th_fail(__FILE__, __LINE__, "executor: %s", err);
    f->ud = f->ex.userdata;
    CHECK_STR(f->ex.name, "daytona");
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":100}"), 200);
}

static void fx_stop(fx *f)
{
    f->ex.destroy(f->ud);
    emu_stop(&f->e);
}

static dval_call call(int64_t timeout_ms)
{
    dval_call c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.timeout_ms = timeout_ms;
    c.cancel_fd = -1;
    c.retry_after_ms = -1;
    return c;
}

/* command_start of shell text in session sid, nobody's in particular */
static int start_text(fx *f, dval_call *c, const char *id, const char *sid,
                      const char *text, char *cmd)
{
    dval_command d = { .struct_size = sizeof d, .sandbox_id = id,
                       .session_id = sid, .text = text };
    return f->ex.command_start(f->ud, c, &d, cmd);
}

static void wait_snapshot_active(fx *f, const char *name)
{
    for (int i = 0; i < 200; i++) {
        dval_call c = call(5000);
        dval_snapshot_info si = {.struct_size = sizeof si};
        CHECK_INT(f->ex.snapshot_get(f->ud, &c, name, &si), DVAL_OK);
        if (si.state == DVAL_SNAPSHOT_ACTIVE)
            return;
        usleep(50000);
    }
    th_fail(__FILE__, __LINE__, "snapshot never became active");
}

/* snapshot + started sandbox "sb1"; returns its id in id */
static void make_sandbox(fx *f, char *id)
{
    dval_call c = call(10000);
    dval_snapshot_spec s = {.struct_size = sizeof s, .name = "snap-a",
                            .image = "debian:12-slim"};
    dval_snapshot_info si = {.struct_size = sizeof si};
    CHECK_INT(f->ex.snapshot_create(f->ud, &c, &s, &si, NULL, NULL), 0);
    wait_snapshot_active(f, "snap-a");
    const char *labels[] = {"purpose=test", "owner=dt", NULL};
    dval_sandbox_options o = {.struct_size = sizeof o, .name = "sb1",
                              .snapshot = "snap-a", .labels = labels};
    dval_sandbox_info sb = {.struct_size = sizeof sb};
    CHECK_INT(f->ex.sandbox_create(f->ud, &c, &o, &sb), DVAL_OK);
    CHECK_INT(sb.state, DVAL_SANDBOX_STARTED);
    strcpy(id, sb.id);
}

/* ------------------------------------------------------------ lifecycle */

static int count_cb(const dval_sandbox_info *i, void *ud)
{
    (void)i;
    ++*(int *)ud;
    return 0;
}

static int log_cb(int stream, const char *d, size_t n, void *ud)
{
    (void)stream, (void)d;
    *(size_t *)ud += n;
    return 0;
}

TEST(snapshot_and_sandbox_lifecycle)
{
    fx f;
    fx_start(&f);
    dval_call c = call(10000);
    dval_snapshot_info si = {.struct_size = sizeof si};
    CHECK_INT(f.ex.snapshot_get(f.ud, &c, "snap/with:odd", &si),
              DVAL_ENOTFOUND);
    CHECK_CONTAINS(c.errmsg, "not found");
    CHECK_CONTAINS(c.errmsg, "(HTTP 404)");
    const char *steps[] = {"echo building", NULL};
    dval_snapshot_spec s = {.struct_size = sizeof s, .name = "snap-b",
                            .image = "debian:12-slim",
                            .build_commands = steps, .cpu = 2};
    CHECK_INT(f.ex.snapshot_create(f.ud, &c, &s, &si, NULL, NULL), 0);
    CHECK(si.id[0]);
    CHECK_STR(si.name, "snap-b");
    CHECK_INT(f.ex.snapshot_create(f.ud, &c, &s, &si, NULL, NULL),
              DVAL_EEXISTS);
    size_t logged = 0;
    dval_call lc = call(5000);
    int rc = f.ex.snapshot_logs(f.ud, &lc, si.id, 0, log_cb, &logged);
    CHECK(rc == DVAL_OK || rc == DVAL_ETIMEOUT);
    CHECK(logged > 0);
    wait_snapshot_active(&f, "snap-b");

    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_sandbox_info sb = {.struct_size = sizeof sb};
    dval_sandbox_options o = {.struct_size = sizeof o, .name = "sb1",
                              .snapshot = "snap-a"};
    CHECK_INT(f.ex.sandbox_create(f.ud, &c, &o, &sb), DVAL_EEXISTS);
    o.name = "sb2";
    o.snapshot = "no-such-snap";
    CHECK_INT(f.ex.sandbox_create(f.ud, &c, &o, &sb), DVAL_ENOTFOUND);
    CHECK_INT(f.ex.sandbox_get(f.ud, &c, "sb1", &sb), DVAL_OK);
    CHECK_STR(sb.id, id);
    CHECK_STR(sb.name, "sb1");
    int n = 0;
    const char *want[] = {"purpose=test", NULL};
    CHECK_INT(f.ex.sandbox_list(f.ud, &c, want, count_cb, &n), DVAL_OK);
    CHECK_INT(n, 1);
    const char *other[] = {"purpose=other", NULL};
    n = 0;
    CHECK_INT(f.ex.sandbox_list(f.ud, &c, other, count_cb, &n), DVAL_OK);
    CHECK_INT(n, 0);
    CHECK_INT(f.ex.sandbox_stop(f.ud, &c, id, &sb), DVAL_OK);
    for (int i = 0; i < 100 && sb.state != DVAL_SANDBOX_STOPPED; i++) {
        usleep(20000);
        CHECK_INT(f.ex.sandbox_get(f.ud, &c, id, &sb), DVAL_OK);
    }
    CHECK_INT(sb.state, DVAL_SANDBOX_STOPPED);
    CHECK_INT(f.ex.sandbox_start(f.ud, &c, id, &sb), DVAL_OK);
    CHECK_INT(sb.state, DVAL_SANDBOX_STARTED);
    CHECK_INT(emu_post(&f.e, "/_emu/sandbox/sb1/state",
                       "{\"state\":\"error\",\"recoverable\":true,"
                       "\"errorReason\":\"disk full\",\"stuck\":true}"), 200);
    CHECK_INT(f.ex.sandbox_get(f.ud, &c, id, &sb), DVAL_OK);
    CHECK_INT(sb.state, DVAL_SANDBOX_ERROR);
    CHECK_INT(sb.recoverable, 1);
    CHECK_STR(sb.error_reason, "disk full");
    CHECK_INT(f.ex.sandbox_recover(f.ud, &c, id, &sb), DVAL_OK);
    CHECK_INT(f.ex.sandbox_delete(f.ud, &c, id), DVAL_OK);
    for (int i = 0; i < 100 && rc != DVAL_ENOTFOUND; i++) {
        usleep(20000);
        rc = f.ex.sandbox_get(f.ud, &c, id, &sb);
    }
    CHECK_INT(rc, DVAL_ENOTFOUND);
    CHECK_INT(f.ex.snapshot_delete(f.ud, &c, si.id), DVAL_OK);
    fx_stop(&f);
}

/* ------------------------------------------------------------- headers */

static const char *hdr(json_t *req, const char *name)
{
    return json_string_value(json_object_get(json_object_get(req, "headers"),
                                             name));
}

TEST(headers_exact_on_api_toolbox_and_websocket)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX], cmd[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_call c = call(10000);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_OK);
    CHECK_INT(start_text(&f, &c, id, "s1", "echo hi", cmd), 0);
    void *st = NULL;
    CHECK_INT(f.ex.stream_open(f.ud, &c, id, "s1", cmd, 0, 0, &st), DVAL_OK);
    f.ex.stream_close(f.ud, st);
    CHECK_INT(f.ex.session_delete(f.ud, &c, id, "s1"), DVAL_OK);
    char *body = emu_get(&f.e, "/_emu/requests");
    CHECK(body);
    json_t *list = json_loads(body, 0, NULL);
    CHECK(json_is_array(list));
    size_t i;
    json_t *r;
    int ws = 0, posts = 0;
    json_array_foreach(list, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        CHECK_STR(hdr(r, "authorization"), "Bearer " KEY);
        CHECK_STR(hdr(r, "x-daytona-source"), "sdk-c");
        CHECK_STR(hdr(r, "x-daytona-sdk-version"), "0.190.0");
        CHECK_STR(hdr(r, "user-agent"), "sdk-c/" DVAL_VERSION_STRING);
        CHECK(hdr(r, "x-daytona-organization-id") == NULL);
        if (hdr(r, "upgrade")) {
            ws++;
            CHECK_STR(hdr(r, "upgrade"), "websocket");
            CHECK_STR(hdr(r, "sec-websocket-version"), "13");
            CHECK_CONTAINS(p, "/logs");
            continue;
        }
        if (strcmp(m, "POST") == 0 && strstr(p, "/process/session")) {
            posts++;
            CHECK_STR(hdr(r, "content-type"), "application/json");
            CHECK_STR(hdr(r, "accept"), "application/json");
        }
        if (strcmp(m, "DELETE") == 0 && strstr(p, "/process/session/s1"))
            CHECK_STR(hdr(r, "accept"), "*/*");
    }
    CHECK_INT(ws, 1);
    CHECK_INT(posts, 2);
    json_decref(list);
    free(body);
    fx_stop(&f);
}

TEST(jwt_sends_organization_header)
{
    fx f;
    fx_start(&f);
    f.ex.destroy(f.ud);
    f.d.api_key = NULL;
    f.d.jwt_token = "jwt-abc.def";
    f.d.organization_id = "org-42";
    char err[128];
    CHECK_INT(fx_exec(&f, err, sizeof err), 0);
    f.ud = f.ex.userdata;
    dval_call c = call(5000);
    dval_snapshot_info si = {.struct_size = sizeof si};
    CHECK_INT(f.ex.snapshot_get(f.ud, &c, "x", &si), DVAL_ENOTFOUND);
    char *body = emu_get(&f.e, "/_emu/requests");
    json_t *list = json_loads(body, 0, NULL);
    json_t *r = json_array_get(list, 0);
    CHECK_STR(hdr(r, "authorization"), "Bearer jwt-abc.def");
    CHECK_STR(hdr(r, "x-daytona-organization-id"), "org-42");
    json_decref(list);
    free(body);
    f.ex.destroy(f.ud);
    f.d.organization_id = NULL;
    CHECK_INT(fx_exec(&f, err, sizeof err),
              DVAL_EINVAL);
    f.d.jwt_token = NULL;
    CHECK_INT(fx_exec(&f, err, sizeof err),
              DVAL_EINVAL);
    CHECK_CONTAINS(err, "API key");
    emu_stop(&f.e);
}

/* ---------------------------------------------------------------- exec */

/* a command's output per stream ([DVAL_STDOUT], [DVAL_STDERR]) */
typedef struct grab {
    char *p[3];
    size_t n[3];
    size_t total;
} grab;

static int grab_cb(int stream, const char *d, size_t n, void *ud)
{
    grab *g = ud;
    CHECK(stream == DVAL_STDOUT || stream == DVAL_STDERR);
    g->p[stream] = realloc(g->p[stream], g->n[stream] + n + 1);
    memcpy(g->p[stream] + g->n[stream], d, n);
    g->n[stream] += n;
    g->p[stream][g->n[stream]] = '\0';
    g->total += n;
    return 0;
}

static void grab_free(grab *g)
{
    free(g->p[1]);
    free(g->p[2]);
}

/* got is want without its first skip_out / skip_err bytes */
static void same_past(const grab *got, const grab *want, size_t skip_out,
                      size_t skip_err)
{
    size_t skip[3] = { 0, skip_out, skip_err };
    for (int s = 1; s <= 2; s++) {
        CHECK_INT(got->n[s], want->n[s] - skip[s]);
        CHECK(got->n[s] == 0 ||
              memcmp(got->p[s], want->p[s] + skip[s], got->n[s]) == 0);
    }
}

/* Streams cmd to its close from the counts given; returns the status of
 * the last read. */
static int follow_from(fx *f, const char *id, const char *sid,
                       const char *cmd, uint64_t out_from, uint64_t err_from,
                       grab *g, int max_reads)
{
    dval_call c = call(10000);
    void *st = NULL;
    int rc = f->ex.stream_open(f->ud, &c, id, sid, cmd, out_from, err_from,
                               &st);
    CHECK_INT(rc, DVAL_OK);
    int closed = 0;
    /* max_reads counts idle reads (nothing delivered) */
    int64_t end = dval__now_ms() + 30000;
    for (int i = 0; i < max_reads && !closed && rc == DVAL_OK &&
                    dval__now_ms() < end;) {
        size_t before = g->total;
        dval_call rc_call = call(2000);
        rc = f->ex.stream_read(f->ud, &rc_call, st, grab_cb, g, &closed);
        if (rc)
            fprintf(stderr, "    stream_read: %s\n", rc_call.errmsg);
        i += g->total == before;
    }
    f->ex.stream_close(f->ud, st);
    return closed ? 1 : rc;
}

static int follow(fx *f, const char *id, const char *sid, const char *cmd,
                  grab *g, int max_reads)
{
    return follow_from(f, id, sid, cmd, 0, 0, g, max_reads);
}

static void run_and_compare(fx *f, const char *id, const char *script,
                            int want_exit)
{
    dval_call c = call(10000);
    char cmd[DVAL_ID_MAX];
    CHECK_INT(start_text(f, &c, id, "s1", script, cmd), 0);
    grab g = {0};
    CHECK_INT(follow(f, id, "s1", cmd, &g, 100), 1);
    int fin = 0, code = -1;
    for (int i = 0; i < 200 && !fin; i++) {
        CHECK_INT(f->ex.command_status(f->ud, &c, id, "s1", cmd, &fin, &code),
                  0);
        if (!fin)
            usleep(20000);
    }
    CHECK_INT(fin, 1);
    CHECK_INT(code, want_exit);
    grab all = {0};
    CHECK_INT(f->ex.command_logs(f->ud, &c, id, "s1", cmd, 0, 0, grab_cb,
                                 &all), 0);
    /* the stream, reassembled from frames, equals the whole log */
    same_past(&g, &all, 0, 0);
    /* resumed after half of each stream (a reconnect replays from byte
     * 0): a stream and the final log deliver exactly the rest */
    size_t ho = all.n[1] / 2, he = all.n[2] / 2;
    grab rest = {0}, rest_log = {0};
    CHECK_INT(follow_from(f, id, "s1", cmd, ho, he, &rest, 100), 1);
    same_past(&rest, &all, ho, he);
    CHECK_INT(f->ex.command_logs(f->ud, &c, id, "s1", cmd, ho, he, grab_cb,
                                 &rest_log), 0);
    same_past(&rest_log, &all, ho, he);
    grab_free(&g);
    grab_free(&all);
    grab_free(&rest);
    grab_free(&rest_log);
}

TEST(session_exec_stream_status_logs)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    /* small frames: markers and lines split across many frames */
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"ws_frame_max\":7}"), 200);
    dval_call c = call(10000);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_OK);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_EEXISTS);
    run_and_compare(&f, id, "echo out; echo 'it''s' >&2; "
                    "for i in 1 2 3 4 5; do echo line $i; done; exit 3", 3);
    /* exit did not kill the session shell: it still runs commands */
    run_and_compare(&f, id, "seq 1 2000", 0);
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"ws_frame_max\":1024}"), 200);
    run_and_compare(&f, id, "head -c 300000 /dev/zero | tr '\\0' x; echo", 0);
    char cmd[DVAL_ID_MAX];
    CHECK_INT(start_text(&f, &c, id, "nope", "true", cmd),
              DVAL_ENOTFOUND);
    CHECK_INT(f.ex.session_delete(f.ud, &c, id, "s1"), DVAL_OK);
    CHECK_INT(f.ex.session_delete(f.ud, &c, id, "s1"), DVAL_ENOTFOUND);
    fx_stop(&f);
}

/* Runs d to its end: its exit code, its whole log into all */
static int run_desc(fx *f, const dval_command *d, grab *all)
{
    dval_call c = call(10000);
    char cmd[DVAL_ID_MAX];
    CHECK_INT(f->ex.command_start(f->ud, &c, d, cmd), 0);
    int fin = 0, code = -1;
    for (int i = 0; i < 200 && !fin; i++) {
        CHECK_INT(f->ex.command_status(f->ud, &c, d->sandbox_id,
                                       d->session_id, cmd, &fin, &code), 0);
        if (!fin)
            usleep(20000);
    }
    CHECK_INT(fin, 1);
    CHECK_INT(f->ex.command_logs(f->ud, &c, d->sandbox_id, d->session_id,
                                 cmd, 0, 0, grab_cb, all), 0);
    return code;
}

/* The toolbox takes one shell string: argv becomes quoted words, env an
 * export, cwd a "cd", and none of them is expanded by a shell. The owner
 * is accepted and changes nothing (one user). */
TEST(a_description_becomes_one_shell_string_that_means_the_same)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_call c = call(10000);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_OK);
    const char *argv[] = { "printf", "[%s]", "a b", "it's $(no)", "`x`",
                           NULL };
    const char *env[] = { "V=x $y 'q'", NULL };
    dval_command d = { .struct_size = sizeof d, .sandbox_id = id,
                       .session_id = "s1", .cwd = "/tmp", .argv = argv,
                       .env = env, .owner = "t1" };
    grab g = {0};
    CHECK_INT(run_desc(&f, &d, &g), 0);
    CHECK_CONTAINS(g.p[1], "[a b][it's $(no)][`x`]");
    grab_free(&g);
    const char *sh[] = { "sh", "-c", "printf '%s|%s' \"$V\" \"$(pwd)\"",
                         NULL };
    d.argv = sh;
    memset(&g, 0, sizeof g);
    CHECK_INT(run_desc(&f, &d, &g), 0);
    CHECK_CONTAINS(g.p[1], "x $y 'q'|/tmp");
    grab_free(&g);
    /* text with env: the same variables */
    d.argv = NULL;
    d.text = "echo \"<$V>\"; exit 4";
    memset(&g, 0, sizeof g);
    CHECK_INT(run_desc(&f, &d, &g), 4);
    CHECK_CONTAINS(g.p[1], "<x $y 'q'>");
    grab_free(&g);
    /* a program not found, a directory that cannot be entered */
    const char *nope[] = { "no-such-program-here", NULL };
    d.text = NULL;
    d.argv = nope;
    d.env = NULL;
    memset(&g, 0, sizeof g);
    CHECK_INT(run_desc(&f, &d, &g), 127);
    grab_free(&g);
    d.argv = argv;
    d.cwd = "/no/such/dir";
    memset(&g, 0, sizeof g);
    CHECK(run_desc(&f, &d, &g) != 0);
    CHECK(g.p[1] == NULL || strstr(g.p[1], "[a b]") == NULL);
    grab_free(&g);
    /* a description that is not valid is refused before any request */
    char cmd[DVAL_ID_MAX];
    d.text = "true";
    CHECK_INT(f.ex.command_start(f.ud, &c, &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(c.errmsg, "both are set");
    d.text = NULL;
    d.owner = "../t2";
    CHECK_INT(f.ex.command_start(f.ud, &c, &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(c.errmsg, "not a plain name");
    CHECK_INT(f.ex.session_delete(f.ud, &c, id, "s1"), DVAL_OK);
    fx_stop(&f);
}

TEST(stream_drop_idle_and_cancel)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX], cmd[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_call c = call(10000);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_OK);
    CHECK_INT(start_text(&f, &c, id, "s1", "seq 1 5000", cmd), 0);
    usleep(300000);
    /* abrupt TCP close mid-log → ENETWORK (the core reconnects) */
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"ws_mode\":\"drop_after:100\"}"),
              200);
    grab g = {0};
    CHECK_INT(follow(&f, id, "s1", cmd, &g, 50), DVAL_ENETWORK);
    CHECK(g.n[1] > 6);
    CHECK(memcmp(g.p[1], "1\n2\n3\n", 6) == 0);
    grab_free(&g);
    /* a stream that never closes: reads come back empty, not closed */
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"ws_mode\":\"stall\"}"), 200);
    void *st = NULL;
    CHECK_INT(f.ex.stream_open(f.ud, &c, id, "s1", cmd, 0, 0, &st), DVAL_OK);
    dval_call rc = call(300);
    int closed = 0;
    grab h = {0};
    int64_t t0 = dval__now_ms();
    CHECK_INT(f.ex.stream_read(f.ud, &rc, st, grab_cb, &h, &closed), DVAL_OK);
    CHECK(dval__now_ms() - t0 >= 250);
    CHECK_INT(closed, 0);
    CHECK_INT(h.total, 0);
    /* cancel_fd readable → ECANCELED promptly */
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(write(p[1], "x", 1) == 1);
    dval_call cc = call(0);
    cc.cancel_fd = p[0];
    CHECK_INT(f.ex.stream_read(f.ud, &cc, st, grab_cb, &h, &closed),
              DVAL_ECANCELED);
    f.ex.stream_close(f.ud, st);
    close(p[0]);
    close(p[1]);
    fx_stop(&f);
}

/* --------------------------------------------------------------- files */

typedef struct gen {
    uint64_t off, size;
} gen;

static unsigned char pat(uint64_t i)
{
    return (unsigned char)((i * 2654435761u) >> 13);
}

static int gen_read(char *buf, size_t cap, size_t *len, void *ud)
{
    gen *g = ud;
    size_t n = g->size - g->off < cap ? (size_t)(g->size - g->off) : cap;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)pat(g->off + i);
    g->off += n;
    *len = n;
    return 0;
}

typedef struct verify {
    uint64_t off;
    int bad;
} verify;

static int verify_sink(const char *d, size_t n, void *ud)
{
    verify *v = ud;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)d[i] != pat(v->off + i))
            v->bad = 1;
    v->off += n;
    return 0;
}

TEST(files_20mb_round_trip_and_errors)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_call c = call(60000);
    CHECK_INT(f.ex.folder_create(f.ud, &c, id, "/home/daytona/dir/sub"), 0);
    const uint64_t size = 20u << 20;
    gen g = {0, size};
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    int64_t t0 = dval__now_ms();
    CHECK_INT(f.ex.file_upload(f.ud, &c, id, "/home/daytona/dir/big.bin",
                               gen_read, &g, (int64_t)size), DVAL_OK);
    int64_t t1 = dval__now_ms();
    verify v = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "/home/daytona/dir/big.bin",
                                 verify_sink, &v), DVAL_OK);
    int64_t t2 = dval__now_ms();
    getrusage(RUSAGE_SELF, &ru1);
    CHECK_INT(v.off, size);
    CHECK_INT(v.bad, 0);
    fprintf(stderr, "    20 MiB: upload %lld ms, download %lld ms, "
            "max RSS %ld KiB (at start %ld KiB)\n", (long long)(t1 - t0),
            (long long)(t2 - t1), ru1.ru_maxrss, ru0.ru_maxrss);
    CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 16 * 1024);
    /* unknown size: chunked upload */
    gen g2 = {0, 1000};
    CHECK_INT(f.ex.file_upload(f.ud, &c, id, "rel/small.bin", gen_read, &g2,
                               -1), DVAL_OK);
    verify v2 = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "rel/small.bin", verify_sink,
                                 &v2), DVAL_OK);
    CHECK_INT(v2.off, 1000);
    verify v3 = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "/home/daytona/missing",
                                 verify_sink, &v3), DVAL_ENOTFOUND);
    CHECK_CONTAINS(c.errmsg, "not found");
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "/a/../etc/passwd",
                                 verify_sink, &v3), DVAL_EINVAL);
    /* limit: a file above max_download_bytes */
    f.ex.destroy(f.ud);
    f.cfg.max_download_bytes = 1 << 20;
    char err[128];
    CHECK_INT(fx_exec(&f, err, sizeof err), 0);
    f.ud = f.ex.userdata;
    verify v4 = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "/home/daytona/dir/big.bin",
                                 verify_sink, &v4), DVAL_ETOOBIG);
    CHECK(v4.off <= (1 << 20));
    /* a mid-body cut (real Content-Length, half the body) */
    CHECK_INT(emu_post(&f.e, "/_emu/faults", "{\"method\":\"POST\","
                       "\"path_regex\":\"bulk-download\",\"times\":1,"
                       "\"action\":\"truncate\"}"), 200);
    verify v5 = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "rel/small.bin", verify_sink,
                                 &v5), DVAL_ENETWORK);
    /* old daemons: bulk-download 404 → GET /files/download */
    CHECK_INT(emu_post(&f.e, "/_emu/faults", "{\"method\":\"POST\","
                       "\"path_regex\":\"bulk-download\",\"times\":1,"
                       "\"action\":\"status\",\"status\":404}"), 200);
    verify v6 = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "rel/small.bin", verify_sink,
                                 &v6), DVAL_OK);
    CHECK_INT(v6.off, 1000);
    CHECK_INT(v6.bad, 0);
    fx_stop(&f);
}

/* ------------------------------------------------------------- errors */

static int fault(fx *f, const char *method, const char *re, const char *rest)
{
    char j[1024];
    snprintf(j, sizeof j, "{\"method\":\"%s\",\"path_regex\":\"%s\","
             "\"times\":1,%s}", method, re, rest);
    return emu_post(&f->e, "/_emu/faults", j);
}

static int get_sb(fx *f, dval_call *c)
{
    dval_sandbox_info sb = {.struct_size = sizeof sb};
    return f->ex.sandbox_get(f->ud, c, "whatever", &sb);
}

TEST(error_mapping)
{
    fx f;
    fx_start(&f);
    dval_call c = call(10000);
    dval_sandbox_options o = {.struct_size = sizeof o, .name = "x",
                              .snapshot = "s"};
    dval_sandbox_info sb = {.struct_size = sizeof sb};
    CHECK_INT(fault(&f, "POST", "^/api/sandbox$", "\"action\":\"status\","
                    "\"status\":429,\"headers\":{\"Retry-After-sandbox-create\""
                    ":\"2\",\"X-RateLimit-Reset-authenticated\":\"1\"}"), 200);
    CHECK_INT(f.ex.sandbox_create(f.ud, &c, &o, &sb), DVAL_ERATELIMIT);
    CHECK_CONTAINS(c.errmsg, "(HTTP 429)");
    CHECK_INT(c.retry_after_ms, 2000);
    CHECK_CONTAINS(c.errmsg, "Too Many Requests");
    /* a hint past what milliseconds hold is a day, not a wrapped number */
    CHECK_INT(fault(&f, "POST", "^/api/sandbox$", "\"action\":\"status\","
                    "\"status\":429,\"headers\":{\"Retry-After\":"
                    "\"99999999999999999999\"}"), 200);
    c = call(10000);
    CHECK_INT(f.ex.sandbox_create(f.ud, &c, &o, &sb), DVAL_ERATELIMIT);
    CHECK(c.retry_after_ms == 86400000);
    struct { const char *rest; int want; const char *msg; } cases[] = {
        {"\"action\":\"status\",\"status\":500", DVAL_ESERVER, "unexpected"},
        {"\"action\":\"status\",\"status\":502", DVAL_ESERVER, "502"},
        {"\"action\":\"status\",\"status\":401", DVAL_EAUTH, "401"},
        {"\"action\":\"status\",\"status\":403", DVAL_EFORBIDDEN, "403"},
        {"\"action\":\"status\",\"status\":409", DVAL_ECONFLICT, "409"},
        {"\"action\":\"status\",\"status\":410", DVAL_ESTATE, "410"},
        {"\"action\":\"status\",\"status\":422", DVAL_EBADREQUEST, "422"},
        {"\"action\":\"reset\"", DVAL_ENETWORK, ""},
        {"\"action\":\"truncate\"", DVAL_ENETWORK, ""},
        {"\"action\":\"status\",\"status\":200,\"body\":\"{\\\"id\\\":\\\"a\\\",\"",
         DVAL_EPROTOCOL, "malformed JSON"},
        {"\"action\":\"status\",\"status\":200,\"body\":\"{\\\"id\\\":5}\"",
         DVAL_EPROTOCOL, "\"id\""},
        {"\"action\":\"status\",\"status\":200,\"body\":\"{\\\"id\\\":\\\"a\\\","
         "\\\"state\\\":[]}\"", DVAL_EPROTOCOL, "\"state\""},
        {"\"action\":\"status\",\"status\":200,\"content_type\":\"text/html\","
         "\"body\":\"<html><body>Bad gateway</body></html>\"", DVAL_EPROTOCOL,
         "HTML"},
        {"\"action\":\"status\",\"status\":200,\"body\":\"\"", DVAL_EPROTOCOL,
         "empty"},
        {"\"action\":\"status\",\"status\":503,\"content_type\":\"text/html\","
         "\"body\":\"<html>down</html>\"", DVAL_ESERVER, "503"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(fault(&f, "GET", "^/api/sandbox/", cases[i].rest), 200);
        if (strstr(cases[i].rest, "reset")) {
            /* curl silently re-sends a request once when a reused
             * keep-alive connection turns out dead: test the reset on a
             * fresh connection */
            char err[128];
            f.ex.destroy(f.ud);
            CHECK_INT(fx_exec(&f, err, sizeof err), 0);
            f.ud = f.ex.userdata;
        }
        c = call(10000);
        int rc = get_sb(&f, &c);
        if (rc != cases[i].want)
            th_fail(__FILE__, __LINE__, "case %zu: %d (%s)", i, rc, c.errmsg);
        CHECK_CONTAINS(c.errmsg, cases[i].msg);
        CHECK(!strstr(c.errmsg, KEY));
    }
    /* unknown fields ignored, optional ones missing: fine */
    CHECK_INT(fault(&f, "GET", "^/api/sandbox/", "\"action\":\"status\","
                    "\"status\":200,\"body\":\"{\\\"id\\\":\\\"a\\\","
                    "\\\"new\\\":{\\\"x\\\":[1]}}\""), 200);
    CHECK_INT(get_sb(&f, &c), DVAL_OK);
    /* wrong key → 401 from the emulator */
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"api_key\":\"other\"}"), 200);
    CHECK_INT(get_sb(&f, &c), DVAL_EAUTH);
    CHECK(!strstr(c.errmsg, KEY));
    fx_stop(&f);
}

TEST(huge_content_length_and_missing_final_boundary)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    const char *huge = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       "Content-Length: 2000000000\r\n\r\n{\"id\":";
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api",
             raw_server(huge, strlen(huge)));
    f.ex.destroy(f.ud);
    f.d.api_url = url;
    char err[128];
    CHECK_INT(fx_exec(&f, err, sizeof err), 0);
    f.ud = f.ex.userdata;
    dval_call c = call(5000);
    struct rusage ru;
    CHECK_INT(get_sb(&f, &c), DVAL_ETOOBIG);
    getrusage(RUSAGE_SELF, &ru);
    CHECK(ru.ru_maxrss < 200 * 1024);
    /* a complete reply whose multipart body lacks the final boundary */
    static const char cut[] =
        "HTTP/1.1 200 OK\r\nContent-Type: multipart/form-data; boundary=B\r\n"
        "Content-Length: 59\r\n\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabcdefg";
    int port = raw_server(cut, sizeof cut - 1);
    char tb[512];
    snprintf(tb, sizeof tb, "{\"id\":\"%s\",\"toolboxProxyUrl\":"
             "\"http://127.0.0.1:%d/toolbox\"}", id, port);
    char reply[1024];
    snprintf(reply, sizeof reply, "HTTP/1.1 200 OK\r\nContent-Type: "
             "application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(tb),
             tb);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api",
             raw_server(reply, strlen(reply)));
    f.ex.destroy(f.ud);
    CHECK_INT(fx_exec(&f, err, sizeof err), 0);
    f.ud = f.ex.userdata;
    dval_sandbox_info sb = {.struct_size = sizeof sb};
    CHECK_INT(f.ex.sandbox_get(f.ud, &c, id, &sb), DVAL_OK);  /* caches tb */
    verify v = {0, 0};
    CHECK_INT(f.ex.file_download(f.ud, &c, id, "/x", verify_sink, &v),
              DVAL_ENETWORK);
    CHECK_CONTAINS(c.errmsg, "truncated");
    fx_stop(&f);
}

/* ------------------------------------------------ cancel, timeout, reuse */

static void *cancel_later(void *arg)
{
    usleep(300000);
    if (write(*(int *)arg, "x", 1) != 1)
        abort();
    return NULL;
}

TEST(cancel_from_another_thread_and_timeout)
{
    fx f;
    fx_start(&f);
    CHECK_INT(fault(&f, "GET", "^/api/sandbox/", "\"action\":\"stall\""), 200);
    int p[2];
    CHECK(pipe(p) == 0);
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &p[1]);
    dval_call c = call(30000);
    c.cancel_fd = p[0];
    int64_t t0 = dval__now_ms();
    CHECK_INT(get_sb(&f, &c), DVAL_ECANCELED);
    int64_t took = dval__now_ms() - t0;
    pthread_join(t, NULL);
    CHECK(took >= 250 && took < 2000);
    CHECK_INT(fault(&f, "GET", "^/api/sandbox/", "\"action\":\"stall\""), 200);
    c = call(400);
    t0 = dval__now_ms();
    CHECK_INT(get_sb(&f, &c), DVAL_ETIMEOUT);
    CHECK(dval__now_ms() - t0 < 2000);
    close(p[0]);
    close(p[1]);
    fx_stop(&f);
}

typedef struct worker {
    fx *f;
    int ok;
} worker;

static void *hammer(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < 25; i++) {
        dval_call c = call(10000);
        dval_sandbox_info sb = {.struct_size = sizeof sb};
        if (w->f->ex.sandbox_get(w->f->ud, &c, "sb1", &sb) == DVAL_OK)
            w->ok++;
    }
    return NULL;
}

TEST(threads_share_one_executor_and_reuse_connections)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX];
    make_sandbox(&f, id);
    CHECK_INT(emu_post(&f.e, "/_emu/reset", "{}"), 200);
    make_sandbox(&f, id);
    char *before = emu_get(&f.e, "/_emu/stats");
    worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){&f, 0};
        pthread_create(&t[i], NULL, hammer, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(w[i].ok, 25);
    }
    char *after = emu_get(&f.e, "/_emu/stats");
    json_t *a = json_loads(before, 0, NULL), *b = json_loads(after, 0, NULL);
    long conns = (long)(json_integer_value(json_object_get(b, "connections")) -
                        json_integer_value(json_object_get(a, "connections")));
    fprintf(stderr, "    100 requests on 4 threads used %ld new connections\n",
            conns);
    CHECK(conns <= 8);
    json_decref(a);
    json_decref(b);
    free(before);
    free(after);
    fx_stop(&f);
}

/* ------------------------------------------------- final log line-up */

typedef struct warns {
    char text[2048];
} warns;

static void warn_cb(int level, const char *msg, void *ud)
{
    warns *w = ud;
    if (level == DVAL_LOG_WARN)
        snprintf(w->text + strlen(w->text), sizeof w->text - strlen(w->text),
                 "%s\n", msg);
}

/* Runs cmd in session s1 to its exit; its whole output into all. */
static void run_to_exit(fx *f, const char *id, const char *script, char *cmd,
                        grab *all)
{
    dval_call c = call(10000);
    CHECK_INT(start_text(f, &c, id, "s1", script, cmd), 0);
    int fin = 0, code = -1;
    for (int i = 0; i < 200 && !fin; i++) {
        CHECK_INT(f->ex.command_status(f->ud, &c, id, "s1", cmd, &fin, &code),
                  0);
        if (!fin)
            usleep(20000);
    }
    CHECK_INT(fin, 1);
    CHECK_INT(f->ex.command_logs(f->ud, &c, id, "s1", cmd, 0, 0, grab_cb,
                                 all), 0);
}

/* What the core's tail check used to catch, now the executor's: a final
 * log that does not hold what the streams delivered (shorter, or JSON
 * with invalid UTF-8 replaced) is reported; the real one is not. */
TEST(a_final_log_that_does_not_line_up_is_reported)
{
    fx f;
    fx_start(&f);
    char id[DVAL_ID_MAX], cmd[DVAL_ID_MAX];
    make_sandbox(&f, id);
    dval_call c = call(10000);
    CHECK_INT(f.ex.session_create(f.ud, &c, id, "s1"), DVAL_OK);
    grab all = {0};
    run_to_exit(&f, id, "echo out; echo err >&2", cmd, &all);
    CHECK_STR(all.p[1], "out\n");
    CHECK_STR(all.p[2], "err\n");
    warns w = {""};
    dval_call lc = call(10000);
    lc.log_fn = warn_cb;
    lc.log_userdata = &w;
    grab none = {0};
    CHECK_INT(f.ex.command_logs(f.ud, &lc, id, "s1", cmd, 4, 4, grab_cb,
                                &none), DVAL_OK);
    CHECK_INT(none.total, 0);
    CHECK_STR(w.text, "");
    /* a final log shorter than what was streamed */
    CHECK_INT(fault(&f, "GET", "/logs$", "\"action\":\"status\",\"status\":"
                    "200,\"content_type\":\"text/plain\",\"body\":"
                    "\"\\u0001\\u0001\\u0001ou\""), 200);
    CHECK_INT(f.ex.command_logs(f.ud, &lc, id, "s1", cmd, 4, 4, grab_cb,
                                &none), DVAL_OK);
    CHECK_INT(none.total, 0);
    CHECK_CONTAINS(w.text, "(2 stdout, 0 stderr bytes) does not line up "
                   "with the 4 + 4 bytes streamed");
    /* a JSON log with a replacement character, after streamed bytes */
    w.text[0] = '\0';
    CHECK_INT(fault(&f, "GET", "/logs$", "\"action\":\"status\",\"status\":"
                    "200,\"content_type\":\"application/json\",\"body\":"
                    "\"{\\\"output\\\":\\\"\\\\u0001\\\\u0001\\\\u0001o"
                    "\\\\ufffdt\\\\n\\\"}\""), 200);
    grab tail = {0};
    CHECK_INT(f.ex.command_logs(f.ud, &lc, id, "s1", cmd, 2, 0, grab_cb,
                                &tail), DVAL_OK);
    CHECK_STR(tail.p[1], "\xbf\xbd" "t\n");
    CHECK_CONTAINS(w.text, "came as JSON");
    grab_free(&all);
    grab_free(&tail);
    fx_stop(&f);
}
