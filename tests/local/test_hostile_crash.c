/* Crash safety against a hostile program: a SIGKILLed caller leaves no
 * process of its run behind, and an init whose state directory is
 * removed exits by itself. */
#include "lt.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Live (non-zombie) processes whose cmdline starts with needle. */
static int count_procs(const char *needle)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        char p[64], buf[512];
        if (pid <= 0)
            continue;
        snprintf(p, sizeof p, "/proc/%d/stat", pid);
        int fd = open(p, O_RDONLY);
        ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        buf[k > 0 ? k : 0] = 0;
        char *r = strrchr(buf, ')');
        if (k <= 0 || !r || r[2] == 'Z')
            continue;
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        fd = open(p, O_RDONLY);
        k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < k; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[k > 0 ? k : 0] = 0;
        n += k > 0 && !strncmp(buf, needle, strlen(needle));
    }
    if (d)
        closedir(d);
    return n;
}

/* The caller (a child process) runs a program that detaches itself in
 * every way it can; SIGKILL of the caller must take all of it along. */
TEST(test_hostile__caller_killed_leaves_nothing)
{
    lt t;
    lt_open(&t, "ho-kill");
    lt_sandbox(&t, "sb", NULL);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t caller = fork();
    if (caller == 0) {
        close(ready[0]);
        void *ud = t.ex.userdata;
        char cmd[DVAL_ID_MAX];
        if (t.ex.session_create(ud, lt_call(&t), "sb", "s") != DVAL_OK ||
            t.ex.command_start(ud, lt_call(&t), "sb", "s",
                               "setsid sleep 313 & (trap '' HUP TERM; "
                               "nohup sleep 314 >/dev/null 2>&1 &) ; "
                               "sleep 315", cmd) != DVAL_OK)
            _exit(1);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    for (int i = 0; i < 300 && count_procs("sleep 31") < 3; i++)
        usleep(10000);
    int before = count_procs("sleep 31");
    kill(caller, SIGKILL);
    waitpid(caller, NULL, 0);
    CHECK_INT(before, 3);
    int left = 3;
    for (int i = 0; i < 300 && left; i++, usleep(10000))
        left = count_procs("sleep 31");
    CHECK_INT(left, 0);
    /* and the sandbox keeps working for the next run */
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "echo next", &o), 0);
    CHECK_STR(o.out.data, "next\n");
    lt_out_free(&o);
    lt_close(&t);
}

static int alive(int pid)
{
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[k > 0 ? k : 0] = 0;
    char *r = strrchr(buf, ')');
    return k > 0 && r && r[2] != 'Z';
}

TEST(test_hostile__init_exits_when_state_dir_removed)
{
    lt t;
    lt_open(&t, "ho-orphan");
    lt_sandbox(&t, "sb", NULL);
    int pid = atoi(lt_state_key(&t, "sb", "pid"));
    CHECK(pid > 0 && alive(pid));
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t.dir);
    CHECK_INT(system(cmd), 0);
    int64_t t0 = dval__now_ms();
    while (alive(pid) && dval__now_ms() - t0 < 5000)
        usleep(20000);
    CHECK(!alive(pid));
    lt_close(&t);
}
