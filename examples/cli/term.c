/* Terminal presentation. Program output goes to the descriptor it came
 * from, byte for byte off a terminal and made inert on one (safeterm.c,
 * unless --raw-output); progress lines go to stderr only, and only on a
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
static int tty;             /* stderr is a terminal */
static int live;            /* a live (retry) line is on screen */
static int inert[3];        /* fd 1, 2: a terminal the program's output
                             * is filtered for */
static safeterm st_out[3];  /* and the filter's state per fd */

void term_init(int v, int raw)
{
    tty = isatty(2);
    inert[1] = !raw && isatty(1);
    inert[2] = !raw && tty;
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

static void live_clear(void)
{
    if (live)
        write_all(2, "\r\033[K", 4);
    live = 0;
}

/* Our own text (progress, problems): as it is. */
static void own_out(int fd, const char *data, size_t len)
{
    live_clear();
    if (fd == 1)
        fflush(stdout);   /* keep our own stdout writes in order */
    write_all(fd, data, len);
    if (fd == 2 && len > 0)
        err_mid_line = data[len - 1] != '\n';
}

void term_out(int fd, const char *data, size_t len)
{
    if (fd < 1 || fd > 2 || !inert[fd]) {
        own_out(fd, data, len);
        return;
    }
    char buf[SAFETERM_OUT(4096)];
    for (size_t at = 0, n; at < len; at += n) {
        n = len - at < 4096 ? len - at : 4096;
        own_out(fd, buf, safeterm_filter(&st_out[fd], data + at, n, buf));
    }
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
    own_out(2, buf, (size_t)n);
}

void term_done(void)
{
    live_clear();
    char buf[SAFETERM_OUT(0)];
    for (int fd = 1; fd <= 2; fd++)
        if (inert[fd])
            own_out(fd, buf, safeterm_flush(&st_out[fd], buf));
}

/* A failure in words, always shown: what failed and why, then what to do. */
void term_problem(const char *message, const char *hint)
{
    live_clear();
    fflush(stderr);
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s%s: %s%s%s\n", err_mid_line ? "\n"
                     : "", cli_prog, c("\033[1;31m"), message, c("\033[0m"));
    if (n > 0)
        own_out(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    if (hint && *hint) {
        n = snprintf(buf, sizeof buf, "%s: hint: %s\n", cli_prog, hint);
        if (n > 0)
            own_out(2, buf,
                    (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    }
}

void term_verdict(const char *verdict, const char *detail)
{
    live_clear();
    fflush(stderr);
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s%s: verdict %s%s%s%s%s\n",
                     err_mid_line ? "\n" : "", cli_prog, c("\033[1m"),
                     verdict, c("\033[0m"), *detail ? ": " : "", detail);
    if (n > 0)
        own_out(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
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

/* "ok" in green, or "failed"/"canceled" in red with the reason in words;
 * a program that ran but exited non-zero is a failure too. */
static void phase_done_line(const dval_event *ev)
{
    const char *d = ev->detail ? ev->detail : "";
    int code = 0;
    int exec_failed = ev->status == DVAL_OK &&
                      (!strcmp(ev->phase, "run") ||
                       !strcmp(ev->phase, "build")) &&
                      sscanf(d, "exit code %d", &code) == 1 && code != 0;
    if (ev->status == DVAL_OK && !exec_failed) {
        status_line("%s>> %-8s%s %sok%s     %6lld ms  %s", c("\033[1;34m"),
                    ev->phase, c("\033[0m"), c("\033[32m"), c("\033[0m"),
                    (long long)ev->elapsed_ms, d);
        return;
    }
    const char *word = ev->status == DVAL_ECANCELED ? "canceled" : "failed";
    const char *why = exec_failed ? d
                      : ev->status == DVAL_ECANCELED ? ""
                                                     : dval_strerror(ev->status);
    status_line("%s>> %-8s%s %s%-7s%s %6lld ms  %s%s%s", c("\033[1;34m"),
                ev->phase, c("\033[0m"), c("\033[31m"), word, c("\033[0m"),
                (long long)ev->elapsed_ms, c("\033[31m"), why, c("\033[0m"));
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
            !strcmp(ev->phase, "build") || !strcmp(ev->phase, "run"))
            status_line("%s>> %s%s", c("\033[1;34m"), ev->phase,
                        c("\033[0m"));
    } else if (ev->type == DVAL_EVENT_PHASE) {
        phase_done_line(ev);
    }
}

/* The library's retry message, "<what>: attempt N/M failed (<CODE>:
 * <why>); retrying in D ms", as one line rewritten in place. */
static int live_retry(const char *msg)
{
    const char *a = strstr(msg, ": attempt ");
    const char *r = strstr(msg, "; retrying in ");
    int n = 0, m = 0;
    long long ms = 0;
    if (!a || !r || sscanf(a, ": attempt %d/%d", &n, &m) != 2 ||
        sscanf(r, "; retrying in %lld ms", &ms) != 1)
        return 0;
    const char *why = strstr(a, "failed (");
    why = why ? strchr(why, ':') : NULL;   /* skip the status name */
    why = why ? why + 2 : "";
    int wlen = (int)(r - why - 1);
    if (wlen < 0 || wlen > 90)
        wlen = wlen < 0 ? 0 : 90;
    char buf[512];
    int len = snprintf(buf, sizeof buf, "\r\033[K%s   %.*s: %.*s; retry %d "
                       "of %d in %.1f s%s", c("\033[33m"), (int)(a - msg),
                       msg, wlen, why, n, m - 1, (double)ms / 1000,
                       c("\033[0m"));
    if (err_mid_line)
        own_out(2, "\n", 1);
    write_all(2, buf, len > 0 && (size_t)len < sizeof buf ? (size_t)len
                                                          : sizeof buf - 1);
    live = 1;
    return 1;
}

/* Library log lines name statuses (DVAL_ENETWORK): show the words. */
static void words_for_names(const char *msg, char *out, size_t cap)
{
    size_t n = 0;
    while (*msg && n + 1 < cap) {
        if (!strncmp(msg, "DVAL_E", 6)) {
            size_t len = 5 + strspn(msg + 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
            const char *w = NULL;
            for (int code = -1; code >= -64 && !w; code--)
                if (strlen(dval_status_name(code)) == len &&
                    !strncmp(dval_status_name(code), msg, len))
                    w = dval_strerror(code);
            if (w) {
                n += (size_t)snprintf(out + n, cap - n, "%s", w);
                n = n < cap ? n : cap - 1;
                msg += len;
                continue;
            }
        }
        out[n++] = *msg++;
    }
    out[n] = '\0';
}

int term_wants_log(void)
{
    return tty || verbose;
}

void term_log(int level, const char *msg, void *ud)
{
    static const char *names[] = {"", "error", "warn", "info", "debug"};
    (void)ud;
    /* on a terminal a retry is one live line, rewritten in place */
    if (tty && live_retry(msg))
        return;
    /* the outer "attempt" message of the same failure: a second counter */
    if (tty && live && strstr(msg, ": attempt "))
        return;
    if (!verbose)
        return;
    char text[2048];
    words_for_names(msg, text, sizeof text);
    status_line("%s[%s] %s%s", c("\033[2m"),
                level >= 1 && level <= 4 ? names[level] : "log", text,
                c("\033[0m"));
}
