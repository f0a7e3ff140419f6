/* dval_validation.isolation on the emulator, with the real attack: a
 * hostile program rewrites every other validation's results under
 * /sandbox while a victim runs. With isolation=session (shared sandbox)
 * the attack works - the test shows it is real; with isolation=sandbox
 * the victim's results are its own, and its sandbox is deleted after. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_emulator.h"

typedef struct run {
    dval_client *c;
    const char *dir, *tid;
    int isolation;
    int rc;
    char *sum;
} run;

static void put(const char *dir, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/run.sh", dir);
    FILE *f = fopen(p, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
}

static void *go(void *arg)
{
    run *r = arg;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = r->dir;
    req.thread_id = r->tid;
    req.isolation = r->isolation;
    r->rc = dval_validate(r->c, &req, NULL, NULL, &r->sum);
    return NULL;
}

static void attack(int isolation, int expect_intact)
{
    emu e;
    emu_start(&e);
    CHECK_INT(emu_post(&e, "/_emu/config", "{\"transition_ms\":10,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    char vdir[] = "/tmp/dval-iso-v-XXXXXX", hdir[] = "/tmp/dval-iso-h-XXXXXX";
    char sync[] = "/tmp/dval-iso-s-XXXXXX", text[1024];
    CHECK(mkdtemp(vdir) && mkdtemp(hdir) && mkdtemp(sync));
    /* The two programs order themselves through the host's /tmp (the
     * emulator shares it), not through sleeps: the victim's results exist
     * before the attack's pass, and the victim is still running during it,
     * however slow the machine (ASan on 2 loaded cores was not). */
    snprintf(text, sizeof text,
             "mkdir -p results; echo '{\"mine\":1}' > results/r.json; "
             "touch %s/ready; i=0; while [ ! -e %s/done ] && [ $i -lt 600 ]; "
             "do sleep 0.05; i=$((i+1)); done\n", sync, sync);
    put(vdir, text);
    snprintf(text, sizeof text,
             "mkdir -p results; echo '{}' > results/h.json; i=0; "
             "while [ ! -e %s/ready ] && [ $i -lt 600 ]; do sleep 0.05; "
             "i=$((i+1)); done; for d in /sandbox/*/results; do "
             "[ \"$d\" = \"$DVAL_RESULTS_DIR\" ] || echo '\"pwned\"' > "
             "$d/r.json 2>/dev/null; done; touch %s/done\n", sync, sync);
    put(hdir, text);
    run v = {.c = c, .dir = vdir, .tid = "victim", .isolation = isolation};
    run h = {.c = c, .dir = hdir, .tid = "hostile", .isolation = isolation};
    pthread_t tv, th;
    CHECK(pthread_create(&tv, NULL, go, &v) == 0);
    CHECK(pthread_create(&th, NULL, go, &h) == 0);
    pthread_join(tv, NULL);
    pthread_join(th, NULL);
    CHECK_INT(h.rc, DVAL_OK);
    CHECK_INT(v.rc, DVAL_OK);
    CHECK(v.sum != NULL);
    int intact = strstr(v.sum, "\"r.json\":{\"mine\":1}") != NULL;
    if (intact != expect_intact)
        th_fail(__FILE__, __LINE__, "isolation %d: victim summary %s",
                isolation, v.sum);
    if (isolation == DVAL_ISOLATION_SANDBOX) {
        /* two sandboxes of their own, both deleted afterwards */
        CHECK_INT(emu_count(&e, "POST", "^/api/sandbox$"), 2);
        CHECK_INT(emu_count(&e, "DELETE", "^/api/sandbox/[^/]+$"), 2);
        /* the summary names the sandbox the validation really ran in */
        CHECK(strstr(v.sum, "\"sandbox\":\"shell-sandbox\"") == NULL);
        CHECK(strstr(v.sum, "\"sandbox\":\"shell-sandbox-") != NULL);
    }
    dval_free(v.sum);
    dval_free(h.sum);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", vdir, hdir, sync);
    CHECK(system(cmd) == 0);
    dval_client_free(c);
    emu_stop(&e);
}

TEST(isolation__session_shares_the_sandbox_attack_is_real)
{
    attack(DVAL_ISOLATION_SESSION, 0);
}

TEST(isolation__sandbox_keeps_a_hostile_program_out)
{
    attack(DVAL_ISOLATION_SANDBOX, 1);
}

TEST(isolation__invalid_value_refused)
{
    emu e;
    emu_start(&e);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = "/tmp";
    req.isolation = 7;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, NULL), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "isolation");
    dval_client_free(c);
    emu_stop(&e);
}
