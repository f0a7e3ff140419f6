/* The server failures of PROTOCOL 10.3 through dval_validate on the
 * emulator: the sandbox auto-stops or vanishes between phases (recovered:
 * the validation succeeds), vanishes during the command (DVAL_EGONE
 * inside, one re-run on a fresh sandbox with a restart event), the
 * structured error envelope, quota errors (DVAL_EQUOTA, not retried), a
 * stale keep-alive reset, a snapshot in `snapshotting`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "support_emulator.h"

#define CHECK_OK(rc, c)                                                   \
    do {                                                                  \
        if ((rc) != DVAL_OK)                                              \
            th_fail(__FILE__, __LINE__, "%s: %s", dval_status_name(rc),   \
                    dval_client_errmsg(c));                               \
    } while (0)

typedef struct fx {
    emu e;
    dval_client *c;
    char dir[64];
} fx;

typedef struct seen {
    fx *f;
    const char *at_phase;      /* act when this phase starts */
    const char *force;         /* emu sandbox state JSON to force then */
    int on_output;             /* act at the first output chunk instead */
    int acted;
    int restarts;              /* DVAL_EVENT_RESTART seen */
    char out[4096];
} seen;

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
}

static void fx_open(fx *f, const char *program)
{
    memset(f, 0, sizeof *f);
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":100}"), 200);
    f->c = emu_client(&f->e, NULL, 20, NULL);
    snprintf(f->dir, sizeof f->dir, "/tmp/dval-recov-XXXXXX");
    CHECK(mkdtemp(f->dir));
    write_file(f->dir, "run.sh", program);
}

static void fx_close(fx *f)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    CHECK(system(cmd) == 0);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static void act(seen *s)
{
    if (s->acted)
        return;
    s->acted = 1;
    CHECK_INT(emu_force(&s->f->e, "sandbox", dval_profile_find("shell")->sandbox_name, s->force), 200);
}

static int on_event(const dval_event *ev, void *ud)
{
    seen *s = ud;
    if (ev->type == DVAL_EVENT_RESTART) {
        s->restarts++;
        s->out[0] = 0;
    }
    if (ev->type == DVAL_EVENT_OUTPUT) {
        strncat(s->out, ev->data, ev->len < sizeof s->out - strlen(s->out) - 1
                                      ? ev->len
                                      : sizeof s->out - strlen(s->out) - 1);
        if (s->on_output)
            act(s);
    }
    if (ev->type == DVAL_EVENT_PHASE && !ev->done && s->at_phase &&
        !strcmp(ev->phase, s->at_phase))
        act(s);
    return 0;
}

static int validate(fx *f, seen *s, char **summary)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = f->dir;
    req.allow_missing_results = 1;
    s->f = f;
    return dval_validate(f->c, &req, on_event, s, summary);
}

static const char *PROG = "echo hello; mkdir -p results; echo 1 > results/r.txt\n";

TEST(recovery__auto_stop_before_upload_is_started_again)
{
    fx f;
    fx_open(&f, PROG);
    seen s = {.at_phase = "upload", .force = "{\"state\":\"stopped\"}"};
    char *sum = NULL;
    int rc = validate(&f, &s, &sum);
    CHECK_OK(rc, f.c);
    CHECK(s.acted == 1);
    CHECK(strstr(s.out, "hello") != NULL);
    CHECK(emu_count(&f.e, "POST", "^/api/sandbox/[^/]+/start$") >= 1);
    dval_free(sum);
    fx_close(&f);
}

TEST(recovery__vanished_before_upload_is_acquired_again)
{
    fx f;
    fx_open(&f, PROG);
    seen s = {.at_phase = "upload", .force = "{\"state\":\"gone\"}"};
    char *sum = NULL;
    int rc = validate(&f, &s, &sum);
    CHECK_OK(rc, f.c);
    CHECK(strstr(s.out, "hello") != NULL);
    /* the ladder created a second sandbox */
    CHECK(emu_count(&f.e, "POST", "^/api/sandbox$") == 2);
    dval_free(sum);
    fx_close(&f);
}

TEST(recovery__vanished_during_the_command_reruns_once)
{
    fx f;
    fx_open(&f, "echo first; sleep 1; echo second; mkdir -p results\n");
    seen s = {.on_output = 1, .force = "{\"state\":\"gone\"}"};
    char *sum = NULL;
    int rc = validate(&f, &s, &sum);
    CHECK_OK(rc, f.c);
    CHECK_INT(s.restarts, 1);
    /* the restart event cleared what the callback kept: one full run */
    CHECK(strstr(s.out, "first") && strstr(s.out, "second"));
    CHECK(strstr(strstr(s.out, "first") + 1, "first") == NULL);
    dval_free(sum);
    fx_close(&f);
}

/* auto_stop_ms mode: the emulator stops an idle sandbox as the real
 * auto-stop does. A program that runs three auto-stop intervals keeps its
 * sandbox busy (the client's open log stream and requests are activity):
 * no stop under it, no restart. */
TEST(recovery__long_run_keeps_the_sandbox_from_auto_stopping)
{
    fx f;
    fx_open(&f, "echo begin; sleep 1.5; echo end; mkdir -p results\n");
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"auto_stop_ms\":500}"), 200);
    seen s = {0};
    char *sum = NULL;
    int rc = validate(&f, &s, &sum);
    CHECK_OK(rc, f.c);
    CHECK_INT(s.restarts, 0);
    CHECK(strstr(s.out, "begin") && strstr(s.out, "end"));
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/[^/]+/stop$"), 0);
    CHECK_INT(emu_count(&f.e, "POST", "^/api/sandbox/[^/]+/start$"), 0);
    dval_free(sum);
    fx_close(&f);
}

/* ... and one left idle between two validations is auto-stopped; the
 * next validation starts it again. */
TEST(recovery__auto_stopped_between_validations_is_started)
{
    fx f;
    fx_open(&f, PROG);
    CHECK_INT(emu_post(&f.e, "/_emu/config", "{\"auto_stop_ms\":300}"), 200);
    seen s = {0};
    char *sum = NULL;
    CHECK_OK(validate(&f, &s, &sum), f.c);
    dval_free(sum);
    int state = 0;
    for (int i = 0; i < 100 && state != DVAL_SANDBOX_STOPPED; i++) {
        dval_sandbox *sb = NULL;
        usleep(50000);   /* API requests are no toolbox activity */
        if (dval_sandbox_get(&sb, f.c, dval_profile_find("shell")->sandbox_name) == DVAL_OK)
            state = dval_sandbox_state(sb);
        dval_sandbox_free(sb);
    }
    CHECK_INT(state, DVAL_SANDBOX_STOPPED);
    seen s2 = {0};
    sum = NULL;
    CHECK_OK(validate(&f, &s2, &sum), f.c);
    CHECK(strstr(s2.out, "hello") != NULL);
    CHECK(emu_count(&f.e, "POST", "^/api/sandbox/[^/]+/start$") >= 1);
    dval_free(sum);
    fx_close(&f);
}
