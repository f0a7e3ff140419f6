/* The sandbox disk template (lib/executor/local/upper_disk.c): small
 * enough that copying it per sandbox costs little, still a working,
 * bounded ext4 layer, and one left by an older version (with a resize
 * inode: megabytes of data) is made anew. */
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long long data_kib(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_blocks / 2 : -1;
}

static int run(dval_sandbox *sb, const char *cmd)
{
    dval_session *s = NULL;
    int code = -1;
    if (dval_session_open(&s, sb) != DVAL_OK ||
        dval_session_exec(s, cmd, NULL, NULL, NULL, &code) != DVAL_OK)
        code = -1;
    if (s) {
        dval_session_close(s);
        dval_session_free(s);
    }
    return code;
}

static void cycle(hx *h, const char *name)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h->client, &o), DVAL_OK);
    /* the layer works and is the 10 GiB one */
    CHECK_INT(run(sb, "echo x > /sandbox/f && mkdir -p /home/daytona/d && "
                  "test \"$(df -k /sandbox | awk 'NR==2{print $2}')\" -gt "
                  "9000000"), 0);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
}

TEST(test_disk_template__small_and_working)
{
    if (geteuid() != 0)
        th_skip("the ext4 layer needs root (else a tmpfs)");
    hx h;
    hx_open(&h, "disk-tpl");
    cycle(&h, "sb");
    char tpl[700], spare[700];
    snprintf(tpl, sizeof tpl, "%s/disks/ext4-10g.img", h.dir);
    snprintf(spare, sizeof spare, "%s/disks/spare-10g.img", h.dir);
    long long t = data_kib(tpl), s = data_kib(spare);
    CHECK(t > 0 && t <= 1024);
    CHECK(s > 0 && s <= 1024);
    hx_close(&h);
}

TEST(test_disk_template__old_format_is_replaced)
{
    if (geteuid() != 0)
        th_skip("the ext4 layer needs root (else a tmpfs)");
    hx h;
    hx_open(&h, "disk-old");
    char dir[700], tpl[800], cmd[2000];
    snprintf(dir, sizeof dir, "%s/disks", h.dir);
    snprintf(tpl, sizeof tpl, "%s/ext4-10g.img", dir);
    /* what the previous version made: a resize inode, ~4 MiB of data */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && PATH=/usr/sbin:/sbin:$PATH "
             "mkfs.ext4 -q -F -t ext4 -O ^has_journal -E nodiscard,"
             "lazy_itable_init=1 -m 0 -i 65536 '%s' 10G >/dev/null 2>&1", dir,
             tpl);
    CHECK_INT(system(cmd), 0);
    CHECK(data_kib(tpl) > 2048);
    cycle(&h, "sb");
    CHECK(data_kib(tpl) > 0 && data_kib(tpl) <= 1024);
    hx_close(&h);
}
