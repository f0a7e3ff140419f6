/* The fast path of sandbox_reset (sandbox.c do_reset): the sandbox's
 * init resets the sandbox itself on a request over its socket
 * (libexec/dval-local-helper/init_reset.c): it keeps its namespaces,
 * kills every other process of the sandbox, removes its IPC objects and
 * pivots it into a new overlay on fresh directories of its kept disk.
 * The full reset (a new init) costs the namespaces' creation and
 * teardown (the network one above all), the init's setup (~25 mounts)
 * and the cgroups' removal and creation; this one only the new upper
 * layer. Anything it cannot rule out (a disk the earlier use filled, an
 * init that cannot reset: no host root, no image root or no disk) makes
 * it fail, and the caller then does the full reset. */
#include "local.h"
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* The init's reply to the reset (helper init_reset.c): its exit code,
 * LX_RESET_UNSUPPORTED from an init that cannot do it; -1 when it cannot
 * be reached (every init has the socket: it is gone) or gave no answer
 * (it is in an unknown state). */
static int ask_init(dval_call *c, const lx_sb *sb)
{
    int s = lx_init_connect(sb);
    if (s < 0)
        return -1;
    char buf[16], eof;
    ssize_t n = -1;
    if (send(s, "reset", 5, MSG_NOSIGNAL) == 5) {
        int64_t end = dval__now_ms() + 10000;
        n = lx_init_recv(s, c, end, buf, sizeof buf - 1);
        /* the init closes its end once it is done with the reset: waiting
         * for that leaves nothing of this reset open in the init */
        if (n > 0)
            lx_init_recv(s, c, end, &eof, 1);
    }
    close(s);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return atoi(buf);
}

int lx_sb_reset_fast(lx *x, dval_call *c, lx_sb *sb)
{
    /* an operator's switch, in dval_executor(3) since 1.0.0 */
    const char *full = getenv("DVAL_LOCAL_FULL_RESET");
    if ((full && !strcmp(full, "1")) || sb->pid <= 0)
        return DVAL_EUNSUPPORTED;
    int code = ask_init(c, sb);
    if (code == 0 && only_init(x, sb) == 0)
        return DVAL_OK;
    if (code >= 0 && code != LX_RESET_UNSUPPORTED)
        LX_LOG(x, DVAL_LOG_DEBUG, "local executor: fast reset of %s failed "
               "(exit %d); resetting it the full way",
               lx_kv_get(&sb->kv, "name"), code);
    return DVAL_EIO;
}
