/* The java snapshot's compile service (tests/javac_service.h): it gives the
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
#define SVC JAVA_BUILD_AND_RUN
#define PLAIN "export DVAL_JAVAC_SERVICE=0; " JAVA_BUILD_AND_RUN

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
    o->lo = t->lo;
    o->lo.state_dir = o->dir;
    if (dval__local_executor(&o->ex, &o->cfg, &o->lo, err, sizeof err) !=
        DVAL_OK)
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

/* Connects (from the host, through the init's root) to the service the
 * sandbox whose init is pid sees; its host pid (SO_PEERCRED), or 0 while
 * none answers (30 s at most). A socket file alone may be a stopped
 * service's. */
static pid_t service_pid(const char *pid)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/%s/root" DVAL_JAVAC_SOCK,
             pid);
    for (int i = 0; i < 300; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct ucred cr = { 0 };
        socklen_t len = sizeof cr;
        int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                 getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0;
        if (fd >= 0)
            close(fd);
        if (ok && cr.uid == (uid_t)DVAL_JAVAC_UID)
            return cr.pid;
        usleep(100000);
    }
    return 0;
}

/* Processes of the service's uid in the pid namespace ns (the link text
 * of /proc/<pid>/ns/pid): other snapshots' services do not count. */
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

static void pid_ns_of(long pid, char *ns, size_t cap)
{
    char p[128];
    snprintf(p, sizeof p, "/proc/%ld/ns/pid", pid);
    ssize_t k = readlink(p, ns, cap - 1);
    CHECK(k > 0);
    ns[k] = 0;
}

/* Gone within 40 s (the services host looks for users every 10 s). */
static int procs_gone(const char *ns)
{
    for (int i = 0; i < 400; i++) {
        if (service_procs(ns) == 0)
            return 1;
        usleep(100000);
    }
    return 0;
}

/* One service for every sandbox of the snapshot (issue 45): started
 * with the first, outside it (not in its pid namespace), it serves the
 * next sandbox's first validation at once, outlives a process and a
 * sandbox that goes, and ends once no sandbox of the snapshot is left. */
TEST(test_javac_service__shared_by_the_snapshots_sandboxes)
{
    lt t;
    lt_open(&t, "javac-shared");
    const dval_profile *p = dval_profile_find("java");
    CHECK(p && p->local_build_commands);
    CHECK_INT(lt_snapshot(&t, "java-svc", JIMG, p->local_build_commands,
                          NULL), DVAL_OK);
    /* a process that starts the sandbox and exits at once */
    CHECK_INT(create_elsewhere(&t, "j"), 0);
    char pid[32], ns[128], sns[128];
    snprintf(pid, sizeof pid, "%s", lt_state_key(&t, "j", "pid"));
    pid_t svc = service_pid(pid);
    CHECK(svc > 0);
    pid_ns_of(atol(pid), ns, sizeof ns);
    pid_ns_of(svc, sns, sizeof sns);
    CHECK(strcmp(ns, sns) != 0); /* not in the sandbox */
    CHECK_INT(service_procs(ns), 0);
    const char *dirs[2] = { "/sandbox/w", "/sandbox/w" };
    const char *sbs[2] = { "j", "k" };
    CHECK_INT(create_elsewhere(&t, "k"), 0);
    for (int i = 0; i < 2; i++) {
        put(&t, sbs[i], dirs[i], "app/Main.java", main_java);
        put(&t, sbs[i], dirs[i], "util/U.java", util_java);
        put(&t, sbs[i], dirs[i], "MAIN_CLASS", "app.Main\n");
        /* each process's first validation: compiled by the service */
        CHECK_INT(first_run_elsewhere(&t, sbs[i], dirs[i]), 0);
    }
    /* the very same service process answers in k */
    CHECK_INT(service_pid(lt_state_key(&t, "k", "pid")), svc);
    /* j goes, k is still served */
    CHECK_INT(t.ex.sandbox_delete(t.ex.userdata, lt_call(&t), "j"), DVAL_OK);
    CHECK_INT(first_run_elsewhere(&t, "k", "/sandbox/w"), 0);
    CHECK_INT(t.ex.sandbox_delete(t.ex.userdata, lt_call(&t), "k"), DVAL_OK);
    CHECK(procs_gone(sns));
    lt_close(&t);
}

/* A hostile validation in one sandbox against the shared service and a
 * validation in another sandbox of the snapshot: it holds every
 * connection it may, sends a source that names the other's class, and
 * the other still compiles with the service, its files untouched. */
static const char hold_pl[] =
    "use strict; use IO::Socket::UNIX; my @s;\n"
    "for (1 .. 12) { my $c = IO::Socket::UNIX->new(Type => SOCK_STREAM(),\n"
    "  Peer => '" DVAL_JAVAC_SOCK "'); push @s, $c if $c; }\n"
    "print 'held ', scalar @s, \"\\n\"; sleep 12;\n";

TEST(test_javac_service__one_sandbox_cannot_starve_or_read_another)
{
    lt t;
    lt_open(&t, "javac-cross");
    java_sandbox(&t, "a");
    dval_sandbox_options o = { .struct_size = sizeof o,
                               .snapshot = "java-svc" };
    lt_sandbox(&t, "b", &o);
    put(&t, "b", "/sandbox/v", "app/Main.java", main_java);
    put(&t, "b", "/sandbox/v", "util/U.java", util_java);
    put(&t, "b", "/sandbox/v", "MAIN_CLASS", "app.Main\n");
    put(&t, "b", "/sandbox/v", "Secret.java", "public class Secret {}");
    put(&t, "a", "/sandbox/atk", "a.pl", attack_pl);
    put(&t, "a", "/sandbox/atk", "hold.pl", hold_pl);
    lt_out r = { 0 }, v = { 0 };
    CHECK_INT(lt_run_in(&t, "a", "/sandbox/atk", "perl a.pl", &r), 0);
    CHECK_CONTAINS(text(&r, 0), "read=1 nosym\n");
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) { /* a's validation holds its connections meanwhile */
        lt other;
        lt_out h = { 0 };
        other_process(&other, &t);
        lt_run_in(&other, "a", "/sandbox/atk", "perl hold.pl", &h);
        fprintf(stderr, "    the attacker: %s", text(&h, 0));
        _exit(0);
    }
    sleep(3);
    CHECK_INT(run_in(&t, "b", "/sandbox/v", SVC, &v), 0);
    CHECK_STR(text(&v, 0), "sorted [1, 2, 3]P[x=4]\n42\n");
    CHECK_CONTAINS(text(&v, 1), "dval-javac: service\n");
    waitpid(holder, NULL, 0);
    /* the service's directory is there read-only, and the mount table
     * names no host path (test_hostile_recon's rule) */
    lt_out m = { 0 };
    CHECK_INT(lt_run(&t, "b", "cat /proc/self/mountinfo", &m), 0);
    CHECK_CONTAINS(text(&m, 0), " /javac " DVAL_JAVAC_RUN_DIR " ro,");
    CHECK(strstr(text(&m, 0), t.dir) == NULL);
    lt_out_free(&m);
    lt_out_free(&r);
    lt_out_free(&v);
    lt_close(&t);
}
