/* The java snapshot's compile service (lib/javac_service.h): it gives the
 * same results as plain javac (output, exit code, diagnostics, class
 * files), and a hostile validation can neither make it read or write
 * outside what it was sent, nor overload it with a huge request, nor
 * replace, squat, start or kill it. Every attack runs inside the sandbox
 * as a validation's command, for real. */
#include "lt.h"
#include "javac_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JIMG "bellsoft/liberica-openjdk-debian:25-cds"
#define TRACE "DVAL_JAVAC_TRACE=1; "
#define SVC JAVA_RUN_WITH("[ -x " DVAL_JAVAC_CLIENT " ]")
#define PLAIN JAVA_RUN_WITH("false")

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
    for (int i = 0; i < 100 && !up; i++) { /* the first command starts it */
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
