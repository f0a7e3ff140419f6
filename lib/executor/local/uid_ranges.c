/* Host uid ranges of isolated sandboxes (root callers): each sandbox of
 * the host gets a range of its own (sandbox_ids.h), so one sandbox's
 * commands cannot use up a per-user kernel limit (inotify instances,
 * RLIMIT_NPROC, message queue bytes) that another's also count against.
 *
 * The registry is host-wide, since sandboxes of other state directories
 * (other host programs) must not share a range either: one symlink per
 * range taken, LX_UID_REGISTRY/<range> -> the sandbox's directory, made
 * under the registry's lock. Where /var/lib cannot be written (a
 * read-only system), the registry is <state dir>/uid-ranges: the
 * sandboxes of that state directory still have ranges of their own.
 *
 * The search for a free range starts at a random one: a library in
 * another mount namespace (a container or a chroot sharing the host's
 * uids) has a registry of its own, and would otherwise hand out the same
 * first ranges. A link whose sandbox has no state file any more
 * (deleted, its state directory removed) is free again. The sandbox
 * records its range in its state ("uid_range") and takes it again on
 * every start: a registry wiped since, or a range taken by another
 * sandbox meanwhile, is found then, not when a command runs. */
#include "local.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox_ids.h"

#define LX_UID_REGISTRY "/var/lib/daytona-validate/uid-ranges"

/* Locks the registry, whose directory goes into reg (made when
 * missing): the host's, else the state directory's. The lock's fd, or a
 * status < 0 (c's message says why). */
static int registry_lock(lx *x, dval_call *c, char *reg, size_t cap)
{
    char p[PATH_MAX + 8];
    dval__fmt(reg, cap, "%s", LX_UID_REGISTRY);
    if (lx_mkdirs(reg, 0700) < 0) {
        int e = errno;
        dval__fmt(reg, cap, "%s/uid-ranges", x->state_dir);
        if (lx_mkdirs(reg, 0700) < 0)
            return dval__call_fail(c, DVAL_EISOLATION, "cannot make %s: %s",
                                   reg, strerror(errno));
        LX_LOG(x, DVAL_LOG_WARN, "local executor: cannot make %s (%s): uid "
               "ranges are registered in %s, so sandboxes of other state "
               "directories may share one", LX_UID_REGISTRY, strerror(e),
               reg);
    }
    dval__fmt(p, sizeof p, "%s/.lock", reg);
    return lx_lock(c, p, 10000);
}

/* 1: the directory link points to holds no sandbox any more. */
static int dead(const char *dir)
{
    char p[PATH_MAX + 16];
    struct stat st;
    dval__fmt(p, sizeof p, "%s/state", dir);
    return stat(p, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* Range r for dir: 1 taken (or already dir's), 0 another sandbox's,
 * -1 an error (errno). */
static int take(const char *reg, long r, const char *dir)
{
    char p[PATH_MAX], t[PATH_MAX];
    dval__fmt(p, sizeof p, "%s/%ld", reg, r);
    if (symlink(dir, p) == 0)
        return 1;
    if (errno != EEXIST)
        return -1;
    ssize_t n = readlink(p, t, sizeof t - 1);
    if (n < 0)
        return errno == ENOENT ? take(reg, r, dir) : -1;
    t[n] = 0;
    if (!strcmp(t, dir))
        return 1;
    if (!dead(t))
        return 0;
    if (unlink(p) < 0 && errno != ENOENT)
        return -1;
    return symlink(dir, p) == 0 ? 1 : -1;
}

static long random_range(void)
{
    unsigned long v;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
        v = (unsigned long)lx_wall_ms() * 2654435761UL ^
            (unsigned long)getpid();
    return LX_UID_RANGE_FIRST +
           (long)(v % (unsigned long)(LX_UID_RANGES - LX_UID_RANGE_FIRST));
}

/* The sandbox's recorded range when it is still its own, else a free
 * one: the range, or -1 (errno; ENOSPC when none is free). */
static long claim(const char *reg, long had, const char *dir)
{
    int ok = had >= LX_UID_RANGE_FIRST && had < LX_UID_RANGES
                 ? take(reg, had, dir) : 0;
    if (ok)
        return ok > 0 ? had : -1;
    long n = LX_UID_RANGES - LX_UID_RANGE_FIRST, start = random_range();
    for (long i = 0; i < n; i++) {
        long r = LX_UID_RANGE_FIRST + (start - LX_UID_RANGE_FIRST + i) % n;
        ok = take(reg, r, dir);
        if (ok)
            return ok > 0 ? r : -1;
    }
    errno = ENOSPC;
    return -1;
}

int lx_uid_range_take(lx *x, dval_call *c, lx_sb *sb)
{
    char reg[PATH_MAX];
    if (geteuid() != 0)
        return DVAL_OK; /* a user namespace: no host ids to hand out */
    int lk = registry_lock(x, c, reg, sizeof reg);
    if (lk < 0)
        return lk;
    long r = claim(reg, lx_kv_num(&sb->kv, "uid_range", 0), sb->dir);
    int e = errno;
    lx_unlock(lk);
    if (r < 0)
        return dval__call_fail(c, DVAL_EISOLATION, "no host uid range for "
                               "the sandbox in %s: %s", reg, strerror(e));
    return lx_kv_setnum(&sb->kv, "uid_range", r) ? dval__call_fail(
               c, DVAL_ENOMEM, "out of memory") : DVAL_OK;
}

void lx_uid_range_drop(lx *x, const lx_sb *sb)
{
    char reg[PATH_MAX], p[PATH_MAX], t[PATH_MAX];
    long r = lx_kv_num(&sb->kv, "uid_range", 0);
    if (geteuid() != 0 || r < LX_UID_RANGE_FIRST || r >= LX_UID_RANGES)
        return;
    int lk = registry_lock(x, NULL, reg, sizeof reg);
    if (lk < 0)
        return; /* kept: free again once the sandbox's state is gone */
    dval__fmt(p, sizeof p, "%s/%ld", reg, r);
    ssize_t n = readlink(p, t, sizeof t - 1);
    if (n >= 0 && (t[n] = 0, !strcmp(t, sb->dir)))
        unlink(p);
    lx_unlock(lk);
}

long lx_uid_base(const lx_sb *sb)
{
    long r = lx_kv_num(&sb->kv, "uid_range", 0);
    return LX_UID_BASE(r >= 0 && r < LX_UID_RANGES ? r : 0);
}
