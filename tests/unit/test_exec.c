/* The exec engine over a scripted executor: channels, resuming after what
 * was received across reconnects and in the final log, never-closing
 * streams, polling fallback, cancellation from another thread, callback
 * aborts, timeouts, reentrancy. */
#include <pthread.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"
#include "core.h"

static fake F;

typedef struct got {
    dval__buf s[3];
    char channel[3][160];
    dval_session *session;   /* for the reentrancy test */
    int reenter_rc;
    int stop_after;          /* return non-zero after this many chunks */
    int chunks;
} got;

static int on_out(int stream, const char *channel, const char *d, size_t n,
                  void *ud)
{
    got *g = ud;
    snprintf(g->channel[stream], sizeof g->channel[stream], "%s", channel);
    dval__buf_append(&g->s[stream], d, n);
    g->chunks++;
    if (g->session) {
        int code;
        g->reenter_rc = dval_session_exec(g->session, "true", NULL, NULL,
                                          NULL, &code);
    }
    return g->stop_after && g->chunks >= g->stop_after;
}

static void got_free(got *g)
{
    for (int i = 0; i < 3; i++)
        dval__buf_free(&g->s[i]);
}

static fake_fixture FX;
static dval_client *C;
static dval_sandbox *SB;
static dval_session *S;

static void setup(int fake_time)
{
    if (fake_time)
        fakeclock_install();
    fake_init(&F);
    CHECK_INT(fake_fixture_open(&FX, &F, "dotnet-10-sandbox", 1), DVAL_OK);
    C = FX.c;
    SB = FX.sb;
    S = FX.s;
}

static void teardown(void)
{
    fake_fixture_free(&FX);
}

/* The command's output, as an executor delivers it: stdout "hello\n",
 * stderr "oops\n", stdout "second line\n"; added in pieces of `piece`
 * bytes (each a stream read) */
static const char OUT1[] = "hello\n", ERR1[] = "oops\n",
                  OUT2[] = "second line\n";

static void add_pieces(int stream, const char *s, size_t piece)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += piece)
        fake_item_add(&F, stream, s + i, n - i < piece ? n - i : piece);
}

static void add_output(size_t piece)
{
    add_pieces(DVAL_STDOUT, OUT1, piece);
    add_pieces(DVAL_STDERR, ERR1, piece);
    add_pieces(DVAL_STDOUT, OUT2, piece);
}

static int run(got *g, int64_t timeout, int *code)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = "DOTNET_SANDBOX_";
    eo.timeout_ms = timeout;
    return dval_session_exec(S, "dotnet run", &eo, on_out, g, code);
}

TEST(exec__session_id_is_sandbox_name_dash_uuid4)
{
    setup(1);
    const char *id = dval_session_id(S);
    CHECK(strncmp(id, "dotnet-10-sandbox-", 18) == 0);
    CHECK_INT(strlen(id), 18 + 36);
    CHECK(id[18 + 14] == '4'); /* version nibble */
    dval_session *s2;
    CHECK_INT(dval_session_open(&s2, SB), DVAL_OK);
    CHECK(strcmp(dval_session_id(s2), id) != 0);
    dval_session_free(s2);
    teardown();
}

TEST(exec__streams_reach_their_channels)
{
    setup(1);
    add_output(64);
    F.exit_code = 3;
    got g = { 0 };
    int code = -1;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_INT(code, 3);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    CHECK_STR(g.s[2].data, "oops\n");
    CHECK_STR(g.channel[1], "DOTNET_SANDBOX_COMMAND_EXECUTION_STDOUT");
    CHECK_STR(g.channel[2], "DOTNET_SANDBOX_COMMAND_EXECUTION_STDERR");
    got_free(&g);
    teardown();
}

TEST(exec__reconnect_resumes_after_what_was_received)
{
    setup(1);
    add_output(4); /* hell o\n oops \n seco nd l ine\n */
    F.drop_after = 3;
    F.drops_left = 2; /* two connections drop after 3 items; replay */
    /* running until the stream closed: the stream alone delivers it all */
    F.status_polls_before_exit = 40;
    got g = { 0 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    CHECK_STR(g.s[2].data, "oops\n");
    /* each connection was told what the ones before it delivered */
    CHECK_INT(F.opens, 3);
    CHECK_INT(F.open_from[0][0], 0);
    CHECK_INT(F.open_from[0][1], 0);
    CHECK_INT(F.open_from[1][0], 6);
    CHECK_INT(F.open_from[1][1], 4);
    CHECK_INT(F.open_from[2][0], 6);
    CHECK_INT(F.open_from[2][1], 4);
    CHECK_INT(F.logs_calls, 0);   /* the stream closed: no final log */
    got_free(&g);
    teardown();
}

TEST(exec__stream_that_never_closes_still_finishes)
{
    setup(1);
    add_output(64);
    F.never_close = 1;
    F.exit_code = 7;
    F.status_polls_before_exit = 2;
    got g = { 0 };
    int code;
    int64_t t0 = fakeclock_now;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_INT(code, 7);
    /* done once the exit code is known: no quiet period after it */
    CHECK(fakeclock_now - t0 < 200);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    got_free(&g);
    teardown();
}

/* Without a final log to reconcile against (the local executor) and a
 * stream kept open after the exit (a background child holding the pipes):
 * what is ready is taken and the exec returns, no quiet period. */
TEST(exec__split_stream_held_open_after_exit_returns_at_once)
{
    setup(1);
    C->ex.command_logs = NULL;
    fake_item_add(&F, DVAL_STDOUT, "out\n", 4);
    fake_item_add(&F, DVAL_STDERR, "err\n", 4);
    F.never_close = 1;
    F.status_polls_before_exit = 1;
    got g = { 0 };
    int code;
    int64_t t0 = fakeclock_now;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK(fakeclock_now - t0 < 100);   /* it was 200 ms of quiet */
    CHECK_STR(g.s[1].data, "out\n");
    CHECK_STR(g.s[2].data, "err\n");
    got_free(&g);
    teardown();
}

TEST(exec__polling_fallback_reconciles_from_the_full_log)
{
    setup(1);
    add_output(64);
    F.no_stream = 1;
    F.status_polls_before_exit = 3;
    got g = { 0 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    CHECK_STR(g.s[2].data, "oops\n");
    got_free(&g);
    teardown();
}

TEST(exec__stream_lost_for_good_falls_back_and_loses_nothing)
{
    setup(1);
    add_output(5); /* hello \n oops\n ... */
    F.drop_after = 2;
    F.drops_left = 100; /* every connection drops */
    F.status_polls_before_exit = 100; /* exits after the streaming ended */
    got g = { 0 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    CHECK_STR(g.s[2].data, "oops\n");
    /* the final log resumed after the 6 stdout bytes the streams had */
    CHECK_INT(F.logs_calls, 1);
    CHECK_INT(F.logs_from[0], 6);
    CHECK_INT(F.logs_from[1], 0);
    got_free(&g);
    teardown();
}

/* Exited while the stream was still open mid-output: the final log
 * supplies the rest, each byte once, on both streams. */
TEST(exec__final_log_resumes_after_the_streamed_bytes)
{
    setup(1);
    add_output(3);  /* hel lo\n oop s\n sec ... */
    F.never_close = 1;
    /* the poll right after the first output ("hel") sees the exit */
    F.status_polls_before_exit = 0;
    got g = { 0 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_STR(g.s[1].data, "hello\nsecond line\n");
    CHECK_STR(g.s[2].data, "oops\n");
    CHECK_INT(F.logs_calls, 1);
    CHECK_INT(F.logs_from[0], 3);
    CHECK_INT(F.logs_from[1], 0);
    got_free(&g);
    teardown();
}

TEST(exec__separate_streams_are_passed_through)
{
    setup(1);
    fake_item_add(&F, DVAL_STDOUT, "out \xe2\x82", 6);
    fake_item_add(&F, DVAL_STDERR, "err\n", 4);
    fake_item_add(&F, DVAL_STDOUT, "\xac\n", 2);
    got g = { 0 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_STR(g.s[1].data, "out \xe2\x82\xac\n");
    CHECK_STR(g.s[2].data, "err\n");
    got_free(&g);
    teardown();
}

/* One cancel: a second one from this thread could land after the exec
 * saw the first and returned, and would then (as documented) cancel the
 * next exec; the fresh root's ASan run hit that. Coalescing is checked
 * below without a race. */
static void *cancel_later(void *arg)
{
    usleep(150 * 1000);
    dval_session_cancel(arg);
    return NULL;
}

TEST(exec__cancel_from_another_thread)
{
    setup(0); /* real clock */
    F.hang = 1;
    F.status_polls_before_exit = 1000000;
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, S);
    got g = { 0 };
    int code = -1;
    CHECK_INT(run(&g, 0, &code), DVAL_ECANCELED);
    pthread_join(t, NULL);
    CHECK_INT(F.cmd_canceled, 1);
    CHECK_INT(code, -1);
    CHECK_STR(dval_session_errmsg(S), "canceled");
    /* the session works again afterwards */
    F.hang = 0;
    F.status_polls_before_exit = 0;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    /* idempotent and coalescing: two cancels between execs end the next
     * one before it runs, and only that one */
    CHECK_INT(dval_session_cancel(S), DVAL_OK);
    CHECK_INT(dval_session_cancel(S), DVAL_OK);
    CHECK_INT(run(&g, 0, &code), DVAL_ECANCELED);
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    got_free(&g);
    teardown();
}

TEST(exec__callback_stop_aborts_and_kills_the_command)
{
    setup(1);
    add_output(64);
    got g = { .stop_after = 1 };
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_EABORTED);
    CHECK_INT(g.chunks, 1);
    CHECK_INT(F.cmd_canceled, 1);
    got_free(&g);
    teardown();
}

TEST(exec__timeout_kills_the_command)
{
    setup(1);
    F.never_close = 1;
    F.status_polls_before_exit = 1000000;
    got g = { 0 };
    int code;
    int64_t t0 = fakeclock_now;
    CHECK_INT(run(&g, 3000, &code), DVAL_ETIMEOUT);
    CHECK(fakeclock_now - t0 >= 3000 && fakeclock_now - t0 < 4000);
    CHECK_INT(F.cmd_canceled, 1);
    got_free(&g);
    teardown();
}

TEST(exec__reentrant_call_from_the_callback_is_refused)
{
    setup(1);
    fake_item_add(&F, DVAL_STDOUT, "x\n", 2);
    got g = { 0 };
    g.session = S;
    int code;
    CHECK_INT(run(&g, 0, &code), DVAL_OK);
    CHECK_INT(g.reenter_rc, DVAL_EREENTRANT);
    got_free(&g);
    teardown();
}

TEST(exec__closed_session_and_bad_commands)
{
    setup(1);
    int code;
    CHECK_INT(dval_session_exec(S, "", NULL, NULL, NULL, &code), DVAL_EINVAL);
    CHECK_INT(dval_session_exec(S, NULL, NULL, NULL, NULL, &code), DVAL_EINVAL);
    CHECK_INT(dval_session_exec(S, "echo \xff", NULL, NULL, NULL, &code),
              DVAL_EINVAL);
    CHECK_INT(dval_session_close(S), DVAL_OK);
    CHECK_INT(F.sessions_deleted, 1);
    CHECK_INT(dval_session_close(S), DVAL_OK); /* idempotent */
    CHECK_INT(dval_session_exec(S, "true", NULL, NULL, NULL, &code),
              DVAL_ESTATE);
    CHECK_CONTAINS(dval_session_errmsg(S), "closed");
    teardown();
}

TEST(exec__start_failure_reports_the_message)
{
    setup(1);
    fake_fail(&F, "cmd_start", DVAL_ENOTFOUND, -1);
    int code;
    CHECK_INT(dval_session_exec(S, "true", NULL, NULL, NULL, &code),
              DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_session_errmsg(S), "injected DVAL_ENOTFOUND");
    teardown();
}

TEST(exec__free_in_any_order)
{
    setup(1);
    dval_client_free(C);   /* children keep it alive */
    dval_sandbox_free(SB);
    int code;
    CHECK_INT(dval_session_exec(S, "true", NULL, NULL, NULL, &code), DVAL_OK);
    dval_session_free(S);
}

/* Calls on the same client tree from inside a callback are refused; calls
 * on another client are allowed (and so are getters and cancel). */
typedef struct reenter {
    dval_sandbox *sb;
    dval_client *other;
    int del, upload, open, acquire, other_ok, cancel;
    const char *name;
} reenter;

static int reenter_cb(int stream, const char *ch, const char *d, size_t n,
                      void *ud)
{
    reenter *r = ud;
    (void)stream; (void)ch; (void)d; (void)n;
    r->del = dval_sandbox_delete(r->sb);
    r->upload = dval_sandbox_upload(r->sb, "/sandbox/x", "x", 1);
    dval_session *s2 = NULL;
    r->open = dval_session_open(&s2, r->sb);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "other";
    dval_sandbox *sb2 = NULL;
    r->acquire = dval_sandbox_acquire(&sb2, r->sb->client, &o);
    r->name = dval_sandbox_name(r->sb);
    r->cancel = dval_session_cancel(S) == DVAL_OK;
    r->other_ok = dval_sandbox_acquire(&sb2, r->other, &o) != DVAL_EREENTRANT;
    dval_sandbox_free(sb2);
    return 0;
}

TEST(exec__calls_on_the_same_tree_from_a_callback_are_refused)
{
    setup(1);
    fake_item_add(&F, DVAL_STDOUT, "x\n", 2);
    fake f2;
    fake_init(&f2);
    reenter r = { .sb = SB, .other = fake_client(&f2, 0) };
    int code;
    int rc = dval_session_exec(S, "true", NULL, reenter_cb, &r, &code);
    CHECK_INT(r.del, DVAL_EREENTRANT);
    CHECK_INT(r.upload, DVAL_EREENTRANT);
    CHECK_INT(r.open, DVAL_EREENTRANT);
    CHECK_INT(r.acquire, DVAL_EREENTRANT);
    CHECK_STR(r.name, "dotnet-10-sandbox");
    CHECK(r.cancel);
    CHECK(r.other_ok);
    CHECK(F.sb_exists); /* nothing was deleted mid-exec */
    CHECK_INT(rc, DVAL_ECANCELED); /* the cancel from the callback worked */
    /* outside callbacks everything works again */
    CHECK_INT(dval_sandbox_upload(SB, "/sandbox/x", "x", 1), DVAL_EUNSUPPORTED);
    dval_client_free(r.other);
    teardown();
}
