/* Local executor fails closed without isolation, unless explicitly allowed
 * to run unisolated. */
#include "lt.h"
#include "executor/local/local.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(test_local_failclosed__missing_isolation_refused)
{
    setenv("DVAL_LOCAL_HELPER", "/nonexistent/dval-local-helper", 1);
    lt t;
    lt_open(&t, "fc-refuse");
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "sb" };
    CHECK_INT(t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL),
              DVAL_EISOLATION);
    CHECK_CONTAINS(t.call.errmsg, "helper");
    CHECK_INT(lt_state(&t, "sb"), DVAL_ENOTFOUND);
    lt_close(&t);
}

TEST(test_local_failclosed__unisolated_when_allowed)
{
    lt t;
    lt_open(&t, "fc-allow");
    /* isolation "missing": the helper's probe mode fails; its init (an
     * unisolated sandbox's too) is the real one's */
    char wrapper[800], cmd[2400];
    snprintf(wrapper, sizeof wrapper, "%s-helper.sh", t.dir);
    snprintf(cmd, sizeof cmd, "printf '#!/bin/sh\\n[ \"$1\" = probe ] && "
             "exit 1\\nexec %s \"$@\"\\n' > '%s' && chmod 755 '%s'",
             ((lx *)t.ex.userdata)->helper, wrapper, wrapper);
    lt_sh(cmd);
    t.ex.destroy(t.ex.userdata);
    setenv("DVAL_LOCAL_HELPER", wrapper, 1);
    t.lo.allow_unisolated = 1;
    char err[128];
    CHECK_INT(dval__local_executor(&t.ex, &t.cfg, &t.lo, err, sizeof err),
              DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "sb" };
    int rc = t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL);
    CHECK_INT(rc, DVAL_OK);
    CHECK_STR(lt_state_key(&t, "sb", "isolated"), "0");
    lt_close(&t);
    unlink(wrapper);
}

/* In a chroot of a plain directory (a build root entered without
 * bind-mounting it onto itself first) "/" is no mount point: no mount
 * namespace can make it private or pivot away from it. The probe must
 * say so, not only "Invalid argument" (the fresh-root `make demo` run of
 * 2026-12-04 printed just that, and the CLI's hint, "run as root", was
 * wrong for a root caller). */
TEST(test_local_failclosed__chroot_root_not_a_mount_point_explained)
{
    if (geteuid() != 0)
        th_skip("a chroot needs root");
    /* the helper the library itself found (lib/executor/local/local.c) */
    lt t;
    lt_open(&t, "fc-chroot-state");
    char root[700], cmd[9000];
    snprintf(root, sizeof root, "%s/fc-chroot", lt_base());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/tmp' && "
             "cp '%s' '%s/helper'", root, root,
             ((lx *)t.ex.userdata)->helper, root);
    lt_sh(cmd);
    lt_close(&t);
    int out[2];
    CHECK(pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* a mount namespace of its own first: nothing here touches the
         * host's mounts */
        if (unshare(CLONE_NEWNS) < 0 ||
            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            chroot(root) < 0 || chdir("/") < 0 || dup2(out[1], 1) < 0)
            _exit(2);
        execl("/helper", "dval-local-helper", "probe", "/tmp", (char *)NULL);
        _exit(errno == ENOENT ? 77 : 3); /* ENOENT: a dynamic helper */
    }
    close(out[1]);
    char buf[1024];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 &&
           (r = read(out[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    buf[len] = 0;
    close(out[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        th_skip("the helper is not static (a sanitizer build): it cannot "
                "start in an empty chroot");
    CHECK(WEXITSTATUS(st) != 0);
    CHECK_CONTAINS(buf, "not a mount point");
    CHECK_CONTAINS(buf, "bind-mount");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    lt_sh(cmd);
}
