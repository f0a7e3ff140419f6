/* Disk: the writable layer (and /tmp) of a sandbox is bounded; past it
 * writes fail inside with ENOSPC, the host keeps its space, and a deleted
 * sandbox leaves no layer (file or loop device) behind. */
#include "hostile.h"
#include "executor/local/local.h" /* LX_DISKS */

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static long long host_free_mb(const char *path)
{
    struct statvfs v;
    if (statvfs(path, &v) != 0)
        return -1;
    return (long long)v.f_bavail * (long long)v.f_frsize >> 20;
}

/* 1 when a loop device is still backed by a file under dir. */
static int loop_backed_by(const char *dir)
{
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        char p[600], buf[4096] = "";
        snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", e->d_name);
        FILE *f = fopen(p, "r");
        if (f && fgets(buf, sizeof buf, f) && strstr(buf, dir))
            found = 1;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static dval_sandbox *acquire(hx *h, const char *name, int disk_gib)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    o.disk_gib = disk_gib;
    dval_sandbox *sb = NULL;
    if (dval_sandbox_acquire(&sb, h->client, &o) != DVAL_OK)
        th_fail(__FILE__, __LINE__, "acquire: %s",
                dval_client_errmsg(h->client));
    return sb;
}

TEST(test_hostile_disk__write_past_limit_fails_inside)
{
    hx h;
    hx_open(&h, "disk-1g");
    dval_sandbox *sb = acquire(&h, "sb", 1);
    long long before = host_free_mb(h.dir);
    hx_out o;
    int code = hx_sh(sb, "dd if=/dev/zero of=/home/daytona/big bs=1M count=2048 "
                     "2>&1; echo rc=$?; dd if=/dev/zero of=/tmp/big bs=1M "
                     "count=2048 2>&1; echo rc=$?; df -k /sandbox /tmp", &o);
    CHECK_INT(code, 0);
    CHECK_CONTAINS(o.text, "No space left on device");
    CHECK(!strstr(o.text, "rc=0"));
    long long after = host_free_mb(h.dir);
    /* < 1.2 GiB may have been written; the 2 GiB write never reached the
     * host (other processes share the host disk: leave a margin) */
    CHECK(before - after < 1300);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/sandboxes/sb", h.dir);
    CHECK(loop_backed_by(dir));
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    CHECK(access(dir, F_OK) != 0);
    for (int i = 0; i < 200 && loop_backed_by(dir); i++)
        usleep(10000);
    CHECK(!loop_backed_by(dir));
    hx_close(&h);
}

TEST(test_hostile_disk__default_is_ten_gib)
{
    hx h;
    hx_open(&h, "disk-def");
    dval_sandbox *sb = acquire(&h, "sb", 0);
    hx_out o;
    CHECK_INT(hx_sh(sb, "df -k /sandbox | tail -n 1 | awk '{print $2}'",
                    &o), 0);
    long long kib = atoll(o.text);
    CHECK(kib > 9LL * 1024 * 1024 && kib <= 10LL * 1024 * 1024);
    /* a file written in one sandbox is not in the next one's fresh disk
     * (the delete left a spare image that the next creation renames) */
    CHECK_INT(hx_sh(sb, "dd if=/dev/urandom of=/home/daytona/mark bs=1M count=8 "
                    "2>/dev/null; echo x > /tmp/mark", &o), 0);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    char spare[700];
    snprintf(spare, sizeof spare, "%s/" LX_DISKS "/spare-10g.img", h.dir);
    CHECK(access(spare, F_OK) == 0);
    sb = acquire(&h, "sb2", 0);
    CHECK(access(spare, F_OK) != 0);
    CHECK_INT(hx_sh(sb, "ls /home/daytona/mark /tmp/mark 2>&1; df -k /sandbox | "
                    "tail -n 1", &o), 0);
    CHECK_CONTAINS(o.text, "No such file");
    CHECK(!strstr(o.text, "\n/home/daytona/mark\n"));
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}

TEST(test_hostile_disk__tmpfs_fallback_is_bounded_too)
{
    hx h;
    hx_open(&h, "disk-tmpfs");
    /* no image can be made (disks/ is a file): the layer is a tmpfs of
     * the same size, still bounded */
    char p[700];
    mkdir(h.dir, 0755);
    snprintf(p, sizeof p, "%s/disks", h.dir);
    FILE *f = fopen(p, "w");
    CHECK(f && fclose(f) == 0);
    dval_sandbox *sb = acquire(&h, "sb", 1);
    snprintf(p, sizeof p, "%s/sandboxes/sb/disk.img", h.dir);
    CHECK(access(p, F_OK) != 0);
    hx_out o;
    CHECK_INT(hx_sh(sb, "dd if=/dev/zero of=/home/daytona/big bs=1M count=1536 "
                    "2>&1; echo rc=$?; df -k /sandbox | tail -n 1", &o), 0);
    CHECK_CONTAINS(o.text, "No space left on device");
    CHECK(!strstr(o.text, "rc=0"));
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}

TEST(test_hostile_disk__unmountable_image_falls_back_bounded)
{
    hx h;
    hx_open(&h, "disk-bad");
    dval_sandbox *sb = acquire(&h, "sb", 1);
    CHECK_INT(dval_sandbox_stop(sb), DVAL_OK);
    /* an image that is not ext4 any more (damaged, or replaced) */
    char p[700];
    snprintf(p, sizeof p, "%s/sandboxes/sb/disk.img", h.dir);
    FILE *f = fopen(p, "w");
    CHECK(f && fputs("not a filesystem", f) >= 0 && fclose(f) == 0);
    CHECK_INT(dval_sandbox_start(sb), DVAL_OK);
    hx_out o;
    CHECK_INT(hx_sh(sb, "dd if=/dev/zero of=/home/daytona/big bs=1M count=1536 "
                    "2>&1; echo rc=$?", &o), 0);
    CHECK_CONTAINS(o.text, "No space left on device");
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}

/* The disks are sparse, so nothing reserves what a sandbox may write: a
 * host short of space takes no new sandbox whose disk it could not hold
 * (red team A11: each sandbox could write its 10 GiB on a nearly full
 * host). The state directory here is a 3 GiB tmpfs. */
TEST(test_hostile_disk__no_sandbox_the_host_has_no_room_for)
{
    hx h;
    hx_open(&h, "disk-room");
    dval_client_free(h.client);
    CHECK(mount("tmpfs", h.dir, "tmpfs", 0, "size=3g,mode=0700") == 0);
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = h.dir;
    co.local = &lo;
    CHECK_INT(dval_client_new(&h.client, &co), DVAL_OK);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "big";
    o.disk_gib = 4;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h.client, &o), DVAL_EQUOTA);
    CHECK_CONTAINS(dval_client_errmsg(h.client), "GiB free");
    CHECK_INT(dval_sandbox_get(&sb, h.client, "big"), DVAL_ENOTFOUND);
    /* one that fits (1 GiB and the 1 GiB margin) is made */
    sb = acquire(&h, "small", 1);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h); /* and the tmpfs */
}
