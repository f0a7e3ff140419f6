/* Issue 38: a snapshot's build restores packages with the host's NuGet
 * configuration (sources, credentials, proxy), and nothing of it reaches
 * the snapshot or a validation. The library picks $DVAL_NUGET_CONFIG,
 * else ~/.nuget/NuGet/NuGet.Config; the build steps see it read-only at
 * LX_BUILD_NUGET_CONFIG (the dotnet profile's packages.sh passes it to
 * `dotnet restore --configfile`) and the host's proxy settings. */
#include "lt.h"
#include "executor/local/local.h"
#include "executor/local/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECRET "nuget-password-7f3e"
#define PROXY "http://proxy.invalid:3128"
/* what a build step saw: the host's source, whether it could change the
 * file, the proxy */
#define LOOK                                                               \
    "{ grep -c //SRC. " LX_BUILD_NUGET_CONFIG " || echo none; "            \
    "( echo x >> " LX_BUILD_NUGET_CONFIG " ) 2>/dev/null || echo ro; "     \
    "echo \"proxy=$http_proxy\"; } > /seen"

/* A NuGet.Config at path naming source src, with a password. */
static void config(const char *path, const char *src)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && printf "
             "'%%s\\n' '<configuration><packageSources>' '<add key=\"%s\" "
             "value=\"https://%s.example/v3/index.json\" />' "
             "'</packageSources><packageSourceCredentials><%s><add "
             "key=\"ClearTextPassword\" value=\"" SECRET "\" /></%s>' "
             "'</packageSourceCredentials></configuration>' > '%s' && "
             "chmod 600 '%s'", path, src, src, src, src, path, path);
    lt_sh(cmd);
}

/* Builds snapshot `name` whose step looks for source src; its sandbox
 * shows what the build saw, and neither it nor the layer has the file
 * or its secret. */
static void build_and_look(lt *t, const char *name, const char *src,
                           const char *want)
{
    char step[512], cmd[1400];
    snprintf(step, sizeof step, "%s", LOOK);
    char *p = strstr(step, "SRC");
    memcpy(p, src, 3); /* sources are named with 3 letters */
    const char *steps[] = { step, NULL };
    CHECK_INT(lt_snapshot(t, name, "debian:12", steps, NULL), DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = name };
    lt_sandbox(t, name, &o);
    lt_out out = { 0 };
    CHECK_INT(lt_run(t, name, "cat /seen; test -e " LX_BUILD_NUGET_DIR
                     " && echo LEFT; true", &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", want);
    lt_out_free(&out);
    snprintf(cmd, sizeof cmd, "! grep -rqs " SECRET " '%s/snapshots/%s/layer'",
             t->dir, name);
    lt_sh(cmd);
}

TEST(test_build_nuget__host_config_for_builds_only)
{
    lt t;
    lt_open(&t, "build-nuget");
    char home[700], path[800];
    /* the image cache stays where it is when HOME moves */
    if (!getenv("DVAL_LOCAL_CACHE_DIR") && !getenv("XDG_CACHE_HOME")) {
        snprintf(path, sizeof path, "%s/.cache", getenv("HOME"));
        setenv("XDG_CACHE_HOME", path, 1);
    }
    snprintf(home, sizeof home, "%s/home", t.dir);
    snprintf(path, sizeof path, "%s/.nuget/NuGet/NuGet.Config", home);
    config(path, "hom");
    setenv("HOME", home, 1);
    unsetenv("DVAL_NUGET_CONFIG");
    setenv("http_proxy", PROXY, 1);
    build_and_look(&t, "from-home", "hom", "1\nro\nproxy=" PROXY "\n");
    unsetenv("http_proxy");
    /* DVAL_NUGET_CONFIG names another file */
    snprintf(path, sizeof path, "%s/other/nuget.config", t.dir);
    config(path, "env");
    setenv("DVAL_NUGET_CONFIG", path, 1);
    build_and_look(&t, "from-env", "env", "1\nro\nproxy=\n");
    /* one that is not there: the build restores without */
    setenv("DVAL_NUGET_CONFIG", "/nonexistent/NuGet.Config", 1);
    /* (the build's /tmp/dval-build is its own: the step may write there) */
    build_and_look(&t, "without", "env", "none\nproxy=\n");
    unsetenv("DVAL_NUGET_CONFIG");
    lt_close(&t);
}

/* The machine's build cache: what one build keeps at LX_BUILD_CACHE_DIR
 * the next build finds (the dotnet profile's r2r.sh keeps its ReadyToRun
 * assemblies there); it is never executable, never in a snapshot, never
 * seen by a sandbox. Each run of the test uses a key of its own. */
TEST(test_build_nuget__build_cache_from_build_to_build)
{
    lt t;
    lt_open(&t, "build-cache");
    char key[64], keep[512], look[768], cmd[2000];
    snprintf(key, sizeof key, "lt-build-cache-%d", (int)getpid());
    snprintf(keep, sizeof keep, "echo kept > " LX_BUILD_CACHE_DIR "/%s && "
             "printf '#!/bin/sh\\necho ran\\n' > " LX_BUILD_CACHE_DIR
             "/%s.sh && chmod +x " LX_BUILD_CACHE_DIR "/%s.sh", key, key,
             key);
    const char *first[] = { keep, NULL };
    CHECK_INT(lt_snapshot(&t, "keeps", "debian:12", first, NULL), DVAL_OK);
    snprintf(look, sizeof look, "{ cat " LX_BUILD_CACHE_DIR "/%s; "
             LX_BUILD_CACHE_DIR "/%s.sh 2>/dev/null || echo noexec; } "
             "> /seen", key, key);
    const char *second[] = { look, NULL };
    CHECK_INT(lt_snapshot(&t, "finds", "debian:12", second, NULL), DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = "finds" };
    lt_sandbox(&t, "finds", &o);
    lt_out out = { 0 };
    CHECK_INT(lt_run(&t, "finds", "cat /seen; test -e " LX_BUILD_NUGET_DIR
                     " && echo LEFT; true", &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", "kept\nnoexec\n");
    lt_out_free(&out);
    snprintf(cmd, sizeof cmd, "test -z \"$(find '%s/snapshots/keeps/layer' "
             "'%s/snapshots/finds/layer' -name '%s*')\"", t.dir, t.dir, key);
    lt_sh(cmd);
    char cache[600];
    lx_cache_dir(cache, sizeof cache);
    snprintf(cmd, sizeof cmd, "rm -f \"%s/build/%s\" \"%s/build/%s.sh\"",
             cache, key, cache, key);
    lt_sh(cmd);
    lt_close(&t);
}
