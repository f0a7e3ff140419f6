/* "import" mode: extracts root filesystem tarballs (plain or gzip: gzip -dc
 * decompresses) into a directory, as root with ownership, modes and times
 * kept. "oci" applies OCI layer whiteouts (.wh.<name> removes name from
 * the layers below; .wh..wh..opq empties its directory of what the layers
 * below put there, keeping what this layer has already extracted).
 * Safety: the extracting process is chrooted into the target, and each
 * entry is placed by walking its parent directories one by one with
 * O_NOFOLLOW, so an archive cannot write through a symlink (its own or
 * one planted earlier), use an absolute name or "..", or hard-link to a
 * name that does either: such an archive is refused. Symlinks are stored
 * as they are (they resolve inside the sandbox's root). Device nodes are
 * skipped: a sandbox's /dev is its own. */
#include "helper.h"
#include "executor/local/protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLK 512
#define NAME_MAX_LEN 4096

struct entry {
    char name[NAME_MAX_LEN], link[NAME_MAX_LEN];
    char type;
    long long size, mtime;
    unsigned mode, uid, gid;
};

struct tar_in {
    int fd;
    int oci;
    char **seen;                /* names extracted from this layer (oci) */
    size_t nseen, capseen;
    char pax_name[NAME_MAX_LEN], pax_link[NAME_MAX_LEN];
    long long pax_size;
};

static int fail(const char *what, const char *name)
{
    char msg[NAME_MAX_LEN + 256];
    snprintf(msg, sizeof msg, "import refused: %s: %s\n", what, name);
    write_str(2, msg);
    return -1;
}

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The next n bytes of in, written to out (-1: read past). */
static int copy_data(int in, int out, long long n)
{
    char buf[65536];
    while (n > 0) {
        size_t k = n > (long long)sizeof buf ? sizeof buf : (size_t)n;
        if (read_full(in, buf, k) < 0 ||
            (out >= 0 && write_all(out, buf, k) < 0))
            return -1;
        n -= (long long)k;
    }
    return 0;
}

static int skip(int fd, long long n)
{
    return copy_data(fd, -1, n);
}

static long long padded(long long n)
{
    return (n + BLK - 1) / BLK * BLK;
}

/* Octal, or base-256 when the top bit of the first byte is set; -1 for
 * a base-256 number past long long. */
static long long num(const char *f, size_t n)
{
    long long v = 0;
    if ((unsigned char)f[0] & 0x80) {
        v = (unsigned char)f[0] & 0x7f;
        for (size_t i = 1; i < n; i++) {
            if (v > LLONG_MAX >> 8)
                return -1;
            v = (v << 8) | (unsigned char)f[i];
        }
        return v;
    }
    for (size_t i = 0; i < n && f[i]; i++)
        if (f[i] >= '0' && f[i] <= '7')
            v = v * 8 + (f[i] - '0');
    return v;
}

static int checksum_ok(const unsigned char *h)
{
    long long sum = 0;
    for (int i = 0; i < BLK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum == num((const char *)h + 148, 8);
}

/* pax "len key=value\n" records: path, linkpath, size. */
static void pax(struct tar_in *in, const char *d, size_t n)
{
    size_t off = 0;
    while (off < n) {
        long len = strtol(d + off, NULL, 10);
        if (len <= 0 || off + (size_t)len > n)
            return;
        /* the space, then the pair, inside the record */
        const char *end = d + off + len - 1; /* at '\n' */
        const char *sp = memchr(d + off, ' ', (size_t)len);
        if (!sp || sp >= end)
            return;
        const char *kv = sp + 1;
        const char *eq = memchr(kv, '=', (size_t)(end - kv));
        if (eq) {
            size_t kl = (size_t)(eq - kv), vl = (size_t)(end - eq - 1);
            if (kl == 4 && !memcmp(kv, "path", 4) && vl < NAME_MAX_LEN)
                snprintf(in->pax_name, NAME_MAX_LEN, "%.*s", (int)vl, eq + 1);
            if (kl == 8 && !memcmp(kv, "linkpath", 8) && vl < NAME_MAX_LEN)
                snprintf(in->pax_link, NAME_MAX_LEN, "%.*s", (int)vl, eq + 1);
            if (kl == 4 && !memcmp(kv, "size", 4))
                in->pax_size = strtoll(eq + 1, NULL, 10);
        }
        off += (size_t)len;
    }
}

/* Reads a data block of meta entries (pax, GNU long names) into buf. */
static int meta(struct tar_in *in, long long size, char *buf, size_t cap)
{
    if (size < 0 || (size_t)size >= cap)
        return -1;
    if (read_full(in->fd, buf, (size_t)size) < 0)
        return -1;
    buf[size] = 0;
    return skip(in->fd, padded(size) - size);
}

/* Next real entry: 1, 0 at the end of the archive, -1 on a bad one. */
static int next(struct tar_in *in, struct entry *e)
{
    unsigned char h[BLK];
    char longname[NAME_MAX_LEN] = "", longlink[NAME_MAX_LEN] = "";
    static char data[65536];
    for (;;) {
        if (read_full(in->fd, h, BLK) < 0)
            return 0; /* no end blocks: tolerate a truncated trailer */
        if (h[0] == 0)
            return 0;
        if (!checksum_ok(h))
            return fail("not a tar archive (bad header checksum)", "");
        long long size = num((char *)h + 124, 12);
        char type = (char)h[156];
        if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
            if (meta(in, size, data, sizeof data) < 0)
                return fail("bad extended header", "");
            if (type == 'x')
                pax(in, data, (size_t)size);
            if (type == 'L' || type == 'K')
                snprintf(type == 'L' ? longname : longlink, NAME_MAX_LEN,
                         "%.4095s", data);
            continue;
        }
        memset(e, 0, sizeof *e);
        e->type = type ? type : '0';
        e->size = in->pax_size >= 0 ? in->pax_size : size;
        if (size < 0 || e->size < 0)
            return fail("bad entry size", "");
        e->mode = (unsigned)num((char *)h + 100, 8) & 07777;
        e->uid = (unsigned)num((char *)h + 108, 8);
        e->gid = (unsigned)num((char *)h + 116, 8);
        e->mtime = num((char *)h + 136, 12);
        if (in->pax_name[0])
            snprintf(e->name, sizeof e->name, "%s", in->pax_name);
        else if (longname[0])
            snprintf(e->name, sizeof e->name, "%s", longname);
        else if (h[345] && !memcmp(h + 257, "ustar", 5))
            snprintf(e->name, sizeof e->name, "%.155s/%.100s", h + 345, h);
        else
            snprintf(e->name, sizeof e->name, "%.100s", h);
        if (in->pax_link[0] || longlink[0])
            snprintf(e->link, sizeof e->link, "%s",
                     in->pax_link[0] ? in->pax_link : longlink);
        else /* the header's field: 100 bytes, NUL only when shorter */
            snprintf(e->link, sizeof e->link, "%.100s", (char *)h + 157);
        in->pax_name[0] = in->pax_link[0] = 0;
        in->pax_size = -1;
        return 1;
    }
}

/* Strips "./" and trailing '/'; refuses absolute names and "..". */
static int clean_name(char *name)
{
    char *s = name;
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    if (*s == '/')
        return fail("absolute name", name);
    memmove(name, s, strlen(s) + 1);
    size_t n = strlen(name);
    while (n > 0 && name[n - 1] == '/')
        name[--n] = 0;
    for (char *c = name; *c;) {
        size_t k = strcspn(c, "/");
        if (k == 2 && c[0] == '.' && c[1] == '.')
            return fail("\"..\" in a name", name);
        c += k + (c[k] == '/');
    }
    return 0;
}

/* The directory that holds name (created as needed), never reached
 * through a symlink; *base points at the last component. */
static int open_parent(const char *name, char *tmp, const char **base)
{
    snprintf(tmp, NAME_MAX_LEN, "%s", name);
    int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *c = tmp, *slash;
    while (dir >= 0 && (slash = strchr(c, '/'))) {
        *slash = 0;
        int d = openat(dir, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                       O_CLOEXEC);
        if (d < 0 && errno == ENOENT && mkdirat(dir, c, 0755) == 0)
            d = openat(dir, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                       O_CLOEXEC);
        close(dir);
        if (d < 0) {
            fail("a parent directory is a symlink or not a directory", name);
            return -1;
        }
        dir = d;
        c = slash + 1;
    }
    *base = c;
    return dir;
}

static int remove_at(int dir, const char *name);

static int was_seen(const struct tar_in *in, const char *prefix,
                    const char *name)
{
    size_t pl = strlen(prefix);
    for (size_t i = 0; in && i < in->nseen; i++)
        if (!strncmp(in->seen[i], prefix, pl) &&
            !strcmp(in->seen[i] + pl, name))
            return 1;
    return 0;
}

static void remember(struct tar_in *in, const char *name)
{
    if (!in->oci)
        return;
    if (in->nseen == in->capseen) {
        size_t cap = in->capseen ? in->capseen * 2 : 256;
        char **v = realloc(in->seen, cap * sizeof *v);
        if (!v)
            return;
        in->seen = v;
        in->capseen = cap;
    }
    char *dup = strdup(name);
    if (dup)
        in->seen[in->nseen++] = dup;
}

/* Empties directory d, keeping names this layer extracted (prefix is the
 * directory's name with '/', for the lookup; in NULL: keep nothing). */
static int empty_dir(int d, const struct tar_in *in, const char *prefix)
{
    DIR *ds = fdopendir(d);
    if (!ds) {
        close(d);
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(ds)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            !was_seen(in, prefix, de->d_name))
            rc |= remove_at(dirfd(ds), de->d_name);
    closedir(ds);
    return rc;
}

static int remove_at(int dir, const char *name)
{
    if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int d = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                   O_CLOEXEC);
    if (d < 0 || empty_dir(d, NULL, "") < 0)
        return -1;
    return unlinkat(dir, name, AT_REMOVEDIR);
}

static void attrs(int dir, const char *base, const struct entry *e)
{
    struct timespec ts[2] = { { e->mtime, 0 }, { e->mtime, 0 } };
    fchownat(dir, base, e->uid, e->gid, AT_SYMLINK_NOFOLLOW);
    if (e->type != '2')
        fchmodat(dir, base, e->mode, 0); /* after chown, which clears suid */
    utimensat(dir, base, ts, AT_SYMLINK_NOFOLLOW);
}

static int hardlink(int dir, const char *base, struct entry *e)
{
    char tmp[NAME_MAX_LEN];
    const char *tbase;
    if (clean_name(e->link) < 0 || !e->link[0])
        return -1;
    int td = open_parent(e->link, tmp, &tbase);
    if (td < 0)
        return -1;
    int rc = linkat(td, tbase, dir, base, 0);
    close(td);
    return rc < 0 ? fail("hard link target missing", e->link) : 0;
}

/* Creates one entry in dir (the caller removed what was in the way). */
static int create(struct tar_in *in, int dir, const char *base,
                  struct entry *e)
{
    int fd, rc = 0;
    switch (e->type) {
    case '0': case '7':
        fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
        if (fd < 0)
            return fail("cannot create", e->name);
        rc = copy_data(in->fd, fd, e->size);
        close(fd);
        if (rc < 0)
            return fail("truncated archive", e->name);
        attrs(dir, base, e);
        return skip(in->fd, padded(e->size) - e->size);
    case '5':
        if (mkdirat(dir, base, 0755) < 0 && errno != EEXIST)
            return fail("cannot create directory", e->name);
        break;
    case '2':
        if (symlinkat(e->link, dir, base) < 0)
            return fail("cannot create symlink", e->name);
        break;
    case '1':
        rc = hardlink(dir, base, e);
        break;
    case '6':
        if (mkfifoat(dir, base, 0600) < 0)
            return fail("cannot create fifo", e->name);
        break;
    }
    if (rc == 0 && e->type != '1')
        attrs(dir, base, e);
    return rc < 0 ? -1 : skip(in->fd, padded(e->size));
}

/* Whiteouts of OCI layers: 1 when e was one (and was applied). */
static int whiteout(struct tar_in *in, int dir, const char *name,
                    const char *base)
{
    if (strncmp(base, ".wh.", 4) != 0)
        return 0;
    if (!strcmp(base, ".wh..wh..opq")) {
        char prefix[NAME_MAX_LEN];
        /* base is the last component of a copy of name */
        snprintf(prefix, sizeof prefix, "%.*s",
                 (int)(strlen(name) - strlen(base)), name);
        int d = dup(dir);
        return d < 0 || empty_dir(d, in, prefix) < 0 ? -1 : 1;
    }
    return remove_at(dir, base + 4) < 0 ? -1 : 1;
}

static int apply(struct tar_in *in, struct entry *e)
{
    if (clean_name(e->name) < 0)
        return -1;
    /* the root itself, devices, unknown kinds: skipped */
    if (!e->name[0] || !strchr("0712567", e->type))
        return skip(in->fd, padded(e->size));
    char tmp[NAME_MAX_LEN];
    const char *base;
    int dir = open_parent(e->name, tmp, &base);
    if (dir < 0)
        return -1;
    int rc = in->oci ? whiteout(in, dir, e->name, base) : 0;
    if (rc != 0) {
        close(dir);
        return rc < 0 ? fail("cannot apply whiteout", e->name)
                      : skip(in->fd, padded(e->size));
    }
    struct stat st;
    if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        !(S_ISDIR(st.st_mode) && e->type == '5') && remove_at(dir, base) < 0)
        rc = fail("cannot replace", e->name);
    if (rc == 0)
        rc = create(in, dir, base, e);
    close(dir);
    if (rc == 0)
        remember(in, e->name);
    return rc;
}

/* In a child chrooted into the target: every entry of the stream. */
static int extract(const char *target, int fd, int oci)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (chroot(target) < 0 || chdir("/") < 0)
            die_fd(2, "chroot into the import target");
        umask(0);
        struct tar_in in = { .fd = fd, .oci = oci, .pax_size = -1 };
        struct entry e;
        int r;
        while ((r = next(&in, &e)) > 0)
            if (apply(&in, &e) < 0)
                _exit(1);
        _exit(r < 0 ? 1 : 0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* One archive: gzip is recognised by its magic and piped through
 * gzip -dc. */
static int import_one(const char *target, const char *file, int oci)
{
    unsigned char magic[2] = { 0, 0 };
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || pread(fd, magic, 2, 0) < 0) {
        fail("cannot read", file);
        return -1;
    }
    pid_t gz = 0;
    int in = fd;
    if (magic[0] == 0x1f && magic[1] == 0x8b) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
            return -1;
        gz = fork();
        if (gz == 0) {
            dup2(fd, 0);
            dup2(p[1], 1);
            execlp("gzip", "gzip", "-dc", (char *)NULL);
            die_fd(2, "gzip");
        }
        close(p[1]);
        in = p[0];
    }
    int rc = extract(target, in, oci);
    if (in != fd)
        close(in);
    close(fd);
    int st = 0;
    if (gz > 0 && (waitpid(gz, &st, 0) < 0 || !WIFEXITED(st) ||
                   WEXITSTATUS(st) != 0) && rc == 0)
        rc = fail("gzip failed on", file);
    return rc;
}

int helper_import(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], LX_IMPORT_TAR) &&
                      strcmp(argv[1], LX_IMPORT_OCI))) {
        write_str(2, "usage: " LX_VERB_IMPORT " <target> " LX_IMPORT_TAR "|"
                  LX_IMPORT_OCI " <archive>...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char msg[4200];
        snprintf(msg, sizeof msg, "importing %s\n", argv[i]);
        write_str(1, msg);
        if (import_one(argv[0], argv[i], !strcmp(argv[1], LX_IMPORT_OCI)) < 0)
            return 1;
    }
    write_str(1, "import done\n");
    return 0;
}
