/* Build modes of the helper:
 *   build <lower> image|host <layer> <work> <mnt> <cmd>...
 *       runs the snapshot's build steps inside overlay(lower = the image
 *       (or, "host", a skeleton over which the host allow-list is bound),
 *       upper = layer), pivoted into it, with the host's network (as a
 *       Daytona image build has: its resolver, CAs and proxy settings),
 *       the host's NuGet configuration (build_nuget.c of the library)
 *       the machine's build cache (read-write, LX_BUILD_CACHE_DIR) and an
 *       environment of its own;
 *   mkimage <target> <suite> <packages> [<dotnet root>]
 *       builds a root of that Debian suite (the library's image table
 *       names it: lib/executor/local/image.c) with mmdebstrap, in a mount
 *       namespace of
 *       its own so no mount of the build outlives it; with a dotnet root,
 *       copies that .NET installation to /usr/share/dotnet in it. */
#include "helper.h"
#include "executor/local/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a suite may be (a word of the archive) and a dotnet root's path
 * may hold (it goes into a shell hook). */
#define SUITE_CHARS "abcdefghijklmnopqrstuvwxyz-"
#define DOTNET_ROOT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
    "0123456789/._-"

/* Never the caller's environment: build steps see only this. */
static char *const build_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root", "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive", NULL
};

/* A host file shown over the image's own copy during the build (only a
 * regular file there: a symlink is never followed out of the image);
 * the bind leaves nothing in the layer. */
static void bind_host_file(const char *root, const char *file)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", root, file);
    if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
        access(file, R_OK) == 0 && mount(file, p, NULL, MS_BIND, NULL) == 0)
        mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}

/* The build has the host's network as the host has it: its resolver, and
 * the certificate authorities it trusts (a package source behind a
 * TLS-inspecting proxy needs the proxy's). */
static void bind_host_network(const char *root)
{
    bind_host_file(root, "/etc/resolv.conf");
    bind_host_file(root, "/etc/ssl/certs/ca-certificates.crt");
}

/* The host's NuGet configuration the library named (LX_ENV_NUGET), shown
 * read-only at LX_BUILD_NUGET_CONFIG on the build's /tmp: the restore of
 * a build step finds the host's sources, credentials and proxy there;
 * the tmpfs goes with the build, so nothing of it is in the snapshot. */
static void bind_nuget_config(const char *root)
{
    const char *src = getenv(LX_ENV_NUGET);
    char d[4096], p[4200];
    if (!src || src[0] != '/')
        return;
    snprintf(d, sizeof d, "%s" LX_BUILD_NUGET_DIR, root);
    snprintf(p, sizeof p, "%s" LX_BUILD_NUGET_CONFIG, root);
    int fd = mkdir(d, 0700) < 0 ? -1
             : open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    close(fd);
    if (mount(src, p, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID |
              MS_NODEV | MS_NOEXEC, NULL) < 0) {
        write_str(1, "the host's NuGet configuration cannot be shown to "
                  "the build; restoring without it\n");
        umount2(p, MNT_DETACH);
        unlink(p);
    }
}

/* The machine's build cache the library named (LX_ENV_BUILD_CACHE),
 * bound read-write at LX_BUILD_CACHE_DIR on the build's /tmp: a build
 * step keeps there what it derived from inputs it names by digest. Never
 * executable, and gone with the build's tmpfs, so not in the snapshot. */
static void bind_build_cache(const char *root)
{
    const char *src = getenv(LX_ENV_BUILD_CACHE);
    char d[4096], p[4200];
    struct stat st;
    if (!src || src[0] != '/' || lstat(src, &st) < 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return;
    snprintf(d, sizeof d, "%s" LX_BUILD_NUGET_DIR, root);
    snprintf(p, sizeof p, "%s" LX_BUILD_CACHE_DIR, root);
    if ((mkdir(d, 0700) < 0 && errno != EEXIST) || mkdir(p, 0700) < 0)
        return;
    if (mount(src, p, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV |
              MS_NOEXEC, NULL) < 0) {
        write_str(1, "the build cache cannot be shown to the build; "
                  "building without it\n");
        umount2(p, MNT_DETACH);
        rmdir(p);
    }
}

static void build_root(char **argv)
{
    const char *lower = argv[0], *layer = argv[2], *work = argv[3];
    const char *mnt = argv[4];
    int host = !strcmp(argv[1], LX_ROOT_HOST);
    char path[4096];
    make_root_private(2);
    if (host && host_skeleton(lower) < 0)
        die_fd(2, "host root skeleton");
    if (mount_overlay(lower, layer, work, mnt, 0) < 0)
        die_fd(2, "mount overlay");
    if (host && host_root_binds(mnt) < 0)
        die_fd(2, "bind the host allow-list");
    snprintf(path, sizeof path, "%s/proc", mnt);
    mkdir(path, 0555);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV, NULL) < 0)
        die_fd(2, "mount /proc");
    if (setup_dev(mnt) < 0)
        die_fd(2, "set up /dev");
    snprintf(path, sizeof path, "%s/tmp", mnt);
    mkdir(path, 01777);
    if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
        die_fd(2, "mount /tmp");
    bind_host_network(mnt);
    bind_nuget_config(mnt);
    bind_build_cache(mnt);
    if (enter_root(mnt) < 0)
        die_fd(2, "pivot_root");
    if (drop_caps() < 0)
        die_fd(2, "drop capabilities");
}

struct build_args {
    char **argv;
    int argc;
    char *env[12];              /* the steps': build_env and the proxies */
    char vars[6][4200];
};

/* The steps see build_env and the host's proxy settings (the library
 * passes them to a build): their way out is the host's, as a Daytona
 * image build has it. */
static void step_env(struct build_args *a)
{
    static const char *const proxy[] = { "http_proxy", "https_proxy",
                                         "no_proxy", "HTTP_PROXY",
                                         "HTTPS_PROXY", "NO_PROXY" };
    int n = 0;
    for (char *const *e = build_env; *e; e++)
        a->env[n++] = *e;
    for (size_t i = 0; i < sizeof proxy / sizeof *proxy; i++) {
        const char *v = getenv(proxy[i]);
        if (v && strlen(v) < 4000) {
            snprintf(a->vars[i], sizeof a->vars[i], "%s=%s", proxy[i], v);
            a->env[n++] = a->vars[i];
        }
    }
    a->env[n] = NULL;
}

static int build_child(void *p)
{
    struct build_args *a = p;
    step_env(a);
    build_root(a->argv);
    for (int i = 5; i < a->argc; i++) {
        char hdr[4200], shown[640];
        build_step_show(a->argv[i], shown, sizeof shown);
        snprintf(hdr, sizeof hdr, "$ %s\n", shown);
        write_str(1, hdr);
        pid_t pid = fork();
        if (pid == 0) {
            char *sh[] = { "sh", "-c", a->argv[i], NULL };
            execve("/bin/sh", sh, a->env);
            _exit(127);
        }
        int code = pid < 0 ? 125 : wait_code(pid);
        if (code != 0) {
            snprintf(hdr, sizeof hdr,
                     "build step %d failed with exit code %d\n", i - 4, code);
            write_str(1, hdr);
            return code;
        }
    }
    return 0;
}

int helper_build(int argc, char **argv)
{
    if (argc < 5) {
        write_str(2, "usage: " LX_VERB_BUILD " <lower> " LX_ROOT_IMAGE "|"
                  LX_ROOT_HOST " <layer> <work> <mnt> <cmd>...\n");
        return 2;
    }
    static struct build_args a; /* 25 KiB: not on the stack */
    a.argv = argv;
    a.argc = argc;
    pid_t pid = spawn_ns(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                         CLONE_NEWUTS, build_child, &a);
    if (pid < 0)
        die_fd(2, "create namespaces");
    return wait_code(pid);
}

int helper_mkimage(int argc, char **argv)
{
    if (argc < 3 || !argv[1][0] ||
        strspn(argv[1], SUITE_CHARS) != strlen(argv[1]) ||
        (argc > 3 && (argv[3][0] != '/' ||
                      strspn(argv[3], DOTNET_ROOT_CHARS) !=
                          strlen(argv[3])))) {
        write_str(2, "usage: " LX_VERB_MKIMAGE " <target> <suite> "
                  "<packages> [<dotnet root>]\n");
        return 2;
    }
    if (unshare(CLONE_NEWNS) < 0)
        die_fd(2, "mount namespace for mmdebstrap");
    make_root_private(2);
    char inc[4200];
    snprintf(inc, sizeof inc, "--include=%s", argv[2]);
    /* the hook runs on the host, "$1" the new root: the path is checked */
    char hook[4400];
    snprintf(hook, sizeof hook, "--customize-hook=mkdir -p "
             "\"$1/usr/share/dotnet\" && cp -a %s/. \"$1/usr/share/dotnet/\" "
             "&& ln -sf ../share/dotnet/dotnet \"$1/usr/bin/dotnet\"",
             argc > 3 ? argv[3] : "");
    char *mm[8] = { "mmdebstrap", "--variant=minbase", "--mode=root", inc };
    int m = 4;
    if (argc > 3)
        mm[m++] = hook;
    mm[m++] = argv[1];
    mm[m++] = argv[0];
    /* the caller's environment minus everything but the way to the
     * archive: its secrets never reach the image's maintainer scripts */
    static const char *keep[] = { "http_proxy", "https_proxy", "HTTP_PROXY",
                                  "HTTPS_PROXY", "no_proxy", "NO_PROXY",
                                  "TMPDIR" };
    static char vars[8][4200];
    char *env[12] = { build_env[0], "HOME=/root", "LANG=C.UTF-8" };
    int n = 3;
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
        const char *v = getenv(keep[i]);
        if (v && strlen(v) < 4000) {
            snprintf(vars[i], sizeof vars[i], "%s=%s", keep[i], v);
            env[n++] = vars[i];
        }
    }
    env[n] = NULL;
    execvpe("mmdebstrap", mm, env);
    write_str(2, LX_REPLY_ERR "mmdebstrap is not installed (apt-get install "
              "mmdebstrap)\n");
    return 127;
}
