/* Crash safety of the sandbox lifecycle: creations killed (SIGKILL) at
 * random points and retried concurrently leave exactly one init, the next
 * run on the sandbox and thread succeeds, and delete leaves none. */
#include "hostile.h"
#include "executor/local/local.h" /* LX_DISKS */

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t acquirer(hx *h)
{
    pid_t pid = fork();
    if (pid == 0) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        o.name = "sb";
        dval_sandbox *sb = NULL;
        int rc = dval_sandbox_acquire(&sb, h->client, &o);
        _exit(rc == DVAL_OK ? 0 : 1);
    }
    return pid;
}

TEST(test_hostile_creations__killed_creations_leave_one_init)
{
    hx h;
    hx_open(&h, "cre-kill");
    srand((unsigned)time(NULL));
    for (int round = 0; round < 25; round++) {
        pid_t p[3];
        for (int i = 0; i < 3; i++)
            p[i] = acquirer(&h);
        usleep((useconds_t)(rand() % 40000));
        for (int i = 0; i < 3; i++) {
            if (rand() % 4) /* most die; some finish */
                kill(p[i], SIGKILL);
            waitpid(p[i], NULL, 0);
        }
        CHECK(hx_inits(&h, "sb") <= 1);
    }
    /* whatever state the kills left: the next run works, on one init */
    char *json = NULL;
    int rc = hx_validate(&h, "sb", "t", "echo '{\"ok\":1}' > "
                         "results/r.json\n", &json);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "validate: %s: %s", dval_strerror(rc),
                dval_client_errmsg(h.client));
    CHECK_CONTAINS(json, "\"ok\":1");
    dval_free(json);
    CHECK_INT(hx_inits(&h, "sb"), 1);
    CHECK_INT(hx_validate(&h, "sb", "t", "echo '{\"ok\":2}' > "
                          "results/r.json\n", &json), DVAL_OK);
    CHECK_CONTAINS(json, "\"ok\":2");
    dval_free(json);
    CHECK_INT(hx_inits(&h, "sb"), 1);
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_get(&sb, h.client, "sb"), DVAL_OK);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    for (int i = 0; i < 100 && hx_inits(&h, "sb"); i++)
        usleep(10000);
    CHECK_INT(hx_inits(&h, "sb"), 0);
    hx_close(&h);
}

TEST(test_hostile_creations__rm_unknown_or_invalid_fails_clearly)
{
    hx h;
    hx_open(&h, "cre-rm");
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_get(&sb, h.client, "no-such-sandbox"),
              DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_client_errmsg(h.client), "no-such-sandbox");
    CHECK_INT(dval_sandbox_get(&sb, h.client, "../etc"), DVAL_EINVAL);
    CHECK_INT(dval_sandbox_get(&sb, h.client, "a/b"), DVAL_EINVAL);
    hx_close(&h);
}

TEST(test_hostile_creations__leftovers_of_dead_processes_removed)
{
    hx h;
    hx_open(&h, "cre-left");
    /* what a probe, a creation and a delete killed mid-way leave behind
     * (pid 4194000 is above any default pid_max: never alive) */
    const char *left[] = { "probe.4194000", "sandboxes/.new-x-4194000-1",
                           "sandboxes/.trash-x-4194000-7",
                           "sandboxes/.trash-y-4194000-1700000000000-3",
                           LX_DISKS "/ext4-3g.img.4194000.tmp",
                           LX_DISKS "/spare-3g.img.4194000.2.tmp" };
    char p[900];
    mkdir(h.dir, 0755);
    snprintf(p, sizeof p, "%s/sandboxes", h.dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/disks", h.dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/" LX_DISKS, h.dir);
    mkdir(p, 0755);
    for (int i = 0; i < 6; i++) {
        snprintf(p, sizeof p, "%s/%s", h.dir, left[i]);
        CHECK(mkdir(p, 0700) == 0);
    }
    /* and one of a live owner (this process), which must stay */
    snprintf(p, sizeof p, "%s/sandboxes/.new-z-%d-1", h.dir, (int)getpid());
    CHECK(mkdir(p, 0700) == 0);
    char *json = NULL;
    CHECK_INT(hx_validate(&h, "sb", "t", "echo '{}' > results/r.json\n",
                          &json), DVAL_OK);
    dval_free(json);
    for (int i = 0; i < 6; i++) {
        char q[900];
        snprintf(q, sizeof q, "%s/%s", h.dir, left[i]);
        CHECK(access(q, F_OK) != 0);
    }
    CHECK(access(p, F_OK) == 0);
    rmdir(p);
    hx_close(&h);
}
