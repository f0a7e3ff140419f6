/* Executor-owned configuration: dval_daytona_options and
 * dval_local_options reached from dval_client_options are the only way to
 * configure the built-in executors besides the environment; the daytona
 * executor reads DAYTONA_* itself (no network I/O happens here). */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

static int new_client(const dval_client_options *o, const char *want_executor)
{
    dval_client *c = NULL;
    int rc = dval_client_new(&c, o);
    if (rc == DVAL_OK && want_executor)
        CHECK_STR(dval_client_executor_name(c), want_executor);
    dval_client_free(c);
    return rc;
}

TEST(daytona_options_configure_the_daytona_executor)
{
    unsetenv("DAYTONA_API_KEY");
    unsetenv("DAYTONA_JWT_TOKEN");
    dval_daytona_options d;
    CHECK_INT(dval_daytona_options_init(&d, sizeof d), DVAL_OK);
    CHECK_INT((int)d.struct_size, (int)sizeof d);
    d.api_url = "http://127.0.0.1:9";
    d.api_key = "k";
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.daytona = &d;
    /* a key makes daytona the default executor */
    CHECK_INT(new_client(&o, "daytona"), DVAL_OK);
    /* the executor checks its own struct's URL */
    d.api_url = "ftp://nowhere";
    CHECK_INT(new_client(&o, NULL), DVAL_EINVAL);
    /* without the struct (and no environment) there is no key: local */
    o.daytona = NULL;
    o.executor = "daytona";
    CHECK_INT(new_client(&o, NULL), DVAL_EAUTH);
}

TEST(daytona_environment_is_read_by_the_executor)
{
    unsetenv("DAYTONA_JWT_TOKEN");
    setenv("DAYTONA_API_KEY", "from-env", 1);
    setenv("DAYTONA_API_URL", "http://127.0.0.1:9", 1);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    CHECK_INT(new_client(&o, "daytona"), DVAL_OK);
    setenv("DAYTONA_API_URL", "gopher://x", 1);
    CHECK_INT(new_client(&o, NULL), DVAL_EINVAL);
    unsetenv("DAYTONA_API_URL");
    unsetenv("DAYTONA_API_KEY");
    o.executor = "daytona";
    CHECK_INT(new_client(&o, NULL), DVAL_EAUTH);
    /* a JWT needs its organization */
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.jwt_token = "j";
    o.daytona = &d;
    CHECK_INT(new_client(&o, NULL), DVAL_EINVAL);
    d.organization_id = "org";
    CHECK_INT(new_client(&o, "daytona"), DVAL_OK);
}

TEST(option_structs_from_newer_headers_are_checked)
{
    struct {
        dval_local_options l;
        int64_t future;
    } big;
    memset(&big, 0, sizeof big);
    big.l.struct_size = sizeof big;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.local = &big.l;
    big.future = 1; /* a field this library does not know */
    CHECK_INT(new_client(&o, NULL), DVAL_EABI);
    CHECK_INT(dval_local_options_init(NULL, 8), DVAL_EINVAL);
    CHECK_INT(dval_daytona_options_init(&(dval_daytona_options){0}, 1),
              DVAL_EABI);
}

/* A client on the fake executor with l as its dval_local_options. */
static dval_client *limited_client(fake *f, dval_local_options *l)
{
    fake_init(f);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.local = l;
    dval_client *c = fake_client_opts(f, &o);
    CHECK(c);
    return c;
}

TEST(local_default_limits_reach_the_sandbox_options)
{
    fake f;
    fake_init(&f);
    dval_local_options l;
    dval_local_options_init(&l, sizeof l);
    l.max_pids = 7;
    l.max_memory_bytes = 1 << 20;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.local = &l;
    dval_client *c = fake_client_opts(&f, &o);
    CHECK(c);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    so.max_memory_bytes = 2 << 20; /* the sandbox's own value wins */
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_OK);
    CHECK_INT(f.sb_created.max_pids, 7);
    CHECK_INT((int)f.sb_created.max_memory_bytes, 2 << 20);
    CHECK_INT((int)f.sb_created.max_cpu_ms, 0);
    dval_sandbox_free(sb);
    dval_client_free(c);
    l.max_cpu_ms = -1;
    CHECK_INT(new_client(&o, NULL), DVAL_EINVAL);
}

/* The sandbox's memory_gib is its own value too: the client-wide byte
 * limit must not override it (run --memory was lost so). */
TEST(sandbox_memory_gib_beats_the_client_default)
{
    fake f;
    dval_local_options l;
    dval_local_options_init(&l, sizeof l);
    l.max_memory_bytes = 1 << 20;
    dval_client *c = limited_client(&f, &l);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    so.memory_gib = 3;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_OK);
    CHECK_INT((int)f.sb_created.max_memory_bytes, 0);
    CHECK_INT(f.sb_created.memory_gib, 3);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

/* "more than 1024" labels or env entries are refused: 1025 passed */
TEST(sandbox_label_and_env_limit_is_1024)
{
    fake f;
    fake_init(&f);
    dval_client *c = fake_client(&f, 0);
    CHECK(c);
    static char kv[1026][16];
    static const char *list[1027];
    for (int i = 0; i < 1026; i++) {
        snprintf(kv[i], sizeof kv[i], "k%d=v", i);
        list[i] = kv[i];
    }
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    for (int n = 1024; n <= 1025; n++) {
        list[n] = NULL;
        so.labels = list;
        dval_sandbox *sb = NULL;
        CHECK_INT(dval_sandbox_acquire(&sb, c, &so),
                  n == 1024 ? DVAL_OK : DVAL_EINVAL);
        dval_sandbox_free(sb);
        list[n] = kv[n];
        so.labels = NULL;
        so.env = list;
        list[n] = NULL;
        CHECK_INT(dval_sandbox_acquire(&sb, c, &so),
                  n == 1024 ? DVAL_OK : DVAL_EINVAL);
        dval_sandbox_free(sb);
        list[n] = kv[n];
        so.env = NULL;
    }
    dval_client_free(c);
}

/* dval_validation's TTL and resources reach the create of the sandbox a
 * validation makes for itself (isolation=sandbox). */
TEST(validation_ttl_and_resources_reach_its_sandbox)
{
    fake f;
    fake_init(&f);
    dval_client *c = fake_client(&f, 0);
    char dir[] = "/tmp/dval-ttl-XXXXXX";
    CHECK(mkdtemp(dir));
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "shell";
    v.source_dir = dir;
    v.isolation = DVAL_ISOLATION_SANDBOX;
    v.sandbox_ttl_minutes = 45;
    v.cpu = 2;
    /* the fake has no files: the validation stops at its upload, after
     * the sandbox was made */
    CHECK_INT(dval_validate(c, &v, NULL, NULL, NULL), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(dval_client_errmsg(c), "upload:");
    CHECK_INT(f.sb_created.ttl_minutes, 45);
    CHECK_INT(f.sb_created.cpu, 2);
    rmdir(dir);
    dval_client_free(c);
}

static int log_calls, log_foreign; /* foreign: another userdata */

static void count_log(int level, const char *msg, void *ud)
{
    (void)level, (void)msg;
    if (ud == (void *)&log_calls)
        log_calls++;
    else
        log_foreign++;
}

/* Every log line reaches log_fn with the host's log_userdata. */
TEST(log_userdata_reaches_every_log_line)
{
    fake f;
    fake_init(&f);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.log_fn = count_log;
    o.log_userdata = &log_calls;
    o.log_level = DVAL_LOG_DEBUG;
    dval_client *c = fake_client_opts(&f, &o);
    CHECK(c);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_OK);
    dval_sandbox_free(sb);
    dval_client_free(c);
    CHECK(log_calls > 0);
    CHECK_INT(log_foreign, 0);
}
