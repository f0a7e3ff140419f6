/* Crash safety against a hostile program, through the public API
 * (dval_validate, profile "shell"): a SIGKILLed caller leaves no process
 * of its run behind, and an init whose state directory is removed exits
 * by itself. */
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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
    hx h;
    hx_open(&h, "ho-kill");
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", NULL, "true\n", NULL, NULL, &code), DVAL_OK);
    pid_t caller = fork();
    if (caller == 0) {
        hx_run(&h, "sb", NULL, "setsid sleep 313 & (trap '' HUP TERM; "
               "nohup sleep 314 >/dev/null 2>&1 &) ; sleep 315\n", NULL,
               NULL, &code);
        _exit(0);
    }
    for (int i = 0; i < 3000 && count_procs("sleep 31") < 3; i++)
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
    char *out = NULL;
    CHECK_INT(hx_run(&h, "sb", NULL, "echo next\n", NULL, &out, &code),
              DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_STR(out, "next\n");
    free(out);
    hx_close(&h);
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
    hx h;
    hx_open(&h, "ho-orphan");
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", NULL, "true\n", NULL, NULL, &code), DVAL_OK);
    int pid = sbstate_init_pid(h.dir, "sb");
    CHECK(pid > 0 && alive(pid));
    CHECK_INT(hx_inits(&h, "sb"), 1);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", h.dir);
    CHECK_INT(system(cmd), 0);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!alive(pid) || now.tv_sec - t0.tv_sec >= 5)
            break;
        usleep(20000);
    }
    CHECK(!alive(pid));
    hx_close(&h);
}
