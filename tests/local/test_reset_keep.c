/* The two resets (lib/executor/local/sandbox_reset.c, sandbox.c): the
 * fast one (libexec/dval-local-helper/reset_keep.c) reuses the kept disk
 * with fresh directories and keeps the init; a disk filled past its
 * walk's budget gets the full one (a fresh image, a new init). The fast
 * reset's overlays are volatile (no disk sync when one goes); files
 * written after a reset survive a stop/start; the kept layers are out of
 * a command's reach. */
#include "lt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int reset(lt *t)
{
    return t->ex.sandbox_reset(t->ex.userdata, lt_call(t), "sb");
}

static ino_t image_ino(lt *t)
{
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s/sandboxes/sb/disk.img", t->dir);
    return stat(p, &st) == 0 ? st.st_ino : 0;
}

/* Open fds of the sandbox's init: flat across resets (the init does the
 * fast reset itself: a leaked root would also pin the old files). */
static int init_fds(lt *t)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%s/fd", lt_state_key(t, "sb", "pid"));
    DIR *d = opendir(p);
    int n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

/* The same once it settles: the init closes a finished command's
 * connection a moment after sending its code. The fewest seen over
 * 100 ms, or after a wait of up to 2 s for at most `most`. */
static int init_fds_settled(lt *t, int most)
{
    int n = init_fds(t);
    for (int i = 0; i < 200 && (most ? n > most : i < 10); i++) {
        usleep(10000);
        int k = init_fds(t);
        n = k < n ? k : n;
    }
    return n;
}

static char *run_out(lt *t, const char *cmd, int *code)
{
    lt_out o = { 0 };
    *code = lt_run(t, "sb", cmd, &o);
    char *s = strdup(o.out.data ? o.out.data : "");
    lt_out_free(&o);
    return s;
}

TEST(test_local_reset_keep__tiers_and_restart)
{
    lt t;
    lt_open(&t, "rkeep");
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    lt_sandbox(&t, "sb", NULL);
    int pid = atoi(lt_state_key(&t, "sb", "pid"));
    ino_t img = image_ino(&t);
    CHECK(pid > 0 && img);
    CHECK_INT(lt_upload(&t, "sb", "a.txt", "a"), DVAL_OK);
    CHECK_INT(reset(&t), DVAL_OK);
    /* the kept tier: same init, same image, the file gone */
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    CHECK(image_ino(&t) == img);
    int code;
    char *s = run_out(&t, "ls /home/daytona; ls /dev/.dval 2>&1; echo end",
                      &code);
    CHECK(!strstr(s, "a.txt"));
    /* the kept mounts are in the keeper's namespace only */
    CHECK_CONTAINS(s, "No such file or directory");
    free(s);
    /* the new root is volatile: its end at the next reset syncs no disk
     * (the stop/start below: its mark does not stop a later mount) */
    s = run_out(&t, "grep ' / / ' /proc/self/mountinfo", &code);
    CHECK_CONTAINS(s, " overlay ");
    CHECK_CONTAINS(s, "volatile");
    free(s);
    /* the old directories are removed from the kept disk: its free
     * inodes come back (a disk the next use could not fill otherwise) */
    s = run_out(&t, "stat -f -c %d /tmp", &code);
    long free0 = atol(s);
    free(s);
    s = run_out(&t, "mkdir -p /tmp/d/e && for i in $(seq 500); do "
                ": > /tmp/d/e/f$i; : > /var/tmp/g$i; done; "
                "stat -f -c %d /tmp", &code);
    CHECK(atol(s) < free0 - 900);
    free(s);
    CHECK_INT(reset(&t), DVAL_OK);
    s = run_out(&t, "stat -f -c %d /tmp", &code);
    CHECK(atol(s) >= free0 - 5);
    free(s);
    /* written after a reset, kept across stop/start */
    CHECK_INT(lt_upload(&t, "sb", "b.txt", "b"), DVAL_OK);
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t.ex.sandbox_stop(t.ex.userdata, lt_call(&t), "sb", &info),
              DVAL_OK);
    CHECK_INT(t.ex.sandbox_start(t.ex.userdata, lt_call(&t), "sb", &info),
              DVAL_OK);
    s = run_out(&t, "cat b.txt", &code);
    CHECK_STR(s, "b");
    free(s);
    pid = atoi(lt_state_key(&t, "sb", "pid"));
    /* a disk filled past the walk's budget: the full reset, a fresh
     * image and a new init */
    s = run_out(&t, "head -c 300000000 /dev/zero > /tmp/big && echo big",
                &code);
    CHECK_CONTAINS(s, "big");
    free(s);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK(atoi(lt_state_key(&t, "sb", "pid")) != pid);
    CHECK(image_ino(&t) != img);
    pid = atoi(lt_state_key(&t, "sb", "pid"));
    s = run_out(&t, "ls /tmp /home/daytona; echo end", &code);
    CHECK(!strstr(s, "big") && !strstr(s, "b.txt"));
    free(s);
    /* and the fresh disk is kept from then on */
    img = image_ino(&t);
    /* a new init's first reset opens what it holds for the next ones
     * (the mqueue fs): counted from there */
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(lt_upload(&t, "sb", "c.txt", "c"), DVAL_OK);
    int fds = init_fds_settled(&t, 0);
    CHECK(fds > 0);
    for (int i = 0; i < 3; i++)
        CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(init_fds_settled(&t, fds), fds);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    CHECK(image_ino(&t) == img);
    s = run_out(&t, "ls /home/daytona; echo end", &code);
    CHECK(!strstr(s, "c.txt"));
    free(s);
    lt_close(&t);
}

/* The library run inside a chroot (a build root, some containers): the
 * sandbox's root then sits on the chroot's directory, not at the top of
 * the mount namespace. A helper that joined the init's namespaces from
 * outside landed at that top, where "/proc" was the host's; the init's
 * own reset never leaves its root: it keeps the init and the sandbox
 * sees its own /proc. A full disk gets the full reset, from there too. */
TEST(test_local_reset_keep__fast_and_full_from_a_chroot)
{
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    char cwd[4096], top[] = "/tmp/dval-local-tests-chroot";
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(mkdir(top, 0700) == 0 || errno == EEXIST);
    /* this test's own process: the mounts die with it */
    CHECK(unshare(CLONE_NEWNS) == 0);
    /* a type is ignored here, but valgrind checks it is a string */
    CHECK(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0);
    CHECK(mount("/", top, "none", MS_BIND | MS_REC, NULL) == 0);
    CHECK(chroot(top) == 0 && chdir(cwd) == 0);
    lt t;
    lt_open(&t, "rkeep-chroot");
    lt_sandbox(&t, "sb", NULL);
    int pid = atoi(lt_state_key(&t, "sb", "pid")), code;
    ino_t img = image_ino(&t);
    CHECK_INT(lt_upload(&t, "sb", "a.txt", "a"), DVAL_OK);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    char *s = run_out(&t, "ls /home/daytona; ls /proc | grep -c '^[0-9]'",
                      &code);
    CHECK(!strstr(s, "a.txt"));
    CHECK(atoi(s) > 0 && atoi(s) < 10); /* the sandbox's own processes */
    free(s);
    s = run_out(&t, "head -c 300000000 /dev/zero > /tmp/big && echo big",
                &code);
    CHECK_CONTAINS(s, "big");
    free(s);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK(atoi(lt_state_key(&t, "sb", "pid")) != pid);
    CHECK(image_ino(&t) != img);
    s = run_out(&t, "ls /tmp; echo end", &code);
    CHECK(!strstr(s, "big"));
    free(s);
    lt_close(&t);
}

static ino_t claim_ino(lt *t, const char *name)
{
    char p[800];
    struct stat st;
    snprintf(p, sizeof p, "%s/sandboxes/sb/claims/%s", t->dir, name);
    return stat(p, &st) == 0 ? st.st_ino : 0;
}

/* A reset keeps one released claim as the claims directory's spare, and
 * the next claim takes it: no new inode on the host's filesystem per
 * validation. A claim still excludes a second run of the same directory,
 * and a reset leaves no claim but the spare. */
TEST(test_local_reset_keep__a_claim_reuses_the_spare)
{
    lt t;
    lt_open(&t, "rk-claim");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata, *a = NULL, *b = NULL;
    CHECK_INT(t.ex.workdir_claim(ud, lt_call(&t), "sb", "/sandbox/t1", &a),
              DVAL_OK);
    CHECK_INT(t.ex.workdir_claim(ud, lt_call(&t), "sb", "/sandbox/t2", &b),
              DVAL_OK);
    ino_t first = claim_ino(&t, "t1"), second = claim_ino(&t, "t2");
    CHECK(first && second);
    t.ex.workdir_release(ud, a);
    t.ex.workdir_release(ud, b);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK(!claim_ino(&t, "t1") && !claim_ino(&t, "t2"));
    ino_t spare = claim_ino(&t, "+spare");
    CHECK(spare == first || spare == second);
    CHECK_INT(t.ex.workdir_claim(ud, lt_call(&t), "sb", "/sandbox/t3", &a),
              DVAL_OK);
    CHECK(claim_ino(&t, "t3") == spare);
    CHECK(!claim_ino(&t, "+spare"));
    CHECK_INT(t.ex.workdir_claim(ud, lt_call(&t), "sb", "/sandbox/t3", &b),
              DVAL_EBUSY);
    /* a child forked meanwhile (another thread's spawn before its exec)
     * holds a copy of the claim's descriptor past its release: the spare
     * it becomes is then left alone, and the next claim is a new file */
    int hold[2];
    CHECK(pipe(hold) == 0);
    pid_t kid = fork();
    if (kid == 0) {
        char c;
        close(hold[1]);
        _exit(read(hold[0], &c, 1) < 0);
    }
    close(hold[0]);
    t.ex.workdir_release(ud, a);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK(claim_ino(&t, "+spare") == spare);
    CHECK_INT(t.ex.workdir_claim(ud, lt_call(&t), "sb", "/sandbox/t4", &a),
              DVAL_OK);
    CHECK(claim_ino(&t, "t4") != spare);
    close(hold[1]);
    CHECK(waitpid(kid, NULL, 0) == kid);
    t.ex.workdir_release(ud, a);
    lt_close(&t);
}

/* The kept tier's walk of the old directories: a directory wider than
 * one read of its entries, many subdirectories, a deep chain and a
 * symlink out are all removed by the walk itself (same init, same
 * image: a failed walk would have replaced both), and the symlink's
 * target is left alone. */
TEST(test_local_reset_keep__the_walk_removes_wide_and_deep_trees)
{
    lt t;
    lt_open(&t, "rk-walk");
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    lt_sandbox(&t, "sb", NULL);
    int code;
    char *s = run_out(&t, "stat -f -c %d /tmp", &code);
    long free0 = atol(s);
    free(s);
    s = run_out(&t, "mkdir /tmp/w && cd /tmp/w && for i in $(seq 150); do "
                "mkdir d$i && : > d$i/a && : > d$i/b; done; "
                "for i in $(seq 1200); do : > "
                "a_name_long_enough_to_need_several_reads_of_the_dir_$i; "
                "done; ln -s /etc/hostname out; p=/tmp/deep; "
                "for i in $(seq 80); do p=$p/x; done; mkdir -p $p && "
                ": > $p/leaf && stat -f -c %d /tmp", &code);
    CHECK_INT(code, 0);
    CHECK(atol(s) < free0 - 1700);
    free(s);
    int pid = atoi(lt_state_key(&t, "sb", "pid"));
    ino_t img = image_ino(&t);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    CHECK(image_ino(&t) == img);
    s = run_out(&t, "ls -A /tmp; test -s /etc/hostname && echo kept; stat -f -c %d /tmp",
                &code);
    CHECK_INT(code, 0);
    CHECK(!strstr(s, "w\n") && !strstr(s, "deep"));
    CHECK_CONTAINS(s, "kept\n");
    char *last = strrchr(s, '\n');
    while (last && last > s && last[-1] != '\n')
        last--;
    CHECK(last && atol(last) >= free0 - 5);
    free(s);
    lt_close(&t);
}

/* A state directory too deep for a socket address (108 bytes): the
 * library still reaches the init's socket (through a descriptor of the
 * directory), so the reset is the fast one: the same init. */
TEST(test_local_reset_keep__fast_with_a_deep_state_directory)
{
    lt t;
    lt_open(&t, "rk-deep-state-directory-whose-path-is-longer-than-a-unix-"
                "socket-address-can-hold-0123456789");
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    lt_sandbox(&t, "sb", NULL);
    char p[1200];
    snprintf(p, sizeof p, "%s/sandboxes/sb/reset.sock", t.dir);
    CHECK(strlen(p) >= 108 && access(p, F_OK) == 0);
    int pid = atoi(lt_state_key(&t, "sb", "pid")), code;
    CHECK_INT(lt_upload(&t, "sb", "a.txt", "a"), DVAL_OK);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    char *s = run_out(&t, "ls /home/daytona; echo end", &code);
    CHECK(!strstr(s, "a.txt"));
    CHECK_CONTAINS(s, "end");
    free(s);
    lt_close(&t);
}

/* A sandbox on a snapshot has two lower layers (the snapshot's over its
 * image): the fast reset's overlay is built on both, so the reset keeps
 * the init and the snapshot's files, and drops the earlier use's. */
TEST(test_local_reset_keep__fast_on_a_snapshot_keeps_its_layers)
{
    lt t;
    lt_open(&t, "rk-snap");
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    const char *steps[] = { "mkdir -p /opt/s && echo from-snap > /opt/s/f",
                            NULL };
    CHECK_INT(lt_snapshot(&t, "snap", NULL, steps, NULL), DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = "snap" };
    lt_sandbox(&t, "sb", &o);
    int pid = atoi(lt_state_key(&t, "sb", "pid")), code;
    CHECK(pid > 0);
    CHECK_INT(lt_upload(&t, "sb", "a.txt", "a"), DVAL_OK);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    char *s = run_out(&t, "cat /opt/s/f; ls /home/daytona; "
                      "grep ' / / ' /proc/self/mountinfo", &code);
    CHECK_CONTAINS(s, "from-snap");
    CHECK(!strstr(s, "a.txt"));
    CHECK_CONTAINS(s, "/dev/.dval/l0:/dev/.dval/l1");
    free(s);
    lt_close(&t);
}

/* DVAL_LOCAL_FULL_RESET=1, the operator's switch of dval_executor(3):
 * every reset is the full one (a new init on a fresh image), read at
 * each reset; without it the fast one keeps the init. */
TEST(test_local_reset_keep__the_operator_switch_forces_the_full_reset)
{
    lt t;
    lt_open(&t, "rkeep-full");
    if (geteuid() != 0)
        th_skip("the fast reset needs root");
    lt_sandbox(&t, "sb", NULL);
    unsetenv("DVAL_LOCAL_FULL_RESET");
    int pid = atoi(lt_state_key(&t, "sb", "pid"));
    ino_t img = image_ino(&t);
    CHECK_INT(reset(&t), DVAL_OK);
    CHECK_INT(atoi(lt_state_key(&t, "sb", "pid")), pid);
    CHECK(image_ino(&t) == img);
    setenv("DVAL_LOCAL_FULL_RESET", "1", 1);
    CHECK_INT(lt_upload(&t, "sb", "a.txt", "a"), DVAL_OK);
    CHECK_INT(reset(&t), DVAL_OK);
    unsetenv("DVAL_LOCAL_FULL_RESET");
    CHECK(atoi(lt_state_key(&t, "sb", "pid")) != pid);
    CHECK(image_ino(&t) != img);
    int code;
    char *s = run_out(&t, "ls /home/daytona; echo end", &code);
    CHECK(!strstr(s, "a.txt"));
    CHECK_CONTAINS(s, "end");
    free(s);
    lt_close(&t);
}
