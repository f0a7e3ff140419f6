/* Bad input never crashes: NULLs, wrong struct sizes, unknown tails, bad
 * names, paths and ids → DVAL_EINVAL / DVAL_EABI with a message. */
#include "harness.h"
#include "support_fake.h"

static fake F;

static dval_client *client(void)
{
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    return c;
}

TEST(bad__null_arguments)
{
    CHECK_INT(dval_client_new(NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_client_options_init(NULL, 8), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_options_init(NULL, 8), DVAL_EINVAL);
    CHECK_INT(dval_snapshot_spec_init(NULL, 8), DVAL_EINVAL);
    CHECK_INT(dval_exec_options_init(NULL, 8), DVAL_EINVAL);
    dval_client *c = client();
    dval_sandbox *sb = (dval_sandbox *)1;
    CHECK_INT(dval_sandbox_acquire(&sb, c, NULL), DVAL_EINVAL);
    CHECK(sb == NULL);
    CHECK_INT(dval_sandbox_acquire(NULL, c, NULL), DVAL_EINVAL);
    dval_snapshot *sn = (dval_snapshot *)1;
    CHECK_INT(dval_snapshot_ensure(&sn, c, NULL, NULL, NULL), DVAL_EINVAL);
    CHECK(sn == NULL);
    CHECK_INT(dval_session_open(NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_session_cancel(NULL), DVAL_EINVAL);
    CHECK_INT(dval_session_close(NULL), DVAL_EINVAL);
    CHECK_INT(dval_session_exec(NULL, "x", NULL, NULL, NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_upload(NULL, "/a", "x", 1), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_download(NULL, "/a", NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_list(NULL, NULL, NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_refresh(NULL), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_stop(NULL), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_delete(NULL), DVAL_EINVAL);
    CHECK_INT(dval_snapshot_delete(NULL), DVAL_EINVAL);
    /* getters and frees accept NULL */
    CHECK_STR(dval_sandbox_name(NULL), "");
    CHECK_STR(dval_session_id(NULL), "");
    CHECK_STR(dval_snapshot_name(NULL), "");
    CHECK(dval_client_errmsg(NULL) != NULL);
    dval_client_free(NULL);
    dval_sandbox_free(NULL);
    dval_session_free(NULL);
    dval_snapshot_free(NULL);
    dval_free(NULL);
    dval_client_free(c);
}

TEST(bad__struct_sizes)
{
    dval_client_options o;
    CHECK_INT(dval_client_options_init(&o, 2), DVAL_EABI);
    dval_client *c = NULL;
    /* a size from a newer header with a non-zero unknown tail */
    struct { dval_client_options o; int64_t future; } big;
    memset(&big, 0, sizeof big);
    big.o.struct_size = sizeof big;
    big.future = 1;
    CHECK_INT(dval_client_new(&c, &big.o), DVAL_EABI);
    CHECK(c == NULL);
    /* ... and an all-zero tail is fine (library older than the header) */
    big.future = 0;
    big.o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = "/nonexistent-dval-test";
    big.o.local = &lo;
    int rc = dval_client_new(&c, &big.o);
    CHECK(rc != DVAL_EABI);
    dval_client_free(c);
    /* a custom executor with an impossible size */
    struct dval_executor ex;
    dval_executor_init(&ex, sizeof ex);
    ex.struct_size = 3;
    dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    CHECK_INT(dval_client_new(&c, &o), DVAL_EABI);
    /* older, smaller options struct: accepted with defaults */
    dval_client_options_init(&o, offsetof(dval_client_options, executor));
    CHECK_INT(o.struct_size, offsetof(dval_client_options, executor));

    c = client();
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.struct_size = 1;
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_EABI);
    dval_snapshot *sn;
    /* a newer caller's struct whose unknown tail is set */
    struct { dval_snapshot_spec s; char tail[64]; } spt;
    memset(&spt, 0, sizeof spt);
    spt.s.struct_size = sizeof spt;
    spt.s.name = "ok";
    spt.tail[10] = 1;
    CHECK_INT(dval_snapshot_ensure(&sn, c, &spt.s, NULL, NULL), DVAL_EABI);
    dval_client_free(c);
}

TEST(bad__executor_selection)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "docker";
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_EINVAL);
    o.executor = "daytona";
    unsetenv("DAYTONA_API_KEY");
    unsetenv("DAYTONA_JWT_TOKEN");
    CHECK_INT(dval_client_new(&c, &o), DVAL_EAUTH);
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    o.daytona = &d;
    d.jwt_token = "jwt";
    unsetenv("DAYTONA_ORGANIZATION_ID");
    CHECK_INT(dval_client_new(&c, &o), DVAL_EINVAL);
    d.jwt_token = NULL;
    d.api_key = "k";
    d.api_url = "ftp://x";
    CHECK_INT(dval_client_new(&c, &o), DVAL_EINVAL);
    CHECK(c == NULL);
}

static void bad_sandbox_name(dval_client *c, const char *name)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    dval_sandbox *sb = (dval_sandbox *)1;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_EINVAL);
    CHECK(sb == NULL);
    CHECK(dval_client_errmsg(c)[0] != '\0');
}

TEST(bad__names)
{
    dval_client *c = client();
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *bad[] = { "", "a/b", "..", "a..b", "tab\there", "nl\n",
                          "bad\xff", "sp ace", "q?x", "p%2e", longname, NULL };
    bad_sandbox_name(c, NULL);
    for (int i = 0; bad[i]; i++)
        bad_sandbox_name(c, bad[i]);
    CHECK_STR(F.trace, ""); /* nothing reached the executor */
    dval_snapshot_spec sp;
    dval_snapshot_spec_init(&sp, sizeof sp);
    dval_snapshot *sn;
    sp.name = "org/snap:1.0"; /* slashes and colons are fine for snapshots */
    F.snap_exists = 1;
    F.snap.state = DVAL_SNAPSHOT_ACTIVE;
    snprintf(F.snap.name, sizeof F.snap.name, "org/snap:1.0");
    CHECK_INT(dval_snapshot_ensure(&sn, c, &sp, NULL, NULL), DVAL_OK);
    dval_snapshot_free(sn);
    sp.name = "../etc";
    CHECK_INT(dval_snapshot_ensure(&sn, c, &sp, NULL, NULL), DVAL_EINVAL);
    /* labels and env must be key=value */
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "box";
    const char *labels[] = { "novalue", NULL };
    o.labels = labels;
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "key=value");
    o.labels = NULL;
    o.auto_stop_minutes = -5;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_EINVAL);
    dval_client_free(c);
}

TEST(bad__remote_paths_are_refused_before_the_wire)
{
    dval_client *c = client();
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "box";
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    const char *bad[] = { "", "../x", "/sandbox/../../etc/passwd", "a/..",
                          "/x\n", "/x\x01y", "/bad\xc3", NULL };
    char *data;
    size_t len;
    for (int i = 0; bad[i]; i++) {
        CHECK_INT(dval_sandbox_upload(sb, bad[i], "x", 1), DVAL_EINVAL);
        CHECK_INT(dval_sandbox_download(sb, bad[i], &data, &len), DVAL_EINVAL);
        CHECK_INT(dval_sandbox_mkdir(sb, bad[i]), DVAL_EINVAL);
        CHECK(dval_sandbox_errmsg(sb)[0] != '\0');
    }
    CHECK_INT(dval_sandbox_upload(sb, NULL, "x", 1), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_upload(sb, "/ok", NULL, 1), DVAL_EINVAL);
    /* a fine path on an executor without file support */
    CHECK_INT(dval_sandbox_upload(sb, "/sandbox/a..b/ok", "x", 1),
              DVAL_EUNSUPPORTED);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(bad__components)
{
    char msg[128];
    CHECK_INT(dval__check_component("thread id", "t-1_2.3", msg, sizeof msg),
              DVAL_OK);
    const char *bad[] = { "", ".", "..", "a/b", "a b", "x\n", "é", NULL };
    for (int i = 0; bad[i]; i++)
        CHECK_INT(dval__check_component("thread id", bad[i], msg, sizeof msg),
                  DVAL_EINVAL);
}

TEST(bad__status_and_state_names_are_total)
{
    for (int s = 1; s >= -40; s--) {
        CHECK(dval_strerror(s) != NULL);
        CHECK(dval_status_name(s) != NULL);
    }
    CHECK_STR(dval_status_name(DVAL_ETIMEOUT), "DVAL_ETIMEOUT");
    CHECK_STR(dval_status_name(12345), "DVAL_UNKNOWN");
    for (int st = 0; st <= DVAL_SANDBOX_RESUMING; st++)
        CHECK_INT(dval_sandbox_state_parse(dval_sandbox_state_name(st)), st);
    for (int st = 0; st <= DVAL_SNAPSHOT_REMOVING; st++)
        CHECK_INT(dval_snapshot_state_parse(dval_snapshot_state_name(st)), st);
    CHECK_INT(dval_sandbox_state_parse(NULL), DVAL_SANDBOX_UNKNOWN);
    CHECK_INT(dval_sandbox_state_parse("exploded"), DVAL_SANDBOX_UNKNOWN);
    CHECK_STR(dval_sandbox_state_name(-3), "unknown");
    CHECK_STR(dval_sandbox_state_name(DVAL_SANDBOX_BUILD_FAILED),
              "build_failed");
    CHECK_STR(dval_snapshot_state_name(DVAL_SNAPSHOT_INACTIVE), "inactive");
    CHECK_STR(dval_version(), DVAL_VERSION_STRING);
    CHECK_INT(dval_version_num(), DVAL_VERSION_NUM);
}

/* min_warm is checked against the pool's size also when that is the
 * default (4): 5 warm sandboxes were written past the end of 4 slots */
TEST(bad__pool_sizes)
{
    dval_client *c = client();
    dval_pool_options o;
    CHECK_INT(dval_pool_options_init(&o, sizeof o), DVAL_OK);
    o.profile = "shell";
    dval_pool *p = (dval_pool *)&o;
    const int bad[][3] = { /* min_warm, max_sandboxes, max_per_sandbox */
        { 5, 0, 0 }, { 3, 2, 0 }, { -1, 0, 0 }, { 0, -1, 0 }, { 0, 0, -1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.min_warm = bad[i][0];
        o.max_sandboxes = bad[i][1];
        o.max_per_sandbox = bad[i][2];
        CHECK_INT(dval_pool_new(&p, c, &o), DVAL_EINVAL);
        CHECK(p == NULL);
        CHECK_CONTAINS(dval_client_errmsg(c), "pool:");
    }
    dval_client_free(c);
}

TEST(bad__global_init_is_counted)
{
    int n = dval_global_init();
    CHECK(n >= 1);
    CHECK_INT(dval_global_init(), n + 1);
    CHECK_INT(dval_global_cleanup(), n);
    CHECK_INT(dval_global_cleanup(), n - 1);
}

/* ---- client messages shared by threads */
#include <pthread.h>

static dval_client *SHARED;

static void *bad_names_in_a_loop(void *arg)
{
    const char *name = arg;
    char want[64];
    snprintf(want, sizeof want, "\"%s\"", name);
    for (int i = 0; i < 2000; i++) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        o.name = name;
        dval_sandbox *sb;
        if (dval_sandbox_acquire(&sb, SHARED, &o) != DVAL_EINVAL)
            return (void *)1;
        /* each thread reads back its own failure, never another's */
        if (!strstr(dval_client_errmsg(SHARED), want))
            return (void *)2;
    }
    return NULL;
}

TEST(bad__threads_read_their_own_client_message)
{
    SHARED = client();
    const char *names[] = { "a/one", "b/two", "c/three", "d/four" };
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, bad_names_in_a_loop, (void *)names[i]);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
    dval_client_free(SHARED);
}
