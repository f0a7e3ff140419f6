/* Public API against the emulator: live output of dval_session_exec.
 * Every byte reaches the callback once, on its own stream, whatever the
 * WebSocket does (small frames, drops, never closing, stalling); output
 * is live; invalid UTF-8 passes through; exit codes; cancel. A command
 * ends when its exit code is known (no wait for the server's close), and
 * the final log it is reconciled with is the raw log, byte for byte. */
#include <jansson.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define SNAP "snap-stream"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct fx {
    emu e;
    dval_client *c;
    dval_sandbox *sb;
    dval_session *s;
} fx;

static void fx_start_opts(fx *f, const char *config,
                          const dval_client_options *opts)
{
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    f->c = emu_client(&f->e, NULL, 20, opts);
    dval_snapshot_spec sp;
    dval_snapshot_spec_init(&sp, sizeof sp);
    sp.name = SNAP;
    sp.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, f->c, &sp, NULL, NULL);
    if (rc)
        th_fail(__FILE__, __LINE__, "ensure: %s", dval_client_errmsg(f->c));
    dval_snapshot_free(snap);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "sb";
    o.snapshot = SNAP;
    rc = dval_sandbox_acquire(&f->sb, f->c, &o);
    if (rc)
        th_fail(__FILE__, __LINE__, "acquire: %s", dval_client_errmsg(f->c));
    rc = dval_session_open(&f->s, f->sb);
    if (rc)
        th_fail(__FILE__, __LINE__, "session: %s",
                dval_sandbox_errmsg(f->sb));
    if (config)
        CHECK_INT(emu_post(&f->e, "/_emu/config", config), 200);
}

static void fx_start(fx *f, const char *config)
{
    fx_start_opts(f, config, NULL);
}

static void fx_stop(fx *f)
{
    dval_session_close(f->s);
    dval_session_free(f->s);
    dval_sandbox_free(f->sb);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

/* ---- output capture */
typedef struct cap {
    char *p[3];
    size_t n[3];
    const char *prefix;       /* expected channel prefix */
    int bad_channel, too_big, split_utf8;
    int chunks;
    int64_t first_at[3];      /* when a needle was first seen per stream */
    const char *needle;
    int64_t needle_at;
    atomic_int *seen_flag;    /* set once any output arrived (other thread reads) */
} cap;

/* 1 when [d, d+n) ends inside a valid but incomplete UTF-8 sequence */
static int ends_mid_sequence(const unsigned char *d, size_t n)
{
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned char b = d[n - back];
        if ((b & 0xC0) == 0x80)
            continue;              /* continuation: look further back */
        size_t need = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3
                    : (b & 0xF8) == 0xF0 ? 4 : 1;
        return need > back;
    }
    return 0;
}

static int on_output(int stream, const char *channel, const char *data,
                     size_t len, void *ud)
{
    cap *c = ud;
    CHECK(stream == DVAL_STDOUT || stream == DVAL_STDERR);
    char want[256];
    snprintf(want, sizeof want, "%sCOMMAND_EXECUTION_%s",
             c->prefix ? c->prefix : "",
             stream == DVAL_STDOUT ? "STDOUT" : "STDERR");
    if (!channel || strcmp(channel, want))
        c->bad_channel++;
    if (len > 64 * 1024)
        c->too_big++;
    if (ends_mid_sequence((const unsigned char *)data, len))
        c->split_utf8++;
    c->chunks++;
    c->p[stream] = realloc(c->p[stream], c->n[stream] + len + 1);
    memcpy(c->p[stream] + c->n[stream], data, len);
    c->n[stream] += len;
    c->p[stream][c->n[stream]] = '\0';
    if (c->needle && !c->needle_at && strstr(c->p[stream], c->needle))
        c->needle_at = now_ms();
    if (c->seen_flag)
        atomic_store(c->seen_flag, 1);
    return 0;
}

static void cap_free(cap *c)
{
    free(c->p[1]);
    free(c->p[2]);
}

static void cap_check_clean(const cap *c)
{
    CHECK_INT(c->bad_channel, 0);
    CHECK_INT(c->too_big, 0);
}

/* ---- the 10 MB interleaved generator and its expected text */
#define ALPHA "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"

/* 142000 lines of 74 bytes (10.5 MB); a 20th under valgrind or sanitizers
 * (DVAL_TEST_TIMEOUT_SCALE set), which are ~50 times slower per byte */
static int scale(void)
{
    const char *s = getenv("DVAL_TEST_TIMEOUT_SCALE");
    return s && atoi(s) > 1 ? atoi(s) : 1;
}

static int lines(void)
{
    return scale() > 1 ? 7100 : 142000;
}

static void gen_cmd(char *cmd, size_t cap_)
{
    snprintf(cmd, cap_, "awk 'BEGIN { a = \"" ALPHA ALPHA "\"; "
             "for (i = 0; i < %d; i++) { s = substr(a, 1 + i %% 64, 64); "
             "if (i %% 3 == 0) printf \"e%%07d %%s\\n\", i, s > \"/dev/stderr\"; "
             "else printf \"o%%07d %%s\\n\", i, s } }'", lines());
}

static void expected(char **out, size_t *nout, char **err, size_t *nerr)
{
    static const char a[] = ALPHA ALPHA;
    const int LINES = lines();
    size_t cap_ = (size_t)LINES * 80;
    char *o = malloc(cap_), *e = malloc(cap_);
    size_t no = 0, ne = 0;
    for (int i = 0; i < LINES; i++) {
        int k = i % 3 == 0;
        char *dst = k ? e + ne : o + no;
        int w = sprintf(dst, "%c%07d %.64s\n", k ? 'e' : 'o', i, a + i % 64);
        if (k)
            ne += (size_t)w;
        else
            no += (size_t)w;
    }
    *out = o, *nout = no, *err = e, *nerr = ne;
}

static void first_diff(const char *what, const char *got, size_t ngot,
                       const char *want, size_t nwant)
{
    size_t i = 0;
    while (i < ngot && i < nwant && got[i] == want[i])
        i++;
    if (i == ngot && i == nwant)
        return;
    size_t from = i > 40 ? i - 40 : 0;
    th_fail(__FILE__, __LINE__, "%s: %zu bytes, expected %zu; first "
            "difference at %zu: got \"%.80s\" want \"%.80s\"", what, ngot,
            nwant, i, got ? got + from : "", want + from);
}

static void run_10mb(const char *config, const char *label)
{
    fx f;
    fx_start(&f, config);
    char *wo, *we;
    size_t nwo, nwe;
    expected(&wo, &nwo, &we, &nwe);
    cap c = {0};
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.timeout_ms = 45000LL * scale();
    char cmd[512];
    gen_cmd(cmd, sizeof cmd);
    int code = -1;
    int64_t t0 = now_ms();
    int rc = dval_session_exec(f.s, cmd, &eo, on_output, &c, &code);
    int64_t took = now_ms() - t0;
    char *stats = emu_get(&f.e, "/_emu/stats");
    fprintf(stderr, "    %s: %zu + %zu bytes in %lld ms, %d callbacks; "
            "emulator %s\n", label, c.n[1], c.n[2], (long long)took,
            c.chunks, stats ? stats : "?");
    free(stats);
    if (rc)
        th_fail(__FILE__, __LINE__, "exec: %s: %s", dval_status_name(rc),
                dval_session_errmsg(f.s));
    CHECK_INT(code, 0);
    cap_check_clean(&c);
    first_diff("stdout", c.p[1], c.n[1], wo, nwo);
    first_diff("stderr", c.p[2], c.n[2], we, nwe);
    free(wo);
    free(we);
    cap_free(&c);
    fx_stop(&f);
}

TEST(ten_mb_interleaved_small_frames_exact_per_stream)
{
    run_10mb("{\"ws_frame_max\":509}", "10 MB, 509-byte frames");
}

TEST(ten_mb_interleaved_stream_dropping_repeatedly)
{
    /* every connection is cut after 2 MB: the log is replayed from byte 0
     * on each reconnect and the rest has to come from elsewhere */
    char cfg[128];
    snprintf(cfg, sizeof cfg, "{\"ws_frame_max\":1000,\"ws_mode\":"
             "\"drop_after:%d\"}", lines() * 74 / 5);
    run_10mb(cfg, "10 MB, drop_after 2 MB");
}

static void small_exec(fx *f, const char *cmd, cap *c, int want_code,
                       const char *want_out, const char *want_err)
{
    int code = -1;
    int rc = dval_session_exec(f->s, cmd, NULL, on_output, c, &code);
    if (rc)
        th_fail(__FILE__, __LINE__, "exec %s: %s: %s", cmd,
                dval_status_name(rc), dval_session_errmsg(f->s));
    CHECK_INT(code, want_code);
    cap_check_clean(c);
    first_diff("stdout", c->p[1], c->n[1], want_out, strlen(want_out));
    first_diff("stderr", c->p[2], c->n[2], want_err, strlen(want_err));
}

TEST(never_closing_stream_still_returns_exit_code)
{
    fx f;
    fx_start(&f, "{\"ws_mode\":\"never_close\"}");
    cap c = {0};
    int64_t t0 = now_ms();
    small_exec(&f, "echo out; echo err >&2; exit 7", &c, 7, "out\n",
               "err\n");
    fprintf(stderr, "    never_close: exec took %lld ms\n",
            (long long)(now_ms() - t0));
    CHECK(now_ms() - t0 < 10000);
    cap_free(&c);
    fx_stop(&f);
}

TEST(stalled_stream_falls_back_and_finishes)
{
    fx f;
    fx_start(&f, "{\"ws_mode\":\"stall\"}");
    cap c = {0};
    int64_t t0 = now_ms();
    small_exec(&f, "seq 1 3; seq 4 5 >&2; exit 2", &c, 2, "1\n2\n3\n",
               "4\n5\n");
    fprintf(stderr, "    stall: exec took %lld ms\n",
            (long long)(now_ms() - t0));
    CHECK(now_ms() - t0 < 10000);
    cap_free(&c);
    fx_stop(&f);
}

TEST(channel_names_carry_the_prefix)
{
    fx f;
    fx_start(&f, NULL);
    cap c = {.prefix = "JAVA_SANDBOX_"};
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = "JAVA_SANDBOX_";
    int code = -1;
    CHECK_INT(dval_session_exec(f.s, "echo a; echo b >&2", &eo, on_output,
                                &c, &code), DVAL_OK);
    CHECK_INT(code, 0);
    cap_check_clean(&c);
    CHECK_STR(c.p[1], "a\n");
    CHECK_STR(c.p[2], "b\n");
    cap_free(&c);
    /* and none: plain COMMAND_EXECUTION_STDOUT */
    cap d = {0};
    CHECK_INT(dval_session_exec(f.s, "echo a; echo b >&2", NULL, on_output,
                                &d, &code), DVAL_OK);
    cap_check_clean(&d);
    cap_free(&d);
    fx_stop(&f);
}

/* dval_session_exec(3): a cwd that does not exist makes the command
 * fail. The whole command, not only its first part: "echo ran; exit 0"
 * must not run in another directory and report success. */
TEST(a_missing_cwd_fails_the_whole_command)
{
    fx f;
    fx_start(&f, NULL);
    cap c = {0};
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.cwd = "/nonexistent-dir";
    int code = -1;
    CHECK_INT(dval_session_exec(f.s, "echo ran; exit 0", &eo, on_output, &c,
                                &code), DVAL_OK);
    CHECK(code != 0);
    CHECK(c.p[1] == NULL || strstr(c.p[1], "ran") == NULL);
    cap_free(&c);
    fx_stop(&f);
}

TEST(a_line_arrives_before_the_command_exits)
{
    fx f;
    fx_start(&f, NULL);
    cap c = {.needle = "early"};
    int code = -1;
    int64_t t0 = now_ms();
    CHECK_INT(dval_session_exec(f.s, "echo early; sleep 2; echo late", NULL,
                                on_output, &c, &code), DVAL_OK);
    int64_t end = now_ms();
    CHECK_INT(code, 0);
    CHECK_STR(c.p[1], "early\nlate\n");
    CHECK(c.needle_at > 0);
    fprintf(stderr, "    \"early\" after %lld ms, exec returned after %lld "
            "ms\n", (long long)(c.needle_at - t0), (long long)(end - t0));
    CHECK(end - c.needle_at >= 1500);
    cap_free(&c);
    fx_stop(&f);
}

TEST(invalid_utf8_passes_through_and_sequences_are_not_split)
{
    fx f;
    fx_start(&f, "{\"ws_frame_max\":5}");
    cap c = {0};
    small_exec(&f, "printf 'a\\377\\376b\\n'; printf '\\303(\\n' >&2; "
               "printf '\\342\\202\\254\\342\\202\\254\\360\\237\\230\\200"
               "\\342\\202\\254\\n'", &c, 0,
               "a\377\376b\n\342\202\254\342\202\254\360\237\230\200"
               "\342\202\254\n", "\303(\n");
    CHECK_INT(c.split_utf8, 0);
    cap_free(&c);
    fx_stop(&f);
}

TEST(exit_5_returns_5_and_the_session_stays_usable)
{
    fx f;
    fx_start(&f, NULL);
    cap c = {0};
    small_exec(&f, "echo before; exit 5", &c, 5, "before\n", "");
    cap_free(&c);
    cap d = {0};
    small_exec(&f, "echo after", &d, 0, "after\n", "");
    cap_free(&d);
    /* a killed command: 128 + signal (the session shell reports the kill
     * on stderr, as the daemon's does) */
    cap e = {0};
    int code = -1;
    CHECK_INT(dval_session_exec(f.s, "echo x; kill -9 $$", NULL, on_output,
                                &e, &code), DVAL_OK);
    CHECK_INT(code, 137);
    CHECK_STR(e.p[1], "x\n");
    cap_free(&e);
    cap g = {0};
    small_exec(&f, "echo still", &g, 0, "still\n", "");
    cap_free(&g);
    fx_stop(&f);
}

typedef struct canceler {
    dval_session *s;
    atomic_int seen;
    int64_t canceled_at;
} canceler;

static void *cancel_when_output(void *arg)
{
    canceler *k = arg;
    for (int i = 0; i < 1000 && !atomic_load(&k->seen); i++)
        usleep(10000);
    usleep(300000);
    k->canceled_at = now_ms();
    dval_session_cancel(k->s);
    dval_session_cancel(k->s);   /* idempotent */
    return NULL;
}

static long remote_size(dval_sandbox *sb, const char *path)
{
    char *d = NULL;
    size_t n = 0;
    if (dval_sandbox_download(sb, path, &d, &n))
        return -1;
    dval_free(d);
    return (long)n;
}

TEST(cancel_from_another_thread_kills_the_command)
{
    fx f;
    fx_start(&f, NULL);
    canceler k = {.s = f.s};
    cap c = {.seen_flag = &k.seen};
    pthread_t t;
    pthread_create(&t, NULL, cancel_when_output, &k);
    int code = -1;
    int rc = dval_session_exec(f.s, "while :; do echo tick; "
                               "echo x >> /home/daytona/beat; sleep 0.05; "
                               "done", NULL, on_output, &c, &code);
    int64_t back = now_ms();
    pthread_join(t, NULL);
    CHECK_INT(rc, DVAL_ECANCELED);
    CHECK_CONTAINS(dval_session_errmsg(f.s), "cancel");
    fprintf(stderr, "    exec returned %lld ms after cancel\n",
            (long long)(back - k.canceled_at));
    CHECK(back - k.canceled_at < 3000);
    CHECK(c.n[1] >= 5);
    /* the loop is dead: its heartbeat file stops growing. The emulator
     * may need a moment to end it after the exec returned: two sizes
     * 600 ms apart must agree within 5 s (a live loop adds ~24 bytes in
     * that time, so they never would) */
    const char *beat = "/home/daytona/beat";
    long a = remote_size(f.sb, beat), b;
    for (int64_t until = now_ms() + 5000;; a = b) {
        usleep(600000);
        b = remote_size(f.sb, beat);
        if (b == a || now_ms() > until)
            break;
    }
    CHECK(a > 0);
    CHECK_INT(b, a);
    cap_free(&c);
    fx_stop(&f);
}

/* The whole output comes from the final log when the stream delivers
 * nothing (stall): it must still be byte-exact, invalid UTF-8 included
 * (the JSON log replaces invalid bytes with U+FFFD). */
TEST(invalid_utf8_is_exact_when_it_all_comes_from_the_final_log)
{
    fx f;
    fx_start(&f, "{\"ws_mode\":\"stall\"}");
    cap c = {0};
    small_exec(&f, "printf 'a\\377\\376b\\n'; printf '\\303(\\n' >&2; "
               "printf 'x\\342\\202\\n'", &c, 0, "a\377\376b\nx\342\202\n",
               "\303(\n");
    CHECK_INT(c.split_utf8, 0);
    cap_free(&c);
    fx_stop(&f);
}

/* Same with a stream that is cut after a few bytes, mid-line: the head
 * comes from the stream, the tail from the final log, each byte once. */
TEST(invalid_utf8_is_exact_across_a_cut_stream_and_the_final_log)
{
    fx f;
    fx_start(&f, "{\"ws_frame_max\":3,\"ws_mode\":\"drop_after:7\"}");
    cap c = {0};
    small_exec(&f, "printf 'a\\377\\376b\\n'; printf 'c\\377\\n' >&2; "
               "printf 'd\\376\\n'", &c, 0, "a\377\376b\nd\376\n",
               "c\377\n");
    cap_free(&c);
    fx_stop(&f);
}

static const char *req_hdr(json_t *req, const char *name)
{
    return json_string_value(json_object_get(json_object_get(req, "headers"),
                                             name));
}

/* A short command ends once its exit code is known: the emulator closes
 * the stream ~1 s after the last output (PROTOCOL 6.4), which is not
 * waited for; the final log is asked for in its raw form. */
TEST(a_short_command_ends_without_waiting_for_the_close)
{
    fx f;
    fx_start(&f, NULL);
    cap c = {0};
    int64_t t0 = now_ms();
    small_exec(&f, "echo done", &c, 0, "done\n", "");
    int64_t took = now_ms() - t0;
    fprintf(stderr, "    echo done: %lld ms\n", (long long)took);
    if (scale() == 1)
        CHECK(took < 900);
    cap_free(&c);
    char *body = emu_get(&f.e, "/_emu/requests");
    CHECK(body);
    json_t *list = json_loads(body, 0, NULL);
    CHECK(json_is_array(list));
    size_t i;
    json_t *r;
    int finals = 0;
    json_array_foreach(list, i, r) {
        const char *p = json_string_value(json_object_get(r, "path"));
        if (!p || !strstr(p, "/logs") || req_hdr(r, "upgrade"))
            continue;
        finals++;
        CHECK_STR(req_hdr(r, "x-daytona-sdk-version"), "0.166.0");
    }
    CHECK_INT(finals, 1);
    json_decref(list);
    free(body);
    fx_stop(&f);
}

static void count_no_sha1(int level, const char *msg, void *ud)
{
    (void)level;
    if (strstr(msg, "libcrypto gave no SHA-1"))
        ++*(int *)ud;
}

/* A libcrypto that offers no SHA-1 (here a property query no provider
 * meets, set once the session is open; a restrictive provider
 * configuration does the same) cannot check the handshake's
 * Sec-WebSocket-Accept: the stream is given up after its one try, the
 * reason is in the log, and the output comes exact from polling. */
TEST(no_sha1_in_libcrypto_falls_back_to_polling)
{
    fx f;
    int said = 0;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.log_fn = count_no_sha1;
    o.log_userdata = &said;
    fx_start_opts(&f, NULL, &o);
    CHECK_INT(EVP_set_default_properties(NULL, "provider=no-such"), 1);
    cap c = {0};
    small_exec(&f, "echo out; echo err >&2; exit 3", &c, 3, "out\n",
               "err\n");
    CHECK(said >= 1);
    char *stats = emu_get(&f.e, "/_emu/stats");
    json_t *j = stats ? json_loads(stats, 0, NULL) : NULL;
    CHECK_INT(json_integer_value(json_object_get(j, "websockets")), 1);
    json_decref(j);
    free(stats);
    cap_free(&c);
    fx_stop(&f);
}
