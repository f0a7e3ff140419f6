/* Local snapshot images: imports of a directory, a tarball and an OCI
 * layout (with whiteouts) run as the sandbox's root; hostile tarballs are
 * refused without touching the host; unknown images are refused clearly;
 * a snapshot without packages is cheap once the base is cached. */
#include "lt.h"
#include "executor/local/local.h"
#include "executor/local/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define W "/tmp/dval-image-test"
#define MCR_NAME "mcr.microsoft.com/dotnet/sdk:10.0"

static void run_in(lt *t, const char *snap, const char *sb, const char *cmd,
                   const char *want)
{
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = snap };
    lt_sandbox(t, sb, &o);
    lt_out out = { 0 };
    CHECK_INT(lt_run(t, sb, cmd, &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", want);
    lt_out_free(&out);
}

TEST(test_local_image__dir_and_tarball)
{
    lt t;
    lt_open(&t, "img-import");
    lt_sh("rm -rf " W " && mkdir -p " W);
    lt_mini_root(W "/root");
    lt_sh("echo from-dir > " W "/root/marker && chown 1234:5678 " W
          "/root/marker && chmod 604 " W "/root/marker");
    CHECK_INT(lt_snapshot(&t, "from-dir", "dir:" W "/root", NULL, NULL),
              DVAL_OK);
    /* the image is the root: no /usr, no host files, the marker */
    run_in(&t, "from-dir", "d", "cat /marker; test -e /usr || echo no-usr; "
           "test -e /etc/passwd || echo no-etc", "from-dir\nno-usr\nno-etc\n");
    lt_sh("tar -C " W "/root -czf " W "/root.tar.gz . && sed -i "
          "s/from-dir/from-tar/ " W "/root/marker");
    CHECK_INT(lt_snapshot(&t, "from-tar", "tar:" W "/root.tar.gz", NULL,
                          NULL), DVAL_OK);
    run_in(&t, "from-tar", "t", "cat /marker", "from-dir\n");
    /* extracted as root with ownership and mode kept */
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/snapshots/from-tar/rootfs/marker", t.dir);
    CHECK_INT(stat(p, &st), 0);
    CHECK_INT((int)st.st_uid, 1234);
    CHECK_INT((int)st.st_gid, 5678);
    CHECK_INT((int)(st.st_mode & 07777), 0604);
    /* build steps run inside the imported root */
    const char *steps[] = { "echo built > /built", NULL };
    CHECK_INT(lt_snapshot(&t, "tar-built", "tar:" W "/root.tar.gz", steps,
                          NULL), DVAL_OK);
    run_in(&t, "tar-built", "b", "cat /built /marker", "built\nfrom-dir\n");
    CHECK(access("/built", F_OK) != 0);
    lt_close(&t);
    lt_sh("rm -rf " W);
}

static int dockerfile_snapshot(lt *t, const char *name, const char *text)
{
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = name,
                             .image = "nginx:latest", /* FROM wins */
                             .dockerfile = text };
    dval_snapshot_info info = { .struct_size = sizeof info };
    return t->ex.snapshot_create(t->ex.userdata, lt_call(t), &s, &info, NULL,
                                 NULL);
}

/* A Dockerfile's FROM and RUN steps build the snapshot (it was ignored,
 * and the snapshot built from image and build_commands instead); what the
 * local executor cannot honour is refused, leaving no snapshot behind. */
TEST(test_local_image__dockerfile_from_and_run)
{
    lt t;
    lt_open(&t, "img-dockerfile");
    lt_sh("rm -rf " W " && mkdir -p " W);
    lt_mini_root(W "/root");
    CHECK_INT(dockerfile_snapshot(&t, "df", "# built by a test\n"
                                  "FROM dir:" W "/root AS base\n"
                                  "LABEL purpose=test\n"
                                  "RUN echo built > /marker && \\\n"
                                  "    echo continued >> /marker\n"
                                  "RUN [\"sh\", \"-c\", \"echo exec >> "
                                  "/marker\"]\n"), DVAL_OK);
    run_in(&t, "df", "d", "cat /marker; test -e /usr || echo no-usr",
           "built\ncontinued\nexec\nno-usr\n");
    CHECK(access("/marker", F_OK) != 0 ||
          system("grep -qx built /marker") != 0); /* not the host's */
    CHECK_INT(dockerfile_snapshot(&t, "df-env", "FROM dir:" W "/root\n"
                                  "ENV A=1\nRUN true\n"), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "line 2: ENV");
    CHECK_INT(dockerfile_snapshot(&t, "df-none", "RUN true\n"), DVAL_EINVAL);
    CHECK_INT(dockerfile_snapshot(&t, "df-nginx", "FROM nginx:latest\n"),
              DVAL_EUNSUPPORTED);
    const char *gone[] = { "df-env", "df-none", "df-nginx" };
    for (int i = 0; i < 3; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/snapshots/%s", t.dir, gone[i]);
        CHECK(access(p, F_OK) != 0);
    }
    lt_close(&t);
    lt_sh("rm -rf " W);
}

/* A sandbox without a snapshot runs on the Debian image its image names
 * (the java one has javac); an import, which lives in a snapshot, or an
 * unknown image is refused (both used to run on the base image). */
TEST(test_local_image__sandbox_image_without_snapshot)
{
    lt t;
    lt_open(&t, "img-sandbox-image");
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "j",
                               .image = "bellsoft/liberica-openjdk-debian:"
                                        "25-cds" };
    lt_sandbox(&t, "j", &o);
    lt_out out = { 0 };
    CHECK_INT(lt_run(&t, "j", "command -v javac >/dev/null && echo javac",
                     &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", "javac\n");
    lt_out_free(&out);
    o.name = "b";
    o.image = "debian:12-slim";
    lt_sandbox(&t, "b", &o);
    CHECK_INT(lt_run(&t, "b", "command -v javac || echo none", &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", "none\n");
    lt_out_free(&out);
    const char *refused[] = { "dir:/tmp", "nginx:latest" };
    for (int i = 0; i < 2; i++) {
        o.name = "r";
        o.image = refused[i];
        CHECK_INT(t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL),
                  DVAL_EUNSUPPORTED);
        CHECK_CONTAINS(t.call.errmsg, refused[i]);
        CHECK_CONTAINS(t.call.errmsg, i ? "debian:12" : "needs a snapshot");
        CHECK_INT(lt_state(&t, "r"), DVAL_ENOTFOUND);
    }
    lt_close(&t);
}

/* Two layers: the second removes gone.txt (.wh.), makes opq/ opaque after
 * having put opq/new there (the marker need not come first) and adds a
 * file. */
static const char oci_script[] =
    "set -e; cd " W "; R=root; echo keep > $R/keep.txt; "
    "echo gone > $R/gone.txt; mkdir $R/opq; echo old > $R/opq/old; "
    "tar -C $R -czf l1 .; mkdir -p l2d/opq; : > l2d/.wh.gone.txt; "
    ": > l2d/opq/.wh..wh..opq; echo new > l2d/opq/new; "
    "echo added > l2d/added.txt; "
    "tar -C l2d -cf l2 ./opq/new ./opq/.wh..wh..opq ./.wh.gone.txt "
    "./added.txt; mkdir -p oci/blobs/sha256; "
    "blob() { h=$(sha256sum \"$1\" | cut -d' ' -f1); "
    "cp \"$1\" oci/blobs/sha256/$h; echo $h; }; "
    "h1=$(blob l1); h2=$(blob l2); echo '{}' > cfg; hc=$(blob cfg); "
    "printf '{\"schemaVersion\":2,\"config\":{\"mediaType\":"
    "\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:%s\"},"
    "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+"
    "gzip\",\"digest\":\"sha256:%s\"},{\"mediaType\":"
    "\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"sha256:%s\"}]}'"
    " $hc $h1 $h2 > man; hm=$(blob man); "
    "printf '{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":"
    "\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:%s\","
    "\"annotations\":{\"org.opencontainers.image.ref.name\":\"v1\"}}]}' $hm "
    "> oci/index.json";

TEST(test_local_image__oci_layout_with_whiteouts)
{
    lt t;
    lt_open(&t, "img-oci");
    lt_sh("rm -rf " W " && mkdir -p " W);
    lt_mini_root(W "/root");
    lt_sh(oci_script);
    CHECK_INT(lt_snapshot(&t, "oci", "oci:" W "/oci:v1", NULL, NULL),
              DVAL_OK);
    run_in(&t, "oci", "o", "cat /keep.txt /added.txt; ls /opq; "
           "test -e /gone.txt && echo gone-present; ls -a / | grep wh; :",
           "keep\nadded\nnew\n");
    /* an unknown tag is refused */
    int rc = lt_snapshot(&t, "oci-bad", "oci:" W "/oci:v2", NULL, NULL);
    CHECK(rc != DVAL_OK);
    CHECK_CONTAINS(t.call.errmsg, "v2");
    /* a digest other than sha256:<64 hex> never becomes a path */
    lt_sh("printf '{\"manifests\":[{\"digest\":\"sha256:../../x\"}]}' "
          "> " W "/oci/index.json");
    CHECK_INT(lt_snapshot(&t, "oci-path", "oci:" W "/oci", NULL, NULL),
              DVAL_EINVAL);
    CHECK_CONTAINS(t.call.errmsg, "sha256 digest");
    lt_close(&t);
    lt_sh("rm -rf " W);
}

/* A ustar member (type '0' file with data, '2' symlink, '1' hard link). */
static void member(FILE *f, const char *name, char type, const char *link,
                   const char *data)
{
    char h[512];
    size_t n = data ? strlen(data) : 0;
    memset(h, 0, sizeof h);
    snprintf(h, 100, "%s", name);
    snprintf(h + 100, 8, "%07o", 0644);
    snprintf(h + 108, 8, "%07o", 0);
    snprintf(h + 116, 8, "%07o", 0);
    snprintf(h + 124, 12, "%011o", (unsigned)(n & 0777777));
    snprintf(h + 136, 12, "%011o", 0);
    h[156] = type;
    if (link)
        snprintf(h + 157, 100, "%s", link);
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    fwrite(h, 1, sizeof h, f);
    if (n) {
        char pad[512] = { 0 };
        fwrite(data, 1, n, f);
        fwrite(pad, 1, (512 - n % 512) % 512, f);
    }
}

static void bad_tar(const char *path, const char *name, char type,
                    const char *link, const char *then)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    member(f, "ok.txt", '0', NULL, "fine\n");
    member(f, name, type, link, type == '0' ? "pwned\n" : NULL);
    if (then)
        member(f, then, '0', NULL, "pwned\n");
    char end[1024] = { 0 };
    fwrite(end, 1, sizeof end, f);
    fclose(f);
}

TEST(test_local_image__hostile_tarballs_refused)
{
    lt t;
    lt_open(&t, "img-badtar");
    lt_sh("rm -rf " W " && mkdir -p " W "/outside");
    static const struct {
        const char *name;
        char type;
        const char *link, *then;
    } bad[] = {
        { "../escape.txt", '0', NULL, NULL },
        { "a/../../escape.txt", '0', NULL, NULL },
        { "/" W "/outside/abs.txt", '0', NULL, NULL },
        { "link", '2', W "/outside", "link/through.txt" },
        { "up", '2', "../../../../../../" W "/outside", "up/rel.txt" },
        { "hard", '1', "../../../../../../etc/passwd", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[64], img[128];
        snprintf(name, sizeof name, "bad%zu", i);
        snprintf(img, sizeof img, "tar:" W "/bad%zu.tar", i);
        bad_tar(img + 4, bad[i].name, bad[i].type, bad[i].link, bad[i].then);
        dval_snapshot_info info;
        int rc = lt_snapshot(&t, name, img, NULL, &info);
        if (rc == DVAL_OK)
            th_fail(__FILE__, __LINE__, "%s accepted", bad[i].name);
        CHECK_CONTAINS(t.call.errmsg, "refused");
        char p[1024];
        snprintf(p, sizeof p, "%s/snapshots/%s/escape.txt", t.dir, name);
        CHECK(access(p, F_OK) != 0);
    }
    lt_sh("test -z \"$(ls -A " W "/outside)\"");
    CHECK(access("/escape.txt", F_OK) != 0);
    lt_close(&t);
    lt_sh("rm -rf " W);
}

TEST(test_local_image__unknown_image_refused)
{
    lt t;
    lt_open(&t, "img-unknown");
    CHECK_INT(lt_snapshot(&t, "nginx", "nginx:latest", NULL, NULL),
              DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "nginx:latest");
    CHECK_CONTAINS(t.call.errmsg, "debian:12");
    CHECK_CONTAINS(t.call.errmsg, "oci:");
    char p[1024];
    snprintf(p, sizeof p, "%s/snapshots/nginx", t.dir);
    CHECK(access(p, F_OK) != 0); /* nothing left behind */
    CHECK_INT(lt_snapshot(&t, "rel", "dir:relative/path", NULL, NULL),
              DVAL_EINVAL);
    lt_close(&t);
}

TEST(test_local_image__snapshot_over_cached_base_is_cheap)
{
    lt t;
    lt_open(&t, "img-cheap");
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_snapshot(&t, "cheap", "debian:12-slim", NULL, NULL),
              DVAL_OK);
    int64_t ms = dval__now_ms() - t0;
    fprintf(stderr, "    snapshot over the cached base: %lld ms\n",
            (long long)ms);
    CHECK(ms < 2000);
    run_in(&t, "cheap", "c", ". /etc/os-release; echo $VERSION_CODENAME",
           "bookworm\n");
    lt_close(&t);
}

TEST(test_local_image__no_mmdebstrap_fails_closed)
{
    lt t;
    lt_open(&t, "img-nomm");
    char *path = dval__strdup(getenv("PATH"));
    char cache[700];
    snprintf(cache, sizeof cache, "%s/empty-cache", t.dir);
    setenv("DVAL_LOCAL_CACHE_DIR", cache, 1);
    setenv("PATH", "/nonexistent", 1);
    CHECK_INT(lt_snapshot(&t, "needs-base", "debian:12", NULL, NULL),
              DVAL_EISOLATION);
    CHECK_CONTAINS(t.call.errmsg, "apt-get install mmdebstrap");
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "sb" };
    CHECK_INT(t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL),
              DVAL_EISOLATION);
    CHECK_CONTAINS(t.call.errmsg, "mmdebstrap");
    setenv("PATH", path, 1);
    unsetenv("DVAL_LOCAL_CACHE_DIR");
    dval__free(path);
    lt_close(&t);
}

/* Issue 38: the dotnet image is pulled when its registry answers, else
 * copies the host's .NET 10 SDK; on a machine without one (none on PATH,
 * no DOTNET_ROOT, none cached) whose registry does not answer (here a
 * mirror on a closed port) a snapshot of it, and the dotnet profile, are
 * refused at once with how to get one and what the registry did. */
TEST(test_local_image__dotnet_without_sdk_says_how_to_get_one)
{
    lt t;
    lt_open(&t, "img-nodotnet");
    char *path = dval__strdup(getenv("PATH"));
    char *root = getenv("DOTNET_ROOT") ? dval__strdup(getenv("DOTNET_ROOT"))
                                       : NULL;
    char cache[700];
    snprintf(cache, sizeof cache, "%s/empty-cache", t.dir);
    setenv("DVAL_LOCAL_CACHE_DIR", cache, 1);
    setenv("PATH", "/nonexistent", 1);
    unsetenv("DOTNET_ROOT");
    setenv("DVAL_LOCAL_PULL_MIRROR", "mcr.microsoft.com=127.0.0.1:1", 1);
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_snapshot(&t, "cs", "mcr.microsoft.com/dotnet/sdk:10.0", NULL,
                          NULL), DVAL_EUNSUPPORTED);
    CHECK(dval__now_ms() - t0 < 1000);
    CHECK_CONTAINS(t.call.errmsg, "this machine has none");
    CHECK_CONTAINS(t.call.errmsg, "apt-get install -y dotnet-sdk-10.0");
    CHECK_CONTAINS(t.call.errmsg, "DOTNET_ROOT=");
    CHECK_CONTAINS(t.call.errmsg, "DVAL_LOCAL_PULL_MIRROR");
    CHECK_CONTAINS(t.call.errmsg, MCR_NAME " was not pulled: its registry "
                   "did not answer (");
    const char *const *steps = NULL;
    CHECK_INT(t.ex.profile_prepare(t.ex.userdata, lt_call(&t),
                                   dval_profile_find("dotnet"), &steps),
              DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "profile \"dotnet\" is unavailable");
    CHECK_CONTAINS(t.call.errmsg, "dotnet-sdk-10.0");
    CHECK_CONTAINS(t.call.errmsg, "registry did not answer (");
    unsetenv("DVAL_LOCAL_PULL_MIRROR");
    setenv("PATH", path, 1);
    if (root)
        setenv("DOTNET_ROOT", root, 1);
    unsetenv("DVAL_LOCAL_CACHE_DIR");
    dval__free(path);
    dval__free(root);
    lt_close(&t);
}

/* Issue 43: an image carried its build host's hostname and resolver
 * (mmdebstrap copies them). A cached image of the format before is
 * brought up to date when used (no rebuild): a copy of the base image
 * (hard links; its changed files replaced, so the shared cache is not
 * touched) with a build host's name and nameserver and no format stamp
 * shows a sandbox only the neutral ones, and gets the stamp. */
TEST(test_local_image__old_cached_image_made_neutral_on_use)
{
    lt t;
    lt_open(&t, "img-neutral");
    lt_sandbox(&t, "warm", NULL); /* the base image, cached */
    char cache[600], cmd[2000];
    lx_cache_dir(cache, sizeof cache);
    snprintf(cmd, sizeof cmd, "rm -rf " W " && mkdir -p " W "/images && "
             "cp -al '%s/images/debian-12' " W "/images/ && cd " W
             "/images/debian-12 && rm -f format rootfs/etc/hostname "
             "rootfs/etc/hosts rootfs/etc/resolv.conf && echo build-host "
             "> rootfs/etc/hostname && echo 'nameserver 10.9.8.7' > "
             "rootfs/etc/resolv.conf", cache);
    lt_sh(cmd);
    setenv("DVAL_LOCAL_CACHE_DIR", W, 1);
    lt_sandbox(&t, "sb", NULL);
    /* a build resolves names with the host's resolver, bound for it */
    const char *steps[] = {
        "grep -q nameserver /etc/resolv.conf && echo ns > /ns", NULL };
    CHECK_INT(lt_snapshot(&t, "built", "debian:12", steps, NULL), DVAL_OK);
    unsetenv("DVAL_LOCAL_CACHE_DIR");
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "cat /etc/hostname /etc/hosts "
                     "/etc/resolv.conf; hostname", &o), 0);
    CHECK_STR(o.out.data, LX_ETC_HOSTNAME LX_ETC_HOSTS LX_ETC_RESOLV
              "sandbox\n");
    lt_out_free(&o);
    run_in(&t, "built", "b", "cat /ns /etc/resolv.conf",
           "ns\n" LX_ETC_RESOLV);
    lt_out w = { 0 };
    CHECK_INT(lt_run(&t, "warm", "cat /etc/hostname; grep -c nameserver "
                     "/etc/resolv.conf", &w), 1);
    CHECK_STR(w.out.data, "sandbox\n0\n"); /* the shared image too */
    lt_out_free(&w);
    lt_sh("grep -qx 2 " W "/images/debian-12/format");
    lt_sh("rm -rf " W);
    lt_close(&t);
}

TEST(test_local_image__devices_and_symlinked_mount_points)
{
    lt t;
    lt_open(&t, "img-devs");
    lt_sh("rm -rf " W " && mkdir -p " W);
    lt_mini_root(W "/root");
    /* a device node in an image (here /dev/null's) opens nothing: nodev */
    lt_sh("mknod " W "/root/mem c 1 3");
    CHECK_INT(lt_snapshot(&t, "devs", "dir:" W "/root", NULL, NULL),
              DVAL_OK);
    run_in(&t, "devs", "d", "echo x > /mem 2>/dev/null || echo refused",
           "refused\n");
    /* and an imported tarball brings none */
    lt_sh("tar -C " W "/root -cf " W "/devs.tar .");
    CHECK_INT(lt_snapshot(&t, "devs-tar", "tar:" W "/devs.tar", NULL, NULL),
              DVAL_OK);
    char p[1024];
    snprintf(p, sizeof p, "%s/snapshots/devs-tar/rootfs/mem", t.dir);
    CHECK(access(p, F_OK) != 0);
    /* a mount point that is a symlink is refused, not followed */
    lt_sh("rm " W "/root/mem && ln -s /root " W "/root/tmp");
    CHECK_INT(lt_snapshot(&t, "symtmp", "dir:" W "/root", NULL, NULL),
              DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .name = "s",
                               .snapshot = "symtmp" };
    CHECK(t.ex.sandbox_create(t.ex.userdata, lt_call(&t), &o, NULL) !=
          DVAL_OK);
    CHECK_CONTAINS(t.call.errmsg, "sandbox root");
    lt_close(&t);
    lt_sh("rm -rf " W);
}
