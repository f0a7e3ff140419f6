/* The fast path of sandbox_reset (sandbox.c do_reset): the helper's
 * "reset" verb (libexec/dval-local-helper/reset.c) keeps the init and
 * its namespaces, kills every other process of the sandbox, removes its
 * IPC objects and pivots it into a new overlay on a fresh disk image.
 * The full reset (a new init) costs the namespaces' creation and
 * teardown (the network one above all), the init's setup (~25 mounts)
 * and the cgroups' removal and creation; this one only the new upper
 * layer. Anything it cannot rule out makes it fail, and the caller then
 * does the full reset. */
#include "local.h"
#include "upper_disk.h"
#include "protocol.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 0 when every cgroup of the sandbox holds the init alone: no process
 * of the earlier use is left, in the pid namespace or out of it. */
static int only_init(lx *x, const lx_sb *sb)
{
    lx_limits l;
    lx_sb_limits(x, sb, &l);
    for (int i = 0; i < l.nprocs; i++) {
        FILE *f = fopen(l.procs[i], "re");
        if (!f)
            return -1;
        long pid;
        int bad = 0;
        while (fscanf(f, "%ld", &pid) == 1)
            bad |= pid != (long)sb->pid;
        fclose(f);
        if (bad)
            return -1;
    }
    return 0;
}

/* Runs the helper's reset (mode keep or fresh); its exit code in *code,
 * its message in err. */
static int run_helper(lx *x, dval_call *c, lx_sb *sb, char *layer,
                      char *mode, int *code, char *err, size_t cap)
{
    char pid[24], uid[24];
    dval__fmt(pid, sizeof pid, "%d", (int)sb->pid);
    dval__fmt(uid, sizeof uid, "%ld", lx_uid_base(sb));
    char *argv[10] = { NULL, LX_VERB_RESET, pid, sb->dir, layer,
                       lx_kv_num(&sb->kv, "network", 0) ? LX_NET_HOST
                       : LX_NET_NONE, mode, LX_OPT_UID, uid, NULL };
    pid_t hp;
    int rd;
    int rc = lx_spawn_output(x, c, argv, 1, &hp, &rd);
    if (rc != DVAL_OK)
        return rc;
    size_t n = 0;
    int64_t end = dval__now_ms() + 10000;
    for (;;) {
        struct pollfd p = { rd, POLLIN, 0 };
        int64_t left = end - dval__now_ms();
        int k = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            kill(hp, SIGKILL);
            break;
        }
        ssize_t r = read(rd, err + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || (n += (size_t)r) + 1 >= cap)
            break;
    }
    err[n] = 0;
    err[strcspn(err, "\n")] = 0;
    close(rd);
    lx_wait(hp, code);
    return DVAL_OK;
}

/* Asks the init itself for the keep tier (helper init_reset.c): its exit
 * code in *code; DVAL_EUNSUPPORTED when the init has no such socket (an
 * older init, a state path too long for a socket address). */
static int ask_init(dval_call *c, const lx_sb *sb, int *code)
{
    int s = lx_init_connect(sb);
    if (s < 0)
        return DVAL_EUNSUPPORTED;
    if (send(s, "reset", 5, MSG_NOSIGNAL) != 5) {
        close(s);
        return DVAL_EUNSUPPORTED;
    }
    char buf[16], eof;
    int64_t end = dval__now_ms() + 10000;
    ssize_t n = lx_init_recv(s, c, end, buf, sizeof buf - 1);
    /* the init closes its end once it is done with the reset: waiting for
     * that leaves nothing of this reset open in the init when we return */
    if (n > 0)
        lx_init_recv(s, c, end, &eof, 1);
    close(s);
    if (n <= 0)
        return DVAL_EIO; /* no answer: the init is in an unknown state */
    buf[n] = 0;
    *code = atoi(buf);
    return DVAL_OK;
}

/* The used image replaced by a spare (as a start places one); 0 when
 * there is one (else the layer would be a tmpfs: the full reset). */
static int fresh_image(lx *x, dval_call *c, lx_sb *sb, const char *img)
{
    if (unlink(img) < 0 && errno != ENOENT)
        return -1;
    return lx_disk_prepare(x, c, sb) == DVAL_OK && access(img, F_OK) == 0
           ? 0 : -1;
}

int lx_sb_reset_fast(lx *x, dval_call *c, lx_sb *sb)
{
    const char *full = getenv("DVAL_LOCAL_FULL_RESET"); /* "1", as documented */
    if ((full && !strcmp(full, "1")) || geteuid() != 0 || sb->pid <= 0)
        return DVAL_EUNSUPPORTED;
    char layer[4096];
    int rc = lx_snapshot_layer(x, c, lx_kv_get(&sb->kv, "snapshot"),
                               lx_kv_get(&sb->kv, "image"), layer,
                               sizeof layer);
    if (rc != DVAL_OK || layer[0] != '/')
        return DVAL_EUNSUPPORTED;
    char img[4200];
    dval__fmt(img, sizeof img, "%s/disk.img", sb->dir);
    int code = -1;
    char err[512] = "";
    /* first on the kept disk, by the init itself or else by a helper; a
     * disk the earlier use filled (or an init that keeps none) gets a
     * fresh image */
    rc = ask_init(c, sb, &code);
    if (rc == DVAL_EUNSUPPORTED)
        rc = run_helper(x, c, sb, layer, LX_RESET_KEEP, &code, err,
                        sizeof err);
    if (rc == DVAL_OK && code == LX_RESET_FRESH) {
        if (fresh_image(x, c, sb, img) < 0)
            return DVAL_EUNSUPPORTED;
        rc = run_helper(x, c, sb, layer, LX_RESET_NEW, &code, err,
                        sizeof err);
    }
    if (rc == DVAL_OK && code == 0 && only_init(x, sb) == 0)
        return DVAL_OK;
    if (code != LX_RESET_UNSUPPORTED)
        LX_LOG(x, DVAL_LOG_DEBUG, "local executor: fast reset of %s failed "
               "(exit %d: %s); resetting it the full way",
               lx_kv_get(&sb->kv, "name"), code, err);
    /* the image may have been mounted: never mount it twice */
    unlink(img);
    return rc != DVAL_OK ? rc : DVAL_EIO;
}
