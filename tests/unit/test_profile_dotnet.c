/* The dotnet profile's commands, run by /bin/sh against a fake `dotnet`
 * that records its arguments (this machine has no .NET SDK): --no-restore
 * exactly when the snapshot's restore fits the project, a restore after an
 * assets error, no retry after a compile error, no build servers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"

static char T[64];   /* temp root: bin/dotnet, warm/, work/, log */

static const char FAKE[] =
    "#!/bin/sh\n"
    "echo \"$*\" >> \"$FAKE_LOG\"\n"
    "case \"$1\" in\n"
    "build)\n"
    "  case \"$FAKE_MODE:$*\" in\n"
    "  assets:*--no-restore*) echo 'error NETSDK1004: Assets file not found'"
    "; exit 1;;\n"
    "  compile:*) echo 'Program.cs(1,1): error CS1002: ; expected'; exit 1;;"
    "\n  esac\n"
    "  echo 'Build succeeded.'; exit 0;;\n"
    "run) echo 'program ran'; exit 0;;\n"
    "esac\n"
    "exit 2\n";

static const char CSPROJ[] =
    "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n"
    "    <OutputType>Exe</OutputType>\n"
    "    <TargetFramework>net10.0</TargetFramework>\n"
    "  </PropertyGroup>\n</Project>\n";

static void put(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

static void sh(const char *cmd)
{
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* fresh temp tree; warm = 1: a warm project with restore output */
static void setup(int warm, const char *csproj)
{
    snprintf(T, sizeof T, "/tmp/dval-dotnet-XXXXXX");
    CHECK(mkdtemp(T));
    char p[512];
    snprintf(p, sizeof p, "mkdir -p %s/bin %s/warm/obj %s/work", T, T, T);
    sh(p);
    snprintf(p, sizeof p, "%s/bin/dotnet", T);
    put(p, FAKE, 0755);
    if (warm) {
        snprintf(p, sizeof p, "%s/warm/Warm.csproj", T);
        put(p, CSPROJ, 0644);
        snprintf(p, sizeof p, "%s/warm/obj/project.assets.json", T);
        put(p, "{\"version\":3}\n", 0644);
    }
    snprintf(p, sizeof p, "%s/work/App.csproj", T);
    put(p, csproj, 0644);
}

/* Runs the profile's run command in work/; returns its exit code, the
 * fake's argument log and stdout in *log / *out (malloc'd). */
static int run(const char *mode, char **log, char **out)
{
    const dval_profile *pr = dval_profile_find("dotnet");
    CHECK(pr && pr->run_command);
    char script[512];
    snprintf(script, sizeof script, "%s/run.sh", T);
    put(script, pr->run_command, 0644);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s/work && PATH=%s/bin:$PATH "
             "DVAL_DOTNET_WARM=%s/warm FAKE_LOG=%s/log FAKE_MODE=%s "
             "/bin/sh %s >%s/out 2>%s/err", T, T, T, T, mode, script, T, T);
    int st = system(cmd);
    char p[512];
    size_t n = 0;
    snprintf(p, sizeof p, "%s/log", T);
    FILE *f = fopen(p, "r");
    *log = calloc(1, 8192);
    if (f) {
        n = fread(*log, 1, 8191, f);
        fclose(f);
    }
    (*log)[n] = 0;
    snprintf(p, sizeof p, "%s/out", T);
    f = fopen(p, "r");
    *out = calloc(1, 8192);
    n = 0;
    if (f) {
        n = fread(*out, 1, 8191, f);
        fclose(f);
    }
    (*out)[n] = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *hay, const char *needle)
{
    int k = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        k++;
    return k;
}

static void cleanup(char *log, char *out)
{
    char p[300];
    snprintf(p, sizeof p, "rm -rf %s", T);
    sh(p);
    free(log);
    free(out);
}

#define BUILD "build --nologo -v q -nodeReuse:false " \
              "-p:UseSharedCompilation=false"

TEST(dotnet_builds_with_no_restore_when_the_snapshot_restore_fits)
{
    setup(1, CSPROJ);
    char *log, *out;
    CHECK_INT(run("ok", &log, &out), 0);
    CHECK_STR(log, BUILD " --no-restore\nrun --no-build\n");
    CHECK_STR(out, "program ran\n");  /* build output went to stderr */
    char p[300];
    snprintf(p, sizeof p, "%s/work/obj/project.assets.json", T);
    CHECK(access(p, R_OK) == 0);
    cleanup(log, out);
}

TEST(dotnet_restores_when_the_project_has_packages_or_another_framework)
{
    static const char *const projects[] = {
        "<Project><ItemGroup><PackageReference Include=\"X\" Version=\"1\" />"
        "</ItemGroup><PropertyGroup><TargetFramework>net10.0"
        "</TargetFramework></PropertyGroup></Project>\n",
        "<Project><PropertyGroup><TargetFramework>net8.0</TargetFramework>"
        "</PropertyGroup></Project>\n",
        "<Project><PropertyGroup><TargetFramework>net10.0</TargetFramework>"
        "<RuntimeIdentifier>linux-x64</RuntimeIdentifier></PropertyGroup>"
        "</Project>\n",
    };
    for (size_t i = 0; i < sizeof projects / sizeof projects[0]; i++) {
        setup(1, projects[i]);
        char *log, *out;
        CHECK_INT(run("ok", &log, &out), 0);
        CHECK_STR(log, BUILD "\nrun --no-build\n");
        char p[300];
        snprintf(p, sizeof p, "%s/work/obj", T);
        CHECK(access(p, F_OK) != 0);   /* nothing copied */
        cleanup(log, out);
    }
}

TEST(dotnet_restores_without_a_warm_snapshot)
{
    setup(0, CSPROJ);
    char *log, *out;
    CHECK_INT(run("ok", &log, &out), 0);
    CHECK_STR(log, BUILD "\nrun --no-build\n");
    cleanup(log, out);
}

TEST(dotnet_rebuilds_with_restore_after_an_assets_error_only)
{
    setup(1, CSPROJ);
    char *log, *out;
    CHECK_INT(run("assets", &log, &out), 0);
    CHECK_STR(log, BUILD " --no-restore\n" BUILD "\nrun --no-build\n");
    cleanup(log, out);
    /* a compile error is the verdict: built once, program not run */
    setup(1, CSPROJ);
    int rc = run("compile", &log, &out);
    CHECK(rc != 0);
    CHECK_INT(count(log, "build "), 1);
    CHECK_INT(count(log, "run "), 0);
    CHECK_STR(out, "");
    cleanup(log, out);
}

TEST(dotnet_snapshot_steps_restore_the_warm_project_without_servers)
{
    const dval_profile *pr = dval_profile_find("dotnet");
    CHECK(pr && pr->build_commands && pr->build_commands[0]);
    const char *s = pr->build_commands[0];
    CHECK_CONTAINS(s, "dotnet new console");
    CHECK_CONTAINS(s, "dotnet restore");
    CHECK_CONTAINS(s, "/opt/dval/dotnet-warm");
    CHECK_CONTAINS(s, "-nodeReuse:false");
    CHECK_CONTAINS(pr->run_command, "MSBUILDDISABLENODEREUSE=1");
    CHECK_CONTAINS(pr->run_command, "DOTNET_CLI_USE_MSBUILD_SERVER=0");
    CHECK(pr->build_commands[1] == NULL);
}
