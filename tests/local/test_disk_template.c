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
    CHECK_INT(run(sb, "echo x > /home/daytona/f && mkdir -p /home/daytona/d && "
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

/* 1 when the ext4 image at path has a journal: its superblock's
 * compatible features (at 1024 + 0x5c) have has_journal (0x4). */
static int journaled(const char *path)
{
    unsigned char f[4] = { 0 };
    FILE *fp = fopen(path, "rb");
    int ok = fp && fseek(fp, 1024 + 0x5c, SEEK_SET) == 0 &&
             fread(f, 1, 4, fp) == 4;
    if (fp)
        fclose(fp);
    return ok && (f[0] & 0x4);
}

/* Without a journal, ext4 skips every inode freed in the last 60 s (360
 * s while its table block is dirty) when it allocates one, reading each
 * one's deletion time: a sandbox reset a few times a second frees a
 * dozen inodes each time, and its allocations grew slower by the minute
 * (18% of the machine's CPU after 3 minutes at one validation at a
 * time). The layer has a journal; a template or spare of the previous
 * version (small, no journal) is made anew. */
TEST(test_disk_template__the_layer_has_a_journal)
{
    if (geteuid() != 0)
        th_skip("the ext4 layer needs root (else a tmpfs)");
    hx h;
    hx_open(&h, "disk-jnl");
    char dir[700], tpl[800], spare[800], cmd[4000];
    snprintf(dir, sizeof dir, "%s/disks", h.dir);
    snprintf(tpl, sizeof tpl, "%s/ext4-10g.img", dir);
    snprintf(spare, sizeof spare, "%s/spare-10g.img", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && PATH=/usr/sbin:/sbin:$PATH "
             "mkfs.ext4 -q -F -t ext4 -O ^has_journal,^resize_inode,"
             "sparse_super2 -E nodiscard,lazy_itable_init=1,num_backup_sb=0 "
             "-m 0 -i 65536 '%s' 10G >/dev/null 2>&1 && cp --sparse=always "
             "'%s' '%s'", dir, tpl, tpl, spare);
    CHECK_INT(system(cmd), 0);
    CHECK(!journaled(tpl) && data_kib(tpl) <= 1024);
    cycle(&h, "sb");
    CHECK(journaled(tpl));
    CHECK(data_kib(tpl) > 0 && data_kib(tpl) <= 1024);
    CHECK(journaled(spare));
    cycle(&h, "sb2");
    hx_close(&h);
}
