/* A sandbox's init holds an exclusive flock on <sbdir>/init.lock for its
 * whole life. A creation killed after spawning the helper leaves an init
 * whose pid no state file records; before, the next creation started a
 * second init on the same upper directory (three after repeated kills).
 * Now a second init refuses to start while the first lives, and the
 * library finds the first through the pid written into the lock file and
 * kills it (lib/executor/local/init_evict.c). The kernel drops the lock
 * when the init dies, however it dies. */
#include "init_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int init_lock(const char *sbdir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/init.lock", sbdir);
    int fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EINTR)
            continue;
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (fd != INIT_LOCK_FD) {
        if (dup2(fd, INIT_LOCK_FD) < 0) { /* dup2 clears FD_CLOEXEC */
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        close(fd);
    }
    return INIT_LOCK_FD;
}

void init_lock_pid(pid_t pid)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d\n", (int)pid);
    if (ftruncate(INIT_LOCK_FD, 0) == 0)
        (void)!pwrite(INIT_LOCK_FD, buf, (size_t)n, 0);
}
