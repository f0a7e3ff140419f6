/* dval_cancel in every phase of a local validation: the token is fired
 * from another thread 30 ms into the snapshot build, the upload, the
 * program and the download, and dval_validate must return DVAL_ECANCELED
 * (close phase included) within 100 ms of the fire. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lt.h"

#define LIMIT_MS 100

/* sanitizer and valgrind runs are slower (as the harness's timeouts) */
static int64_t limit_ms(void)
{
    const char *s = getenv("DVAL_TEST_TIMEOUT_SCALE");
    int k = s && atoi(s) > 1 ? atoi(s) : 1;
    return (int64_t)LIMIT_MS * k;
}

typedef struct ctx {
    dval_cancel *token;
    const char *phase;
    atomic_int started, done;
    atomic_llong fired_at;
} ctx;

static int on_event(const dval_event *ev, void *ud)
{
    ctx *c = ud;
    if (ev->type == DVAL_EVENT_PHASE && !ev->done &&
        !strcmp(ev->phase, c->phase))
        c->started = 1;
    return 0;
}

static void *fire_in_phase(void *arg)
{
    ctx *c = arg;
    for (int i = 0; i < 60000 && !c->started && !c->done; i++)
        usleep(1000);
    if (c->done)
        return NULL;
    usleep(30000);
    c->fired_at = dval__now_ms();
    dval_cancel_fire(c->token);
    return NULL;
}

static void write_at(const char *dir, const char *name, const char *text)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
}

static void cancel_in(const char *phase, const char *profile,
                      const char *program, int nfiles)
{
    lt t;
    lt_open(&t, "cancel-phases");
    dval_client *cl = lt_client(&t);
    char dir[] = "/tmp/dval-cph-XXXXXX";
    CHECK(mkdtemp(dir));
    write_at(dir, "run.sh", program);
    for (int i = 0; i < nfiles; i++) {
        char n[32];
        snprintf(n, sizeof n, "f%05d.txt", i);
        write_at(dir, n, "some source text\n");
    }
    ctx c = {.phase = phase};
    CHECK_INT(dval_cancel_new(&c.token), DVAL_OK);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = profile;
    req.source_dir = dir;
    req.allow_missing_results = 1;
    req.cancel = c.token;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fire_in_phase, &c) == 0);
    int rc = dval_validate(cl, &req, on_event, &c, NULL);
    int64_t end = dval__now_ms();
    c.done = 1;
    pthread_join(th, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(cl));
    CHECK_INT(rc, DVAL_ECANCELED);
    CHECK(c.fired_at > 0);
    fprintf(stderr, "    %s: returned %lld ms after the fire (%s)\n", phase,
            (long long)(end - c.fired_at), dval_client_errmsg(cl));
    if (end - c.fired_at >= limit_ms())
        th_fail(__FILE__, __LINE__, "%s: %lld ms", phase,
                (long long)(end - c.fired_at));
    dval_cancel_free(c.token);
    dval_client_free(cl);
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    lt_close(&t);
}

TEST(cancel_phases__run)
{
    cancel_in("run", "shell", "sleep 30\n", 0);
}

TEST(cancel_phases__upload)
{
    cancel_in("upload", "shell", "true\n", 4000);
}

TEST(cancel_phases__download)
{
    cancel_in("download", "shell", "mkdir -p $DVAL_RESULTS_DIR; i=0; while "
              "[ $i -lt 3000 ]; do echo '{}' > $DVAL_RESULTS_DIR/r$i.json; "
              "i=$((i+1)); done\n", 0);
}

TEST(cancel_phases__snapshot_build)
{
    static const char *const steps[] = {"sleep 30", NULL};
    dval_profile p = {.struct_size = sizeof p, .name = "cancel-build",
                      .sandbox_name = "cancel-build-sandbox",
                      .snapshot_name = "cancel-build-snapshot",
                      .image = "debian:12-slim", .build_commands = steps,
                      .channel_prefix = "X_", .run_command = "sh run.sh"};
    CHECK_INT(dval_profile_register(&p), DVAL_OK);
    cancel_in("snapshot", "cancel-build", "true\n", 0);
}
