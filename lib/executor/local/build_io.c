/* Output of snapshot and image builds: each helper run's stdout+stderr is
 * pumped into the build log and, line by line as the lines come, to the
 * caller's build-log callback (the CLI prints it as progress). */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void note_last(lx_build_io *io, const char *d, size_t n)
{
    /* keep the last complete non-empty line (for error_reason) */
    size_t end = n;
    while (end > 0 && (d[end - 1] == '\n' || d[end - 1] == '\r'))
        end--;
    if (end == 0)
        return;
    size_t start = end;
    while (start > 0 && d[start - 1] != '\n')
        start--;
    dval__fmt(io->last, sizeof io->last, "%.*s", (int)(end - start),
              d + start);
}

static int emit(lx_build_io *io, const char *d, size_t n)
{
    if (!io->log || io->stopped || n == 0)
        return DVAL_OK;
    if (io->log(DVAL_STDOUT, d, n, io->log_ud) != 0) {
        io->stopped = 1;
        return DVAL_EABORTED;
    }
    return DVAL_OK;
}

/* Complete lines go to the callback at once; a partial line waits for
 * its end (or a full buffer, or the flush at the end of a run). */
static int to_callback(lx_build_io *io, const char *d, size_t n)
{
    int rc = DVAL_OK;
    while (n > 0 && rc == DVAL_OK) {
        const char *nl = memchr(d, '\n', n);
        size_t take = nl ? (size_t)(nl - d) + 1 : n;
        size_t room = sizeof io->part - io->npart;
        if (take > room)
            take = room;
        memcpy(io->part + io->npart, d, take);
        io->npart += take;
        d += take;
        n -= take;
        if (io->part[io->npart - 1] == '\n' || io->npart == sizeof io->part) {
            rc = emit(io, io->part, io->npart);
            io->npart = 0;
        }
    }
    return rc;
}

int lx_io_write(lx_build_io *io, const char *d, size_t n)
{
    int rc = DVAL_OK;
    for (; io && rc == DVAL_OK; io = io->also) {
        if (io->logfd >= 0 && write(io->logfd, d, n) != (ssize_t)n)
            return DVAL_EIO;
        note_last(io, d, n);
        rc = to_callback(io, d, n);
    }
    return rc;
}

void lx_io_flush(lx_build_io *io)
{
    for (; io; io = io->also) {
        emit(io, io->part, io->npart);
        io->npart = 0;
    }
}

void lx_io_line(lx_build_io *io, const char *line)
{
    lx_io_write(io, line, strlen(line));
    lx_io_flush(io);
}

/* Pumps the build output until EOF, deadline or cancel. */
static int pump(dval_call *c, int fd, int64_t end, lx_build_io *io)
{
    char buf[65536];
    for (;;) {
        int64_t left = end - dval__now_ms();
        if (left <= 0)
            return dval__call_fail(c, DVAL_ETIMEOUT, "build timed out");
        struct pollfd p[2] = { { fd, POLLIN, 0 },
                               { c ? c->cancel_fd : -1, POLLIN, 0 } };
        if (poll(p, 2, left > 1000 ? 1000 : (int)left) < 0 && errno != EINTR)
            return dval__call_fail(c, DVAL_EEXEC, "poll: %s", strerror(errno));
        if (p[1].revents & POLLIN)
            return dval__call_fail(c, DVAL_ECANCELED, "build canceled");
        if (!p[0].revents)
            continue;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return DVAL_OK;
        int rc = lx_io_write(io, buf, (size_t)n);
        if (rc == DVAL_EIO)
            return dval__call_fail(c, rc, "cannot write the build log");
        if (rc != DVAL_OK)
            return dval__call_fail(c, rc, "build log callback stopped the "
                                   "build");
    }
}

int lx_run_step(lx *x, dval_call *c, char **argv, int64_t end,
                lx_build_io *io, int *code)
{
    pid_t pid;
    int rd;
    int rc = lx_spawn_output(x, c, argv, &pid, &rd);
    if (rc == DVAL_OK) {
        rc = pump(c, rd, end, io);
        if (rc != DVAL_OK)
            kill(-pid, SIGKILL); /* the helper's group holds the build ns */
        lx_wait(pid, code);
        close(rd);
    }
    lx_io_flush(io);
    return rc;
}
