/* Hostile C#, for real in a local sandbox: an MSBuild project is code
 * (inline tasks, targets, analyzers, source generators run at build time),
 * so whatever the compile service does not build is built by the full
 * `dotnet build` in the validation's own processes, as its own uid,
 * offline. Each attack runs as a validation and the test asserts it
 * failed, and that the validations after it are unaffected. */
#include "dotnet.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TD "tests/local/dotnet/"
#define HELLO "System.Console.WriteLine(\"hello \" + 6 * 7);\n"
#define CONSOLE                                                            \
    "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><OutputType>Exe"     \
    "</OutputType><TargetFramework>net10.0</TargetFramework>"              \
    "</PropertyGroup></Project>\n"

/* A plain console project in dir, built and run (cmd: DN_RUN, or the
 * full build's): it prints what it should, whatever ran before it. */
static void victim_unaffected(lt *t, const char *dir, const char *cmd,
                              const char *via)
{
    dn_put(t, "d", dir, "V.csproj", CONSOLE);
    dn_put(t, "d", dir, "Program.cs", HELLO);
    lt_out o = { 0 };
    int rc = lt_run_in(t, "d", dir, cmd, &o);
    if (rc != 0)
        th_fail(__FILE__, __LINE__, "victim %s: exit %d\n%s%s", dir, rc,
                dn_text(&o, 0), dn_text(&o, 1));
    CHECK_STR(dn_text(&o, 0), "hello 42\n");
    CHECK_CONTAINS(dn_text(&o, 1), via);
    CHECK(strstr(dn_text(&o, 1), "PLANTED") == NULL);
    lt_out_free(&o);
}

/* An inline task tries to leave a build import, a compiler, a package or
 * a service where later validations' builds would pick it up, and tries
 * the network. */
TEST(test_hostile_dotnet__inline_task_leaves_nothing_for_later)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    CHECK_INT(lt_upload_file(&t, "d", "/sandbox/p/Plant.csproj",
                             TD "Plant.csproj"), DVAL_OK);
    dn_put(&t, "d", "/sandbox/p", "Program.cs", HELLO);
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/p", DN_RUN, &o), 0);
    const char *e = dn_text(&o, 1);
    CHECK_CONTAINS(e, DN_VIA_BUILD); /* a task: never the service's */
    CHECK(strstr(e, "PLANT-WROTE") == NULL);
    CHECK_CONTAINS(e, "PLANT-DENIED /sandbox/Directory.Build.props");
    CHECK_CONTAINS(e, "PLANT-DENIED /sandbox/Directory.Build.targets");
    CHECK_CONTAINS(e, "ImportAfter/evil.targets");
    CHECK_CONTAINS(e, "PLANT-DENIED /opt/dval-dotnet/packages/dapper");
    CHECK_CONTAINS(e, "PLANT-DENIED /etc/dval/services/evil");
    CHECK_CONTAINS(e, "PLANT-NET-DENIED");
    CHECK(strstr(e, "PLANT-NET-OPEN") == NULL);
    lt_out_free(&o);
    victim_unaffected(&t, "/sandbox/v1", "DVAL_CSC=0; export DVAL_CSC; "
                      DN_RUN, DN_VIA_BUILD);
    victim_unaffected(&t, "/sandbox/v2", DN_RUN, DN_VIA_SERVICE);
    lt_close(&t);
}

/* A source generator of the validation (loaded by its own compiler, in
 * the full build: the service loads none) tries to read another
 * validation's sources, whose path it was even told. */
TEST(test_hostile_dotnet__generator_cannot_read_another_validation)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    lt_out v = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/victim",
                        "echo '// SECRET-42' > Program.cs", &v), 0);
    lt_out_free(&v);
    dn_put_dir(&t, "d", TD "spy", "/sandbox/spy");
    dn_put_dir(&t, "d", TD "spy/Gen", "/sandbox/spy/Gen");
    lt_out o = { 0 };
    int rc = lt_run_in(&t, "d", "/sandbox/spy", DN_RUN, &o);
    if (rc != 0)
        th_fail(__FILE__, __LINE__, "spy: exit %d\n%s%s", rc, dn_text(&o, 0),
                dn_text(&o, 1));
    CHECK_CONTAINS(dn_text(&o, 1), DN_VIA_BUILD);
    CHECK_STR(dn_text(&o, 0), "DENIED UnauthorizedAccessException\n");
    CHECK(strstr(dn_text(&o, 0), "SECRET") == NULL);
    lt_out_free(&o);
    lt_close(&t);
}

/* A source made to compile for ever is cut at the service's budget (its
 * client does not retry it in full), the next validation builds as it
 * should, and the service is back within seconds. */
TEST(test_hostile_dotnet__endless_compile_is_bounded)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    dn_put(&t, "d", "/sandbox/slow", "S.csproj", CONSOLE);
    CHECK_INT(lt_upload_file(&t, "d", "/sandbox/slow/Program.cs",
                             TD "Endless.cs"), DVAL_OK);
    lt_out o = { 0 };
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/slow", DN_RUN, &o), 1);
    CHECK(dval__now_ms() - t0 < 30000);
    CHECK_CONTAINS(dn_text(&o, 1), "error DVAL0001: the compile ran past its "
                   "budget");
    CHECK(strstr(dn_text(&o, 1), DN_VIA_BUILD) == NULL);
    lt_out_free(&o);
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/next", "true", &o), 0);
    lt_out_free(&o);
    dn_put(&t, "d", "/sandbox/next", "V.csproj", CONSOLE);
    dn_put(&t, "d", "/sandbox/next", "Program.cs", HELLO);
    int via_service = 0;
    for (int i = 0; i < 20 && !via_service; i++) {
        CHECK_INT(lt_run_in(&t, "d", "/sandbox/next", DN_RUN, &o), 0);
        CHECK_STR(dn_text(&o, 0), "hello 42\n");
        via_service = strstr(dn_text(&o, 1), DN_VIA_SERVICE) != NULL;
        lt_out_free(&o);
    }
    CHECK(via_service);
    lt_close(&t);
}

/* A validation that holds connections to the service open, then builds
 * (the build sees its own share used up and builds in full). */
#define HOLDER                                                             \
    "for p in $(ps -eo pid=,uid= | awk -v me=$(id -u) '$2 != me "          \
    "{ print $1 }'); do kill -9 $p 2>/dev/null && echo KILLED; done\n"     \
    "echo x > /run/dval-csc/evil && echo WROTE\n"                          \
    "rm -f /run/dval-csc/sock && echo REMOVED\n"                           \
    "perl -MIO::Socket::UNIX -e 'for (1..6) { push @s, IO::Socket::UNIX->" \
    "new(Peer => \"/run/dval-csc/sock\") } sleep 30' >/dev/null 2>&1 &\n"  \
    "sleep 0.5; echo HELD; touch held; while [ ! -e go ]; do sleep 0.1; "   \
    "done; " DN_BUILD "\n"

typedef struct holder {
    lt *t;
    lt_out out;
    int code;
} holder;

static void *hold(void *p)
{
    holder *h = p;
    h->code = lt_run_in(h->t, "d", "/sandbox/a", HOLDER, &h->out);
    return NULL;
}

/* The service's process and socket directory are out of a validation's
 * reach, and one validation holding connections open takes only its own
 * share: another still gets the service meanwhile. */
TEST(test_hostile_dotnet__service_cannot_be_ended_or_starved)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    dn_put(&t, "d", "/sandbox/a", "A.csproj", CONSOLE);
    dn_put(&t, "d", "/sandbox/a", "Program.cs", HELLO);
    holder h = { .t = &t, .code = -1 };
    pthread_t th;
    CHECK(pthread_create(&th, NULL, hold, &h) == 0);
    dval__buf b = { 0 };
    for (int i = 0; i < 100 && lt_download(&t, "d", "/sandbox/a/held", &b);
         i++)
        usleep(100000);
    dval__buf_free(&b);
    victim_unaffected(&t, "/sandbox/b", DN_RUN, DN_VIA_SERVICE);
    CHECK_INT(lt_upload(&t, "d", "/sandbox/a/go", ""), DVAL_OK);
    pthread_join(th, NULL);
    CHECK_INT(h.code, 0);
    /* nothing killed, written or removed; then the full build's output */
    CHECK(!strncmp(dn_text(&h.out, 0), "HELD\n", 5));
    CHECK_CONTAINS(dn_text(&h.out, 1), DN_VIA_BUILD);
    lt_out_free(&h.out);
    lt_close(&t);
}
