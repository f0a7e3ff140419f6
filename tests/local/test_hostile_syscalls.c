/* Hostile programs against the seccomp filter (libexec/dval-local-helper/
 * seccomp.c), run through the public API: tests/local/hostile_syscalls.c
 * tries the dangerous use of each call the filter refuses or allows only
 * in part, inside a sandbox, and on the host (as root, and as an
 * unprivileged uid where that is the point) to show that the same attack
 * works there, so that a weaker filter would fail the test. */
#include "hostile.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* mode run inside sandbox "sb": its output (free) */
static char *inside(hx *h, const char *bin, const char *mode)
{
    char script[128];
    snprintf(script, sizeof script, "chmod +x attack && ./attack %s\n",
             mode);
    const char *files[] = { bin, NULL };
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(h, "sb", NULL, script, files, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    return out;
}

/* mode run on the host, as root or (user) as uid/gid 65534: its output */
static char *on_host(const char *bin, const char *mode, int user)
{
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        if (user && (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
                     setuid(65534) < 0))
            _exit(90);
        execl(bin, bin, mode, (char *)NULL);
        _exit(91);
    }
    close(p[1]);
    size_t len = 0, cap = 1 << 16;
    char *out = malloc(cap);
    ssize_t n;
    while (out && len + 1 < cap &&
           (n = read(p[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    CHECK(out != NULL);
    out[len] = 0;
    close(p[0]);
    waitpid(pid, NULL, 0);
    return out;
}

/* The result printed for what ("made" or an errno name), "?" if none. */
static const char *res(const char *out, const char *what, char *buf,
                       size_t cap)
{
    size_t n = strlen(what);
    for (const char *l = out; l && *l; l = strchr(l, '\n') + 1) {
        if (!strncmp(l, what, n) && l[n] == ' ') {
            snprintf(buf, cap, "%.*s", (int)strcspn(l + n + 1, "\n"),
                     l + n + 1);
            return buf;
        }
        if (!strchr(l, '\n'))
            break;
    }
    return "?";
}

typedef struct probe {
    hx h;
    char bin[700];
    char *in, *root, *user;
} probe;

static void probe_run(probe *p, const char *name, const char *mode)
{
    hx_open(&p->h, name);
    hx_compile(&p->h, "hostile_syscalls.c", p->bin, sizeof p->bin);
    p->in = inside(&p->h, p->bin, mode);
    p->root = on_host(p->bin, mode, 0);
    p->user = on_host(p->bin, mode, 1);
    CHECK(!strstr(p->in, "BROKEN")); /* what the runtimes need still works */
    CHECK(!strstr(p->in, " made\n"));
}

static void probe_close(probe *p)
{
    free(p->in);
    free(p->root);
    free(p->user);
    hx_close(&p->h);
}

/* For each of what (a printf format over 0..n-1) that this kernel has
 * (root on the host gets anything but absent), the sandbox gets want:
 * the filter's answer, which no capability check gives. The number of
 * those the host's unprivileged uid could make. */
static int compare(const probe *p, const char *fmt, int n,
                   const char *absent, const char *want, int *has)
{
    int user_made = 0;
    for (int i = 0; i < n; i++) {
        char what[64], a[64], b[64], c[64];
        snprintf(what, sizeof what, fmt, i);
        const char *r = res(p->root, what, a, sizeof a);
        if (!strcmp(r, "?") || !strcmp(r, absent))
            continue;
        const char *u = res(p->user, what, b, sizeof b);
        const char *in = res(p->in, what, c, sizeof c);
        fprintf(stderr, "    %-14s host root %-15s host user %-15s "
                "sandbox %s\n", what, r, u, in);
        CHECK_STR(in, want);
        user_made += !strcmp(u, "made");
        (*has)++;
    }
    return user_made;
}

/* Issue 43: socket(AF_VSOCK) worked inside, and bind reached the
 * machine's vsock port space. Every family but unix, inet, inet6 and
 * netlink (NETLINK_ROUTE only) is refused, and so is every inet
 * protocol but TCP, UDP and ICMP. */
TEST(test_hostile_syscalls__socket_families_outside_the_allow_list)
{
    probe p;
    probe_run(&p, "sc-sock", "sockets");
    int has = 0, user = compare(&p, "socket %d", AF_MAX + 4, "EAFNOSUPPORT",
                                "EAFNOSUPPORT", &has);
    CHECK(has > 0); /* AF_PACKET at least: the test can fail */
    fprintf(stderr, "    %d families of this kernel refused inside; the "
            "host's unprivileged uid makes %d of them\n", has, user);
    int nl = 0, in = 0;
    compare(&p, "netlink %d", 32, "EPROTONOSUPPORT", "EPROTONOSUPPORT", &nl);
    compare(&p, "inet %d", 300, "EPROTONOSUPPORT", "EPROTONOSUPPORT", &in);
    CHECK(nl > 0);
    char buf[64];
    CHECK_STR(res(p.in, "socketpair 40", buf, sizeof buf), "EAFNOSUPPORT");
    probe_close(&p);
}

/* personality: only PER_LINUX and the query; the host's unprivileged uid
 * turns address randomisation off (ADDR_NO_RANDOMIZE) and makes data
 * executable (READ_IMPLIES_EXEC). */
TEST(test_hostile_syscalls__personality_only_linux)
{
    probe p;
    probe_run(&p, "sc-pers", "personality");
    char buf[64];
    CHECK_STR(res(p.in, "personality ADDR_NO_RANDOMIZE", buf, sizeof buf),
              "EPERM");
    CHECK_STR(res(p.user, "personality ADDR_NO_RANDOMIZE", buf, sizeof buf),
              "made");
    CHECK_STR(res(p.user, "personality READ_IMPLIES_EXEC", buf, sizeof buf),
              "made");
    probe_close(&p);
}

/* prctl is allowed (thread names): what would reach past the sandbox
 * needs capabilities the command has not. */
TEST(test_hostile_syscalls__prctl_cannot_regain_privileges)
{
    probe p;
    probe_run(&p, "sc-prctl", "prctl");
    char buf[64];
    CHECK_STR(res(p.in, "prctl PR_SET_NO_NEW_PRIVS 0", buf, sizeof buf),
              "EINVAL");
    fprintf(stderr, "    host root:\n%s", p.root);
    probe_close(&p);
}

/* seccomp is allowed: a filter the program adds, even one allowing
 * everything, cannot lift the sandbox's. */
TEST(test_hostile_syscalls__own_filter_cannot_lift_the_sandbox_filter)
{
    probe p;
    probe_run(&p, "sc-filter", "seccomp");
    char buf[64];
    CHECK_STR(res(p.in, "after it: keyctl", buf, sizeof buf), "EPERM");
    CHECK_STR(res(p.in, "after it: unshare(CLONE_NEWUSER)", buf, sizeof buf),
              "EPERM");
    CHECK_STR(res(p.root, "after it: keyctl", buf, sizeof buf), "made");
    probe_close(&p);
}

/* ptrace's kin (pidfd_getfd takes another process's descriptors, kcmp
 * and process_madvise look into it), the LDT, fanotify: refused, even on
 * the program's own child. Calls newer than the filter's review are
 * ENOSYS. */
TEST(test_hostile_syscalls__ptrace_kin_ldt_and_unreviewed_calls)
{
    probe p;
    probe_run(&p, "sc-kin", "kin");
    char buf[64];
    static const char *const refused[] = { "pidfd_getfd", "kcmp",
                                           "process_madvise",
                                           "modify_ldt write",
                                           "fanotify_init" };
    for (int i = 0; i < 5; i++)
        CHECK_STR(res(p.in, refused[i], buf, sizeof buf), "EPERM");
    CHECK_STR(res(p.root, "pidfd_getfd", buf, sizeof buf), "made");
    for (int nr = 451; nr <= 470; nr++) {
        char what[32];
        snprintf(what, sizeof what, "syscall %d", nr);
        CHECK_STR(res(p.in, what, buf, sizeof buf), "ENOSYS");
    }
    fprintf(stderr, "    host root:\n%s", p.root);
    probe_close(&p);
}
