/* Hostile programs against the local executor's process isolation, run
 * through the public API (dval_validate, profile "shell"): each test runs
 * the real attack (tests/local/hostile_attack.c, compiled static here and
 * placed beside run.sh) and asserts it failed and the host is unchanged. */
#include "hostile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define ATTACK "chmod +x attack && ./attack "

/* Runs "./attack args" in sandbox sb; returns its exit code (the number
 * of escapes), *out its stdout. */
static int attack(hx *h, const char *args, char **out)
{
    char bin[700], script[256];
    hx_attack_bin(h, bin, sizeof bin);
    const char *files[] = { bin, NULL };
    snprintf(script, sizeof script, ATTACK "%s\n", args);
    int code = -1;
    CHECK_INT(hx_run(h, "sb", NULL, script, files, out, &code), DVAL_OK);
    return code;
}

/* The caller sits on a pty as its controlling terminal (as the CLI in a
 * user's shell); nothing the program does may reach that terminal. */
TEST(test_hostile__tiocsti_on_callers_terminal)
{
    hx h;
    hx_open(&h, "ho-tty");
    char bin[700];
    hx_attack_bin(&h, bin, sizeof bin);
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
        const char *files[] = { bin, NULL };
        char *out = NULL;
        int code = -1;
        int rc = hx_run(&h, "sb", NULL, ATTACK "tiocsti\n", files, &out,
                        &code);
        dprintf(keep, "%s", out ? out : "");
        _exit(rc != DVAL_OK ? 91 : code);
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
    hx_close(&h);
}

TEST(test_hostile__host_keyring_out_of_reach)
{
    hx h;
    hx_open(&h, "ho-keys");
    long key = syscall(SYS_add_key, "user", "dval-canary", "canary-secret",
                       13, -3 /* session */);
    CHECK(key > 0);
    char args[64];
    snprintf(args, sizeof args, "keys %ld", key);
    char *out = NULL, *out2 = NULL;
    CHECK_INT(attack(&h, args, &out), 0);
    CHECK(!strstr(out, "ESCAPED"));
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", NULL, "cat /proc/keys /proc/key-users; "
                     "grep -rs canary /proc/keys\n", NULL, &out2, &code),
              DVAL_OK);
    CHECK(!strstr(out2, "dval-canary"));
    /* nothing added inside reached the host's keyrings */
    CHECK(syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -3, "user",
                  "dval-escape", 0) < 0);
    CHECK(syscall(SYS_keyctl, 10, -4, "user", "dval-escape", 0) < 0);
    syscall(SYS_keyctl, 3 /* KEYCTL_REVOKE */, key);
    free(out);
    free(out2);
    hx_close(&h);
}

TEST(test_hostile__no_namespaces_mounts_ptrace)
{
    hx h;
    hx_open(&h, "ho-ns");
    char *out = NULL;
    CHECK_INT(attack(&h, "ns", &out), 0);
    CHECK(!strstr(out, "ESCAPED"));
    free(out);
    CHECK_INT(attack(&h, "ptrace", &out), 0);
    CHECK(!strstr(out, "ESCAPED"));
    free(out);
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", NULL, "unshare -Ur true\n", NULL, NULL,
                     &code), DVAL_OK);
    CHECK(code != 0);
    CHECK_INT(hx_run(&h, "sb", NULL, "mount -t tmpfs x /tmp\n", NULL, NULL,
                     &code), DVAL_OK);
    CHECK(code != 0);
    hx_close(&h);
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

/* A copy of this test program (hx_open's janitor): the library execs its
 * helpers, so no process of its own runs this executable. */
static int is_test_copy(int pid)
{
    char p[64], self[512], exe[512];
    snprintf(p, sizeof p, "/proc/%d/exe", pid);
    ssize_t a = readlink("/proc/self/exe", self, sizeof self - 1);
    ssize_t b = readlink(p, exe, sizeof exe - 1);
    return a > 0 && a == b && !memcmp(self, exe, (size_t)a);
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
        if (pid <= 0 || pid == getpid() || is_test_copy(pid))
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
            fprintf(stderr, "    pid %d holds the canary\n", pid);
            hits++;
        }
    }
    if (d)
        closedir(d);
    return hits;
}

typedef struct bg {
    hx *h;
    const char *script;
    int rc, code;
    char *out;
} bg;

static void *bg_run(void *p)
{
    bg *b = p;
    b->rc = hx_run(b->h, "sb", "priv", b->script, NULL, &b->out, &b->code);
    return NULL;
}

/* From the host: the command is not root, has no capabilities, runs
 * under seccomp with no_new_privs, and none of the library's processes
 * (nor the program) carries the caller's environment. */
TEST(test_hostile__unprivileged_and_clean_environment)
{
    char canary[64], script[256];
    snprintf(canary, sizeof canary, "canary-%d-%lld", (int)getpid(),
             (long long)time(NULL));
    snprintf(script, sizeof script, "echo \"n=$(env | grep -c %s)\"; "
             "sleep 7.25\n", canary);
    setenv("DVAL_CANARY_SECRET", canary, 1);
    hx h;
    hx_open(&h, "ho-priv");
    bg b = { &h, script, -1, -1, NULL };
    pthread_t th;
    CHECK(pthread_create(&th, NULL, bg_run, &b) == 0);
    int pid = 0;
    for (int i = 0; i < 6000 && !pid; i++, usleep(10000))
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
    CHECK_INT(canary_holders(canary), 0);
    pthread_join(th, NULL);
    CHECK_INT(b.rc, DVAL_OK);
    CHECK_INT(b.code, 0);
    CHECK_STR(b.out, "n=0\n"); /* not in the program's env */
    free(b.out);
    CHECK_INT(canary_holders(canary), 0); /* the init, alone */
    unsetenv("DVAL_CANARY_SECRET");
    hx_close(&h);
}

/* The init keeps an O_PATH descriptor of the host's state directory and
 * the reset socket (init.c keep_init_fds): a program must inherit no
 * descriptor beyond stdio and reach none of the init's. */
TEST(test_hostile__no_descriptor_of_the_init_or_the_host)
{
    hx h;
    hx_open(&h, "ho-fds");
    char *out = NULL;
    int code = -1;
    /* ls lists its own descriptors: what an exec in the program inherits
     * (0-2) and the directory it reads (3) */
    CHECK_INT(hx_run(&h, "sb", NULL,
                     "echo fds $(ls /proc/self/fd)\n"
                     "for f in 0 1 2 3 4 5 6; do\n"
                     "  ls /proc/1/fd/$f/ >/dev/null 2>&1 && echo \"INIT-FD $f\"\n"
                     "  readlink /proc/1/fd/$f 2>/dev/null | sed 's/^/INIT-LINK /'\n"
                     "done\n"
                     "ls /proc/1/fd/ 2>/dev/null | sed 's/^/INIT-LIST /'\n"
                     "echo done\n", NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    fprintf(stderr, "    program saw:\n%s", out);
    CHECK(strstr(out, "done\n") != NULL);
    CHECK(strstr(out, "fds 0 1 2 3\n") != NULL);
    CHECK(!strstr(out, "INIT-"));
    free(out);
    hx_close(&h);
}
