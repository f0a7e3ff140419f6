/* The dotnet profile's commands (the parts that run on Daytona too): the
 * build steps are the same for the local image and a Daytona image build,
 * they carry the repository's profile scripts and compile service byte
 * for byte, describe the service as a profile service, and every command
 * line is valid sh. The local suites run them for real
 * (tests/local/test_dotnet*.c). */
#include "harness.h"
#include "dotnet_profile_files.h"
#include "profile_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dval.h>

static int sh_ok(const char *fmt, const char *arg)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, fmt, arg);
    return system(cmd);
}

/* 0 when `sh -n` accepts cmd */
static int sh_parses(const char *cmd)
{
    char path[] = "/tmp/dval-dotnet-sh.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(cmd, f);
    fclose(f);
    int rc = sh_ok("sh -n %s", path);
    remove(path);
    return rc;
}

TEST(test_profile_dotnet__build_steps_same_for_local_and_daytona)
{
    const dval_profile *p = dval_profile_find("dotnet");
    CHECK(p != NULL);
    const char *const *d = p->build_commands, *const *l =
        p->local_build_commands;
    CHECK(d && l);
    int n = 0;
    for (; d[n]; n++) {
        CHECK(l[n] != NULL);
        CHECK_STR(d[n], l[n]);
        CHECK_INT(sh_parses(d[n]), 0);
    }
    CHECK(l[n] == NULL);
    CHECK_INT(n, 6);
    CHECK_STR(d[0], "dotnet --version");
    CHECK_CONTAINS(d[2], "packages.sh Microsoft.EntityFrameworkCore@10.0.15 ");
    CHECK_CONTAINS(d[2], " Dapper@2.1.86");
    CHECK_STR(d[3], "sh /opt/dval-dotnet/setup.sh");
    CHECK_STR(d[4], "sh /opt/dval-dotnet/r2r.sh");
    CHECK_CONTAINS(d[5], "'uid 1879113729' 'dir /run/dval-csc' 'run exec sh "
                   "/opt/dval-dotnet/service.sh' 'shared 1' > "
                   DVAL_SERVICE_DIR "/csc");
    CHECK_STR(p->image, "mcr.microsoft.com/dotnet/sdk:10.0");
}

TEST(test_profile_dotnet__embedded_files_are_the_repository_files)
{
    char dir[] = "/tmp/dval-dotnet-tgz.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/b64", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(DOTNET_PROFILE_TGZ_B64, f);
    fclose(f);
    CHECK_INT(sh_ok("cd %s && base64 -d b64 | tar -xzf - && rm b64", dir), 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "for f in profiles/dotnet/*; do cmp -s $f "
             "%s/${f##*/} || exit 1; done; for f in "
             "libexec/dval-csc-service/*.cs; do cmp -s $f %s/src/${f##*/} "
             "|| exit 1; done; cmp -s libexec/dval-csc-service/dval-csc-client "
             "%s/dval-csc-client", dir, dir, dir);
    CHECK_INT(system(cmd), 0);
    /* nothing else rides along */
    CHECK_INT(sh_ok("test $(cd %s && find . -type f | wc -l) -eq $(( $(ls "
                    "profiles/dotnet | wc -l) + $(ls libexec/dval-csc-service/"
                    "*.cs | wc -l) + 1 ))", dir), 0);
    CHECK_INT(sh_ok("rm -rf %s", dir), 0);
}

TEST(test_profile_dotnet__build_and_run_phases)
{
    const dval_profile *p = dval_profile_find("dotnet");
    CHECK_CONTAINS(p->build_command, "exec sh /opt/dval-dotnet/build.sh");
    /* a snapshot without the scripts is the infrastructure's fault */
    CHECK_CONTAINS(p->build_command, "[ -f /opt/dval-dotnet/build.sh ] || "
                   "{ echo 'dval: infrastructure: ");
    CHECK_CONTAINS(p->build_command, "exit 70; }");
    CHECK_STR(p->run_command, "exec sh /opt/dval-dotnet/run.sh");
    CHECK_INT(sh_parses(p->build_command), 0);
    CHECK_INT(sh_parses(p->run_command), 0);
    CHECK_INT(sh_ok("cd /tmp && sh -c \"%s\" 2>/dev/null; test $? = 70",
                    "[ -f /nonexistent/x ] || exit 70"), 0);
    CHECK_STR(p->channel_prefix, "DOTNET_SANDBOX_");
    CHECK_INT(sh_ok("for f in profiles/dotnet/*.sh; do sh -n $f || exit 1; "
                    "done%s", ""), 0);
    CHECK_INT(sh_ok("perl -c libexec/dval-csc-service/dval-csc-client "
                    "2>/dev/null%s", ""), 0);
}
