/* Reconnaissance (red team A9): what a program reads about the host from
 * its own mount table. The overlay's layer options and the binds the
 * fast reset keeps used to name the caller's state directory and image
 * cache (so its home directory, and that it is root), and the cgroup
 * file the host's cgroup tree; a sandbox's /proc/self/mountinfo and
 * /proc/self/cgroup must name no host path, on its first use and after
 * each kind of reset. */
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHOW "cat /proc/self/mountinfo /proc/self/cgroup\n"

/* Fails when text names the state dir, the library's directories or the
 * caller's home (where the image cache is). */
static void no_host_path(const hx *h, const char *text)
{
    const char *home = getenv("HOME");
    char cache[600];
    snprintf(cache, sizeof cache, "%s/.cache", home && *home ? home : "/root");
    if (strstr(text, h->dir) || strstr(text, "daytona-validate") ||
        strstr(text, cache))
        th_fail(__FILE__, __LINE__, "host paths in the mount table:\n%s",
                text);
}

TEST(test_hostile_recon__mount_table_names_no_host_path)
{
    hx h;
    hx_open(&h, "recon");
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", "a", SHOW, NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_CONTAINS(out, " / / ");     /* it is the mount table */
    no_host_path(&h, out);
    free(out);
    hx_close(&h);
}

/* The disk image's inode of the state dir's only sandbox (a fresh disk
 * is a new file) and, in *pid, its init. */
static ino_t disk_of(const hx *h, int *pid)
{
    char name[300], p[1200];
    struct stat st;
    sbstate_only_name(h->dir, name, sizeof name);
    *pid = sbstate_init_pid(h->dir, name);
    snprintf(p, sizeof p, "%s/sandboxes/%s/disk.img", h->dir, name);
    return stat(p, &st) == 0 ? st.st_ino : 0;
}

/* The same through a pool's recycled sandbox: the fast reset builds a new
 * overlay from the layers it kept each time, with the same init; a disk
 * filled past its budget gets the full reset (a new init on a fresh
 * disk), whose fast resets then show the same. */
TEST(test_hostile_recon__names_no_host_path_after_resets)
{
    hx h;
    hx_open(&h, "recon-reset");
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.name = "rcn";
    o.max_sandboxes = 1;
    dval_pool *pool = NULL;
    CHECK_INT(dval_pool_new(&pool, h.client, &o), DVAL_OK);
    /* the third fills the disk past the fast reset's budget, so the reset
     * after it is the full one */
    const char *scripts[] = { SHOW, SHOW,
                              SHOW "head -c 300000000 /dev/zero > big\n",
                              SHOW, SHOW };
    int pid0 = 0, pid = 0, pid2 = 0;
    ino_t disk0 = 0, disk = 0;
    for (int i = 0; i < 5; i++) {
        char *out = NULL;
        CHECK_INT(hx_pool_run(&h, pool, scripts[i], NULL, &out, NULL),
                  DVAL_OK);
        CHECK_CONTAINS(out, " / / ");
        no_host_path(&h, out);
        if (i == 4)
            fprintf(stderr, "%s", out);
        free(out);
        disk = disk_of(&h, &pid);
        if (i == 0) {
            pid0 = pid;
            disk0 = disk;
        }
        if (i == 2)
            pid2 = pid;
        CHECK(disk != 0);
        /* the pool resets a sandbox as it takes it back: after the third
         * the init and the disk are fresh ones, kept from then on */
        CHECK(i < 2 ? pid == pid0 : pid != pid0 && pid == pid2);
        CHECK(i < 2 ? disk == disk0 : disk != disk0);
    }
    dval_pool_free(pool);
    hx_close(&h);
}
