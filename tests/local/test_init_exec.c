/* Commands started by the sandbox's init (helper init_exec.c) instead of
 * a helper per command: no process of the caller's runs for them, they
 * behave as the helper's did, their life line is the caller's
 * connection, and the init takes no harm from a bad request. */
#include "lt.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/local/protocol.h"

/* The start of /proc/<dir>/<file> into buf (NUL-terminated); its length,
 * 0 when it cannot be read */
static size_t proc_read(const char *dir, const char *file, char *buf,
                        size_t cap)
{
    char p[300];
    snprintf(p, sizeof p, "/proc/%.200s/%s", dir, file);
    FILE *f = fopen(p, "re");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return n;
}

/* How many children this process has (every thread's). */
static int our_children(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char task[300], buf[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(task, sizeof task, "self/task/%s", e->d_name);
        proc_read(task, "children", buf, sizeof buf);
        for (char *s = strtok(buf, " \n"); s; s = strtok(NULL, " \n"))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static int has_init_socket(lt *t)
{
    char p[700];
    snprintf(p, sizeof p, "%s/sandboxes/sb/%s", t->dir, LX_RESET_SOCK);
    return geteuid() == 0 && access(p, F_OK) == 0;
}

/* Fixture name with sandbox "sb" (options so, or NULL), whose init
 * starts commands; skips the test where none can */
static void open_with_socket(lt *t, const char *name,
                             dval_sandbox_options *so)
{
    lt_open(t, name);
    lt_sandbox(t, "sb", so);
    if (!has_init_socket(t))
        th_skip("no init socket here (not root, or no sandbox disk)");
}

/* Output of a started command (stdout and stderr) into a buffer */
static int collect(int stream, const char *data, size_t len, void *ud)
{
    (void)stream;
    return dval__buf_append(ud, data, len) < 0 ? DVAL_ENOMEM : DVAL_OK;
}

static void start(lt *t, const char *sid, const char *command, char *cmd)
{
    void *ud = t->ex.userdata;
    CHECK_INT(t->ex.session_create(ud, lt_call(t), "sb", sid), DVAL_OK);
    CHECK_INT(lt_start(t, lt_call(t), "sb", sid, command, cmd),
              DVAL_OK);
}

/* Waits for a started command; its code, its output into out. */
static int finish(lt *t, const char *sid, const char *cmd, dval__buf *out)
{
    void *ud = t->ex.userdata;
    void *st;
    int closed = 0, fin = 0, code = -1;
    CHECK_INT(t->ex.stream_open(ud, lt_call(t), "sb", sid, cmd, 0, 0, &st),
              DVAL_OK);
    while (!closed)
        CHECK_INT(t->ex.stream_read(ud, lt_call(t), st, collect, out,
                                    &closed), DVAL_OK);
    t->ex.stream_close(ud, st);
    for (int i = 0; i < 500 && !fin; i++) {
        CHECK_INT(t->ex.command_status(ud, lt_call(t), "sb", sid, cmd, &fin,
                                       &code), DVAL_OK);
        if (!fin)
            usleep(10000);
    }
    CHECK(fin);
    CHECK(dval__buf_append(out, "", 1) == 0);
    return code;
}

/* Starts "sleep 0.3; echo done; exit 4" in session sid; returns the
 * number of our children while it runs; checks its output and code. */
static int children_while_running(lt *t, const char *sid)
{
    char cmd[DVAL_ID_MAX];
    start(t, sid, "sleep 0.3; echo done; exit 4", cmd);
    int n = our_children();
    dval__buf out = { 0 };
    CHECK_INT(finish(t, sid, cmd, &out), 4);
    CHECK_STR(out.data, "done\n");
    dval__buf_free(&out);
    CHECK_INT(t->ex.session_delete(t->ex.userdata, lt_call(t), "sb", sid),
              DVAL_OK);
    return n;
}

TEST(test_init_exec__no_process_of_the_caller_runs_a_command)
{
    lt t;
    open_with_socket(&t, "ie-children", NULL);
    CHECK_INT(children_while_running(&t, "s1"), 0);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "echo $DVAL_SESSION | cut -d: -f2", &o), 0);
    CHECK(o.out.len > 0);
    lt_out_free(&o);
    lt_close(&t);
}

/* A caller (a child process) starts command in a session of "sb" and
 * dies 200 ms later; with a hold pipe it first forks a holder that keeps
 * a copy of every descriptor until the pipe's write end (ours) closes.
 * Returns once the caller is gone. */
static void doomed_caller(lt *t, const char *command, const int *hold)
{
    pid_t child = fork();
    if (child == 0) {
        void *ud = t->ex.userdata;
        char cmd[DVAL_ID_MAX], b;
        if (t->ex.session_create(ud, lt_call(t), "sb", "doomed") != DVAL_OK ||
            lt_start(t, lt_call(t), "sb", "doomed", command, cmd) != DVAL_OK)
            _exit(1);
        if (hold && fork() == 0) {
            close(hold[1]);
            _exit(read(hold[0], &b, 1) < 0);
        }
        usleep(200000);
        _exit(0);
    }
    int st;
    CHECK(waitpid(child, &st, 0) == child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* 1 while a process matching pattern (pgrep -f) runs in "sb", for up to
 * 2 s; 0 once none does. */
static int still_running(lt *t, const char *pattern)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "pgrep -fc '%s'", pattern);
    int left = 1;
    for (int i = 0; i < 100 && left; i++) {
        lt_out o = { 0 };
        left = lt_run(t, "sb", cmd, &o) == 0;
        lt_out_free(&o);
        if (left)
            usleep(20000);
    }
    return left;
}

/* The caller's process dies without a word: its connection closes, and
 * the waiter kills what the command left, detached or not. */
TEST(test_init_exec__the_callers_death_ends_its_commands)
{
    lt t;
    lt_open(&t, "ie-death");
    lt_sandbox(&t, "sb", NULL);
    doomed_caller(&t, "setsid sleep 71 & sleep 72", NULL);
    CHECK_INT(still_running(&t, "sleep 7[12]"), 0);
    lt_close(&t);
}

/* The same while a child the caller forked (no exec: it holds a copy of
 * every descriptor, the command's connection too) lives on: the caller's
 * process is what the command lives with. */
TEST(test_init_exec__a_forked_child_does_not_keep_a_dead_callers_command)
{
    lt t;
    lt_open(&t, "ie-fork");
    lt_sandbox(&t, "sb", NULL);
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (pidfd < 0) /* the connection alone then: a fork keeps it open */
        th_skip("no pidfd_open here (valgrind, or Linux before 5.3)");
    close(pidfd);
    int hold[2];
    CHECK(pipe2(hold, O_CLOEXEC) == 0);
    doomed_caller(&t, "setsid sleep 73 & sleep 74", hold);
    close(hold[0]);
    int left = still_running(&t, "sleep 7[34]");
    close(hold[1]); /* the holder ends now */
    CHECK_INT(left, 0);
    lt_close(&t);
}

/* Sends msg (len bytes) on a fresh connection to the init's socket with
 * nfds copies of /dev/null; the reply (NUL-terminated) into buf. */
static ssize_t ask(lt *t, const char *msg, size_t len, int nfds, char *buf,
                   size_t cap)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    CHECK(snprintf(a.sun_path, sizeof a.sun_path, "%.60s/sandboxes/sb/%s",
                   t->dir, LX_RESET_SOCK) < (int)sizeof a.sun_path);
    CHECK(strlen(t->dir) <= 60);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    CHECK(connect(s, (struct sockaddr *)&a, sizeof a) == 0);
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(4 * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)msg, len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    int fds[4];
    for (int i = 0; i < nfds; i++)
        fds[i] = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (nfds) {
        m.msg_control = ctl.space;
        m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(h), fds, nfds * sizeof(int));
    }
    CHECK(sendmsg(s, &m, 0) == (ssize_t)len);
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    ssize_t n = recv(s, buf, cap - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    close(s);
    return n;
}

/* How many descriptors the sandbox's init holds */
static int init_fds(lt *t)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%s/fd", lt_state_key(t, "sb", "pid"));
    DIR *d = opendir(p);
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Only host root reaches the socket, but the init must not trust a
 * request's shape: each bad one is refused, and the init serves on. */
TEST(test_init_exec__bad_requests_leave_the_init_serving)
{
    lt t;
    open_with_socket(&t, "ie-bad", NULL);
    char buf[256];
    int fds_before = init_fds(&t);
    static const char unterminated[] = "exec\0/\0--\0echo hi";
    static const char no_command[] = "exec\0/home/daytona";
    static const char good[] = "exec\0/home/daytona\0--\0exit 5";
    /* no output descriptors */
    CHECK(ask(&t, good, sizeof good, 0, buf, sizeof buf) > 0);
    CHECK(strstr(buf, "no output descriptors") != NULL);
    /* the last string not terminated: cut off, or a lie */
    CHECK(ask(&t, unterminated, sizeof unterminated - 1, 2, buf,
              sizeof buf) > 0);
    CHECK(strstr(buf, "malformed") != NULL);
    CHECK(ask(&t, no_command, sizeof no_command, 2, buf, sizeof buf) > 0);
    CHECK(strstr(buf, "malformed") != NULL);
    /* a third descriptor that is no pidfd (it would pass for the
     * caller's death and end every command at once) */
    CHECK(ask(&t, good, sizeof good, 3, buf, sizeof buf) > 0);
    CHECK(strstr(buf, "not the caller's pidfd") != NULL);
    /* four descriptors (output, error, the caller's pidfd and one
     * more the request does not name): refused, saying why */
    CHECK(ask(&t, good, sizeof good, 4, buf, sizeof buf) > 0);
    CHECK(strstr(buf, "more descriptors than the request names") != NULL);
    /* the right shape runs */
    CHECK(ask(&t, good, sizeof good, 2, buf, sizeof buf) == 3);
    CHECK_STR(buf, LX_REPLY_OK);
    /* neither a verb nor anything: the connection just ends */
    CHECK_INT((int)ask(&t, "hello", 5, 0, buf, sizeof buf), 0);
    /* nothing of the requests stayed open in the init (the one that
     * ran is the init's own command until the init sees it end); fewer
     * is no leak: what was open before may have ended meanwhile */
    for (int i = 0; i < 200 && init_fds(&t) > fds_before; i++)
        usleep(10000);
    CHECK(init_fds(&t) <= fds_before);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "echo still", &o), 0);
    CHECK_STR(o.out.data, "still\n");
    lt_out_free(&o);
    lt_close(&t);
}

/* The program attacks its own life line: it writes a forged exit code
 * into every descriptor of its parent (its waiter's connection, or the
 * init's when the init runs it) and of the init (its socket), through
 * /proc, looks for the socket's file, and signals its parent. None of
 * it works: the waiter and the init are root, the socket is outside its
 * root. */
TEST(test_init_exec__a_program_cannot_forge_its_code)
{
    lt t;
    lt_open(&t, "ie-forge");
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    int code = lt_run(&t, "sb",
                      "for f in /proc/$PPID/fd/3 /proc/$PPID/fd/* "
                      "/proc/1/fd/*; do\n"
                      "  printf '\\000' 2>/dev/null >$f && echo WROTE $f\n"
                      "done\n"
                      "find / -xdev -name " LX_RESET_SOCK " 2>/dev/null |"
                      " sed 's/^/FOUND /'\n"
                      "kill -KILL $PPID 2>/dev/null && echo KILLED\n"
                      "exit 7", &o);
    CHECK_INT(code, 7);
    CHECK(!o.out.data || (!strstr(o.out.data, "WROTE") &&
                          !strstr(o.out.data, "FOUND") &&
                          !strstr(o.out.data, "KILLED")));
    lt_out_free(&o);
    lt_close(&t);
}

/* 1 when a process of the host (the sandbox's included) runs "sleep
 * arg" */
static int sleeping(const char *arg)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        char buf[256];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        size_t n = proc_read(e->d_name, "cmdline", buf, sizeof buf);
        found = n > 6 && !strcmp(buf, "sleep") &&
                !strcmp(buf + 6, arg);
    }
    if (d)
        closedir(d);
    return found;
}

static int until_sleeping(const char *arg)
{
    for (int i = 0; i < 500 && !sleeping(arg); i++)
        usleep(10000);
    return sleeping(arg);
}

/* A command alone runs as the init's own child (no waiter: $PPID is 1);
 * one started while it runs gets a waiter. Each one's detached leftovers
 * die when it ends, and only its own: the first's end leaves the
 * second's running. */
TEST(test_init_exec__each_command_ends_what_it_left_and_only_that)
{
    lt t;
    open_with_socket(&t, "ie-two", NULL);
    char a[DVAL_ID_MAX], b[DVAL_ID_MAX];
    start(&t, "s1", "setsid sleep 41.5 >/dev/null 2>&1 & echo $PPID; "
          "sleep 1; exit 3", a);
    CHECK(until_sleeping("41.5"));
    start(&t, "s2", "setsid sleep 42.5 >/dev/null 2>&1 & echo $PPID; "
          "sleep 4; exit 4", b);
    CHECK(until_sleeping("42.5"));
    dval__buf out = { 0 };
    CHECK_INT(finish(&t, "s1", a, &out), 3);
    CHECK_STR(out.data, "1\n");
    CHECK(!sleeping("41.5")); /* gone before its code was sent */
    CHECK(sleeping("42.5"));
    dval__buf_free(&out);
    CHECK_INT(finish(&t, "s2", b, &out), 4);
    CHECK(strcmp(out.data, "1\n") != 0); /* its waiter's child */
    CHECK(!sleeping("42.5"));
    dval__buf_free(&out);
    lt_close(&t);
}

/* The CPU budget of the init's own command counts the processes it
 * left behind (an orphan burning CPU ends it, 128 + SIGXCPU) and not
 * those of a command beside it, which has a budget of its own. */
TEST(test_init_exec__the_budget_counts_the_commands_processes_only)
{
    lt t;
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.max_cpu_ms = 1500;
    open_with_socket(&t, "ie-budget", &so);
    char a[DVAL_ID_MAX], b[DVAL_ID_MAX];
    start(&t, "s1", "sleep 4; echo A-WENT-ON", a);
    start(&t, "s2", "(while :; do :; done) & (while :; do :; done) & "
          "wait; echo B-WENT-ON", b);
    dval__buf out = { 0 };
    CHECK_INT(finish(&t, "s2", b, &out), 128 + SIGXCPU);
    CHECK(!strstr(out.data, "B-WENT-ON"));
    dval__buf_free(&out);
    CHECK_INT(finish(&t, "s1", a, &out), 0);
    CHECK_CONTAINS(out.data, "A-WENT-ON");
    dval__buf_free(&out);
    /* alone again: the init's own; the loop is an orphan of its shell */
    start(&t, "s3", "(setsid sh -c 'while :; do :; done' &); sleep 8; "
          "echo C-WENT-ON", a);
    CHECK_INT(finish(&t, "s3", a, &out), 128 + SIGXCPU);
    CHECK(!strstr(out.data, "C-WENT-ON"));
    dval__buf_free(&out);
    /* the commands' rlimits were their own: the init that started them
     * has none (a CPU limit would end the sandbox's init in seconds) */
    char limits[4096];
    proc_read(lt_state_key(&t, "sb", "pid"), "limits", limits,
              sizeof limits);
    const char *cpu = strstr(limits, "Max cpu time");
    char soft[32] = "", hard[32] = "";
    CHECK(cpu && sscanf(cpu, "Max cpu time %31s %31s", soft, hard) == 2);
    CHECK_STR(soft, "unlimited");
    CHECK_STR(hard, "unlimited");
    lt_close(&t);
}
