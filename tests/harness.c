/* Test runner main(): fork per test (libuv model), alarm() timeout in the
 * child, "-s substring" selects tests, "-t seconds" sets the timeout,
 * DVAL_TEST_TIMEOUT scales it (valgrind/sanitizer runs). */
#include "harness.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TH_MAX 1024
#define TH_SKIP_CODE 77

static struct { const char *name; th_fn fn; } tests[TH_MAX];
static int ntests;
static unsigned timeout_scale = 1;

void th_register(const char *name, th_fn fn)
{
    if (ntests < TH_MAX) {
        tests[ntests].name = name;
        tests[ntests].fn = fn;
        ntests++;
    }
}

#define TH_AT_END_MAX 8
static struct { void (*fn)(void *); void *ud; } at_end[TH_AT_END_MAX];
static int n_at_end;

void th_at_end(void (*fn)(void *), void *ud)
{
    if (n_at_end < TH_AT_END_MAX) {
        at_end[n_at_end].fn = fn;
        at_end[n_at_end].ud = ud;
        n_at_end++;
    }
}

void th_at_end_drop(void *ud)
{
    int kept = 0;
    for (int i = 0; i < n_at_end; i++)
        if (at_end[i].ud != ud)
            at_end[kept++] = at_end[i];
    n_at_end = kept;
}

/* a cleanup that fails calls th_fail again: it is popped before it runs */
static void run_at_end(void)
{
    while (n_at_end > 0) {
        n_at_end--;
        at_end[n_at_end].fn(at_end[n_at_end].ud);
    }
}

void th_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    run_at_end();
    _exit(1);
}

void th_skip(const char *why)
{
    fprintf(stderr, "    skipped: %s\n", why);
    fflush(stderr);
    run_at_end();
    _exit(TH_SKIP_CODE);
}

void th_timeout(unsigned s)
{
    alarm(s * timeout_scale);
}

static char step[512];

void th_step(const char *what)
{
    snprintf(step, sizeof step, "%s", what ? what : "");
}

/* The child's timeout: the step it hung in, then the default death the
 * parent reports (write and raise are async-signal-safe). */
static void on_alarm(int sig)
{
    if (step[0]) {
        static const char pre[] = "    timed out; last step begun: ";
        (void)!write(2, pre, sizeof pre - 1);
        (void)!write(2, step, strnlen(step, sizeof step));
        (void)!write(2, "\n", 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int run_one(int i, unsigned timeout)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        signal(SIGALRM, on_alarm);
        alarm(timeout);
        tests[i].fn();
        fflush(stdout);
        exit(0); /* exit (not _exit) so atexit leak checkers run */
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "    killed by signal %d%s\n", WTERMSIG(st),
                WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *filter = NULL;
    unsigned timeout = 60;
    int nofork_list = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            timeout = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-l"))
            nofork_list = 1;
    }
    const char *scale = getenv("DVAL_TEST_TIMEOUT_SCALE");
    if (scale && atoi(scale) > 1)
        timeout_scale = (unsigned)atoi(scale);
    timeout *= timeout_scale;
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter))
            continue;
        if (nofork_list) {
            printf("%s\n", tests[i].name);
            continue;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = run_one(i, timeout);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) +
                      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (rc == 0) {
            passed++;
            /* the time shows which tests the CI budget goes to */
            printf("ok   %s (%.1f s)\n", tests[i].name, secs);
        } else if (rc == TH_SKIP_CODE) {
            skipped++;
            printf("skip %s\n", tests[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        }
        fflush(stdout);
    }
    if (nofork_list)
        return 0;
    if (th_suite_done)
        th_suite_done();
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
