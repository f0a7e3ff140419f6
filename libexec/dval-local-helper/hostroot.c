/* The host-root opt-in (DVAL_LOCAL_HOST_ROOT=1): instead of an image, a
 * root made of read-only binds of what a toolchain needs of the host's
 * system directories and a tmpfs /etc holding read-only binds of an
 * allow-list of its entries (accounts without shadow, name service,
 * dynamic linker, certificates without private keys, language runtimes'
 * configuration). Nothing else of the host is there: not /root, /home,
 * /var, /srv, /opt, /tmp, /mnt, state directories or checkouts. What
 * conventionally holds credentials is left out: shadow, gshadow, sudoers,
 * ssh keys (not listed, so a new kind of secret stays out too),
 * /etc/environment and /etc/profile.d (exported tokens), Maven's
 * settings.xml (server passwords), the JDK's management/ (JMX passwords),
 * /etc/gitconfig (URL rewrites with credentials), /etc/ssl/private, and
 * /usr/local but its bin, lib and share (etc/ holds npmrc and pip.conf
 * with tokens). The host's name and resolver are not there either: /etc
 * gets the neutral hostname, hosts and resolv.conf of every image. */
#include "helper.h"
#include "executor/local/protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RO_FLAGS (MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)

/* Bound as they are; /usr itself is an empty read-only tmpfs. */
static const char *const top[] = {
    "bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr/bin", "usr/sbin",
    "usr/lib", "usr/lib32", "usr/lib64", "usr/libx32", "usr/libexec",
    "usr/share", "usr/include", "usr/local/bin", "usr/local/lib",
    "usr/local/share",
};

/* /etc entries: exact names, then prefixes ending in '*'. */
static const char *const etc_allow[] = {
    "passwd", "group", "nsswitch.conf", "host.conf", "gai.conf", "networks",
    "protocols", "services", "ethertypes", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
    "ca-certificates.conf", "localtime", "timezone", "mime.types", "magic",
    "magic.mime", "os-release", "debian_version", "profile", "bash.bashrc",
    "inputrc", "locale.alias", "locale.gen", "login.defs", "shells", "mtab",
    "fonts", "perl", "terminfo", "java*", "python*", "dotnet*", "mono*",
};

/* Files below an /etc entry that is not listed whole: what mvn reads to
 * start (/usr/share/maven/conf is a link to /etc/maven). */
static const char *const etc_files[] = { "maven/m2.conf", "maven/logging" };

static const char *const neutral[][2] = {
    { "hostname", LX_ETC_HOSTNAME }, { "hosts", LX_ETC_HOSTS },
    { "resolv.conf", LX_ETC_RESOLV },
};

static int allowed(const char *name)
{
    for (size_t i = 0; i < sizeof etc_allow / sizeof *etc_allow; i++) {
        size_t n = strlen(etc_allow[i]);
        if (etc_allow[i][n - 1] == '*' ? !strncmp(name, etc_allow[i], n - 1)
                                       : !strcmp(name, etc_allow[i]))
            return 1;
    }
    return 0;
}

/* Mirrors host path src at dst: a symlink is copied, a directory or file
 * bound read-only (its mount point made first). */
static int mirror(const char *src, const char *dst)
{
    struct stat st;
    char link[4096];
    if (lstat(src, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(src, link, sizeof link - 1);
        if (n < 0)
            return -1;
        link[n] = 0;
        if (symlink(link, dst) < 0 && errno != EEXIST)
            return -1;
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(dst, 0755) < 0 && errno != EEXIST)
            return -1;
    } else if (S_ISREG(st.st_mode)) {
        int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
    } else {
        return 0; /* no devices, sockets or fifos of the host */
    }
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
        return -1;
    return mount(NULL, dst, NULL, RO_FLAGS, NULL);
}

/* An empty tmpfs at dir (made when missing), read-only if ro. */
static int tmpfs_at(const char *dir, const char *opts, int ro)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    return mount("tmpfs", dir, "tmpfs",
                 MS_NOSUID | MS_NODEV | (ro ? MS_RDONLY : 0), opts);
}

/* An empty read-only tmpfs over root/rel when the host has rel. */
static int hide(const char *root, const char *rel)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    return tmpfs_at(p, "size=4k,mode=0755", 1);
}

/* The listed files below unlisted entries, the neutral files, and no
 * private keys under the certificates. */
static int etc_extras(const char *root)
{
    char p[4096], src[4096];
    int rc = 0;
    for (size_t i = 0; i < sizeof etc_files / sizeof *etc_files; i++) {
        const char *f = etc_files[i];
        snprintf(p, sizeof p, "%s/etc/%.*s", root, (int)strcspn(f, "/"), f);
        snprintf(src, sizeof src, "/etc/%s", f);
        if (access(src, F_OK) == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
            return -1;
        snprintf(p, sizeof p, "%s/etc/%s", root, f);
        rc |= mirror(src, p);
    }
    for (size_t i = 0; i < sizeof neutral / sizeof *neutral; i++) {
        snprintf(p, sizeof p, "%s/etc/%s", root, neutral[i][0]);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        rc |= fd < 0 || write_str(fd, neutral[i][1]) < 0;
        if (fd >= 0)
            close(fd);
    }
    return rc ? -1 : hide(root, "etc/ssl/private");
}

static int populate_etc(const char *root)
{
    char p[4096], src[4096];
    snprintf(p, sizeof p, "%s/etc", root);
    if (tmpfs_at(p, "size=1m,mode=0755", 0) < 0)
        return -1;
    DIR *d = opendir("/etc");
    if (!d)
        return -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !allowed(e->d_name))
            continue;
        snprintf(src, sizeof src, "/etc/%s", e->d_name);
        snprintf(p, sizeof p, "%s/etc/%s", root, e->d_name);
        rc = mirror(src, p);
        snprintf(p, sizeof p, "etc/%s/management", e->d_name);
        if (rc == 0 && !strncmp(e->d_name, "java", 4))
            rc = hide(root, p);
    }
    closedir(d);
    return rc < 0 ? -1 : etc_extras(root);
}

int host_root_binds(const char *root)
{
    char src[64], dst[4096];
    snprintf(dst, sizeof dst, "%s/usr", root);
    if (tmpfs_at(dst, "size=16k,mode=0755", 0) < 0)
        return -1;
    snprintf(dst, sizeof dst, "%s/usr/local", root);
    if (mkdir(dst, 0755) < 0)
        return -1;
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        snprintf(src, sizeof src, "/%s", top[i]);
        snprintf(dst, sizeof dst, "%s/%s", root, top[i]);
        if (mirror(src, dst) < 0)
            return -1;
    }
    snprintf(dst, sizeof dst, "%s/usr", root);
    if (mount(NULL, dst, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
              NULL) < 0)
        return -1;
    return populate_etc(root);
}

int host_skeleton(const char *dir)
{
    return tmpfs_at(dir, "size=16k,mode=0755", 1);
}
