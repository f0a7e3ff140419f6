/* Support for the dotnet suites (dotnet.h). */
#include "dotnet.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DN_IMAGE "mcr.microsoft.com/dotnet/sdk:10.0"

const char *dn_text(const lt_out *o, int err)
{
    const dval__buf *b = err ? &o->err : &o->out;
    return b->data ? b->data : "";
}

void dn_sandbox(lt *t, const char *name)
{
    if (system("command -v dotnet >/dev/null 2>&1") != 0)
        th_skip("no .NET SDK on this host");
    const dval_profile *p = dval_profile_find("dotnet");
    CHECK(p && p->local_build_commands);
    /* the snapshot's build (a restore, the service's compile, crossgen2
     * over the package set) takes a minute or more on a busy machine, the
     * suite's other tests building theirs: the test's own budget and its
     * 60 s calls start after */
    th_timeout(600);
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = "dotnet",
                             .image = DN_IMAGE,
                             .build_commands = p->local_build_commands };
    dval_call *c = lt_call(t);
    c->timeout_ms = 540000;
    int rc = t->ex.snapshot_create(t->ex.userdata, c, &s, NULL, NULL, NULL);
    if (rc == DVAL_EEXISTS && t->shared) /* an earlier test's (lt_open_shared) */
        rc = DVAL_OK;
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "dotnet snapshot: %s", t->call.errmsg);
    th_timeout(60);
    dn_start(t, name);
}

void dn_start(lt *t, const char *name)
{
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = "dotnet" };
    lt_sandbox(t, name, &o);
    int up = 0;
    for (int i = 0; i < 150 && !up; i++) { /* the services host starts it */
        lt_out out = { 0 };
        up = lt_run(t, name, "test -S /run/dval-csc/sock", &out) == 0;
        lt_out_free(&out);
        if (!up)
            usleep(100000);
    }
    CHECK(up);
}

void dn_put(lt *t, const char *sb, const char *remote, const char *rel,
            const char *data)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", remote, rel);
    CHECK_INT(lt_upload(t, sb, path, data), DVAL_OK);
}

void dn_put_dir(lt *t, const char *sb, const char *local, const char *remote)
{
    DIR *d = opendir(local);
    CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || e->d_type == DT_DIR)
            continue;
        char src[600], dst[600];
        snprintf(src, sizeof src, "%s/%s", local, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", remote, e->d_name);
        CHECK_INT(lt_upload_file(t, sb, dst, src), DVAL_OK);
    }
    closedir(d);
}
