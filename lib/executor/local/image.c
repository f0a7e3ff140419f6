/* Root images of the local executor. A sandbox's root is never the host's:
 * it is an overlay over an image, which is one of
 *   - a Debian root built once per machine with mmdebstrap and cached
 *     under the image cache (shared by every state directory), each named
 *     with its release and packages in `debian` below, the one place that
 *     says so: "debian-12" (minbase + procps + iproute2), "debian-13-java"
 *     (Debian 13 + openjdk-25-jdk-headless + maven: Debian 12 has no JDK
 *     25) and "debian-12-dotnet" (the base + the .NET runtime's libraries
 *     + the host's own .NET SDK, copied in: image_dotnet.c), which is
 *     where the dotnet profile's image, mcr.microsoft.com/dotnet/sdk:10.0,
 *     comes from when its registry does not answer (image_choice.c);
 *   - a root filesystem the user has: "dir:/path", "tar:/path.tar[.gz]",
 *     "oci:/layout[:tag]" (image_import.c);
 *   - an image in a registry: "docker://NAME[:TAG]", or a name with a
 *     registry host, "HOST/NAME[:TAG][@sha256:...]" (pull_ref.c), pulled
 *     into the image cache and imported as an OCI layout's layers are;
 *   - only when opted in (lx_host_root_opt_in), an allow-list of the host's
 *     system directories bound read-only ("host"; the helper builds it).
 * This file maps a spec's image to one of them and builds the Debian ones. */
#include "local.h"
#include "protocol.h"
#include "pull.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The one place that reads the host-root opt-in: the client's
 * dval_local_options.host_root, or DVAL_LOCAL_HOST_ROOT=1. */
int lx_host_root_opt_in(const lx *x)
{
    const char *e = getenv("DVAL_LOCAL_HOST_ROOT");
    return x->host_root || (e && !strcmp(e, "1"));
}

int lx_cache_dir(char *dst, size_t cap)
{
    const char *e = getenv("DVAL_LOCAL_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (e && e[0] == '/')
        dval__fmt(dst, cap, "%s", e);
    else if (xdg && xdg[0] == '/')
        dval__fmt(dst, cap, "%s/daytona-validate", xdg);
    else if (home && home[0] == '/')
        dval__fmt(dst, cap, "%s/.cache/daytona-validate", home);
    else {
        /* an emptied environment (env -i) still shares the cache */
        struct passwd *pw = getpwuid(geteuid());
        if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
            return -1;
        dval__fmt(dst, cap, "%s/.cache/daytona-validate", pw->pw_dir);
    }
    return 0;
}

/* Images of the built-in profiles (lib/profile.c) and Debian 12 names. */
static const struct {
    const char *image;
    int prefix;                 /* 1: any image starting with it */
    int which;
} known[] = {
    { "debian:12", 1, LX_IMG_BASE },
    { "debian:bookworm", 1, LX_IMG_BASE },
    { "bellsoft/liberica-openjdk-debian:25-cds", 0, LX_IMG_JAVA },
    { "mcr.microsoft.com/dotnet/sdk:10.0", 0, LX_IMG_DOTNET },
};

static int source(const char *image, const char *pfx, lx_image *out, int kind)
{
    size_t n = strlen(pfx);
    if (strncmp(image, pfx, n) != 0)
        return 0;
    out->kind = kind;
    dval__fmt(out->path, sizeof out->path, "%s", image + n);
    return 1;
}

int lx_image_parse(dval_call *c, const char *image, lx_image *out)
{
    memset(out, 0, sizeof *out);
    if (!image || !*image) { /* no image named: the minimal base */
        out->kind = LX_IMG_BASE;
        return DVAL_OK;
    }
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i].prefix ? !strncmp(image, known[i].image,
                                       strlen(known[i].image))
                            : !strcmp(image, known[i].image)) {
            out->kind = known[i].which;
            dval__fmt(out->path, sizeof out->path, "%s", image);
            return DVAL_OK;
        }
    if (source(image, "dir:", out, LX_IMG_DIR) ||
        source(image, "tar:", out, LX_IMG_TAR) ||
        source(image, "oci:", out, LX_IMG_OCI)) {
        if (out->path[0] != '/')
            return dval__call_fail(c, DVAL_EINVAL, "local executor: image "
                                   "%s: the path must be absolute", image);
        if (out->kind == LX_IMG_DIR && strpbrk(out->path, ":,\\"))
            return dval__call_fail(c, DVAL_EINVAL, "local executor: image "
                                   "%s: ':', ',' and '\\' cannot be used in "
                                   "an overlay layer path", image);
        return DVAL_OK;
    }
    if (lx_ref_is_pull(image)) {
        lx_ref r;
        out->kind = LX_IMG_PULL;
        dval__fmt(out->path, sizeof out->path, "%s", image);
        return lx_ref_parse(c, image, &r);
    }
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "local executor: image %s "
                           "is not supported; use debian:12*, "
                           "debian:bookworm*, a built-in profile's image, "
                           "dir:/rootfs, tar:/rootfs.tar[.gz], "
                           "oci:/layout[:tag], a registry image "
                           "HOST/NAME[:TAG] or docker://NAME[:TAG] (or "
                           "DVAL_LOCAL_HOST_ROOT=1 to run over the host's "
                           "system directories)", image);
}

/* The cache key names the release: an image of another release is
 * another image, never an old one reused under the same name. */
static const struct {
    const char *key, *suite, *release, *include;
} debian[] = {
    [LX_IMG_BASE] = { "debian-12", "bookworm", "Debian 12",
                      "procps,iproute2" },
    [LX_IMG_JAVA] = { "debian-13-java", "trixie", "Debian 13",
                      "procps,iproute2,openjdk-25-jdk-headless,maven" },
    /* what the .NET runtime loads (ICU, OpenSSL, Kerberos, zlib), the
     * CA certificates and time zones its programs expect */
    [LX_IMG_DOTNET] = { "debian-12-dotnet", "bookworm", "Debian 12",
                        "procps,iproute2,ca-certificates,tzdata,libicu72,"
                        "libssl3,libgssapi-krb5-2,zlib1g" },
};

/* The dotnet image copies the host's SDK: without one it cannot be built,
 * and says how to get one, after what the registry (the first choice)
 * did, when it was tried (registry: "" when not). */
static int dotnet_source(dval_call *c, int which, const char *registry,
                         char *root, size_t cap, char *ver, size_t vcap)
{
    root[0] = ver[0] = 0;
    if (which != LX_IMG_DOTNET || lx_host_dotnet(root, cap, ver, vcap) == 0)
        return DVAL_OK;
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "local executor: %sthe "
                           "dotnet image's other source is this machine's "
                           ".NET 10 SDK, copied into Debian 12, and this "
                           "machine has none (no sdk/10.* beside the "
                           "`dotnet` on PATH or in $DOTNET_ROOT). Get one: "
                           "on Debian 12, as root, `curl -fsSLO https://"
                           "packages.microsoft.com/config/debian/12/"
                           "packages-microsoft-prod.deb && dpkg -i "
                           "packages-microsoft-prod.deb && apt-get update && "
                           "apt-get install -y dotnet-sdk-10.0`; elsewhere "
                           "Microsoft's dotnet-install.sh --channel 10.0, "
                           "then DOTNET_ROOT=<its folder>. Or a registry: a "
                           "mirror of mcr.microsoft.com (DVAL_LOCAL_PULL_"
                           "MIRROR=mcr.microsoft.com=HOST:PORT), or build the "
                           "snapshot from dir:/root, tar:/root.tar, "
                           "oci:/layout", registry);
}

int lx_which(const char *prog, char *dst, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (const char *s = path; *s;) {
        size_t n = strcspn(s, ":");
        dval__fmt(dst, cap, "%.*s/%s", (int)n, s, prog);
        if (n && access(dst, X_OK) == 0)
            return 0;
        s += n + (s[n] == ':');
    }
    return -1;
}

static _Thread_local long long tree_bytes; /* nftw has no user pointer */

static int add_size(const char *p, const struct stat *st, int type,
                    struct FTW *f)
{
    (void)p;
    (void)type;
    (void)f;
    tree_bytes += (long long)st->st_blocks * 512;
    return 0;
}

/* Disk use of a tree (reported with each built image). */
static long long tree_size(const char *dir)
{
    tree_bytes = 0;
    nftw(dir, add_size, 32, FTW_PHYS | FTW_MOUNT);
    return tree_bytes;
}

static void announce(lx_build_io *io, int which, const char *sdk,
                     const char *ver)
{
    char m[4400];
    dval__fmt(m, sizeof m, "building the image %s (%s, mmdebstrap)\n",
              debian[which].key, debian[which].release);
    lx_io_line(io, m);
    if (sdk[0]) {
        dval__fmt(m, sizeof m, "with the .NET SDK %s from %s\n", ver, sdk);
        lx_io_line(io, m);
    }
}

/* The cache's image format, in images/<key>/format once an image has
 * it: 2 has the neutral name and resolver (protocol.h). An image built
 * before (mmdebstrap copies the build host's hostname and resolv.conf) is
 * brought up to it when next used, under its lock: three files, not a
 * rebuild. */
#define LX_IMAGE_FORMAT "2"

static int current(const char *dir)
{
    char p[4200], buf[8];
    dval__fmt(p, sizeof p, "%s/format", dir);
    return lx_read_text(p, buf, sizeof buf) == 0 &&
           !strcmp(buf, LX_IMAGE_FORMAT);
}

/* Each file replaced by a rename: a symlink there (an image may have
 * one) is replaced, never followed out of the image. */
static int upgrade(dval_call *c, const char *dir)
{
    static const char *const etc[][2] = {
        { "hostname", LX_ETC_HOSTNAME }, { "hosts", LX_ETC_HOSTS },
        { "resolv.conf", LX_ETC_RESOLV } };
    char p[4200], tmp[4300];
    for (int i = 0; i < 3; i++) {
        dval__fmt(p, sizeof p, "%s/rootfs/etc/%s", dir, etc[i][0]);
        dval__fmt(tmp, sizeof tmp, "%s.dval.tmp", p);
        unlink(tmp);
        int rc = lx_write_text(c, tmp, etc[i][1]);
        if (rc == DVAL_OK && rename(tmp, p) < 0)
            rc = dval__call_fail(c, DVAL_EIO, "rename %s: %s", tmp,
                                 strerror(errno));
        if (rc != DVAL_OK)
            return rc;
    }
    dval__fmt(p, sizeof p, "%s/format", dir);
    return lx_write_text(c, p, LX_IMAGE_FORMAT "\n");
}

/* Under the image's lock: mmdebstrap into rootfs.tmp, then rename. */
static int debootstrap(lx *x, dval_call *c, const char *dir, int which,
                       int64_t end, lx_build_io *fwd)
{
    char tmp[4200], fin[4200], p[4200], sdk[4096], ver[64];
    int rc = dotnet_source(c, which, "", sdk, sizeof sdk, ver, sizeof ver);
    if (rc != DVAL_OK)
        return rc;
    if (lx_which("mmdebstrap", p, sizeof p) < 0)
        return dval__call_fail(c, DVAL_EISOLATION, "local executor: the "
                               "%s image is built with mmdebstrap, which is "
                               "not installed (apt-get install mmdebstrap), "
                               "or set DVAL_LOCAL_HOST_ROOT=1 to run over the "
                               "host's system directories",
                               debian[which].key);
    dval__fmt(tmp, sizeof tmp, "%s/rootfs.tmp", dir);
    dval__fmt(fin, sizeof fin, "%s/rootfs", dir);
    lx_rmtree(tmp);
    lx_rmtree(fin);
    dval__fmt(p, sizeof p, "%s/build.log", dir);
    lx_build_io io = { .also = fwd };
    io.logfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (io.logfd < 0)
        return dval__call_fail(c, DVAL_EIO, "open %s: %s", p, strerror(errno));
    LX_LOG(x, DVAL_LOG_INFO, "local executor: building the %s image with "
           "mmdebstrap (once per machine; log %s)", debian[which].key, p);
    announce(&io, which, sdk, ver);
    int64_t t0 = dval__now_ms();
    char *argv[] = { NULL, LX_VERB_MKIMAGE, tmp, (char *)debian[which].suite,
                     (char *)debian[which].include, sdk[0] ? sdk : NULL,
                     NULL };
    int code = 0;
    rc = lx_run_step(x, c, argv, end, &io, &code);
    lx_io_flush(&io);
    close(io.logfd);
    if (rc == DVAL_OK && code != 0)
        rc = dval__call_fail(c, DVAL_EBUILD, "local executor: building the "
                             "%s image failed (mmdebstrap exit %d: %s); see "
                             "%s", debian[which].key, code, io.last, p);
    if (rc == DVAL_OK && rename(tmp, fin) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "rename %s: %s", tmp,
                             strerror(errno));
    if (rc != DVAL_OK) {
        lx_rmtree(tmp);
        return rc;
    }
    char msg[256];
    dval__fmt(msg, sizeof msg, "image %s built in %.1f s, %lld MB\n",
              debian[which].key, (double)(dval__now_ms() - t0) / 1000.0,
              tree_size(fin) >> 20);
    LX_LOG(x, DVAL_LOG_INFO, "local executor: %.*s", (int)strlen(msg) - 1,
           msg);
    lx_io_line(fwd, msg);
    dval__fmt(p, sizeof p, "%s/ok", dir);
    return lx_write_text(c, p, msg);
}

int lx_cache_path(dval_call *c, const char *sub, char *dst, size_t cap)
{
    if (lx_cache_dir(dst, cap) < 0)
        return dval__call_fail(c, DVAL_EINVAL, "local executor: no image "
                               "cache directory (set DVAL_LOCAL_CACHE_DIR)");
    size_t n = strlen(dst);
    dval__fmt(dst + n, cap - n, "/%s", sub);
    return DVAL_OK;
}

/* The image directory of a Debian image. */
static int debian_dir(dval_call *c, int which, char *dir, size_t cap)
{
    char sub[64];
    dval__fmt(sub, sizeof sub, "images/%s", debian[which].key);
    return lx_cache_path(c, sub, dir, cap);
}

int lx_image_host_copy(dval_call *c, const char *registry)
{
    char dir[4096], p[4200], sdk[4096], ver[64];
    int rc = debian_dir(c, LX_IMG_DOTNET, dir, sizeof dir);
    dval__fmt(p, sizeof p, "%s/ok", dir);
    if (rc != DVAL_OK || access(p, F_OK) == 0)
        return rc;
    return dotnet_source(c, LX_IMG_DOTNET, registry, sdk, sizeof sdk, ver,
                         sizeof ver);
}

int lx_image_debian(lx *x, dval_call *c, int which, int64_t end,
                    lx_build_io *fwd, char *rootfs, size_t cap)
{
    char dir[4096], p[4200];
    int rc = debian_dir(c, which, dir, sizeof dir);
    if (rc != DVAL_OK)
        return rc;
    dval__fmt(rootfs, cap, "%s/rootfs", dir);
    if (current(dir))
        return DVAL_OK;
    if (strpbrk(dir, ":,\\"))
        return dval__call_fail(c, DVAL_EINVAL, "local executor: the image "
                               "cache %s has ':', ',' or '\\' in its path",
                               dir);
    if (lx_mkdirs(dir, 0755) < 0)
        return dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", dir,
                               strerror(errno));
    dval__fmt(p, sizeof p, "%s/lock", dir);
    int64_t left = end - dval__now_ms();
    int lk = lx_lock(c, p, left > 0 ? left : 1);
    if (lk < 0)
        return lk;
    dval__fmt(p, sizeof p, "%s/ok", dir);
    rc = access(p, F_OK) == 0 ? DVAL_OK
         : debootstrap(x, c, dir, which, end, fwd);
    if (rc == DVAL_OK && !current(dir))
        rc = upgrade(c, dir);
    lx_unlock(lk);
    return rc;
}

int lx_image_unsnapshotted(dval_call *c, const char *image, lx_image *img)
{
    int rc = lx_image_parse(c, image, img);
    if (rc == DVAL_OK && !lx_image_is_debian(img->kind)) /* imports live
                                                     in a snapshot's dir */
        rc = dval__call_fail(c, DVAL_EUNSUPPORTED, "local executor: image %s "
                             "needs a snapshot: create one from it "
                             "(dval_snapshot_ensure) and name that in the "
                             "sandbox's snapshot", image);
    return rc;
}

/* The lower layers of a sandbox without a snapshot. */
int lx_default_root(lx *x, dval_call *c, const char *image, char *dst,
                    size_t cap)
{
    lx_image img;
    int rc = lx_image_unsnapshotted(c, image, &img);
    if (rc != DVAL_OK)
        return rc;
    if (lx_host_root_opt_in(x)) {
        dval__fmt(dst, cap, LX_ROOT_HOST);
        return DVAL_OK;
    }
    int64_t budget = c && c->timeout_ms > 0 ? c->timeout_ms : 3600000;
    return lx_image_debian(x, c, img.kind, dval__now_ms() + budget, NULL,
                           dst, cap);
}
