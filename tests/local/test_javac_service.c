/* The java snapshot's compile service (lib/javac_service.h): it gives the
 * same results as plain javac (output, exit code, diagnostics, class
 * files), and a hostile validation can neither make it read or write
 * outside what it was sent, nor overload it with a huge request, nor
 * replace, squat, start or kill it. Every attack runs inside the sandbox
 * as a validation's command, for real. */
#include "lt.h"
#include "javac_service.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define JIMG "bellsoft/liberica-openjdk-debian:25-cds"
#define TRACE "export DVAL_JAVAC_TRACE=1; "
#define SVC JAVA_RUN
#define PLAIN "export DVAL_JAVAC_SERVICE=0; " JAVA_RUN

static const char main_java[] =
    "package app;\nimport java.util.*;\npublic class Main {\n"
    "  record P(int x) { }\n"
    "  public static void main(String[] a) {\n"
    "    List<Integer> l = new ArrayList<>(List.of(3, 1, 2));\n"
    "    Collections.sort(l);\n"
    "    Runnable r = () -> System.out.println(\"sorted \" + l + new P(4));\n"
    "    r.run(); System.out.println(util.U.twice(21)); } }\n";
static const char util_java[] =
    "package util;\npublic class U { public static int twice(int x) "
    "{ return 2 * x; } }\n";
static const char bad_java[] =
    "public class Main { public static void main(String[] a) {\n"
    "  int x = \"s\"; undefined(); } }\n";

static const char *text(const lt_out *o, int err)
{
    const dval__buf *b = err ? &o->err : &o->out;
    return b->data ? b->data : "";
}

/* A started sandbox of the java snapshot whose service answers. */
static void java_sandbox(lt *t, const char *name)
{
    const dval_profile *p = dval_profile_find("java");
    CHECK(p && p->local_build_commands);
    CHECK_INT(lt_snapshot(t, "java-svc", JIMG, p->local_build_commands,
                          NULL), DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o,
                               .snapshot = "java-svc" };
    lt_sandbox(t, name, &o);
    int up = 0;
    for (int i = 0; i < 100 && !up; i++) { /* its init starts it */
        lt_out out = { 0 };
        up = lt_run(t, name, "test -S " DVAL_JAVAC_SOCK " && cd /tmp && echo "
                    "'class W{}' > W.java && " DVAL_JAVAC_CLIENT " "
                    DVAL_JAVAC_SOCK " wo W.java", &out) == 0;
        if (!up && i == 99)
            fprintf(stderr, "service check: %s%s\n", text(&out, 0),
                    text(&out, 1));
        lt_out_free(&out);
        if (!up)
            usleep(200000);
    }
    CHECK(up);
}

static void put(lt *t, const char *sb, const char *dir, const char *rel,
                const char *data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    CHECK_INT(lt_upload(t, sb, path, data), DVAL_OK);
}

/* Runs the run command cmd in dir (as its validation); *o gets its
 * output. */
static int run_in(lt *t, const char *sb, const char *dir, const char *cmd,
                  lt_out *o)
{
    static char buf[16384];
    snprintf(buf, sizeof buf, TRACE "%s", cmd);
    return lt_run_in(t, sb, dir, buf, o);
}

/* stderr without the trace line that names the compiler (required) */
static const char *diag(const lt_out *o, const char *trace)
{
    static char buf[2][8192];
    static int k;
    char *d = buf[k++ & 1];
    const char *e = text(o, 1), *at = strstr(e, trace);
    if (!at)
        th_fail(__FILE__, __LINE__, "stderr \"%s\" lacks \"%s\"", e, trace);
    snprintf(d, sizeof buf[0], "%.*s%s", (int)(at - e), e,
             at + strlen(trace));
    return d;
}

TEST(test_javac_service__same_results_as_javac)
{
    lt t;
    lt_open(&t, "javac-same");
    java_sandbox(&t, "j");
    const char *dirs[2] = { "/sandbox/svc", "/sandbox/plain" };
    for (int i = 0; i < 2; i++) {
        put(&t, "j", dirs[i], "app/Main.java", main_java);
        put(&t, "j", dirs[i], "util/U.java", util_java);
        put(&t, "j", dirs[i], "MAIN_CLASS", "app.Main\n");
    }
    lt_out a = { 0 }, b = { 0 };
    CHECK_INT(run_in(&t, "j", dirs[0], SVC, &a), 0);
    CHECK_INT(run_in(&t, "j", dirs[1], PLAIN, &b), 0);
    CHECK_STR(text(&a, 0), "sorted [1, 2, 3]P[x=4]\n42\n");
    CHECK_STR(text(&a, 0), text(&b, 0));
    CHECK_STR(diag(&a, "dval-javac: service\n"), "");
    CHECK_STR(diag(&b, "dval-javac: javac\n"), "");
    lt_out_free(&a);
    lt_out_free(&b);
    /* the very same class files */
    lt_out c = { 0 };
    CHECK_INT(lt_run(&t, "j", "cd /sandbox && for f in app/Main.class "
                     "'app/Main$P.class' util/U.class; do cmp svc/out/$f "
                     "plain/out/$f || exit 1; done; ls -R svc/out | wc -l",
                     &c), 0);
    lt_out_free(&c);
    /* compile errors: the same exit code and diagnostics, nothing run */
    put(&t, "j", "/sandbox/bad1", "Main.java", bad_java);
    put(&t, "j", "/sandbox/bad2", "Main.java", bad_java);
    int ea = run_in(&t, "j", "/sandbox/bad1", SVC, &a);
    int eb = run_in(&t, "j", "/sandbox/bad2", PLAIN, &b);
    CHECK_INT(ea, 1);
    CHECK_INT(ea, eb);
    CHECK_STR(text(&a, 0), "");
    CHECK_CONTAINS(diag(&a, "dval-javac: service\n"),
                   "Main.java:2: error: incompatible types");
    CHECK_STR(diag(&a, "dval-javac: service\n"),
              diag(&b, "dval-javac: javac\n"));
    lt_out_free(&a);
    lt_out_free(&b);
    /* a source that is not UTF-8: javac's own diagnostics either way */
    put(&t, "j", "/sandbox/enc1", "Main.java", "class Main { String s = "
        "\"\xff\"; }\n");
    put(&t, "j", "/sandbox/enc2", "Main.java", "class Main { String s = "
        "\"\xff\"; }\n");
    ea = run_in(&t, "j", "/sandbox/enc1", SVC, &a);
    eb = run_in(&t, "j", "/sandbox/enc2", PLAIN, &b);
    CHECK_INT(ea, eb);
    CHECK_STR(diag(&a, "dval-javac: javac\n"), diag(&b, "dval-javac: javac\n"));
    lt_out_free(&a);
    lt_out_free(&b);
    lt_close(&t);
}

/* Raw requests to the real service, as a validation would send them. */
static const char attack_pl[] =
    "use strict; use IO::Socket::UNIX; $SIG{PIPE} = 'IGNORE';\n"
    "sub req { my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(),\n"
    "  Peer => '" DVAL_JAVAC_SOCK "') or return 'noconnect';\n"
    "  print $s $_[0]; shutdown($s, 1); local $/; my $r = <$s>;\n"
    "  return defined $r ? $r : ''; }\n"
    "sub st { my $r = shift; length($r) >= 8 ? unpack('N', substr($r, 4, 4))"
    " : -1 }\n"
    "sub f { pack('N', length $_[0]) . $_[0] . pack('N', length $_[1]) . "
    "$_[1] }\n"
    "sub one { 'DVJ1' . pack('N', 1) . f(@_) }\n"
    "print 'traversal=', st(req(one('../victim/H.java', 'class H {}'))), "
    "\"\\n\";\n"
    "print 'absolute=', st(req(one('/sandbox/victim/H.java', 'class H {}')))"
    ", \"\\n\";\n"
    "print 'count=', st(req('DVJ1' . pack('N', 100000000))), \"\\n\";\n"
    "print 'huge=', st(req('DVJ1' . pack('N', 1) . pack('N', 6) . 'H.java'"
    " . pack('N', 0x7fffffff))), \"\\n\";\n"
    "my $big = 'x' x (10 << 20);\n"
    "print 'big=', st(req('DVJ1' . pack('N', 2) . f('A.java', $big) . "
    "f('B.java', $big))), \"\\n\";\n"
    "my $r = req(one('M.java', 'class M { Secret s; }'));\n"
    "print 'read=', st($r), ($r =~ /cannot find symbol/ ? ' nosym' : ' sym')"
    ", \"\\n\";\n"
    "$r = req(one('Q.java', 'package p; class Q {}'));\n"
    "print 'write=', st($r), \"\\n\";\n"
    "my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => '"
    DVAL_JAVAC_SOCK "');\n"
    "my ($pid, $uid) = unpack('iI', getsockopt($s, Socket::SOL_SOCKET(), "
    "Socket::SO_PEERCRED()));\n"
    "print 'peer=', $uid == " DVAL_JAVAC_UID_S " && $uid != $< ? 'service' "
    ": $uid, \"\\n\";\n";

TEST(test_javac_service__hostile_requests_fail)
{
    lt t;
    lt_open(&t, "javac-hostile");
    java_sandbox(&t, "j");
    put(&t, "j", "/sandbox/victim", "Secret.java", "public class Secret {}");
    put(&t, "j", "/sandbox/victim", "H.java", "class H { int v = 1; }");
    put(&t, "j", "/sandbox/atk", "a.pl", attack_pl);
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/atk", "perl a.pl && "
                        "ls -A " DVAL_JAVAC_RUN_DIR " && "
                        "{ test -e /p/Q.class || echo no-class-written; }",
                        &o), 0);
    CHECK_STR(text(&o, 0), "traversal=2\nabsolute=2\ncount=2\nhuge=2\n"
              "big=2\nread=1 nosym\nwrite=0\npeer=service\nsock\n"
              "no-class-written\n");
    lt_out_free(&o);
    /* the victim's files are as they were */
    lt_out v = { 0 };
    CHECK_INT(lt_run(&t, "j", "cat /sandbox/victim/H.java; ls /sandbox/"
                     "victim", &v), 0);
    CHECK_STR(text(&v, 0), "class H { int v = 1; }H.java\nSecret.java\n");
    lt_out_free(&v);
    lt_close(&t);
}

/* A validation hands the service a source made to compile for long
 * (red team A17: ~45 s, and every later validation of the sandbox waited
 * for the service's 30 s deadline), and leaves. The next validation must
 * not wait for it: the service answers "busy" after a short wait (its
 * client falls back to plain javac) and ends a compile that runs away. */
static const char slow_sh[] =
    "i=0; { echo 'public class Big {'; while [ $i -lt 6000 ]; do "
    "echo \"static int m$i(int x){ return java.util.stream.Stream.of(x, $i)"
    ".map(v -> v + 1).filter(v -> v > 0).map(String::valueOf)"
    ".map(s -> s.length()).collect(java.util.stream.Collectors.toList())"
    ".size(); }\"; i=$((i + 1)); done; echo '}'; } > Big.java; "
    DVAL_JAVAC_CLIENT " " DVAL_JAVAC_SOCK " out Big.java & sleep 2\n";

TEST(test_javac_service__a_long_compile_holds_no_one_up)
{
    lt t;
    lt_open(&t, "javac-slow");
    java_sandbox(&t, "j");
    put(&t, "j", "/sandbox/atk", "slow.sh", slow_sh);
    lt_out o = { 0 };
    lt_run_in(&t, "j", "/sandbox/atk", "sh slow.sh", &o);
    lt_out_free(&o);
    put(&t, "j", "/sandbox/h", "app/Main.java", main_java);
    put(&t, "j", "/sandbox/h", "util/U.java", util_java);
    put(&t, "j", "/sandbox/h", "MAIN_CLASS", "app.Main\n");
    int64_t t0 = dval__now_ms();
    CHECK_INT(run_in(&t, "j", "/sandbox/h", SVC, &o), 0);
    int64_t ms = dval__now_ms() - t0;
    fprintf(stderr, "    the validation after the slow compile: %lld ms "
            "(%s)\n", (long long)ms, strstr(text(&o, 1), "service")
            ? "service" : "plain javac");
    CHECK_STR(text(&o, 0), "sorted [1, 2, 3]P[x=4]\n42\n");
    CHECK(ms < 12000);
    lt_out_free(&o);
    lt_close(&t);
}

/* A validation tries to replace the service: remove or rebind its socket,
 * start its own copy, kill every process it can see, and serve forged
 * class files from a socket of its own. The real service keeps answering
 * and the client refuses the fake. */
static const char replace_sh[] =
    "rm -f " DVAL_JAVAC_SOCK " 2>/dev/null && echo removed\n"
    "mv " DVAL_JAVAC_RUN_DIR " /run/x 2>/dev/null && echo moved\n"
    "perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Type => SOCK_STREAM(),"
    " Local => \"" DVAL_JAVAC_RUN_DIR "/evil\", Listen => 1) and print "
    "\"bound\\n\"'\n"
    "timeout 20 java -cp " DVAL_JAVAC_DIR " JavacService " DVAL_JAVAC_SOCK
    " >/dev/null 2>&1 && echo started\n"
    "for p in $(ls /proc | grep -E '^[0-9]+$'); do\n"
    "  [ $p -ne $$ ] && [ $p -ne $PPID ] && kill -9 $p 2>/dev/null; done\n"
    "mkdir -p /tmp/fake && chmod 755 /tmp/fake\n"
    "(timeout 60 java -cp " DVAL_JAVAC_DIR " JavacService /tmp/fake/sock "
    ">/dev/null 2>&1 &)\n"
    "i=0; while [ ! -S /tmp/fake/sock ] && [ $i -lt 300 ]; do sleep 0.1; "
    "i=$((i+1)); done; sleep 3\n"
    "echo 'class F {}' > F.java\n"
    DVAL_JAVAC_CLIENT " /tmp/fake/sock fo F.java; echo fake=$?\n"
    DVAL_JAVAC_CLIENT " " DVAL_JAVAC_SOCK " ro F.java; echo real=$?\n";

TEST(test_javac_service__not_replaceable_by_a_validation)
{
    lt t;
    lt_open(&t, "javac-replace");
    java_sandbox(&t, "j");
    put(&t, "j", "/sandbox/atk", "r.sh", replace_sh);
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/atk", "sh r.sh", &o), 0);
    CHECK_STR(text(&o, 0), "fake=75\nreal=0\n");
    lt_out_free(&o);
    lt_close(&t);
}

/* ---- the service lives with the sandbox, not with a process ---- */

/* Another client process's executor over the same state directory. */
static void other_process(lt *o, const lt *t)
{
    char err[256] = "";
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "%s", t->dir);
    o->cfg = t->cfg;
    o->cfg.state_dir = o->dir;
    if (dval__local_executor(&o->ex, &o->cfg, err, sizeof err) != DVAL_OK)
        _exit(90);
}

/* In a child process: creates the java sandbox name, then exits (its
 * executor and every helper it spawned go with it). */
static int create_elsewhere(const lt *t, const char *name)
{
    pid_t p = fork();
    if (p == 0) {
        lt o;
        other_process(&o, t);
        dval_sandbox_options so = { .struct_size = sizeof so,
                                    .snapshot = "java-svc", .name = name };
        dval_sandbox_info info = { .struct_size = sizeof info };
        _exit(o.ex.sandbox_create(o.ex.userdata, lt_call(&o), &so, &info) ==
              DVAL_OK && info.state == DVAL_SANDBOX_STARTED ? 0 : 91);
    }
    int st = -1;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* In a fresh child process: its first validation of the java program;
 * 0 when the compile service compiled it and the program ran right. */
static int first_run_elsewhere(const lt *t, const char *sb, const char *dir)
{
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        lt o;
        lt_out out = { 0 };
        other_process(&o, t);
        int code = run_in(&o, sb, dir, SVC, &out);
        if (code != 0 || strcmp(text(&out, 0), "sorted [1, 2, 3]P[x=4]\n"
                                "42\n") != 0)
            _exit(92);
        if (!strstr(text(&out, 1), "dval-javac: service\n")) {
            fprintf(stderr, "    not the service: %s\n", text(&out, 1));
            _exit(93);
        }
        _exit(0);
    }
    int st = -1;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits (30 s at most) until the service of the sandbox whose init is
 * pid listens: a connection to its socket (from the host, through the
 * init's root) is accepted. A socket file alone may be a stopped
 * service's. */
static int wait_socket(const char *pid)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/%s/root" DVAL_JAVAC_SOCK,
             pid);
    for (int i = 0; i < 300; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
        if (ok)
            return 1;
        usleep(100000);
    }
    return 0;
}

/* Processes of the service's uid in the pid namespace ns (the link text
 * of /proc/<init>/ns/pid): other sandboxes' services do not count. */
static int service_procs(const char *ns)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char p[300], link[128] = "", line[256];
        long uid = -1;
        snprintf(p, sizeof p, "/proc/%.200s/ns/pid", e->d_name);
        ssize_t k = readlink(p, link, sizeof link - 1);
        if (k <= 0 || (link[k] = 0, strcmp(link, ns) != 0))
            continue;
        snprintf(p, sizeof p, "/proc/%.200s/status", e->d_name);
        FILE *f = fopen(p, "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "Uid:", 4))
                uid = strtol(line + 4, NULL, 10);
        if (f)
            fclose(f);
        n += uid == DVAL_JAVAC_UID;
    }
    if (d)
        closedir(d);
    return n;
}

/* Processes of the pid namespace ns whose cmdline (NULs as spaces)
 * has title in it: ps must tell the init from its helpers. */
static int titled(const char *ns, const char *title)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char p[300], link[128] = "", cmd[256];
        snprintf(p, sizeof p, "/proc/%.200s/ns/pid", e->d_name);
        ssize_t k = readlink(p, link, sizeof link - 1);
        if (k <= 0 || (link[k] = 0, strcmp(link, ns) != 0))
            continue;
        snprintf(p, sizeof p, "/proc/%.200s/cmdline", e->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        k = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < k; i++)
            cmd[i] = cmd[i] ? cmd[i] : ' ';
        cmd[k > 0 ? k : 0] = 0;
        n += strstr(cmd, title) != NULL;
    }
    if (d)
        closedir(d);
    return n;
}

static void pid_ns(lt *t, const char *sb, char *ns, size_t cap)
{
    char p[128];
    snprintf(p, sizeof p, "/proc/%s/ns/pid", lt_state_key(t, sb, "pid"));
    ssize_t k = readlink(p, ns, cap - 1);
    CHECK(k > 0);
    ns[k] = 0;
}

/* Gone within 5 s (the init is gone already: its namespace is killed). */
static int procs_gone(const char *ns)
{
    for (int i = 0; i < 50; i++) {
        if (service_procs(ns) == 0)
            return 1;
        usleep(100000);
    }
    return 0;
}

TEST(test_javac_service__lives_with_the_sandbox)
{
    lt t;
    lt_open(&t, "javac-life");
    const dval_profile *p = dval_profile_find("java");
    CHECK(p && p->local_build_commands);
    CHECK_INT(lt_snapshot(&t, "java-svc", JIMG, p->local_build_commands,
                          NULL), DVAL_OK);
    /* a process that starts the sandbox and exits at once */
    CHECK_INT(create_elsewhere(&t, "j"), 0);
    char pid[32], ns[128];
    snprintf(pid, sizeof pid, "%s", lt_state_key(&t, "j", "pid"));
    CHECK(wait_socket(pid));
    put(&t, "j", "/sandbox/w", "app/Main.java", main_java);
    put(&t, "j", "/sandbox/w", "util/U.java", util_java);
    put(&t, "j", "/sandbox/w", "MAIN_CLASS", "app.Main\n");
    /* two more processes (like two CLI runs): each one's first
     * validation is compiled by the service the first one's sandbox
     * start left running */
    CHECK_INT(first_run_elsewhere(&t, "j", "/sandbox/w"), 0);
    CHECK_INT(first_run_elsewhere(&t, "j", "/sandbox/w"), 0);
    pid_ns(&t, "j", ns, sizeof ns);
    CHECK(service_procs(ns) >= 1);
    /* one init per sandbox in ps: the supervisor has a name of its own */
    CHECK_INT(titled(ns, "dval-local-helper init "), 1);
    CHECK_INT(titled(ns, "dval-local-helper service"), 1);
    /* stop: the service ends with the sandbox */
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t.ex.sandbox_stop(t.ex.userdata, lt_call(&t), "j", &info),
              DVAL_OK);
    CHECK(procs_gone(ns));
    /* start: a new init, a new service; delete: gone again */
    CHECK_INT(t.ex.sandbox_start(t.ex.userdata, lt_call(&t), "j", &info),
              DVAL_OK);
    snprintf(pid, sizeof pid, "%s", lt_state_key(&t, "j", "pid"));
    CHECK(wait_socket(pid));
    CHECK_INT(first_run_elsewhere(&t, "j", "/sandbox/w"), 0);
    pid_ns(&t, "j", ns, sizeof ns);
    CHECK(service_procs(ns) >= 1);
    CHECK_INT(t.ex.sandbox_delete(t.ex.userdata, lt_call(&t), "j"), DVAL_OK);
    CHECK(procs_gone(ns));
    lt_close(&t);
}
