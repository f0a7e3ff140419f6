/* The sandbox disk template (lib/executor/local/upper_disk.c): small
 * enough that copying it per sandbox costs little, still a working,
 * bounded ext4 layer, and those of another state format are dropped. */
#include "hostile.h"
#include "executor/local/local.h" /* LX_DISKS */

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
    snprintf(tpl, sizeof tpl, "%s/" LX_DISKS "/ext4-10g.img", h.dir);
    snprintf(spare, sizeof spare, "%s/" LX_DISKS "/spare-10g.img", h.dir);
    long long t = data_kib(tpl), s = data_kib(spare);
    CHECK(t > 0 && t <= 1024);
    CHECK(s > 0 && s <= 1024);
    hx_close(&h);
}

/* Images of another state format (an earlier version kept its template
 * and spare directly in disks/, another format in its own disks/f<N>/)
 * are never used: the next template made removes them. */
TEST(test_disk_template__other_format_is_dropped)
{
    if (geteuid() != 0)
        th_skip("the ext4 layer needs root (else a tmpfs)");
    hx h;
    hx_open(&h, "disk-old");
    char dir[700], cmd[3000];
    snprintf(dir, sizeof dir, "%s/disks", h.dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/f0' && for f in ext4-10g.img "
             "spare-10g.img f0/ext4-10g.img f0/spare-10g.img; do echo not "
             "an image > '%s'/$f; done", dir, dir);
    CHECK_INT(system(cmd), 0);
    cycle(&h, "sb");
    char p[800];
    const char *gone[] = { "ext4-10g.img", "spare-10g.img", "f0", NULL };
    for (int i = 0; gone[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, gone[i]);
        CHECK(access(p, F_OK) != 0);
    }
    snprintf(p, sizeof p, "%s/" LX_DISKS "/ext4-10g.img", h.dir);
    CHECK(data_kib(p) > 0 && data_kib(p) <= 1024);
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
 * time). The layer has a journal. */
TEST(test_disk_template__the_layer_has_a_journal)
{
    if (geteuid() != 0)
        th_skip("the ext4 layer needs root (else a tmpfs)");
    hx h;
    hx_open(&h, "disk-jnl");
    char tpl[800], spare[800];
    snprintf(tpl, sizeof tpl, "%s/" LX_DISKS "/ext4-10g.img", h.dir);
    snprintf(spare, sizeof spare, "%s/" LX_DISKS "/spare-10g.img", h.dir);
    cycle(&h, "sb");
    CHECK(journaled(tpl));
    CHECK(data_kib(tpl) > 0 && data_kib(tpl) <= 1024);
    CHECK(journaled(spare));
    cycle(&h, "sb2");
    hx_close(&h);
}
