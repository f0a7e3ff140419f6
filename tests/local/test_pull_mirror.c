/* Issue 38: the dotnet profile's image, mcr.microsoft.com/dotnet/sdk:10.0,
 * is pulled when a registry answers for it (here the test registry, named
 * as mcr.microsoft.com's mirror by DVAL_LOCAL_PULL_MIRROR) and recorded
 * under its own name; a registry that does not answer costs no retries:
 * the snapshot falls back at once to debian-12-dotnet (this machine's
 * SDK copied in). Either way the build log and the snapshot's runtime
 * say which image it is. */
#include "lt.h"
#include "executor/local/local.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MCR "mcr.microsoft.com/dotnet/sdk:10.0"

static void runtime_of(lt_pull_fx *f, const char *snap, char *dst,
                       size_t cap)
{
    dval_snapshot_info info = { .struct_size = sizeof info };
    CHECK_INT(f->t.ex.snapshot_get(f->t.ex.userdata, lt_call(&f->t), snap,
                                   &info), DVAL_OK);
    snprintf(dst, cap, "%s", info.runtime);
}

TEST(test_local_pull_mirror__dotnet_image_pulled_from_a_mirror)
{
    lt_pull_fx f;
    char m[200], p[900], rt[DVAL_RUNTIME_MAX];
    lt_pull_open(&f, "mcr-pull");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "");
    snprintf(m, sizeof m, "mcr.microsoft.com=127.0.0.1:%d", f.r.proxy);
    setenv("DVAL_LOCAL_PULL_MIRROR", m, 1);
    /* a registry that answers "no such image" is an error, not a
     * reason to use another image */
    CHECK_INT(lt_pull_snapshot(&f, "sdk", MCR), DVAL_ENOTFOUND);
    CHECK(!strstr(f.log.data, "debian-12-dotnet"));
    lt_pull_push(&f, "v1", "dotnet/sdk:10.0", "");
    CHECK_INT(lt_pull_snapshot(&f, "sdk", MCR), DVAL_OK);
    CHECK_CONTAINS(f.log.data, "image " MCR ": pulled (sha256:");
    snprintf(p, sizeof p, "%s/snapshots/sdk/rootfs/hello", f.t.dir);
    CHECK_STR(lt_slurp(p), "hello from the registry");
    runtime_of(&f, "sdk", rt, sizeof rt);
    CHECK_CONTAINS(rt, "image " MCR "@sha256:");
    /* recorded under its own name, not the mirror's */
    snprintf(p, sizeof p, "grep -qx 'ref=" MCR "' %s/oci/refs/*", f.cache);
    lt_sh(p);
    /* pulled once, it is used offline (the mirror gone) */
    lt_reg_stop(&f.r);
    CHECK_INT(f.t.ex.snapshot_delete(f.t.ex.userdata, lt_call(&f.t), "sdk"),
              DVAL_OK);
    CHECK_INT(lt_pull_snapshot(&f, "sdk", MCR), DVAL_OK);
    CHECK_CONTAINS(f.log.data, "image " MCR ": pulled (sha256:");
    unsetenv("DVAL_LOCAL_PULL_MIRROR");
    lt_pull_close(&f);
}

static int64_t timed(lt_pull_fx *f, const char *name)
{
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_pull_snapshot(f, name, MCR), DVAL_OK);
    int64_t ms = dval__now_ms() - t0;
    fprintf(stderr, "    %s: %lld ms\n", name, (long long)ms);
    return ms;
}

/* The test's own cache (no pulled image in it) sees the suite's
 * debian-12-dotnet, when there is one, through a symbolic link (only
 * read); else the first snapshot builds it. */
TEST(test_local_pull_mirror__silent_registry_falls_back_at_once)
{
    lt_pull_fx f;
    char shared[600], cmd[4000], rt[DVAL_RUNTIME_MAX];
    lx_cache_dir(shared, sizeof shared);
    lt_pull_open(&f, "mcr-fallback");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/images && if [ -e '%s/images/"
             "debian-12-dotnet/ok' ]; then ln -s '%s/images/debian-12-dotnet'"
             " %s/images/; fi", f.cache, shared, shared, f.cache);
    lt_sh(cmd);
    /* the registry skipped: the host-copy image */
    setenv("DVAL_LOCAL_PULL", "never", 1);
    int64_t never = timed(&f, "never");
    unsetenv("DVAL_LOCAL_PULL");
    CHECK_CONTAINS(f.log.data, "image " MCR ": registry was not asked "
                   "(DVAL_LOCAL_PULL=never); using debian-12-dotnet "
                   "(this machine's .NET SDK 10.");
    /* a mirror on a closed port: no answer, no retry ladder */
    setenv("DVAL_LOCAL_PULL_MIRROR", "mcr.microsoft.com=127.0.0.1:1", 1);
    int64_t fell = timed(&f, "fallback");
    unsetenv("DVAL_LOCAL_PULL_MIRROR");
    CHECK(fell < never + 1000);
    CHECK_CONTAINS(f.log.data, "image " MCR ": registry did not answer (");
    CHECK_CONTAINS(f.log.data, "); using debian-12-dotnet (this machine's "
                   ".NET SDK 10.");
    runtime_of(&f, "fallback", rt, sizeof rt);
    CHECK_CONTAINS(rt, "image debian-12-dotnet");
    lt_pull_close(&f);
}
