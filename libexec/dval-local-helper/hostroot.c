/* The host-root opt-in (DVAL_LOCAL_HOST_ROOT=1): instead of an image, a
 * root made of read-only binds of the host's system directories (/usr,
 * /bin, /sbin, /lib*) and a tmpfs /etc holding read-only binds of an
 * allow-list of its entries (accounts without shadow, name service,
 * dynamic linker, certificates without private keys, language runtimes'
 * configuration). Nothing else of the host is there: not /root, /home,
 * /var, /srv, /opt, /tmp, /mnt, state directories or checkouts. An /etc
 * entry not on the list (shadow, gshadow, sudoers, ssh keys, ...) is
 * absent, so a new kind of secret stays out too. /usr/local/etc, which
 * comes with /usr, is configuration as well (npmrc, pip.conf: tokens) and
 * is hidden under an empty tmpfs; /etc/gitconfig is left out (URL
 * rewrites may carry credentials; git needs none of it). */
#include "helper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RO_FLAGS (MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)

static const char *const top[] = { "usr", "bin", "sbin", "lib", "lib32",
                                   "lib64", "libx32" };

/* /etc entries: exact names, then prefixes ending in '*'. */
static const char *const etc_allow[] = {
    "passwd", "group", "hosts", "hostname", "resolv.conf", "nsswitch.conf",
    "host.conf", "gai.conf", "networks", "protocols", "services",
    "ethertypes", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
    "alternatives", "ssl", "ca-certificates", "ca-certificates.conf",
    "localtime", "timezone", "mime.types", "magic", "magic.mime",
    "os-release", "debian_version", "profile", "profile.d", "environment",
    "bash.bashrc", "inputrc", "locale.alias", "locale.gen", "login.defs",
    "shells", "mtab", "fonts", "maven", "perl", "terminfo",
    "java*", "python*", "dotnet*", "mono*",
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

static int populate_etc(const char *root)
{
    char p[4096], src[4096];
    snprintf(p, sizeof p, "%s/etc", root);
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
        return -1;
    if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
        < 0)
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
    }
    closedir(d);
    /* certificates yes, private keys no */
    snprintf(p, sizeof p, "%s/etc/ssl/private", root);
    struct stat st;
    if (rc == 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
        rc = mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                   "size=4k,mode=0700");
    return rc;
}

/* An empty read-only tmpfs over root/rel when the host has rel. */
static int hide(const char *root, const char *rel)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    return mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                 "size=4k,mode=0755");
}

int host_root_binds(const char *root)
{
    char src[64], dst[4096];
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        snprintf(src, sizeof src, "/%s", top[i]);
        snprintf(dst, sizeof dst, "%s/%s", root, top[i]);
        if (mirror(src, dst) < 0)
            return -1;
    }
    if (hide(root, "usr/local/etc") < 0)
        return -1;
    return populate_etc(root);
}

int host_skeleton(const char *dir)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV,
              "size=16k,mode=0755") < 0)
        return -1;
    return mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID |
                 MS_NODEV, NULL);
}
