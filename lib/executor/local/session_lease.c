/* Which sessions are open in a sandbox, seen from any process: a file per
 * open session, <sandbox dir>/sessions/<session id>, flock'd shared by
 * the process that opened the session for as long as it is open. Another
 * process (or another client of this one: flock locks belong to open
 * files) counts the open sessions by trying each file's exclusive lock.
 * A process that dies drops its locks with it: its files are left behind
 * but count no more, and go with the sandbox's directory. The counter
 * never removes one: it cannot tell a dead process's file from one just
 * created and not yet locked. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"

/* A session id is a file name here: no "/", no leading ".". */
static int lease_name_ok(const char *sid)
{
    return sid[0] && sid[0] != '.' && !strchr(sid, '/');
}

void lx_lease_take(struct lx_session *n, const char *sbdir)
{
    n->lease_fd = -1;
    n->lease_path = NULL;
    if (!lease_name_ok(n->id))
        return;
    char p[4400];
    dval__fmt(p, sizeof p, "%s/sessions", sbdir);
    if (mkdir(p, 0700) < 0 && errno != EEXIST)
        return;
    dval__fmt(p, sizeof p, "%s/sessions/%s", sbdir, n->id);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_SH) < 0 || !(n->lease_path = dval__strdup(p))) {
        unlink(p);
        close(fd);
        return;
    }
    n->lease_fd = fd;
}

/* Removed while still locked: a counter that opened it before counts it,
 * one after finds nothing. */
void lx_lease_drop(struct lx_session *n)
{
    if (n->lease_path)
        unlink(n->lease_path);
    if (n->lease_fd >= 0)
        close(n->lease_fd);
    dval__free(n->lease_path);
    n->lease_fd = -1;
    n->lease_path = NULL;
}

/* 1 when some process holds the file's lock. */
static int held(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0; /* dropped meanwhile */
    int r;
    while ((r = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
        ;
    int busy = r < 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

int lx_leases_count(const char *sbdir, const char *prefix, int *count)
{
    char p[4400];
    dval__fmt(p, sizeof p, "%s/sessions", sbdir);
    *count = 0;
    DIR *d = opendir(p);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    const char *pre = prefix ? prefix : "";
    size_t plen = strlen(pre);
    struct dirent *e;
    while ((e = readdir(d)))
        if (lease_name_ok(e->d_name) && !strncmp(e->d_name, pre, plen) &&
            held(dirfd(d), e->d_name))
            (*count)++;
    closedir(d);
    return 0;
}
