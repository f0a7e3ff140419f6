/* Host files written into a snapshot by its build steps (carry.h): the
 * bytes in base64 in the steps themselves, chunked under the kernel's
 * limit for one argument, then the file's mode. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "carry.h"
#include "internal.h"

/* A step stays under the kernel's limit for one argument (128 KiB): the
 * local build passes each as one. Chunks are a multiple of 3 bytes, so
 * each decodes alone. */
#define STEP_MAX (96 * 1024)
#define CHUNK (72 * 1024)

/* The whole file, with data at most max bytes; DVAL_EIO / DVAL_ETOOBIG
 * in msg. */
static int read_file(const char *what, const char *path, dval__buf *data,
                     size_t max, char *msg, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        dval__fmt(msg, cap, "%s %s: %s", what, path,
                  fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return DVAL_EIO;
    }
    int rc = DVAL_OK;
    char b[65536];
    for (ssize_t n; rc == DVAL_OK && (n = read(fd, b, sizeof b)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            dval__fmt(msg, cap, "%s %s: %s", what, path, strerror(errno));
            rc = DVAL_EIO;
        } else if (data->len + (size_t)n > max) {
            dval__fmt(msg, cap, "%s %s: the files are over %zu bytes "
                      "together (larger data belongs in an image or a "
                      "build step that fetches it)", what, path, max);
            rc = DVAL_ETOOBIG;
        } else if (dval__buf_append(data, b, (size_t)n)) {
            rc = DVAL_ENOMEM;
        }
    }
    close(fd);
    return rc;
}

typedef struct steps {
    dval__buf cur;
    char **v;
    size_t n;
} steps;

static int flush(steps *s)
{
    if (!s->cur.len)
        return DVAL_OK;
    char **v = dval__realloc(s->v, (s->n + 2) * sizeof *v);
    if (!v)
        return DVAL_ENOMEM;
    s->v = v;
    v[s->n++] = s->cur.data;
    v[s->n] = NULL;
    memset(&s->cur, 0, sizeof s->cur);
    return DVAL_OK;
}

/* One piece of a file (the first one creates it): appended to the
 * current step, or to a new one. */
static int piece(steps *s, const char *to, int first,
                 const unsigned char *p, size_t n)
{
    size_t need = n / 3 * 4 + 2 * strlen(to) + 64;
    if (s->cur.len && s->cur.len + need > STEP_MAX && flush(s))
        return DVAL_ENOMEM;
    int rc = s->cur.len ? dval__buf_appendf(&s->cur, " && ") : DVAL_OK;
    if (!rc && first)
        rc = dval__buf_appendf(&s->cur, "mkdir -p \"$(dirname \"%s\")\" && "
                               ": > \"%s\" && ", to, to);
    if (rc || !n)
        return rc ? rc : dval__buf_appendf(&s->cur, ":");
    rc = dval__buf_appendf(&s->cur, "echo ");
    rc = rc ? rc : dval__base64_append(&s->cur, p, n);
    return rc ? rc : dval__buf_appendf(&s->cur, " | base64 -d >> \"%s\"", to);
}

/* A snapshot path the steps can quote plainly (nothing that expands in
 * double quotes): absolute, no "..". */
static int plain_path(const char *p)
{
    if (p[0] != '/' || strstr(p, "/../") || strstr(p, "/./") ||
        strlen(p) > 512)
        return 0;
    size_t n = strlen(p);
    if (n >= 3 && !strcmp(p + n - 3, "/.."))
        return 0;
    return p[strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789._-/+@")] == 0;
}

static int file_steps(steps *s, const char *what, const dval__carried *f,
                      dval__buf *data, size_t max, char *msg, size_t cap)
{
    if (!plain_path(f->to)) {
        dval__fmt(msg, cap, "%s %s: its place in the snapshot, \"%s\", must "
                  "be an absolute path of letters, digits and ._-/+@ "
                  "without \"..\"", what, f->from, f->to);
        return DVAL_EINVAL;
    }
    size_t at = data->len;
    int rc = read_file(what, f->from, data, max, msg, cap);
    int first = 1;
    while (!rc && (first || at < data->len)) {
        size_t n = data->len - at < CHUNK ? data->len - at : CHUNK;
        rc = piece(s, f->to, first,
                   (const unsigned char *)data->data + at, n);
        at += n;
        first = 0;
    }
    return rc ? rc : dval__buf_appendf(&s->cur, " && chmod %o \"%s\"",
                                       f->mode & 07777, f->to);
}

int dval__carry_steps(const dval__carried *files, size_t n, size_t max,
                      const char *what, char ***out, char *msg, size_t cap)
{
    steps s;
    memset(&s, 0, sizeof s);
    dval__buf data = {0}; /* every file's bytes, for the size bound */
    int rc = DVAL_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = file_steps(&s, what, &files[i], &data, max, msg, cap);
    rc = rc ? rc : flush(&s);
    dval__buf_free(&data);
    dval__buf_free(&s.cur);
    if (rc == DVAL_ENOMEM)
        dval__fmt(msg, cap, "out of memory");
    if (rc) {
        for (size_t i = 0; i < s.n; i++)
            dval__free(s.v[i]);
        dval__free(s.v);
        s.v = NULL;
    }
    *out = s.v;
    return rc;
}
