/* The boot a sandbox's writable layer belongs to (<sandbox>/boot: the
 * kernel's boot id when its init last started).
 *
 * The uid table (sandbox_uids.c) is appended without a sync: a sync per
 * validation would add a disk flush to every validation's wall time.
 * Within a boot nothing is lost
 * (the page cache outlives any process), but a crash could cut lines
 * whose uids' files the disk kept, and the next validation given such a
 * slot would own them. A volatile overlay's upper layer is not to be
 * trusted after a crash either. So a start in a later boot than the
 * layer's gives the sandbox a fresh disk and an empty table, made
 * durable before the new boot is recorded; a start in the same boot
 * keeps both. No boot file: the sandbox's first start, nothing to
 * forget. */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LX_BOOT_FILE "boot"

static int sync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* What the forget did (the disk's unlink, the table's truncation) on
 * the disk before the new boot is: a crash in between then finds the
 * old boot again, and forgets again. */
static int sync_forget(const lx_sb *sb)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/uids", sb->dir);
    if (sync_path(p, O_RDONLY) < 0 && errno != ENOENT)
        return -1;
    return sync_path(sb->dir, O_RDONLY | O_DIRECTORY);
}

static int write_boot(const lx_sb *sb, const char *boot)
{
    char p[4200], tmp[4300], line[80];
    dval__fmt(p, sizeof p, "%s/" LX_BOOT_FILE, sb->dir);
    dval__fmt(tmp, sizeof tmp, "%s.tmp", p);
    int len = snprintf(line, sizeof line, "%s\n", boot);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int ok = fd >= 0 && write(fd, line, (size_t)len) == len &&
             fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok || rename(tmp, p) < 0) {
        unlink(tmp);
        return -1;
    }
    return sync_path(sb->dir, O_RDONLY | O_DIRECTORY);
}

int lx_sb_boot_check(lx *x, dval_call *c, lx_sb *sb)
{
    if (geteuid() != 0) /* no disk image, no uid table: a tmpfs layer */
        return DVAL_OK;
    char p[4200], was[80], now[80];
    lx_read_text("/proc/sys/kernel/random/boot_id", now, sizeof now);
    if (!now[0]) /* no /proc: the init cannot start either */
        return DVAL_OK;
    dval__fmt(p, sizeof p, "%s/" LX_BOOT_FILE, sb->dir);
    lx_read_text(p, was, sizeof was);
    if (!strcmp(was, now))
        return DVAL_OK;
    if (was[0]) {
        LX_LOG(x, DVAL_LOG_INFO, "local executor: sandbox %s starts in a "
               "new boot: its writable layer starts afresh",
               lx_kv_get(&sb->kv, "name"));
        int rc = lx_sb_forget_uses(x, c, sb, 1);
        if (rc != DVAL_OK)
            return rc;
        if (sync_forget(sb) < 0)
            return dval__call_fail(c, DVAL_EIO, "sync %s: %s", sb->dir,
                                   strerror(errno));
    }
    if (write_boot(sb, now) < 0)
        return dval__call_fail(c, DVAL_EIO, "cannot write %s: %s", p,
                               strerror(errno));
    return DVAL_OK;
}
