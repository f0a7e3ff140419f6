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
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
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
    int shared;                 /* "shared 1": the snapshot's services host */
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

/* Reads one description in the directory dirfd (never through a
 * symlink); 0 when it is complete and its uid a service's. */
static int read_service(int dirfd, const char *name, struct service *s)
{
    char line[2304];
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
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
        else if (!strcmp(line, "shared 1"))
            s->shared = 1;
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

int services_start(int shared)
{
    DIR *d = opendir(DVAL_SERVICE_DIR);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        struct service s;
        if (e->d_name[0] == '.' || read_service(dirfd(d), e->d_name, &s) < 0 ||
            s.shared != shared)
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

/* Opens path under the root rootfd, as that root sees it: no symlink
 * (an image may hold any), no escape by "..". */
static int open_in(int rootfd, const char *path, int flags)
{
    struct open_how how = { .flags = (unsigned)flags | O_CLOEXEC,
                            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
                                       RESOLVE_NO_MAGICLINKS };
    while (*path == '/')
        path++;
    return (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
}

/* base/<name>, the service's own directory on the host: made once,
 * root's parent, the service's uid owns it (0755), as the image's
 * socket directory is. */
static int host_dir(const char *base, const char *name,
                    const struct service *s, char *p, size_t cap)
{
    struct stat st;
    snprintf(p, cap, "%s/%s", base, name);
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
        return -1;
    if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
        return -1;
    return chown(p, (uid_t)s->uid, (gid_t)s->uid) < 0 || chmod(p, 0755) < 0
               ? -1 : 0;
}

/* Binds base/<name> over the socket directory of every shared service
 * the root describes: writable in the services host, read-only (and
 * owned by the service's uid: nothing can be made there) in a sandbox. */
int services_bind(const char *root, const char *base, int rw)
{
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int dfd = rootfd < 0 ? -1 : open_in(rootfd, DVAL_SERVICE_DIR,
                                         O_RDONLY | O_DIRECTORY);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    int rc = 0;
    for (struct dirent *e; d && rc == 0 && (e = readdir(d));) {
        struct service s;
        char src[4400];
        if (e->d_name[0] == '.' || read_service(dirfd(d), e->d_name, &s) < 0 ||
            !s.shared)
            continue;
        int to = open_in(rootfd, s.dir, O_PATH | O_DIRECTORY);
        int t = to < 0 || host_dir(base, e->d_name, &s, src, sizeof src) < 0
                ? -1 : open_tree(AT_FDCWD, src, OPEN_TREE_CLONE |
                                                OPEN_TREE_CLOEXEC);
        struct mount_attr a = { .attr_set = MOUNT_ATTR_NOSUID |
                                MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
                                (rw ? 0 : MOUNT_ATTR_RDONLY) };
        rc = t < 0 || mount_setattr(t, "", AT_EMPTY_PATH, &a, sizeof a) < 0 ||
             move_mount(t, "", to, "", MOVE_MOUNT_F_EMPTY_PATH |
                                       MOVE_MOUNT_T_EMPTY_PATH) < 0
             ? -1 : 0;
        if (t >= 0)
            close(t);
        if (to >= 0)
            close(to);
    }
    if (d)
        closedir(d);
    else if (dfd >= 0)
        close(dfd);
    if (rootfd >= 0)
        close(rootfd);
    return rc;
}
