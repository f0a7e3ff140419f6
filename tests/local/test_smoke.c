/* Local executor: the basic path — sandbox, exec with live output. */
#include "lt.h"

#include <unistd.h>

TEST(test_local_smoke__exec_streams_live)
{
    lt t;
    lt_open(&t, "smoke");
    int64_t t0 = dval__now_ms();
    lt_sandbox(&t, "sb1", NULL);
    int64_t t1 = dval__now_ms();
    lt_out o = { 0 };
    int code = lt_run(&t, "sb1", "echo a; sleep 2; echo b; echo err >&2; "
                      "pwd; echo $HOME", &o);
    CHECK_INT(code, 0);
    CHECK_STR(o.out.data, "a\nb\n/home/daytona\n/home/daytona\n");
    CHECK_STR(o.err.data, "err\n");
    CHECK(o.exit_ms - o.first_out_ms > 1000);
    lt_out_free(&o);
    lt_out o2 = { 0 };
    int64_t t2 = dval__now_ms();
    CHECK_INT(lt_run(&t, "sb1", "true", &o2), 0);
    int64_t t3 = dval__now_ms();
    fprintf(stderr, "    acquire(create+start) %lld ms, exec round trip "
            "%lld ms\n", (long long)(t1 - t0), (long long)(t3 - t2));
    lt_out_free(&o2);
    lt_close(&t);
}
