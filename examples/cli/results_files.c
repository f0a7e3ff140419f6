/* --results: the program's results files that are not *.json, written
 * byte-exact beside the results document: out.json gets out.files/
 * holding them under their names (sub/x.csv as sub/x.csv). The summary's
 * "files" has them as text or base64 (dval_validate(3)); each file is
 * written whole or not at all (atomic.c). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

typedef struct bytes {
    unsigned char *p;
    size_t n;
} bytes;

static int b64_value(char c)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *at = c && c != '=' ? strchr(t, c) : NULL;
    return at ? (int)(at - t) : -1;
}

/* The base64 text s (n characters, the library's padded form) into b. */
static void b64_decode(const char *s, size_t n, bytes *b)
{
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int d = b64_value(s[i]);
        if (d < 0)
            continue;
        v = v << 6 | (unsigned)d;
        if ((bits += 6) >= 8) {
            bits -= 8;
            b->p[b->n++] = (unsigned char)(v >> bits);
        }
    }
}

/* A "files" entry's bytes ({"text": ...} or {"base64": ...}) into b,
 * whose p holds at least vlen bytes. */
static void entry_bytes(const char *val, bytes *b)
{
    const char *s;
    size_t n;
    b->n = 0;
    if (!jt_member(val, "text", &s, &n)) {
        jt_unquote(s, n, (char *)b->p, n + 1);
        b->n = strlen((char *)b->p);   /* a text entry holds no NUL */
    } else if (!jt_member(val, "base64", &s, &n) && n >= 2) {
        b64_decode(s + 1, n - 2, b);
    }
}

/* 0 when name stays below its directory: relative, no "." or ".."
 * component, no empty one. */
static int name_ok(const char *name)
{
    if (*name == '/')
        return -1;
    for (const char *p = name;; ) {
        size_t n = strcspn(p, "/");
        if (!n || (n == 1 && p[0] == '.') ||
            (n == 2 && p[0] == '.' && p[1] == '.'))
            return -1;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* The directories of path below its first len bytes (already there). */
static int make_parents(char *path, size_t len)
{
    for (char *p = strchr(path + len + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int rc = mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
        *p = '/';
        if (rc)
            return -1;
    }
    return 0;
}

static void emit_bytes(FILE *f, void *ud)
{
    const bytes *b = ud;
    fwrite(b->p, 1, b->n, f);
}

typedef struct dest {
    char dir[PATH_MAX];
} dest;

static int write_one(const char *key, size_t klen, const char *val,
                     size_t vlen, void *ud)
{
    const dest *d = ud;
    char name[PATH_MAX], path[2 * PATH_MAX + 2];
    jt_unquote(key, klen, name, sizeof name);
    if (name_ok(name)) {
        errno = EINVAL;
        return -1;
    }
    int n = snprintf(path, sizeof path, "%s/%s", d->dir, name);
    bytes b = { malloc(vlen + 1), 0 };
    int rc = !b.p || make_parents(path, strlen(d->dir)) ? -1 : 0;
    if (!rc) {
        entry_bytes(val, &b);
        rc = n > 0 && (size_t)n < sizeof path ? write_atomic(path,
                                                 emit_bytes, &b) : -1;
    }
    free(b.p);
    return rc;
}

int write_results_files(const char *file, const char *summary)
{
    const char *files;
    size_t len;
    if (jt_member(summary, "files", &files, &len) || len <= 2)
        return 0;
    dest d;
    size_t n = strlen(file);
    if (n > 5 && !strcmp(file + n - 5, ".json"))
        n -= 5;
    snprintf(d.dir, sizeof d.dir, "%.*s.files", (int)n, file);
    if (mkdir(d.dir, 0777) && errno != EEXIST)
        return -1;
    return jt_each(files, write_one, &d) ? -1 : 0;
}
