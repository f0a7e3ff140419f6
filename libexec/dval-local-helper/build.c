/* Build modes of the helper:
 *   build <lower> image|host|plain <layer> <work> <mnt> <cmd>...
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

/* What the library named in env (a host path), bound at dst on the
 * build's /tmp with flags (never executable): gone with the build's
 * tmpfs, so nothing of it is in the snapshot. A file is bound over a new
 * empty file, a directory (only one of this user's, never reached
 * through a symlink) over a new directory. */
static void bind_on_tmp(const char *root, const char *env, const char *dst,
                        unsigned long flags, const char *failed)
{
    const char *src = getenv(env);
    char d[4096], p[4200];
    struct stat st;
    if (!src || src[0] != '/' || lstat(src, &st) < 0)
        return;
    int dir = S_ISDIR(st.st_mode);
    if (dir && st.st_uid != geteuid())
        return;
    snprintf(d, sizeof d, "%s" LX_BUILD_NUGET_DIR, root);
    snprintf(p, sizeof p, "%s%s", root, dst);
    if (mkdir(d, 0700) < 0 && errno != EEXIST)
        return;
    int fd = dir ? mkdir(p, 0700)
             : open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (!dir)
        close(fd);
    if (mount(src, p, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV |
              MS_NOEXEC | flags, NULL) < 0) {
        write_str(1, failed);
        umount2(p, MNT_DETACH);
        if (dir)
            rmdir(p);
        else
            unlink(p);
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
    /* the host's NuGet configuration, read-only: a step's restore finds
     * the host's sources, credentials and proxy there */
    bind_on_tmp(mnt, LX_ENV_NUGET, LX_BUILD_NUGET_CONFIG, MS_RDONLY,
                "the host's NuGet configuration cannot be shown to the "
                "build; restoring without it\n");
    /* the machine's build cache, read-write: what a step derived from
     * inputs it names by digest */
    bind_on_tmp(mnt, LX_ENV_BUILD_CACHE, LX_BUILD_CACHE_DIR, 0,
                "the build cache cannot be shown to the build; building "
                "without it\n");
    if (enter_root(mnt) < 0)
        die_fd(2, "pivot_root");
    if (drop_caps() < 0)
        die_fd(2, "drop capabilities");
}

/* The environment of the build steps and of mmdebstrap: build_env and
 * the host's proxy settings (the library passes them to a build: their
 * way out is the host's, as a Daytona image build has it); mmdebstrap
 * also keeps TMPDIR. Never the rest of the caller's environment: its
 * secrets never reach the image or its maintainer scripts. */
struct host_env {
    char *env[12];
    char vars[7][4200];
};

static char **host_env(struct host_env *e, int tmpdir)
{
    static const char *const keep[] = { "http_proxy", "https_proxy",
                                        "no_proxy", "HTTP_PROXY",
                                        "HTTPS_PROXY", "NO_PROXY", "TMPDIR" };
    size_t nkeep = sizeof keep / sizeof *keep - !tmpdir;
    int n = 0;
    for (char *const *v = build_env; *v; v++)
        e->env[n++] = *v;
    for (size_t i = 0; i < nkeep; i++) {
        const char *v = getenv(keep[i]);
        if (v && strlen(v) < 4000) {
            snprintf(e->vars[i], sizeof e->vars[i], "%s=%s", keep[i], v);
            e->env[n++] = e->vars[i];
        }
    }
    e->env[n] = NULL;
    return e->env;
}

struct build_args {
    char **argv;
    int argc;
    struct host_env env;
};

/* Each step a shell of its own (argv from 5 on), in the current
 * directory, shown first; the first that fails ends the build. */
static int run_steps(struct build_args *a, char **env)
{
    for (int i = 5; i < a->argc; i++) {
        char hdr[4200], shown[640];
        build_step_show(a->argv[i], shown, sizeof shown);
        snprintf(hdr, sizeof hdr, "$ %s\n", shown);
        write_str(1, hdr);
        pid_t pid = fork();
        if (pid == 0) {
            char *sh[] = { "sh", "-c", a->argv[i], NULL };
            execve("/bin/sh", sh, env);
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

static int build_child(void *p)
{
    struct build_args *a = p;
    char **env = host_env(&a->env, 0);
    build_root(a->argv);
    return run_steps(a, env);
}

/* kind "plain" (an unisolated client's): the steps run on the host, in
 * the layer, as an unisolated sandbox's commands do; else in namespaces
 * over the lower. */
int helper_build(int argc, char **argv)
{
    if (argc < 5) {
        write_str(2, "usage: " LX_VERB_BUILD " <lower> " LX_ROOT_IMAGE "|"
                  LX_ROOT_HOST "|" LX_ROOT_PLAIN " <layer> <work> <mnt> "
                  "<cmd>...\n");
        return 2;
    }
    static struct build_args a; /* 29 KiB: not on the stack */
    a.argv = argv;
    a.argc = argc;
    if (!strcmp(argv[1], LX_ROOT_PLAIN)) {
        if (chdir(argv[2]) < 0)
            die_fd(2, "enter the layer");
        return run_steps(&a, host_env(&a.env, 0));
    }
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
    static struct host_env env; /* 29 KiB: not on the stack */
    execvpe("mmdebstrap", mm, host_env(&env, 1));
    write_str(2, LX_REPLY_ERR "mmdebstrap is not installed (apt-get install "
              "mmdebstrap)\n");
    return 127;
}
