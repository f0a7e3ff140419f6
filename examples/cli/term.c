/* Terminal presentation. Program output is written byte for byte to the
 * descriptor it came from; progress lines go to stderr only, and only on a
 * terminal or with --verbose, so scripts reading stdout never see them. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int progress;        /* show phase/state lines */
static int verbose;
static int color;
static int err_mid_line;    /* last byte written to stderr was not '\n' */

void term_init(int v)
{
    int tty = isatty(2);
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    verbose = v;
    progress = tty || v;
    /* https://no-color.org: any non-empty NO_COLOR disables colour */
    color = tty && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}

int term_progress(void)
{
    return progress;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;   /* a closed pipe: nothing useful left to do */
        }
        p += w;
        n -= (size_t)w;
    }
}

void term_out(int fd, const char *data, size_t len)
{
    if (fd == 1)
        fflush(stdout);   /* keep our own stdout writes in order */
    write_all(fd, data, len);
    if (fd == 2 && len > 0)
        err_mid_line = data[len - 1] != '\n';
}

static const char *c(const char *code)
{
    return color ? code : "";
}

/* One progress line on stderr, starting on a fresh line even when the
 * program's stderr stopped mid-line. */
static void line(const char *fmt, va_list ap)
{
    char buf[2048];
    int n = 0;
    if (err_mid_line)
        buf[n++] = '\n';
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    n += m < (int)(sizeof buf) - n - 1 ? m : (int)(sizeof buf) - n - 2;
    buf[n++] = '\n';
    fflush(stderr);
    term_out(2, buf, (size_t)n);
}

void term_status(const char *fmt, ...)
{
    if (!progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    line(fmt, ap);
    va_end(ap);
}

static void status_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(fmt, ap);
    va_end(ap);
}

void term_event(const dval_event *ev)
{
    if (ev->type == DVAL_EVENT_BUILD_LOG) {
        /* build logs can be long: only when asked for */
        if (verbose)
            term_out(2, ev->data, ev->len);
        return;
    }
    if (!progress)
        return;
    if (ev->type == DVAL_EVENT_STATE) {
        status_line("%s   %s: %s%s", c("\033[2m"),
                    ev->detail ? ev->detail : "sandbox",
                    dval_sandbox_state_name(ev->state), c("\033[0m"));
    } else if (ev->type == DVAL_EVENT_PHASE && !ev->done) {
        /* the long phases announce themselves; the rest only report */
        if (verbose || !strcmp(ev->phase, "snapshot") ||
            !strcmp(ev->phase, "exec"))
            status_line("%s>> %s%s", c("\033[1;34m"), ev->phase,
                        c("\033[0m"));
    } else if (ev->type == DVAL_EVENT_PHASE) {
        if (ev->status == DVAL_OK)
            status_line("%s>> %-8s%s %sok%s %6lld ms  %s", c("\033[1;34m"),
                        ev->phase, c("\033[0m"), c("\033[32m"),
                        c("\033[0m"), (long long)ev->elapsed_ms,
                        ev->detail ? ev->detail : "");
        else
            status_line("%s>> %-8s%s %s%s%s %6lld ms", c("\033[1;34m"),
                        ev->phase, c("\033[0m"), c("\033[31m"),
                        dval_status_name(ev->status), c("\033[0m"),
                        (long long)ev->elapsed_ms);
    }
}

void term_log(int level, const char *msg, void *ud)
{
    static const char *names[] = {"", "error", "warn", "info", "debug"};
    (void)ud;
    status_line("%s[%s] %s%s", c("\033[2m"),
                level >= 1 && level <= 4 ? names[level] : "log", msg,
                c("\033[0m"));
}
