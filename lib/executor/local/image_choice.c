/* The dotnet profile's image, mcr.microsoft.com/dotnet/sdk:10.0 (the
 * design's), has two sources. The registry's image is the first choice:
 * used from the cache when pulled before, else pulled (through a mirror
 * when DVAL_LOCAL_PULL_MIRROR names one). Where no registry answers
 * (offline, or DVAL_LOCAL_PULL=never), debian-12-dotnet: Debian 12 with
 * this machine's SDK copied in (image.c). A registry that does answer
 * with an error is that error: another image is never taken silently.
 * The choice is said in the build log and kept in <snapdir>/image, which
 * the snapshot's runtime reports (snapshot ls). */
#include "local.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HOST_COPY "debian-12-dotnet"

/* What the registry did, as a phrase: "registry did not answer (...)". */
static void registry_did(const lx_pull_opts *o, char *dst, size_t cap)
{
    if (o->no_answer == 2)
        dval__fmt(dst, cap, "registry was not asked "
                  "(DVAL_LOCAL_PULL=never)");
    else
        dval__fmt(dst, cap, "registry did not answer (%s)", o->why);
}

/* The line in the build log and the log, and <snapdir>/image. */
static int chosen(lx *x, dval_call *c, const char *snapdir,
                  lx_build_io *io, const char *line, const char *record)
{
    char p[4200];
    lx_io_line(io, line);
    LX_LOG(x, DVAL_LOG_INFO, "local executor: %.*s", (int)strlen(line) - 1,
           line);
    dval__fmt(p, sizeof p, "%s/image", snapdir);
    return lx_write_text(c, p, record);
}

/* No registry: the host-copy image (built once), or the refusal that
 * says how to get an SDK, after what the registry did. */
static int fall_back(lx *x, dval_call *c, const char *snapdir,
                     const char *image, const lx_pull_opts *o, int64_t end,
                     lx_build_io *io, char *lower, size_t cap)
{
    char did[400], first[600], line[1200], ver[64] = "";
    registry_did(o, did, sizeof did);
    dval__fmt(first, sizeof first, "%s was not pulled: its %s; ", image,
              did);
    int rc = lx_image_host_copy(c, first);
    if (rc == DVAL_OK)
        rc = lx_image_debian(x, c, LX_IMG_DOTNET, end, io, lower, cap);
    if (rc != DVAL_OK)
        return rc;
    char root[4200];
    dval__fmt(root, sizeof root, "%s/usr/share/dotnet", lower);
    lx_dotnet_sdk_version(root, ver, sizeof ver);
    dval__fmt(line, sizeof line, "image %s: %s; using " HOST_COPY " (this "
              "machine's .NET SDK %s)\n", image, did, ver[0] ? ver : "10");
    return chosen(x, c, snapdir, io, line, HOST_COPY);
}

int lx_image_choose(lx *x, dval_call *c, const char *snapdir,
                    const char *image, int64_t end, lx_build_io *io,
                    char *lower, size_t cap)
{
    lx_pull_opts o = { .quick = 1 };
    lx_image img = { .kind = LX_IMG_PULL, .pull = &o };
    char line[1200], record[300];
    dval__fmt(record, sizeof record, "%s/image", snapdir);
    unlink(record); /* a record is of this build only */
    dval__fmt(img.path, sizeof img.path, "%s", image);
    int rc = lx_image_import(x, c, snapdir, &img, end, io, lower, cap);
    if (rc != DVAL_OK && o.no_answer)
        return fall_back(x, c, snapdir, image, &o, end, io, lower, cap);
    if (rc != DVAL_OK)
        return rc;
    dval__fmt(line, sizeof line, "image %s: pulled (%s)\n", image,
              o.manifest);
    /* the digest shortened: the runtime it is shown with is short */
    dval__fmt(record, sizeof record, "%s@%.19s", image, o.manifest);
    return chosen(x, c, snapdir, io, line, record);
}

/* The Debian images need only the archive; the dotnet one a cached
 * image, this machine's SDK, or a registry that answers. */
int lx_image_can_build(lx *x, dval_call *c, const lx_image *img)
{
    dval_call quiet = { .struct_size = sizeof quiet };
    lx_pull_opts o = { .quick = 1 };
    char did[400], first[600];
    if (img->kind != LX_IMG_DOTNET ||
        lx_image_host_copy(&quiet, "") == DVAL_OK)
        return DVAL_OK;
    int rc = lx_pull_probe(x, &quiet, img->path, &o);
    if (rc == DVAL_OK)
        return DVAL_OK;
    if (!o.no_answer) /* a malformed mirror list, say */
        return dval__call_fail(c, rc, "%s", quiet.errmsg);
    registry_did(&o, did, sizeof did);
    dval__fmt(first, sizeof first, "%s cannot be pulled: its %s; ", img->path,
              did);
    return lx_image_host_copy(c, first);
}
