/* Hostile programs against the local executor's process isolation: each
 * test runs the real attack (tests/local/hostile_attack.c, compiled
 * static here and uploaded) and asserts it failed and the host is
 * unchanged. */
#include "lt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Builds the attack program and uploads it as /sandbox/attack. */
static void upload_attack(lt *t, const char *sb)
{
    char bin[700], cmd[1600];
    snprintf(bin, sizeof bin, "%s.attack", t->dir);
    snprintf(cmd, sizeof cmd, "cc -static -O1 -o '%s' "
             "tests/local/hostile_attack.c", bin);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(lt_upload_file(t, sb, "/sandbox/attack", bin), DVAL_OK);
    unlink(bin);
}

static int attack(lt *t, const char *sb, const char *args, lt_out *o)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod +x /sandbox/attack && "
             "/sandbox/attack %s", args);
    return lt_run(t, sb, cmd, o);
}

/* The caller sits on a pty as its controlling terminal (as the CLI in a
 * user's shell); nothing the program does may reach that terminal. */
TEST(test_hostile__tiocsti_on_callers_terminal)
{
    lt t;
    lt_open(&t, "ho-tty");
    lt_sandbox(&t, "sb", NULL);
    upload_attack(&t, "sb");
    int master, slave;
    CHECK(openpty(&master, &slave, NULL, NULL, NULL) == 0);
    struct termios tio;
    CHECK(tcgetattr(slave, &tio) == 0);
    cfmakeraw(&tio); /* any injected byte is readable at once */
    CHECK(tcsetattr(slave, TCSANOW, &tio) == 0);
    pid_t kid = fork();
    if (kid == 0) {
        setsid();
        if (ioctl(slave, TIOCSCTTY, 0) < 0)
            _exit(90);
        int keep = dup(1);
        dup2(slave, 0), dup2(slave, 1), dup2(slave, 2);
        lt_out o = { 0 };
        int code = attack(&t, "sb", "tiocsti", &o);
        dprintf(keep, "%s", o.out.data ? o.out.data : "");
        _exit(code);
    }
    int st;
    CHECK(waitpid(kid, &st, 0) == kid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 0); /* every TIOCSTI/TIOCLINUX refused */
    fcntl(slave, F_SETFL, O_NONBLOCK);
    fcntl(master, F_SETFL, O_NONBLOCK);
    char buf[64];
    CHECK(read(slave, buf, sizeof buf) < 0 && errno == EAGAIN);
    CHECK(read(master, buf, sizeof buf) < 0 && errno == EAGAIN);
    close(master);
    close(slave);
    lt_close(&t);
}

TEST(test_hostile__host_keyring_out_of_reach)
{
    lt t;
    lt_open(&t, "ho-keys");
    lt_sandbox(&t, "sb", NULL);
    upload_attack(&t, "sb");
    long key = syscall(SYS_add_key, "user", "dval-canary", "canary-secret",
                       13, -3 /* session */);
    CHECK(key > 0);
    char args[64];
    snprintf(args, sizeof args, "keys %ld", key);
    lt_out o = { 0 };
    int code = attack(&t, "sb", args, &o);
    CHECK_INT(code, 0);
    CHECK(!strstr(o.out.data, "ESCAPED"));
    lt_out o2 = { 0 };
    lt_run(&t, "sb", "cat /proc/keys /proc/key-users; grep -rs canary "
           "/proc/keys", &o2);
    CHECK(!o2.out.data || !strstr(o2.out.data, "dval-canary"));
    /* nothing added inside reached the host's keyrings */
    CHECK(syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -3, "user",
                  "dval-escape", 0) < 0);
    CHECK(syscall(SYS_keyctl, 10, -4, "user", "dval-escape", 0) < 0);
    syscall(SYS_keyctl, 3 /* KEYCTL_REVOKE */, key);
    lt_out_free(&o);
    lt_out_free(&o2);
    lt_close(&t);
}

TEST(test_hostile__no_namespaces_mounts_ptrace)
{
    lt t;
    lt_open(&t, "ho-ns");
    lt_sandbox(&t, "sb", NULL);
    upload_attack(&t, "sb");
    lt_out o = { 0 };
    CHECK_INT(attack(&t, "sb", "ns", &o), 0);
    CHECK_INT(attack(&t, "sb", "ptrace", &o), 0);
    CHECK(!strstr(o.out.data, "ESCAPED"));
    lt_out_free(&o);
    lt_out o2 = { 0 };
    CHECK(lt_run(&t, "sb", "unshare -Ur true", &o2) != 0);
    CHECK(lt_run(&t, "sb", "mount -t tmpfs x /tmp", &o2) != 0);
    lt_out_free(&o2);
    lt_close(&t);
}

/* pid of a live host process whose cmdline contains needle (not us). */
static int find_proc(const char *needle)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)) && !found) {
        int pid = atoi(e->d_name);
        char p[64], buf[512];
        if (pid <= 0 || pid == getpid())
            continue;
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        int fd = open(p, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[n > 0 ? n : 0] = 0;
        if (n > 0 && strstr(buf, needle) && !strstr(buf, "dval-local-helper"))
            found = pid;
    }
    if (d)
        closedir(d);
    return found;
}

static void status_line(int pid, const char *key, char *out, size_t cap)
{
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%d/status", pid);
    FILE *f = fopen(p, "r");
    out[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            snprintf(out, cap, "%s", line + strlen(key));
    if (f)
        fclose(f);
}

/* Processes other than this one whose environment holds needle. */
static int canary_holders(const char *needle)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int hits = 0;
    static char buf[1 << 17];
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        char p[64];
        if (pid <= 0 || pid == getpid())
            continue;
        snprintf(p, sizeof p, "/proc/%d/environ", pid);
        int fd = open(p, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = '\n';
        buf[n > 0 ? n : 0] = 0;
        if (n > 0 && strstr(buf, needle)) {
            char cl[256]; snprintf(p, sizeof p, "/proc/%d/cmdline", pid); int c = open(p, O_RDONLY); ssize_t k = c >= 0 ? read(c, cl, 255) : 0; if (c >= 0) close(c); cl[k > 0 ? k : 0] = 0; fprintf(stderr, "    pid %d (%s) holds the canary\n", pid, cl);
            hits++;
        }
    }
    if (d)
        closedir(d);
    return hits;
}

/* From the host: the command is not root, has no capabilities, runs
 * under seccomp with no_new_privs, and none of the library's processes
 * carries the caller's environment. */
TEST(test_hostile__unprivileged_and_clean_environment)
{
    char canary[64], grep[128];
    snprintf(canary, sizeof canary, "canary-%d-%lld", (int)getpid(),
             (long long)dval__now_ms());
    snprintf(grep, sizeof grep, "env | grep -c %s", canary);
    setenv("DVAL_CANARY_SECRET", canary, 1);
    lt t;
    lt_open(&t, "ho-priv");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata;
    char cmd[DVAL_ID_MAX];
    CHECK_INT(t.ex.session_create(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), "sb", "s",
                                 "sleep 7.25", cmd), DVAL_OK);
    int pid = 0;
    for (int i = 0; i < 200 && !pid; i++, usleep(10000))
        pid = find_proc("sleep 7.25");
    CHECK(pid > 0);
    char v[128];
    status_line(pid, "Uid:", v, sizeof v);
    CHECK(atol(v) > 0);
    status_line(pid, "CapEff:", v, sizeof v);
    CHECK_STR(v, "\t0000000000000000\n");
    status_line(pid, "NoNewPrivs:", v, sizeof v);
    CHECK_STR(v, "\t1\n");
    status_line(pid, "Seccomp:", v, sizeof v);
    CHECK_STR(v, "\t2\n");
    /* every process but this one: helpers, the init, the command */
    lt_out o = { 0 };
    CHECK_INT(canary_holders(canary), 0);
    CHECK_INT(lt_run(&t, "sb", grep, &o), 1);
    CHECK_INT(t.ex.session_delete(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    CHECK_INT(canary_holders(canary), 0); /* the init, alone */
    lt_out_free(&o);
    unsetenv("DVAL_CANARY_SECRET");
    lt_close(&t);
}
