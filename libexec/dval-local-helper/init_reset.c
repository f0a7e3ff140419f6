/* The fast reset done by the sandbox's init itself, on a request from the
 * library: no helper exec'd, no namespaces joined, no fork (reset.c does
 * the same work from a helper; it stays the fallback, and the only way
 * for an init without this socket).
 *
 * The socket is <sbdir>/reset.sock, made by the helper in the host's
 * network and mount namespaces before the clone: only host root reaches
 * the state directory (0700; not in the sandbox's root), and the socket
 * is no socket of the sandbox's network namespace (the reset requires
 * that namespace to have none). Request "reset", reply the decimal exit
 * code of reset_inside (0: done). */
#include "helper.h"
#include "reset.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "executor/local/protocol.h"

#define RESET_SOCK LX_RESET_SOCK

int init_reset_listen(const char *sbdir)
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", RESET_SOCK);
    /* relative to the state directory: its path may not fit sun_path */
    int ok = s >= 0 && cwd >= 0 && chdir(sbdir) == 0;
    if (ok) {
        unlink(RESET_SOCK); /* an earlier init's */
        ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
             listen(s, 4) == 0;
    }
    if (cwd >= 0) {
        if (fchdir(cwd) < 0)
            ok = 0;
        close(cwd);
    }
    if (!ok && s >= 0) {
        close(s);
        s = -1;
    }
    return s;
}

void init_reset_serve(int lfd, int share_net, long uid_base)
{
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    char req[16];
    struct pollfd p = { c, POLLIN, 0 };
    ssize_t n = poll(&p, 1, 1000) == 1 ? read(c, req, sizeof req - 1) : -1;
    if (n == 5 && !memcmp(req, "reset", 5)) {
        struct reset_req r = { 1, -1, -1, -1, share_net, uid_base,
                               { -1, -1 } };
        reset_keeper_at(KEEPER_FD, KEEPER_ROOT_FD, &r.keeper);
        char out[16];
        snprintf(out, sizeof out, "%d", reset_inside(&r));
        write_str(c, out);
    }
    close(c);
}
