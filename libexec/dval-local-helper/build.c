/* Build modes of the helper:
 *   build <lower> image|host <layer> <work> <mnt> <cmd>...
 *       runs the snapshot's build steps inside overlay(lower = the image
 *       (or, "host", a skeleton over which the host allow-list is bound),
 *       upper = layer), pivoted into it, with the host's network (as a
 *       Daytona image build has) and an environment of its own;
 *   mkimage <target> <packages>
 *       builds a Debian 12 root with mmdebstrap, in a mount namespace of
 *       its own so no mount of the build outlives it. */
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

/* Never the caller's environment: build steps see only this. */
static char *const build_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root", "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive", NULL
};

/* The image's own /etc/resolv.conf (a regular file) shows the host's
 * during the build, so package downloads resolve names; the bind leaves
 * nothing in the layer. A symlink there is left alone (never followed
 * out of the image). */
static void bind_resolv(const char *root)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/etc/resolv.conf", root);
    if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
        access("/etc/resolv.conf", R_OK) == 0 &&
        mount("/etc/resolv.conf", p, NULL, MS_BIND, NULL) == 0)
        mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
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
    bind_resolv(mnt);
    if (enter_root(mnt) < 0)
        die_fd(2, "pivot_root");
    if (drop_caps() < 0)
        die_fd(2, "drop capabilities");
}

struct build_args {
    char **argv;
    int argc;
};

static int build_child(void *p)
{
    struct build_args *a = p;
    build_root(a->argv);
    for (int i = 5; i < a->argc; i++) {
        char hdr[4200];
        snprintf(hdr, sizeof hdr, "$ %s\n", a->argv[i]);
        write_str(1, hdr);
        pid_t pid = fork();
        if (pid == 0) {
            char *sh[] = { "sh", "-c", a->argv[i], NULL };
            execve("/bin/sh", sh, build_env);
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
    struct build_args a = { argv, argc };
    pid_t pid = spawn_ns(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                         CLONE_NEWUTS, build_child, &a);
    if (pid < 0)
        die_fd(2, "create namespaces");
    return wait_code(pid);
}

int helper_mkimage(int argc, char **argv)
{
    if (argc < 2) {
        write_str(2, "usage: " LX_VERB_MKIMAGE " <target> <packages>\n");
        return 2;
    }
    if (unshare(CLONE_NEWNS) < 0)
        die_fd(2, "mount namespace for mmdebstrap");
    make_root_private(2);
    char inc[4200];
    snprintf(inc, sizeof inc, "--include=%s", argv[1]);
    char *mm[] = { "mmdebstrap", "--variant=minbase", "--mode=root", inc,
                   "bookworm", argv[0], NULL };
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
