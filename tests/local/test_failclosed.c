/* Local executor fails closed without isolation, unless explicitly allowed
 * to run unisolated. */
#include "lt.h"

#include <stdlib.h>

TEST(test_local_failclosed__missing_isolation_refused)
{
    setenv("DVAL_LOCAL_HELPER", "/nonexistent/dval-local-helper", 1);
    lt t;
    lt_open(&t, "fc-refuse");
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "sb" };
    CHECK_INT(t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL),
              DVAL_EISOLATION);
    CHECK_CONTAINS(t.call.errmsg, "helper");
    CHECK_INT(lt_state(&t, "sb"), DVAL_ENOTFOUND);
    lt_close(&t);
}

TEST(test_local_failclosed__unisolated_when_allowed)
{
    lt t;
    lt_open(&t, "fc-allow");
    t.ex.destroy(t.ex.userdata);
    /* isolation "missing": the probe cannot run the helper's probe mode */
    setenv("DVAL_LOCAL_HELPER", "/bin/false", 1);
    t.cfg.allow_unisolated = 1;
    char err[128];
    CHECK_INT(dval__local_executor(&t.ex, &t.cfg, err, sizeof err), DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "sb" };
    int rc = t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL);
    CHECK_INT(rc, DVAL_OK);
    CHECK_STR(lt_state_key(&t, "sb", "isolated"), "0");
    lt_close(&t);
}
