/* The local test fixture itself: a test that skips or fails after making
 * a sandbox must not leave its init running (CI's valgrind phase skipped
 * such tests and left 15 inits behind). */
#include "lt.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* gone, or a zombie nobody reaped yet: either way it runs nothing */
static int running(pid_t pid)
{
    char p[64], st[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    size_t n = fread(st, 1, sizeof st - 1, f);
    fclose(f);
    st[n] = 0;
    const char *rp = strrchr(st, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z';
}

static void ends_without_init(int fail)
{
    if (geteuid() != 0)
        th_skip("the local executor tests need root");
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/fx-end", lt_base());
    pid_t child = fork();
    if (child == 0) {
        lt t;
        lt_open(&t, "fx-end");
        lt_sandbox(&t, "fx", NULL);
        if (fail)
            th_fail(__FILE__, __LINE__, "failing on purpose");
        th_skip("skipping on purpose");
    }
    int st = 0;
    CHECK(waitpid(child, &st, 0) == child);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), fail ? 1 : 77);
    pid_t pid = sbstate_init_pid(dir, "fx");
    CHECK(pid > 1);
    for (int i = 0; i < 200 && running(pid); i++)
        usleep(10000);
    int left = running(pid);
    lt t;
    lt_open(&t, "fx-end"); /* kills what is left, then removes it */
    lt_close(&t);
    CHECK(!left);
}

TEST(a_test_that_skips_after_making_a_sandbox_leaves_no_init)
{
    ends_without_init(0);
}

TEST(a_test_that_fails_after_making_a_sandbox_leaves_no_init)
{
    ends_without_init(1);
}

