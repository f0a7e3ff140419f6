/* Allocation-failure injection (jansson's test_chaos / curl's torture):
 * fail the Nth library allocation for every N through a whole lifecycle;
 * each run must end cleanly (DVAL_ENOMEM or another status, never a
 * crash); leaks are caught when this runs under valgrind or ASan. */
#include "harness.h"
#include "support_fake.h"

static const char OUT[] = "hello \xc3\xa9\n", ERR[] = "oops\n";

static int sink(int stream, const char *ch, const char *d, size_t n, void *u)
{
    (void)stream;
    (void)ch;
    (void)d;
    (void)n;
    (void)u;
    return 0;
}

/* One whole lifecycle; returns the first failing status (or DVAL_OK). */
static int lifecycle(void)
{
    static fake f;
    fake_init(&f);
    snprintf(f.snap.name, sizeof f.snap.name, "snap");
    fake_item_add(&f, DVAL_STDOUT, OUT, 2);
    fake_item_add(&f, DVAL_STDOUT, OUT + 2, sizeof OUT - 1 - 2);
    fake_item_add(&f, DVAL_STDERR, ERR, sizeof ERR - 1);
    dval_client *c = fake_client(&f, 0);
    if (!c)
        return DVAL_ENOMEM;
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "snap";
    dval_snapshot *snap = NULL;
    dval_sandbox *sb = NULL;
    dval_session *s = NULL;
    int rc = dval_snapshot_ensure(&snap, c, &spec, NULL, NULL);
    if (!rc) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        o.name = "box";
        const char *labels[] = { "a=b", "purpose=validator", NULL };
        const char *env[] = { "K=V", NULL };
        o.labels = labels;
        o.env = env;
        rc = dval_sandbox_acquire(&sb, c, &o);
    }
    if (!rc)
        rc = dval_session_open(&s, sb);
    int code = -1;
    if (!rc) {
        dval_exec_options eo;
        dval_exec_options_init(&eo, sizeof eo);
        eo.cwd = "/sandbox/t1";
        eo.channel_prefix = "JAVA_SANDBOX_";
        rc = dval_session_exec(s, "javac Main.java", &eo, sink, NULL, &code);
    }
    if (!rc)
        rc = dval_session_close(s);
    dval_session_free(s);
    dval_sandbox_free(sb);
    dval_snapshot_free(snap);
    dval_client_free(c);
    return rc;
}

TEST(allocfail__every_allocation_of_a_lifecycle)
{
    fakeclock_install();
    dval__alloc_fail_at(0);
    CHECK_INT(lifecycle(), DVAL_OK);
    long total = dval__alloc_count();
    CHECK(total > 10);
    int enomem = 0;
    for (long n = 1; n <= total; n++) {
        dval__alloc_fail_at(n);
        int rc = lifecycle();
        /* a failed allocation is reported, or absorbed by a retry */
        CHECK(rc == DVAL_OK || rc == DVAL_ENOMEM || rc == DVAL_EIO ||
              rc == DVAL_ERROR);
        enomem += rc == DVAL_ENOMEM;
    }
    dval__alloc_fail_at(0);
    CHECK(enomem > 0);
    printf("    %ld allocations, %d runs ended in DVAL_ENOMEM\n", total,
           enomem);
}
