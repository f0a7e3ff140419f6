/* The sandbox init's socket, <sbdir>/reset.sock (helper init_reset.c):
 * the fast reset (sandbox_reset.c) and the commands the init starts
 * (helper init_exec.c). Every init has it, an unisolated sandbox's too. */
#include "local.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int lx_init_connect(const lx_sb *sb)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int dir = -1;
    /* a state directory too deep for a socket address: reached through
     * a descriptor of it instead */
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s/" LX_RESET_SOCK,
                 sb->dir) >= (int)sizeof a.sun_path) {
        dir = open(sb->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
            return -1;
        snprintf(a.sun_path, sizeof a.sun_path,
                 "/proc/self/fd/%d/" LX_RESET_SOCK, dir);
    }
    /* non-blocking: a full backlog (EAGAIN) is not waited for */
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
                   0);
    int e = errno;
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        e = errno;
        close(s);
        s = -1;
    }
    if (dir >= 0)
        close(dir);
    errno = e;
    return s;
}

ssize_t lx_init_recv(int s, dval_call *c, int64_t end, char *buf,
                     size_t cap)
{
    for (;;) {
        struct pollfd p[2] = { { s, POLLIN, 0 },
                               { c ? c->cancel_fd : -1, POLLIN, 0 } };
        int64_t left = end - dval__now_ms();
        if (left <= 0 || (poll(p, 2, (int)left) < 0 && errno != EINTR) ||
            (p[1].revents & POLLIN))
            return -1;
        ssize_t n;
        if (p[0].revents && ((n = recv(s, buf, cap, MSG_DONTWAIT)) >= 0 ||
                             (errno != EINTR && errno != EAGAIN)))
            return n;
    }
}

/* The command's own cgroup.procs files the request names (LX_OPT_CMD_
 * CGROUP), opened into fds[*n...]: sent after the others, in order. */
static int open_cgroups(char **args, int *fds, size_t *n)
{
    for (size_t i = 0; args[i] && args[i + 1]; i++)
        if (!strcmp(args[i], LX_OPT_CMD_CGROUP)) {
            int fd = open(args[i + 1], O_WRONLY | O_CLOEXEC);
            if (fd < 0)
                return -1;
            fds[(*n)++] = fd;
        }
    return 0;
}

/* The request: sends msg with the command's output ends and a pidfd of
 * this process: the waiter also ends the command when this process ends,
 * even while a child forked without an exec still holds a copy of the
 * connection (a kernel without pidfds: the connection alone). */
static int send_request(int s, const dval__buf *msg, char **args, int out,
                        int err)
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(6 * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { msg->data, msg->len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = ctl.space,
                        .msg_controllen = sizeof ctl.space };
    int fds[6] = { out, err, (int)syscall(SYS_pidfd_open, getpid(), 0) };
    size_t nfds = fds[2] >= 0 ? 3 : 2;
    if (open_cgroups(args, fds, &nfds) < 0) {
        for (size_t i = 2; i < nfds; i++)
            close(fds[i]);
        return -1;
    }
    m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    memcpy(CMSG_DATA(h), fds, nfds * sizeof(int));
    ssize_t n;
    while ((n = sendmsg(s, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    for (size_t i = 2; i < nfds; i++) /* the pidfd, the cgroups' */
        close(fds[i]);
    return n == (ssize_t)msg->len ? 0 : -1;
}

static int request(const lx_sb *sb, char **args, int out, int err)
{
    dval__buf msg = { 0 };
    for (size_t i = 0; args[i]; i++)
        if (dval__buf_append(&msg, args[i], strlen(args[i]) + 1) < 0) {
            dval__buf_free(&msg);
            return -1;
        }
    errno = E2BIG;
    int s = msg.len <= LX_INIT_EXEC_MAX ? lx_init_connect(sb) : -1;
    if (s >= 0 && send_request(s, &msg, args, out, err) < 0) {
        close(s);
        s = -1;
    }
    dval__buf_free(&msg);
    return s;
}

int lx_init_exec(dval_call *c, const lx_sb *sb, char **args, int out,
                 int err, int *ctl)
{
    errno = ESRCH;
    int s = sb->pid > 0 ? request(sb, args, out, err) : -1;
    if (s < 0)
        return dval__call_fail(c, DVAL_EEXEC, "cannot reach the sandbox's "
                               "init: %s", strerror(errno));
    char buf[512];
    ssize_t n = lx_init_recv(s, c, dval__now_ms() + 10000, buf,
                             sizeof buf - 1);
    if (n == (ssize_t)strlen(LX_REPLY_OK) &&
        !memcmp(buf, LX_REPLY_OK, (size_t)n)) {
        *ctl = s;
        return DVAL_OK;
    }
    close(s); /* a waiter, if any, sees the end of its life line */
    struct pollfd cp = { c ? c->cancel_fd : -1, POLLIN, 0 };
    if (n <= 0)
        return n < 0 && poll(&cp, 1, 0) == 1
               ? dval__call_fail(c, DVAL_ECANCELED, "canceled")
               : dval__call_fail(c, DVAL_EEXEC, "the sandbox's init did "
                                 "not answer a command's start");
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return dval__call_fail(c, DVAL_EEXEC, "the sandbox's init could not "
                           "start the command: %s", buf);
}
