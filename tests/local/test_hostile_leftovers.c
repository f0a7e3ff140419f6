/* Issue 43: SIGKILL of the CLI at random moments of an isolation=sandbox
 * run left sandboxes running (init, loop device, disk image, cgroups)
 * until `sandbox rm`. The CLI is killed at 30 random moments of its run;
 * then no init of the state directory may run, and once the next run
 * has swept what a kill before an init started left (a directory, maybe
 * its cgroups), the sandboxes, loop devices, mounts and cgroups of the
 * state directory are as before. */
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILLS 30

typedef struct counts {
    int inits, sandboxes, loops, mounts, cgroups;
} counts;

static char names[KILLS + 8][256]; /* every sandbox the runs made */
static int nnames;

/* The cgroup key the library gives sandbox name (sandbox.c fill_new). */
static unsigned long long fnv(const char *a, const char *b)
{
    unsigned long long h = 1469598103934665603ULL;
    for (const char *s = a; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ '/') * 1099511628211ULL;
    for (const char *s = b; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Lines of file (or entries' files under a directory glob) naming dir. */
static int lines_naming(const char *file, const char *dir)
{
    FILE *f = fopen(file, "r");
    char line[4096];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, dir) != NULL;
    if (f)
        fclose(f);
    return n;
}

static int count_loops(const char *dir)
{
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char p[512];
        snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", e->d_name);
        if (!strncmp(e->d_name, "loop", 4))
            n += lines_naming(p, dir);
    }
    if (d)
        closedir(d);
    return n;
}

static int count_cgroups(const char *dir)
{
    static const char *roots[] = { "", "/unified", "/memory", "/pids",
                                   "/cpu", "/cpuacct" };
    int n = 0;
    for (int i = 0; i < nnames; i++)
        for (int r = 0; r < 6; r++) {
            char p[700];
            snprintf(p, sizeof p, "/sys/fs/cgroup%s/daytona-validate/"
                     "sb-%016llx", roots[r], fnv(dir, names[i]));
            n += access(p, F_OK) == 0;
        }
    return n;
}

/* Live processes whose command line names dir (inits, helpers). */
static int count_procs(const char *dir)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char p[300], buf[8192];
        int pid = atoi(e->d_name);
        if (pid <= 1 || pid == getpid())
            continue;
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        int fd = open(p, O_RDONLY);
        ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < k; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        buf[k > 0 ? k : 0] = 0;
        n += k > 0 && strstr(buf, dir) && strstr(buf, "dval-local-helper");
    }
    if (d)
        closedir(d);
    return n;
}

static void count(const char *dir, counts *c)
{
    char p[700];
    snprintf(p, sizeof p, "%s/sandboxes", dir);
    DIR *d = opendir(p);
    struct dirent *e;
    c->sandboxes = 0;
    while (d && (e = readdir(d)))
        c->sandboxes += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    c->inits = count_procs(dir);
    c->loops = count_loops(dir);
    c->mounts = lines_naming("/proc/self/mountinfo", dir);
    c->cgroups = count_cgroups(dir);
}

/* The names of the sandboxes placed since the last call (inotify). */
static void collect_names(int ino)
{
    char buf[8192] __attribute__((aligned(8)));
    ssize_t n;
    while ((n = read(ino, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->len && ev->name[0] != '.' && nnames < KILLS + 8)
                snprintf(names[nnames++], sizeof names[0], "%s", ev->name);
            p += sizeof *ev + ev->len;
        }
}

static pid_t start_cli(const char *cli, const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
        execl(cli, cli, "run", "--executor", "local", "--isolation",
              "sandbox", "--profile", "shell", "--state-dir", dir,
              "examples/validation/shell", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static long long mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* One whole run: its exit status, *us its duration. */
static int full_run(const char *cli, const char *dir, long long *us)
{
    long long t0 = mono_us();
    int st;
    waitpid(start_cli(cli, dir), &st, 0);
    *us = mono_us() - t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void show(const char *when, const counts *c)
{
    fprintf(stderr, "    %-28s inits %d, sandboxes %d, loop devices %d, "
            "mounts %d, cgroups %d\n", when, c->inits, c->sandboxes,
            c->loops, c->mounts, c->cgroups);
}

TEST(test_hostile__cli_killed_at_random_moments_leaves_no_sandbox)
{
    hx h;
    hx_open(&h, "ho-leftovers");
    char exe[PATH_MAX], cli[PATH_MAX + 32], dir[PATH_MAX], p[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0);
    exe[n] = 0;
    snprintf(cli, sizeof cli, "%s/../bin/daytona-validate", dirname(exe));
    if (access(cli, X_OK) != 0)
        th_skip("the CLI is not built");
    CHECK(realpath(h.dir, dir) != NULL);
    snprintf(p, sizeof p, "%s/sandboxes", dir);
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(ino >= 0 && inotify_add_watch(ino, p, IN_MOVED_TO) >= 0);
    long long full;
    CHECK_INT(full_run(cli, dir, &full), 0); /* the snapshot, a spare disk */
    CHECK_INT(full_run(cli, dir, &full), 0); /* a run as the kills see it */
    collect_names(ino);
    counts before, mid, after;
    count(dir, &before);
    show("before:", &before);
    srand((unsigned)mono_us());
    long long t0 = mono_us();
    for (int i = 0; i < KILLS; i++) {
        pid_t pid = start_cli(cli, dir);
        usleep((useconds_t)(rand() % (full * 5 / 4 + 1)));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        collect_names(ino);
    }
    /* each init removes its sandbox once it sees its owner gone; the
     * kernel lets go of a loop device a little after its last unmount */
    for (int i = 0; i < 500 && (count_procs(dir) || count_loops(dir)); i++)
        usleep(10000);
    count(dir, &mid);
    fprintf(stderr, "    %d kills in %.1f s, each within %.0f ms of a "
            "start (a whole run: %.0f ms)\n", KILLS,
            (double)(mono_us() - t0) / 1e6, (double)full * 1.25 / 1000,
            (double)full / 1000);
    show("after the kills:", &mid);
    CHECK_INT(mid.inits, 0); /* no sandbox runs on */
    CHECK_INT(mid.loops, before.loops);
    CHECK_INT(mid.mounts, before.mounts);
    /* what kills before an init started left: the next creation sweeps */
    CHECK_INT(full_run(cli, dir, &full), 0);
    collect_names(ino);
    count(dir, &after);
    show("after the next run:", &after);
    CHECK(!memcmp(&after, &before, sizeof after));
    close(ino);
    hx_close(&h);
}

/* 1 when a command's own cgroup (cmd_cgroup.c: c-<pid>-<cmd>) is below
 * the cgroup of sandbox name. */
static int command_runs(const char *dir, const char *name)
{
    static const char *roots[] = { "", "/memory" };
    int n = 0;
    for (int r = 0; r < 2; r++) {
        char p[700];
        snprintf(p, sizeof p, "/sys/fs/cgroup%s/daytona-validate/sb-%016llx",
                 roots[r], fnv(dir, name));
        DIR *d = opendir(p);
        struct dirent *e;
        while (d && (e = readdir(d)))
            n += !strncmp(e->d_name, "c-", 2);
        if (d)
            closedir(d);
    }
    return n > 0;
}

/* A CLI killed while a command runs leaves that command's cgroup below
 * the sandbox's: the init, removing the sandbox, removes it first (a
 * cgroup with a child cannot be removed), then the sandbox's. */
TEST(test_hostile__cli_killed_mid_command_leaves_no_cgroup)
{
    hx h;
    hx_open(&h, "ho-midcmd");
    char exe[PATH_MAX], cli[PATH_MAX + 32], dir[PATH_MAX], p[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0);
    exe[n] = 0;
    snprintf(cli, sizeof cli, "%s/../bin/daytona-validate", dirname(exe));
    if (access(cli, X_OK) != 0)
        th_skip("the CLI is not built");
    CHECK(realpath(h.dir, dir) != NULL);
    snprintf(p, sizeof p, "%s/sandboxes", dir);
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(ino >= 0 && inotify_add_watch(ino, p, IN_MOVED_TO) >= 0);
    nnames = 0;
    long long full;
    CHECK_INT(full_run(cli, dir, &full), 0); /* the snapshot, a spare disk */
    collect_names(ino);
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        pid_t pid = start_cli(cli, dir);
        int first = nnames, mid = 0;
        for (long long end = mono_us() + 60000000LL; !mid &&
             mono_us() < end && waitpid(pid, NULL, WNOHANG) == 0;) {
            collect_names(ino);
            mid = nnames > first && command_runs(dir, names[nnames - 1]);
            if (!mid)
                usleep(200);
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        seen += mid;
    }
    if (!seen)
        th_skip("no command's own cgroup (no cgroup v1 memory or v2)");
    for (int i = 0; i < 500 && count_procs(dir); i++)
        usleep(10000);
    fprintf(stderr, "    %d of 3 kills while a command ran; cgroups left "
            "%d\n", seen, count_cgroups(dir));
    CHECK_INT(count_procs(dir), 0);
    CHECK_INT(count_cgroups(dir), 0);
    close(ino);
    hx_close(&h);
}
