/* Two runs on one thread id: the second is refused (DVAL_EBUSY), the
 * first keeps its own results; a run killed mid-way blocks nobody. */
#include "hostile.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run {
    hx *h;
    const char *script;
    int rc;
    char *json;
} run;

static void *run_thread(void *p)
{
    run *r = p;
    r->rc = hx_validate(r->h, "sb", "same", r->script, &r->json);
    return NULL;
}

/* Waits until the first run's program is running (its marker exists). */
static void wait_marker(const hx *h, const char *name)
{
    char p[1200], in[300];
    snprintf(in, sizeof in, "/sandbox/same/%s", name);
    hx_inside(h, "sb", in, p, sizeof p);
    for (int i = 0; i < 3000 && access(p, F_OK) != 0; i++)
        usleep(10000);
}

TEST(test_hostile_thread__second_run_refused_first_keeps_results)
{
    hx h;
    hx_open(&h, "thr-busy");
    char *json = NULL;
    /* the sandbox exists before the race, so both runs reach the claim */
    CHECK_INT(hx_validate(&h, "sb", "warm", "echo '{}' > results/w.json\n",
                          &json), DVAL_OK);
    dval_free(json);
    run a = { &h, "touch started; sleep 3; "
                  "echo '{\"who\":\"first\"}' > results/r.json\n", 0, NULL };
    pthread_t th;
    CHECK(pthread_create(&th, NULL, run_thread, &a) == 0);
    wait_marker(&h, "started");
    int rc = hx_validate(&h, "sb", "same", "rm -rf \"$DVAL_WORKDIR\"/*; "
                         "echo '{\"who\":\"second\"}' > results/r.json\n",
                         &json);
    pthread_join(th, NULL);
    CHECK_INT(rc, DVAL_EBUSY);
    CHECK_CONTAINS(dval_strerror(DVAL_EBUSY), "in use by another run");
    CHECK_CONTAINS(json, "\"verdict\":\"infrastructure_error\"");
    CHECK(!strstr(json, "second"));
    dval_free(json);
    json = NULL;
    CHECK_INT(a.rc, DVAL_OK);
    CHECK_CONTAINS(a.json, "\"r.json\":{\"who\":\"first\"}");
    dval_free(a.json);
    /* once the first is done, the thread id is free again */
    CHECK_INT(hx_validate(&h, "sb", "same", "echo '{\"who\":\"third\"}' > "
                          "results/r.json\n", &json), DVAL_OK);
    CHECK_CONTAINS(json, "\"who\":\"third\"");
    dval_free(json);
    hx_close(&h);
}

/* Live processes whose command line is exactly cmd. */
static int count_cmd(const char *cmd)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char p[300], buf[256] = "";
        snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(p, "r");
        size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = 0; i + 1 < len; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[len] = 0;
        if (len && !strcmp(buf, cmd))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

TEST(test_hostile_thread__killed_run_does_not_block)
{
    hx h;
    hx_open(&h, "thr-kill");
    char *json = NULL;
    CHECK_INT(hx_validate(&h, "sb", "warm", "echo '{}' > results/w.json\n",
                          &json), DVAL_OK);
    dval_free(json);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        hx_validate(&h, "sb", "same", "sleep 4242 & touch started; "
                    "sleep 4242\n", NULL);
        _exit(0);
    }
    wait_marker(&h, "started");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    int rc = hx_validate(&h, "sb", "same", "echo '{\"after\":1}' > "
                         "results/r.json\n", &json);
    CHECK_INT(rc, DVAL_OK);
    CHECK_CONTAINS(json, "\"after\":1");
    dval_free(json);
    /* the next acquire swept what the killed caller's program left */
    CHECK_INT(count_cmd("sleep 4242"), 0);
    hx_close(&h);
}
