/* Local executor commands: exit codes, signals, cancel, session delete. */
#include "lt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stress/sigstorm.h"

TEST(test_local_exec__exit_codes_and_signals)
{
    lt t;
    lt_open(&t, "ex-codes");
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "exit 3", &o), 3);
    CHECK_INT(lt_run(&t, "sb", "kill -TERM $$", &o), 143);
    CHECK_INT(lt_run(&t, "sb", "kill -KILL $$", &o), 137);
    CHECK_INT(lt_run(&t, "sb", "no-such-program", &o), 127);
    lt_out_free(&o);
    lt_close(&t);
}

TEST(test_local_exec__cancel_and_session_delete)
{
    lt t;
    lt_open(&t, "ex-cancel");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata;
    char cmd[DVAL_ID_MAX];
    CHECK_INT(t.ex.session_create(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    CHECK_INT(t.ex.session_create(ud, lt_call(&t), "sb", "s"), DVAL_EEXISTS);
    CHECK_INT(lt_start(&t, lt_call(&t), "sb", "s", "sleep 30 & sleep 31",
                       cmd), DVAL_OK);
    /* cancel_fd readable → stream_read returns DVAL_ECANCELED */
    void *st;
    CHECK_INT(t.ex.stream_open(ud, lt_call(&t), "sb", "s", cmd, 0, 0, &st),
              DVAL_OK);
    int p[2], closed;
    CHECK(pipe(p) == 0);
    CHECK(write(p[1], "x", 1) == 1);
    dval_call *c = lt_call(&t);
    c->cancel_fd = p[0];
    int64_t t0 = dval__now_ms();
    CHECK_INT(t.ex.stream_read(ud, c, st, NULL, NULL, &closed),
              DVAL_ECANCELED);
    CHECK(dval__now_ms() - t0 < 500);
    t.ex.stream_close(ud, st);
    CHECK_INT(t.ex.command_cancel(ud, lt_call(&t), "sb", "s", cmd), DVAL_OK);
    int fin = 0, code = 0;
    for (int i = 0; i < 200 && !fin; i++) {
        CHECK_INT(t.ex.command_status(ud, lt_call(&t), "sb", "s", cmd, &fin,
                                      &code), DVAL_OK);
        usleep(10000);
    }
    CHECK(fin);
    CHECK_INT(code, 137);
    /* a session's leftovers die with it */
    CHECK_INT(lt_start(&t, lt_call(&t), "sb", "s",
                       "setsid sleep 40 & sleep 41", cmd), DVAL_OK);
    usleep(100000);
    CHECK_INT(t.ex.session_delete(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    CHECK_INT(t.ex.command_status(ud, lt_call(&t), "sb", "s", cmd, &fin,
                                  &code), DVAL_ENOTFOUND);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "pgrep -fc 'sleep 4[01]'", &o), 1);
    lt_out_free(&o);
    lt_close(&t);
}

/* Go preempts goroutines with SIGURG and its handlers make poll() fail
 * with EINTR: a command must not lose its process group or its exit code
 * to a signal the host's runtime sends the calling thread (the helper
 * died of SIGPIPE, exit 141, when the pgid read gave up on EINTR). */
TEST(test_local_exec__signals_to_the_calling_thread)
{
    lt t;
    lt_open(&t, "ex-eintr");
    lt_sandbox(&t, "sb", NULL);
    sigstorm storm;
    CHECK(sigstorm_start(&storm) == 0);
    int bad = 0;
    for (int i = 0; i < 40; i++) {
        lt_out o = { 0 };
        int code = lt_run(&t, "sb", "echo a; exit 3", &o);
        if (code != 3 || o.out.len != 2 || memcmp(o.out.data, "a\n", 2)) {
            fprintf(stderr, "run %d: exit %d, stdout %.*s\n", i, code,
                    (int)o.out.len, o.out.data ? o.out.data : "");
            bad++;
        }
        lt_out_free(&o);
    }
    CHECK(sigstorm_stop(&storm) > 0);
    CHECK_INT(bad, 0);
    lt_close(&t);
}
