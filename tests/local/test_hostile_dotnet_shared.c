/* Hostile C# against the shared compile service: one copy serves every
 * sandbox of the dotnet snapshot, from outside them (the snapshot's
 * services host). A validation in sandbox A attacks it while sandbox B
 * compiles a program holding a secret: A must neither see the service's
 * process nor touch its socket, nor read B's sources or compile (even
 * with B's directory name, file names and a documentation include of
 * B's path), nor starve B (connections held open) nor change B's verdict
 * (a compile that never ends, which may restart the service). */
#include "dotnet.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TD "tests/local/dotnet/"
#define DIR "/sandbox/victim"
#define SECRET "SECRET-B-5d1c"
#define CONSOLE                                                            \
    "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><OutputType>Exe"     \
    "</OutputType><TargetFramework>net10.0</TargetFramework>"              \
    "</PropertyGroup></Project>\n"
/* B's program: its secret is in its sources only */
#define VICTIM                                                             \
    "// " SECRET "\nSystem.Console.WriteLine(\"victim \" + (6 * 7));\n"
/* A's program, in a directory of the same name as B's, with B's file
 * names: a doc include of B's source (the service resolves no file) and,
 * run, a read of it (another sandbox's file) */
#define SPY                                                                \
    "/// <include file='" DIR "/Secret.cs' path='//*'/>\n"                 \
    "class P { static void Main() {\n"                                     \
    "  try { System.Console.WriteLine(System.IO.File.ReadAllText(\""       \
    DIR "/Secret.cs\")); }\n"                                              \
    "  catch (System.Exception e) { System.Console.WriteLine(\"DENIED \""  \
    " + e.GetType().Name); } } }\n"
/* A's look around: the service's process, its socket directory, B's
 * files anywhere A can reach */
#define RECON                                                              \
    "ps -eo uid=,args= | grep -v grep | grep -Ei 'csc|dotnet' && "          \
    "echo SEES-SERVICE\n"                                                  \
    "touch /run/dval-csc/planted 2>/dev/null && echo WROTE\n"              \
    "rm -f /run/dval-csc/sock 2>/dev/null; [ -S /run/dval-csc/sock ] || "   \
    "echo REMOVED\n"                                                       \
    "grep -rls " SECRET " /sandbox /tmp /run /var/tmp /dev/shm "            \
    "/opt/dval-dotnet 2>/dev/null && echo FOUND\n"                         \
    "echo RECON-DONE\n"
#define HOLD                                                               \
    "perl -MIO::Socket::UNIX -e 'for (1..6) { push @s, IO::Socket::UNIX->" \
    "new(Peer => \"/run/dval-csc/sock\") } sleep 20' >/dev/null 2>&1"

typedef struct attack {
    lt *t;
    const char *dir, *cmd;
    lt_out out;
    int code;
} attack;

static void *run_attack(void *p)
{
    attack *a = p;
    a->code = lt_run_in(a->t, "a", a->dir, a->cmd, &a->out);
    return NULL;
}

/* B builds and runs its program: the right output, whatever A does;
 * 1 when the service built it. */
static int victim_ok(lt *t)
{
    lt_out o = { 0 };
    int rc = lt_run_in(t, "b", DIR, DN_RUN, &o);
    if (rc != 0)
        th_fail(__FILE__, __LINE__, "victim: exit %d\n%s%s", rc,
                dn_text(&o, 0), dn_text(&o, 1));
    CHECK_STR(dn_text(&o, 0), "victim 42\n");
    int via = strstr(dn_text(&o, 1), DN_VIA_SERVICE) != NULL;
    lt_out_free(&o);
    return via;
}

/* A and B on the shared service, B's program built once by it (warm,
 * and B's sources written where A's attacks would look). */
static void two_sandboxes(lt *t)
{
    dn_sandbox(t, "a");
    dn_start(t, "b");
    /* the service they reach is the snapshot's one, outside both */
    char p[700];
    struct stat st;
    snprintf(p, sizeof p, "%s/snapshots/dotnet/services/csc/sock", t->dir);
    CHECK(stat(p, &st) == 0 && S_ISSOCK(st.st_mode));
    dn_put(t, "b", DIR, "V.csproj", CONSOLE);
    dn_put(t, "b", DIR, "Program.cs", VICTIM);
    dn_put(t, "b", DIR, "Secret.cs", "// " SECRET "\n");
    CHECK(victim_ok(t));
}

TEST(test_hostile_dotnet_shared__sandbox_cannot_see_or_read_anothers_compile)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    two_sandboxes(&t);
    lt_out r = { 0 };
    CHECK_INT(lt_run_in(&t, "a", "/sandbox/recon", RECON, &r), 0);
    CHECK_CONTAINS(dn_text(&r, 0), "RECON-DONE");
    CHECK(strstr(dn_text(&r, 0), "SEES-SERVICE") == NULL);
    CHECK(strstr(dn_text(&r, 0), "WROTE") == NULL);
    CHECK(strstr(dn_text(&r, 0), "REMOVED") == NULL);
    CHECK(strstr(dn_text(&r, 0), "FOUND") == NULL);
    lt_out_free(&r);
    /* the same directory and file names as B's, through the service */
    dn_put(&t, "a", DIR, "V.csproj", CONSOLE);
    dn_put(&t, "a", DIR, "Program.cs", SPY);
    lt_out s = { 0 };
    CHECK_INT(lt_run_in(&t, "a", DIR, DN_RUN, &s), 0);
    CHECK_CONTAINS(dn_text(&s, 1), DN_VIA_SERVICE);
    CHECK_STR(dn_text(&s, 0), "DENIED FileNotFoundException\n");
    CHECK(strstr(dn_text(&s, 1), SECRET) == NULL);
    lt_out_free(&s);
    CHECK(victim_ok(&t)); /* B's next build: the service's, unchanged */
    lt_close(&t);
}

/* A holds connections open and hands over a compile that never ends (the
 * service cuts it, or restarts) while B builds, more than once: B's
 * output is right each time, the service builds for B meanwhile and
 * again after. */
TEST(test_hostile_dotnet_shared__sandbox_cannot_starve_or_stop_anothers)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    two_sandboxes(&t);
    dn_put(&t, "a", "/sandbox/slow", "S.csproj", CONSOLE);
    CHECK_INT(lt_upload_file(&t, "a", "/sandbox/slow/Program.cs",
                             TD "Endless.cs"), DVAL_OK);
    attack hold = { .t = &t, .dir = "/sandbox/hold", .cmd = HOLD,
                    .code = -1 };
    attack slow = { .t = &t, .dir = "/sandbox/slow", .cmd = DN_BUILD,
                    .code = -1 };
    pthread_t th, ts;
    CHECK(pthread_create(&th, NULL, run_attack, &hold) == 0);
    CHECK(pthread_create(&ts, NULL, run_attack, &slow) == 0);
    sleep(2);
    int served = 0;
    for (int i = 0; i < 3; i++)
        served += victim_ok(&t);
    pthread_join(ts, NULL);
    pthread_join(th, NULL);
    CHECK_INT(slow.code, 1);
    CHECK_CONTAINS(dn_text(&slow.out, 1), "DVAL0001");
    CHECK(served >= 1); /* A's connections held, B still had its share */
    lt_out_free(&hold.out);
    lt_out_free(&slow.out);
    int back = 0; /* and the service is back for B */
    for (int64_t end = dval__now_ms() + 25000; !back && dval__now_ms() < end;)
        back = victim_ok(&t);
    CHECK(back);
    lt_close(&t);
}
