/* dval_cancel on the local executor: a silent `sleep` program validated by
 * dval_validate is stopped within 1 s of dval_cancel_fire() from another
 * thread, the validation returns DVAL_ECANCELED after its close phase, and
 * the program's process is gone. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lt.h"

#define MARK "20.4242"   /* sleep argument that names our process */

typedef struct ctx {
    dval_cancel *token;
    int64_t fired_at;
    atomic_int exec_started, done;
    int close_status, close_seen;
} ctx;

static int on_event(const dval_event *ev, void *ud)
{
    ctx *c = ud;
    if (ev->type != DVAL_EVENT_PHASE)
        return 0;
    if (!strcmp(ev->phase, "run") && !ev->done)
        c->exec_started = 1;
    if (!strcmp(ev->phase, "close") && ev->done) {
        c->close_seen = 1;
        c->close_status = ev->status;
    }
    return 0;
}

static void *fire_when_running(void *arg)
{
    ctx *c = arg;
    for (int i = 0; i < 3000 && !c->exec_started && !c->done; i++)
        usleep(10000);
    if (c->done)
        return NULL;
    usleep(500000);   /* the program is in its sleep by now */
    c->fired_at = dval__now_ms();
    dval_cancel_fire(c->token);
    return NULL;
}

/* 1 when a process with MARK in its command line exists. */
static int marked_process(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)) && !found) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i + strlen(MARK) <= n && !found; i++)
            found = !memcmp(buf + i, MARK, strlen(MARK));
    }
    if (d)
        closedir(d);
    return found;
}

TEST(test_local_cancel__validate_sleep_stops_within_1s)
{
    lt t;
    lt_open(&t, "cancel-validate");   /* a clean state dir, root check */
    dval_client *cl = lt_client(&t);
    char dir[] = "/tmp/dval-cancel-src-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/run.sh", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("sleep " MARK "\n", f);
    fclose(f);
    ctx c = {0};
    CHECK_INT(dval_cancel_new(&c.token), DVAL_OK);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.allow_missing_results = 1;
    req.cancel = c.token;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fire_when_running, &c) == 0);
    char *summary = NULL;
    int rc = dval_validate(cl, &req, on_event, &c, &summary);
    int64_t done = dval__now_ms();
    c.done = 1;
    pthread_join(th, NULL);
    if (rc == DVAL_EISOLATION)   /* e.g. under valgrind: no namespaces */
        th_skip(dval_client_errmsg(cl));
    CHECK_INT(rc, DVAL_ECANCELED);
    CHECK_CONTAINS(summary, "\"verdict\":\"canceled\"");
    dval_free(summary);
    CHECK(c.fired_at > 0);
    CHECK(done - c.fired_at < 1000);
    CHECK_STR(dval_client_errmsg(cl), "run: canceled");
    CHECK_INT(c.close_seen, 1);
    CHECK_INT(c.close_status, DVAL_OK);
    CHECK_INT(marked_process(), 0);
    dval_cancel_free(c.token);
    dval_client_free(cl);
    unlink(path);
    rmdir(dir);
    lt_close(&t);   /* no sandbox init left behind */
}
