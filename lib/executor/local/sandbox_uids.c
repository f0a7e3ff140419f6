/* Per-validation host uids of an isolated sandbox (root callers only).
 * Each top-level directory /sandbox/<dir> gets its own unprivileged uid,
 * allocated once per sandbox in <sandbox state dir>/uids (line n names
 * the directory of uid base + n, base the first id of the sandbox's own
 * range, uid_ranges.c; never reused while the sandbox exists). The
 * directory itself is made by the library: owner its uid, group the
 * sandbox's base gid, mode 02770 (new entries keep the group):
 * no other validation can read, write or replace it, and commands of no
 * owner (the default uid: the sandbox's operator) can still use it. A
 * command gets the uid of its owner (dval_command.owner), never of its
 * cwd; a file operation, the uid of the directory it names. */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_text.h"
#include "sandbox_ids.h"

/* Slot of name among the table's complete lines: 1.., 0 when absent.
 * A line without its newline is one being appended (or cut short by a
 * crash): not a slot yet. Read in large blocks and compared by length
 * first: a long-lived shared sandbox's table has tens of thousands of
 * lines, and every file operation and command looks its directory up
 * (fgets and strcmp per line made that lookup grow with the table into a
 * visible part of each operation). */
static long find_slot(int fd, const char *name)
{
    char buf[65536];
    size_t want = strlen(name), have = 0;
    off_t off = 0;
    long n = 0;
    ssize_t r;
    while ((r = pread(fd, buf + have, sizeof buf - have, off)) > 0) {
        off += r;
        char *p = buf, *stop = buf + have + (size_t)r, *nl;
        while ((nl = memchr(p, '\n', (size_t)(stop - p)))) {
            n++;
            if ((size_t)(nl - p) == want && !memcmp(p, name, want))
                return n;
            p = nl + 1;
        }
        have = (size_t)(stop - p);
        if (have == sizeof buf)
            return 0; /* a line no name makes: not a table */
        memmove(buf, p, have);
    }
    return 0;
}

/* A name already in the table: 1.., 0 when not there (yet). Read
 * without a lock: every file operation and command of a validation looks
 * its directory up, and 64 threads polling a lock starved some of them
 * for 10 s. */
static long known_slot(const char *table, const char *name)
{
    int fd = open(table, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long n = find_slot(fd, name);
    close(fd);
    return n;
}

/* Appends name as one write to the table opened O_APPEND, which the
 * kernel never interleaves with another's, so no lock is needed: the
 * name's slot is the line of its first appearance, whoever wrote it (a
 * second one only wastes a slot). A line cut short by a crash is ended
 * first, so it keeps a slot of its own (two racing writers may both end
 * it: an empty line, a wasted slot). Not synced: a machine's crash may
 * cut the table, but the sandbox's next start is then in a later boot,
 * which gives it a fresh disk and an empty table (sandbox_boot.c), so
 * no slot is given twice to files that survived. */
static int append_name(const char *table, const char *name)
{
    char line[300];
    int fd = open(table, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    struct stat st;
    char last = '\n';
    if (fstat(fd, &st) == 0 && st.st_size > 0 &&
        pread(fd, &last, 1, st.st_size - 1) != 1)
        last = '\n';
    int len = snprintf(line, sizeof line, "%s%s\n", last == '\n' ? "" : "\n",
                       name);
    int rc = write(fd, line, (size_t)len) == len ? 0 : -1;
    close(fd);
    return rc;
}

/* Every slot given: uids are never reused while the sandbox exists (a
 * file or process of an earlier validation's uid may be left anywhere),
 * so it cannot take another validation. The mark makes the next look at
 * it (lx_sb_open) retire it, not recoverable: DVAL_ESTATE tells the core
 * to look, and its ladder replaces it from the snapshot. */
static int used_up(dval_call *c, const lx_sb *sb, const char *name)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/" LX_UIDS_FULL, sb->dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    return dval__call_fail(c, fd >= 0 ? DVAL_ESTATE : DVAL_EIO, "cannot "
                           "give /sandbox/%s a uid: all %ld of the sandbox "
                           "are used", name, LX_UID_SLOTS - 1);
}

int lx_uids_used_up(const lx_sb *sb)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/" LX_UIDS_FULL, sb->dir);
    return access(p, F_OK) == 0;
}

int lx_uid_alloc(dval_call *c, const lx_sb *sb, const char *name,
                 long *uid)
{
    char p[4200];
    /* the rule a command's owner is held to (dval_command) */
    if (!dval__owner_valid(name))
        return dval__call_fail(c, DVAL_EINVAL, "invalid directory name "
                               "under /sandbox");
    dval__fmt(p, sizeof p, "%s/uids", sb->dir);
    long n = known_slot(p, name);
    /* twice: a reset may empty the table between a write and its read */
    for (int tries = 0; n == 0 && tries < 2; tries++)
        n = append_name(p, name) < 0 ? -1 : known_slot(p, name);
    if (n >= LX_UID_SLOTS)
        return used_up(c, sb, name);
    if (n <= 0)
        return dval__call_fail(c, DVAL_EIO, "cannot allocate a uid for "
                               "/sandbox/%s", name);
    *uid = lx_uid_base(sb) + n;
    return DVAL_OK;
}

int lx_uid_forget(dval_call *c, const char *sbdir)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/uids", sbdir);
    int fd = open(p, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return dval__call_fail(c, DVAL_EIO, "truncate %s: %s", p,
                               strerror(errno));
    close(fd);
    dval__fmt(p, sizeof p, "%s/" LX_UIDS_FULL, sbdir);
    if (unlink(p) < 0 && errno != ENOENT)
        return dval__call_fail(c, DVAL_EIO, "unlink %s: %s", p,
                               strerror(errno));
    return DVAL_OK;
}

/* Makes sandbox/<top> (under the sandbox root rootfd) a directory that
 * belongs to uid; anything else found there (another owner's directory,
 * a symlink, a file: a squatter's) is renamed out of the way first. */
int lx_top_ensure(dval_call *c, int rootfd, const char *top, long uid,
                  long gid)
{
    int sfd = lx_open_in(rootfd, "sandbox", O_PATH | O_DIRECTORY, 0);
    if (sfd < 0) { /* no openat2 (ENOSYS): nothing is confined: fail closed */
        int e = errno;
        return dval__call_fail(c, e == ENOSYS ? DVAL_EISOLATION : DVAL_EIO,
                               "/sandbox: %s%s", strerror(e),
                               e == ENOSYS ? " (openat2 is required)" : "");
    }
    struct stat st;
    int rc = DVAL_OK;
    if (fstatat(sfd, top, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (!S_ISDIR(st.st_mode) || st.st_uid != (uid_t)uid ||
         st.st_gid != (gid_t)gid)) {
        char away[400];
        dval__fmt(away, sizeof away, ".dval-stale-%s-%d-%lu", top,
                  (int)getpid(), lx_seq());
        if (renameat(sfd, top, sfd, away) < 0)
            rc = dval__call_fail(c, DVAL_EIO, "move /sandbox/%s away: %s",
                                 top, strerror(errno));
    }
    if (rc == DVAL_OK && mkdirat(sfd, top, 0770) < 0 && errno != EEXIST)
        rc = dval__call_fail(c, DVAL_EIO, "mkdir /sandbox/%s: %s", top,
                             strerror(errno));
    if (rc == DVAL_OK &&
        (fchownat(sfd, top, (uid_t)uid, (gid_t)gid,
                  AT_SYMLINK_NOFOLLOW) < 0 ||
         fstatat(sfd, top, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
         !S_ISDIR(st.st_mode)))
        rc = dval__call_fail(c, DVAL_EIO, "chown /sandbox/%s: %s", top,
                             strerror(errno));
    if (rc == DVAL_OK && (st.st_mode & 07777) != 02770) {
        if (fchmodat(sfd, top, 02770, 0) < 0) /* a directory: no symlink */
            rc = dval__call_fail(c, DVAL_EIO, "chmod /sandbox/%s: %s", top,
                                 strerror(errno));
    }
    close(sfd);
    return rc;
}

/* Top-level directory of an absolute sandbox path under /sandbox ("" if
 * none: /sandbox itself or a path elsewhere; with file set, also when the
 * path is a file directly in /sandbox). */
void lx_top_of(const char *abs, int file, char *top, size_t cap)
{
    top[0] = 0;
    while (*abs == '/')
        abs++;
    if (strncmp(abs, "sandbox/", 8) != 0)
        return;
    abs += 8;
    while (*abs == '/')
        abs++;
    size_t n = strcspn(abs, "/");
    if (file && abs[n] != '/')
        return;
    if (n > 0 && n < cap)
        dval__fmt(top, cap, "%.*s", (int)n, abs);
}

int lx_uid_for(lx *x, dval_call *c, const lx_sb *sb, int rootfd,
               const char *top, long *uid)
{
    (void)x;
    *uid = -1;
    if (geteuid() != 0 || !sb->isolated)
        return DVAL_OK; /* no ids to give: the caller's own */
    *uid = lx_uid_base(sb);
    if (!top[0])
        return DVAL_OK;
    int rc = lx_uid_alloc(c, sb, top, uid);
    return rc == DVAL_OK ? lx_top_ensure(c, rootfd, top, *uid,
                                         lx_uid_base(sb)) : rc;
}
