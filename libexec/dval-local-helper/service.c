/* The sandbox's profile services (lib/profile_service.h), started and
 * supervised by its init: every service its root describes in
 * DVAL_SERVICE_DIR, e.g. the java and dotnet compile services.
 *
 * Why the init: a service that is a child of the library process dies
 * with that process, so every process's first validation would take the
 * slow path. Started here, it lives exactly as long as the sandbox: it is
 * in the sandbox's pid namespace, so when the init exits (stop, delete,
 * its state directory removed, a crash) the kernel kills it with
 * everything else in the namespace; it is in the init's cgroups, which
 * are the sandbox's.
 *
 * Processes (inside the sandbox), one supervisor per service:
 *   init (pid 1, root)
 *    └ supervisor (root, the commands' bounding set: it only forks,
 *       switches the child's uid and waits) restarts the service whenever
 *       it exits, after a pause that doubles up to SERVICE_PAUSE_MAX and
 *       starts over once a run lasted SERVICE_STEADY: a validation that
 *       crashes it again and again slows it down, never ends it for the
 *       sandbox's life
 *       └ sh -c <run> as the service's uid: its own session, a fresh
 *          keyring, no_new_privs, the commands' seccomp filter and
 *          bounding set (drop_privileges, privs.c)
 * No validation runs as root or as a service's uid, so none can signal,
 * trace or replace either process, nor bind the socket's directory.
 * Services start only where the sandbox can switch to their uid (a
 * library run as root: an unprivileged caller's sandbox maps one id
 * only, and the clients then refuse any socket). */
#include "helper.h"
#include "service.h"

#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"
#include "profile_service.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

_Static_assert(DVAL_SERVICE_UID_FIRST == LX_UID_BASE(1) &&
               DVAL_SERVICE_UIDS <= LX_UID_SLOTS && LX_UID_RANGE_FIRST > 1,
               "services' uids are in range 1, which no sandbox gets");

#define SERVICE_PAUSE_MAX 30  /* s */
#define SERVICE_STEADY 60     /* s */

struct service {
    long uid;
    char dir[256], run[2048];
};

/* 1 when uid is mapped in this user namespace (the init's). */
static int uid_mapped(long uid)
{
    FILE *f = fopen("/proc/self/uid_map", "re");
    long long in, out, count;
    int ok = 0;
    while (f && !ok && fscanf(f, "%lld %lld %lld", &in, &out, &count) == 3)
        ok = uid >= in && uid < in + count;
    if (f)
        fclose(f);
    return ok;
}

/* Reads one description; 0 when it is complete and its uid a service's. */
static int read_service(const char *name, struct service *s)
{
    char p[512], line[2304];
    snprintf(p, sizeof p, DVAL_SERVICE_DIR "/%s", name);
    FILE *f = fopen(p, "re");
    if (!f)
        return -1;
    memset(s, 0, sizeof *s);
    s->uid = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "uid ", 4))
            s->uid = strtol(line + 4, NULL, 10);
        else if (!strncmp(line, "dir /", 5) && strlen(line + 4) < sizeof s->dir)
            memcpy(s->dir, line + 4, strlen(line + 4) + 1);
        else if (!strncmp(line, "run ", 4) && strlen(line + 4) < sizeof s->run)
            memcpy(s->run, line + 4, strlen(line + 4) + 1);
    }
    fclose(f);
    return s->uid >= DVAL_SERVICE_UID_FIRST &&
                   s->uid < DVAL_SERVICE_UID_FIRST + DVAL_SERVICE_UIDS &&
                   s->dir[0] && s->run[0] && uid_mapped(s->uid)
               ? 0 : -1;
}

/* The service's own process: never returns. */
static void run_service(const struct service *s)
{
    static char *const env[] = {
        "HOME=/", "LANG=C.UTF-8",
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        NULL };
    char *const args[] = { "sh", "-c", (char *)s->run, NULL };
    struct rlimit core = { 0, 0 };
    signal(SIGTERM, SIG_DFL);
    if (chdir("/") < 0 || setrlimit(RLIMIT_CORE, &core) < 0 ||
        drop_privileges(s->uid) < 0)
        _exit(125);
    execve("/bin/sh", args, env);
    _exit(127);
}

static void pause_s(int s)
{
    struct timespec ts = { s, 0 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static _Noreturn void supervise(const struct service *s)
{
    static const char *const title[] = { "dval-local-helper", "service",
                                         NULL };
    /* its cmdline too, not the init's: ps shows one init per sandbox */
    helper_retitle(title);
    prctl(PR_SET_NAME, "dval-service", 0, 0, 0);
    if (drop_caps() < 0) /* it only forks and waits: keep what setuid needs */
        _exit(1);
    char sock[300];
    snprintf(sock, sizeof sock, "%s/sock", s->dir);
    for (int pause = 1;;) {
        /* a stopped sandbox's socket stays in its layer: gone, a client
         * finds no socket until this service binds it (no stale one) */
        unlink(sock);
        time_t t0 = time(NULL);
        pid_t kid = fork();
        if (kid == 0)
            run_service(s);
        if (kid > 0)
            while (waitpid(kid, NULL, 0) < 0 && errno == EINTR)
                ;
        if (time(NULL) - t0 >= SERVICE_STEADY)
            pause = 1;
        pause_s(pause);
        pause = pause * 2 > SERVICE_PAUSE_MAX ? SERVICE_PAUSE_MAX : pause * 2;
    }
}

int services_start(void)
{
    DIR *d = opendir(DVAL_SERVICE_DIR);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        struct service s;
        if (e->d_name[0] == '.' || read_service(e->d_name, &s) < 0)
            continue;
        pid_t pid = fork();
        if (pid > 0) {
            n++; /* the init reaps it should it ever exit */
            continue;
        }
        if (pid < 0)
            continue;
        closedir(d);
        /* none of the init's descriptors (its lock: a service holding it
         * would keep a dead init's sandbox locked; its state directory) */
        if (syscall(SYS_close_range, (unsigned)LX_FD_INIT_LOCK, ~0U, 0U) < 0)
            for (int i = LX_FD_INIT_LOCK; i < 1024; i++)
                close(i);
        supervise(&s);
    }
    if (d)
        closedir(d);
    return n;
}
