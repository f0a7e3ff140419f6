/* The sandbox's long-lived services, started and supervised by its init:
 * today the java snapshot's compile service (lib/javac_service.h).
 *
 * Why the init: a service that is a child of the library process (as it
 * was) dies with that process, so every process's first validation took
 * the slow path and a CLI run (one process per validation) never got the
 * service. Started here, it lives exactly as long as the sandbox: it is
 * in the sandbox's pid namespace, so when the init exits (stop, delete,
 * its state directory removed, a crash) the kernel kills it with
 * everything else in the namespace; it is in the init's cgroups, which
 * are the sandbox's.
 *
 * Processes (inside the sandbox):
 *   init (pid 1, root)
 *    └ supervisor (root, the commands' bounding set: it only forks,
 *       switches the child's uid and waits) restarts the service when it exits, a bounded
 *       number of times with a growing pause
 *       └ sh -c DVAL_JAVAC_SERVICE_CMD → java, as DVAL_JAVAC_UID: its
 *          own session, a fresh keyring, no_new_privs, the commands'
 *          seccomp filter and bounding set (drop_privileges, privs.c)
 * No validation runs as root or as DVAL_JAVAC_UID, so none can signal,
 * trace or replace either process, nor bind the socket's directory.
 * The service is only started when the root has it and the sandbox can
 * switch to its uid (a library run as root: an unprivileged caller's
 * sandbox maps one id only, and the client then refuses any socket). */
#include "helper.h"
#include "service.h"

#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"
#include "javac_service.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

_Static_assert(DVAL_JAVAC_UID == LX_UID_BASE(1) && LX_UID_RANGE_FIRST > 1,
               "the service's uid is in range 1, which no sandbox gets");

/* restarts after an exit, each after twice the pause before (1 s first) */
#define SERVICE_RESTARTS 4

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

/* The service's own process: never returns. */
static void run_service(void)
{
    static char *const env[] = {
        "HOME=/", "LANG=C.UTF-8",
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        NULL };
    char *const args[] = { "sh", "-c", DVAL_JAVAC_SERVICE_CMD, NULL };
    struct rlimit core = { 0, 0 };
    signal(SIGTERM, SIG_DFL);
    if (chdir("/") < 0 || setrlimit(RLIMIT_CORE, &core) < 0 ||
        drop_privileges(DVAL_JAVAC_UID) < 0)
        _exit(125);
    execve("/bin/sh", args, env);
    _exit(127);
}

/* Runs the service, again when it exits (up to SERVICE_RESTARTS times):
 * a crash or an OOM kill of the JVM costs one pause, not the sandbox's
 * fast path; a service that cannot start stops being retried. */
static _Noreturn void supervise(void)
{
    static const char *const title[] = { "dval-local-helper", "services",
                                         NULL };
    /* its cmdline too, not the init's: ps shows one init per sandbox */
    helper_retitle(title);
    prctl(PR_SET_NAME, "dval-services", 0, 0, 0);
    if (drop_caps() < 0) /* it only forks and waits: keep what setuid needs */
        _exit(1);
    for (int run = 0, pause = 1; run <= SERVICE_RESTARTS; run++) {
        /* a stopped sandbox's socket stays in its layer: gone, a client
         * finds no socket until this service binds it (no stale one) */
        unlink(DVAL_JAVAC_SOCK);
        pid_t kid = fork();
        if (kid == 0)
            run_service();
        if (kid < 0)
            _exit(1);
        while (waitpid(kid, NULL, 0) < 0 && errno == EINTR)
            ;
        struct timespec ts = { pause, 0 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
        pause *= 2;
    }
    _exit(0);
}

pid_t services_start(void)
{
    if (access(DVAL_JAVAC_DIR "/JavacService.class", R_OK) < 0 ||
        access(DVAL_JAVAC_RUN_DIR, F_OK) < 0 || !uid_mapped(DVAL_JAVAC_UID))
        return 0;
    pid_t pid = fork();
    if (pid != 0)
        return pid; /* the init reaps it should it ever exit */
    /* none of the init's descriptors (its lock: a service holding it
     * would keep a dead init's sandbox locked; its state directory) */
    if (syscall(SYS_close_range, (unsigned)LX_FD_INIT_LOCK, ~0U, 0U) < 0)
        for (int i = LX_FD_INIT_LOCK; i < 1024; i++)
            close(i);
    supervise();
}
