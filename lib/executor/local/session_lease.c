/* Which sessions are open in a sandbox, seen from any process: a file per
 * open session, <sandbox dir>/sessions/<session id>, flock'd shared by
 * the process that opened the session for as long as it is open. Another
 * process (or another client of this one: flock locks belong to open
 * files) counts the open sessions by trying each file's exclusive lock.
 * A process that dies drops its locks with it: its files are left behind
 * but count no more, and go with the sandbox's directory. The counter
 * never removes one: it cannot tell a dead process's file from one just
 * created and not yet locked.
 *
 * A dropped lease is kept for the next session of the sandbox, renamed
 * to sessions/.spare-<pid>-<n> (a leading "." is never counted; only its
 * name is kept, no fd): making a file allocates an inode, and on an ext4
 * without a journal each allocation first reads the deletion time of
 * every inode freed in the last minutes, so a lease made and removed per
 * session was the largest part of a session's cost under churn. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"

/* The most dropped leases an executor keeps (a sandbox's sessions open
 * at once need as many). */
#define LX_SPARES_MAX 256

struct lx_spare {
    struct lx_spare *next;
    char path[];
};

/* A kept lease of sandbox sbdir renamed to path (which must not exist):
 * its fd, or -1 when none could be. */
static int reuse(lx *x, const char *sbdir, const char *path)
{
    size_t n = strlen(sbdir);
    pthread_mutex_lock(&x->lock);
    struct lx_spare **pp = &x->spares, *sp = NULL;
    for (; *pp; pp = &(*pp)->next)
        if (!strncmp((*pp)->path, sbdir, n) && (*pp)->path[n] == '/') {
            sp = *pp;
            *pp = sp->next;
            x->nspares--;
            break;
        }
    pthread_mutex_unlock(&x->lock);
    if (!sp)
        return -1;
    int fd = -1;
    if (renameat2(AT_FDCWD, sp->path, AT_FDCWD, path, RENAME_NOREPLACE) < 0)
        unlink(sp->path); /* gone with its sandbox, or the name is taken */
    else
        fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    dval__free(sp);
    return fd;
}

/* Keeps n's lease for reuse: 1 when kept (renamed while still locked, as
 * a drop removes it: a counter that opened it before counts it). */
static int keep(lx *x, struct lx_session *n)
{
    size_t cap = strlen(n->lease_path) + 64;
    struct lx_spare *sp = dval__calloc(1, sizeof *sp + cap);
    const char *slash = strrchr(n->lease_path, '/');
    if (!sp)
        return 0;
    dval__fmt(sp->path, cap, "%.*s/.spare-%d-%lu",
              (int)(slash - n->lease_path), n->lease_path, (int)getpid(),
              lx_seq());
    if (rename(n->lease_path, sp->path) < 0) {
        dval__free(sp);
        return 0;
    }
    close(n->lease_fd); /* its lock goes with it */
    pthread_mutex_lock(&x->lock);
    int room = x->nspares < LX_SPARES_MAX;
    if (room) {
        sp->next = x->spares;
        x->spares = sp;
        x->nspares++;
    }
    pthread_mutex_unlock(&x->lock);
    if (!room) {
        unlink(sp->path);
        dval__free(sp);
    }
    return 1;
}

void lx_spares_free(lx *x)
{
    while (x->spares) {
        struct lx_spare *sp = x->spares;
        x->spares = sp->next;
        unlink(sp->path);
        dval__free(sp);
    }
    x->nspares = 0;
}

/* A session id is a file name here: no "/", no leading ".". */
static int lease_name_ok(const char *sid)
{
    return sid[0] && sid[0] != '.' && !strchr(sid, '/');
}

void lx_lease_take(lx *x, struct lx_session *n, const char *sbdir)
{
    n->lease_fd = -1;
    n->lease_path = NULL;
    if (!lease_name_ok(n->id))
        return;
    char p[4400];
    dval__fmt(p, sizeof p, "%s/sessions/%s", sbdir, n->id);
    int fd = reuse(x, sbdir, p);
    if (fd < 0) {
        dval__fmt(p, sizeof p, "%s/sessions", sbdir);
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            return;
        dval__fmt(p, sizeof p, "%s/sessions/%s", sbdir, n->id);
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    }
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
void lx_lease_drop(lx *x, struct lx_session *n)
{
    if (!(n->lease_path && n->lease_fd >= 0 && keep(x, n))) {
        if (n->lease_path)
            unlink(n->lease_path);
        if (n->lease_fd >= 0)
            close(n->lease_fd);
    }
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
