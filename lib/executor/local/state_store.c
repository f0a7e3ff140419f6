/* Persistence of the local executor: key=value state files written
 * atomically, name encoding, recursive delete and cancellable flock. */
#include "local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t lx_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *unescape(const char *s, size_t n)
{
    char *out = dval__malloc(n + 1);
    size_t j = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            out[j++] = s[i] == 'n' ? '\n' : s[i];
        } else {
            out[j++] = s[i];
        }
    }
    out[j] = 0;
    return out;
}

int lx_kv_load(lx_kv *kv, const char *path)
{
    memset(kv, 0, sizeof *kv);
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? DVAL_ENOTFOUND : DVAL_EIO;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = DVAL_OK;
    while (rc == DVAL_OK && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = 0;
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        char *k = unescape(line, (size_t)(eq - line));
        char *v = unescape(eq + 1, strlen(eq + 1));
        if (k && v)
            rc = lx_kv_add(kv, k, v);
        else
            rc = DVAL_ENOMEM;
        dval__free(k);
        dval__free(v);
    }
    free(line);
    fclose(f);
    if (rc != DVAL_OK)
        lx_kv_free(kv);
    return rc;
}

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\\' || *s == '=')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

unsigned long lx_seq(void)
{
    static atomic_ulong seq;
    return atomic_fetch_add(&seq, 1) + 1;
}

/* The temporary file is unique per call (pid, thread, sequence): threads
 * of one process saving the same state file must not share it, or one
 * thread's O_TRUNC empties the file another has just renamed into place
 * (readers then see no keys at all). */
int lx_kv_save(const lx_kv *kv, const char *path)
{
    char tmp[4200];
    dval__fmt(tmp, sizeof tmp, "%s.tmp.%d.%ld.%lu", path, (int)getpid(),
              (long)gettid(), lx_seq());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return DVAL_EIO;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return DVAL_EIO;
    }
    for (size_t i = 0; i < kv->n; i++) {
        put_escaped(f, kv->keys[i]);
        fputc('=', f);
        for (const char *s = kv->vals[i]; *s; s++) {
            if (*s == '\n')
                fputs("\\n", f);
            else if (*s == '\\')
                fputs("\\\\", f);
            else
                fputc(*s, f);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return DVAL_EIO;
    }
    return DVAL_OK;
}

const char *lx_kv_get(const lx_kv *kv, const char *key)
{
    for (size_t i = 0; i < kv->n; i++)
        if (!strcmp(kv->keys[i], key))
            return kv->vals[i];
    return NULL;
}

long long lx_kv_num(const lx_kv *kv, const char *key, long long def)
{
    const char *v = lx_kv_get(kv, key);
    return v && *v ? strtoll(v, NULL, 10) : def;
}

int lx_kv_format_ok(const lx_kv *kv)
{
    /* no stamp: written by 1.0.0, whose layout format 1 is */
    return lx_kv_num(kv, "format", 1) == LX_STATE_FORMAT;
}

int lx_kv_add(lx_kv *kv, const char *key, const char *val)
{
    char **k = dval__realloc(kv->keys, (kv->n + 1) * sizeof *k);
    if (!k)
        return DVAL_ENOMEM;
    kv->keys = k;
    char **v = dval__realloc(kv->vals, (kv->n + 1) * sizeof *v);
    if (!v)
        return DVAL_ENOMEM;
    kv->vals = v;
    k[kv->n] = dval__strdup(key);
    v[kv->n] = dval__strdup(val ? val : "");
    if (!k[kv->n] || !v[kv->n]) {
        dval__free(k[kv->n]);
        dval__free(v[kv->n]);
        return DVAL_ENOMEM;
    }
    kv->n++;
    return DVAL_OK;
}

int lx_kv_set(lx_kv *kv, const char *key, const char *val)
{
    for (size_t i = 0; i < kv->n; i++) {
        if (!strcmp(kv->keys[i], key)) {
            char *v = dval__strdup(val ? val : "");
            if (!v)
                return DVAL_ENOMEM;
            dval__free(kv->vals[i]);
            kv->vals[i] = v;
            return DVAL_OK;
        }
    }
    return lx_kv_add(kv, key, val);
}

int lx_kv_setnum(lx_kv *kv, const char *key, long long v)
{
    char buf[32];
    dval__fmt(buf, sizeof buf, "%lld", v);
    return lx_kv_set(kv, key, buf);
}

void lx_kv_free(lx_kv *kv)
{
    for (size_t i = 0; i < kv->n; i++) {
        dval__free(kv->keys[i]);
        dval__free(kv->vals[i]);
    }
    dval__free(kv->keys);
    dval__free(kv->vals);
    memset(kv, 0, sizeof *kv);
}

void lx_encode_name(char *dst, size_t cap, const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)name;
         *p && j + 4 < cap; p++) {
        int safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
                   (*p == '.' && p != (const unsigned char *)name);
        if (safe) {
            dst[j++] = (char)*p;
        } else {
            dst[j++] = '%';
            dst[j++] = hex[*p >> 4];
            dst[j++] = hex[*p & 15];
        }
    }
    dst[j] = 0;
}

int lx_mkdirs(const char *path, mode_t mode)
{
    char p[4096];
    dval__fmt(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, mode) < 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    }
    if (mkdir(p, mode) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
                  struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
    return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int lx_read_text(const char *path, char *dst, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, dst, cap - 1);
    if (fd >= 0)
        close(fd);
    dst[n > 0 ? n : 0] = 0;
    dst[strcspn(dst, "\n")] = 0;
    return n > 0 ? 0 : -1;
}

int lx_write_text(dval_call *c, const char *path, const char *text)
{
    size_t n = strlen(text);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd >= 0 && write(fd, text, n) == (ssize_t)n
             ? DVAL_OK : dval__call_fail(c, DVAL_EIO, "cannot write %s", path);
    if (fd >= 0)
        close(fd);
    return rc;
}

int lx_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    /* directories without write/search permission (made by builds) */
    return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* The lock is held on the file path names now: a lock taken on a file
 * whose directory was renamed away meanwhile (delete moves a sandbox to
 * the trash while we wait) would guard nothing, or another sandbox of the
 * same name created since. 1 same file, 0 replaced, -1 gone. */
static int lock_current(int fd, const char *path)
{
    struct stat a, b;
    if (fstat(fd, &a) < 0)
        return -1;
    if (stat(path, &b) < 0)
        return errno == ENOENT ? -1 : 0;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int lx_lock(dval_call *c, const char *path, int64_t timeout_ms)
{
    int64_t end = timeout_ms > 0 ? dval__now_ms() + timeout_ms : 0;
    int nap = 1;
again:;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) /* ENOENT: the directory was deleted (renamed) meanwhile */
        return dval__call_fail(c, errno == ENOENT ? DVAL_ENOTFOUND : DVAL_EIO,
                               "open %s: %s", path, strerror(errno));
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            int cur = lock_current(fd, path);
            if (cur > 0)
                return fd;
            close(fd);
            if (cur == 0)
                goto again;
            return dval__call_fail(c, DVAL_ENOTFOUND, "%s: deleted", path);
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            close(fd);
            return dval__call_fail(c, DVAL_EIO, "flock %s: %s", path,
                                   strerror(errno));
        }
        if (end && dval__now_ms() >= end) {
            close(fd);
            return dval__call_fail(c, DVAL_ETIMEOUT, "waiting for %s", path);
        }
        /* flock cannot wait and watch cancel_fd at once: poll, 1 ms at
         * first (a create or start holds the lock only briefly), backing
         * off to 50 ms */
        struct pollfd p = { c ? c->cancel_fd : -1, POLLIN, 0 };
        if (poll(&p, 1, nap) > 0 && (p.revents & POLLIN)) {
            close(fd);
            return dval__call_fail(c, DVAL_ECANCELED, "canceled");
        }
        nap = nap * 2 > 50 ? 50 : nap * 2;
    }
}

void lx_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}

/* ---- leftovers of dead processes */

/* 1 when one of the "-"/"."-separated fields first..last, counted from
 * the end of name (1 = the last), is the pid of a live process. */
static int owner_alive(const char *name, int first, int last)
{
    const char *end = name + strlen(name);
    for (int i = 1; i <= last && end > name; i++) {
        const char *f = end;
        while (f > name && f[-1] != '-' && f[-1] != '.')
            f--;
        long pid = strtol(f, NULL, 10);
        if (i >= first && pid > 0 && pid < (1L << 22) &&
            (kill((pid_t)pid, 0) == 0 || errno == EPERM))
            return 1;
        end = f > name ? f - 1 : name;
    }
    return 0;
}

/* Removes dir's entries named prefix...suffix but keep whose owner is
 * dead (with last 0, every one of them). */
static void sweep_dir(const char *dir, const char *prefix, const char *suffix,
                      const char *keep, int first, int last)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = strlen(prefix), sl = strlen(suffix);
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strcmp(e->d_name, keep) || strncmp(e->d_name, prefix, n) ||
            len < n + sl || strcmp(e->d_name + len - sl, suffix) ||
            owner_alive(e->d_name, first, last))
            continue;
        char p[4400];
        dval__fmt(p, sizeof p, "%s/%s", dir, e->d_name);
        lx_rmtree(p);
    }
    if (d)
        closedir(d);
}

void lx_empty_dir(const char *dir, const char *keep)
{
    sweep_dir(dir, "", "", keep, 0, 0);
}

void lx_sweep_leftovers(const char *state_dir)
{
    char sbs[4200];
    /* probe.<pid>: a probe killed mid-way; .new-<name>-<pid>-<seq>: a
     * creation killed before its rename; .trash-<name>-<pid>-...: a
     * delete killed mid-rmtree (the owner is one of the last three) */
    sweep_dir(state_dir, "probe.", "", "", 1, 1);
    dval__fmt(sbs, sizeof sbs, "%s/sandboxes", state_dir);
    sweep_dir(sbs, ".new-", "", "", 2, 2);
    sweep_dir(sbs, ".trash-", "", "", 2, 3);
    /* disk images being made: ext4-<N>g.img.<pid>.tmp (mkfs) and
     * spare-<N>g.img.<pid>.<seq>.tmp (a refill), upper_disk.c */
    dval__fmt(sbs, sizeof sbs, "%s/" LX_DISKS, state_dir);
    sweep_dir(sbs, "ext4-", ".tmp", "", 2, 2);
    sweep_dir(sbs, "spare-", ".tmp", "", 3, 3);
}

ssize_t lx_read_proc(pid_t pid, const char *what, char *buf, size_t cap)
{
    char p[64];
    dval__fmt(p, sizeof p, "/proc/%d/%s", (int)pid, what);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return n;
}

unsigned long long lx_pid_start(pid_t pid)
{
    char buf[1024];
    if (lx_read_proc(pid, "stat", buf, sizeof buf) <= 0)
        return 0;
    char *s = strrchr(buf, ')');
    if (!s || s[1] != ' ' || s[2] == 'Z' || s[2] == 'X')
        return 0;
    s += 2; /* state is field 3; starttime is field 22 */
    for (int f = 3; f < 22 && s; f++) {
        s = strchr(s, ' ');
        if (s)
            s++;
    }
    return s ? strtoull(s, NULL, 10) : 0;
}

void lx_pause_us(int *us)
{
    usleep((useconds_t)*us);
    *us = *us * 2 > 10000 ? 10000 : *us * 2;
}
