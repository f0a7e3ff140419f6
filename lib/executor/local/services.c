/* A snapshot's shared profile services (lib/profile_service.h, a
 * description with "shared 1"; helper services_host.c): run once for
 * every sandbox of the snapshot, outside them, their socket directories
 * bound read-only into each (the init's -S). Only a root caller's
 * sandboxes have them: a service's uid must be the host's own, the one
 * the clients' SO_PEERCRED check sees (tests/javac_service.h). */
#include "local.h"
#include "protocol.h"
#include "profile_service.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when a description in dir says "shared 1" */
static int any_shared(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && !n && (e = readdir(d));) {
        int fd = e->d_name[0] == '.' ? -1
                 : openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW |
                                                   O_CLOEXEC);
        FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
        char line[2304];
        while (f && !n && fgets(line, sizeof line, f))
            n = !strcmp(line, "shared 1\n");
        if (f)
            fclose(f);
        else if (fd >= 0)
            close(fd);
    }
    if (d)
        closedir(d);
    return n;
}

/* base is a small tmpfs of its own (made once, under a lock): a sandbox's
 * mount table shows a bind's path within its filesystem, which must
 * name no host path (test_hostile_recon); lx_snapshot_delete unmounts
 * it. */
static int own_fs(const char *base)
{
    char p[4400];
    struct stat a, b;
    dval__fmt(p, sizeof p, "%s.lock", base);
    int lk = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lk < 0 || flock(lk, LOCK_EX) < 0 ||
        (mkdir(base, 0755) < 0 && errno != EEXIST)) {
        if (lk >= 0)
            close(lk);
        return -1;
    }
    dval__fmt(p, sizeof p, "%s/..", base);
    int rc = stat(base, &a) < 0 || stat(p, &b) < 0 ? -1 : 0;
    if (rc == 0 && a.st_dev == b.st_dev)
        rc = mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "size=1m,mode=0755");
    close(lk);
    return rc;
}

int lx_services_base(const char *layer, char *base, size_t cap)
{
    const char *end = strstr(layer, "/layer:");
    char d[4400];
    if (geteuid() != 0 || !end || layer[0] != '/')
        return -1;
    dval__fmt(d, sizeof d, "%.*s/layer" DVAL_SERVICE_DIR, (int)(end - layer),
              layer);
    if (!any_shared(d))
        return -1;
    dval__fmt(base, cap, "%.*s/services", (int)(end - layer), layer);
    return own_fs(base);
}

void lx_services_start(lx *x, dval_call *c, const char *base,
                       const char *layer)
{
    char *argv[] = { NULL, LX_VERB_SERVICES, (char *)base, (char *)layer,
                     NULL };
    int fds[LX_FD_SPAWNED] = { -1, -1, -1 }, code;
    pid_t pid;
    /* it forks its host and returns: a failure costs speed (clients fall
     * back to their tool), never a validation */
    if (lx_spawn(x, c, argv, fds, &pid) == DVAL_OK)
        lx_wait(pid, &code);
}
