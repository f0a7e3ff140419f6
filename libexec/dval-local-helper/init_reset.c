/* The init's socket: the fast reset done by the sandbox's init itself
 * (reset_inside.c), on a request from the library, and the commands it
 * starts (init_exec.c): no helper exec'd, no namespaces joined, no fork.
 * An init without this socket is reset the full way (a new init).
 *
 * The socket is <sbdir>/reset.sock, made by the helper in the host's
 * network and mount namespaces before the clone: only host root reaches
 * the state directory (0700; not in the sandbox's root), and the socket
 * is no socket of the sandbox's network namespace (the reset requires
 * that namespace to have none). Request "reset", reply the decimal exit
 * code of reset_inside (0: done). */
#include "helper.h"
#include "reset.h"
#include "init_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
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
             listen(s, 64) == 0; /* commands of a shared sandbox */
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

/* One request and the fds that came with it (at most INIT_EXEC_FDS,
 * O_CLOEXEC, in fds); its length, or -1 (nothing usable: too long, cut,
 * no data, or more fds than that: every one of them then closed). */
static ssize_t receive(int c, char *buf, size_t cap, int fds[INIT_EXEC_FDS])
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(4 * INIT_EXEC_FDS * sizeof(int))];
    } ctl;
    struct iovec iov = { buf, cap };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = ctl.space,
                        .msg_controllen = sizeof ctl.space };
    struct pollfd p = { c, POLLIN, 0 };
    ssize_t n = poll(&p, 1, 1000) == 1 ? recvmsg(c, &m, MSG_CMSG_CLOEXEC)
                                       : -1;
    size_t got = 0;
    for (struct cmsghdr *h = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; h;
         h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++, got++) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
            if (got < INIT_EXEC_FDS)
                fds[got] = fd;
            else
                close(fd);
        }
    }
    if (n >= 0 && got <= INIT_EXEC_FDS &&
        !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
        return n;
    for (int i = 0; i < INIT_EXEC_FDS; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
    return -1;
}

/* An init that cannot do the fast reset (init_resets): the full one */
static void refuse_reset(int c)
{
    char out[16];
    snprintf(out, sizeof out, "%d", LX_RESET_UNSUPPORTED);
    write_str(c, out);
}

void init_reset_serve(int lfd, int share_net, long uid_base)
{
    static char req[LX_INIT_EXEC_MAX];
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    int fds[INIT_EXEC_FDS] = { -1, -1, -1, -1, -1, -1 };
    ssize_t n = receive(c, req, sizeof req, fds);
    size_t verb = sizeof LX_VERB_EXEC;
    int kept = 0;
    if (n == 5 && !memcmp(req, "reset", 5) && !init_resets())
        refuse_reset(c);
    else if (n == 5 && !memcmp(req, "reset", 5))
        reset_serve(c, share_net, uid_base);
    else if (n > (ssize_t)verb && !memcmp(req, LX_VERB_EXEC, verb))
        kept = init_exec_start(c, req + verb, (size_t)n - verb, fds);
    for (int i = 0; i < INIT_EXEC_FDS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (!kept)
        close(c);
}
