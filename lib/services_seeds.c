/* The host's seed files carried into a snapshot build: steps that write
 * each file, in order, as DVAL__SEED_DIR/NN-<name> (base64 in the step
 * itself, as the profiles carry their scripts), so the same steps serve
 * a local build and a Daytona image build. The services' init steps
 * load them (service_spec.h); the file's content and name are in the
 * steps, so they are in the snapshot's name too (services.c). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services.h"

/* A step stays under the kernel's limit for one argument (128 KiB): the
 * local build passes each as one. Chunks are a multiple of 3 bytes, so
 * each decodes alone. */
#define STEP_MAX (96 * 1024)
#define CHUNK (72 * 1024)

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64(dval__buf *out, const unsigned char *p, size_t n)
{
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = b64[v >> 18 & 63];
        q[1] = b64[v >> 12 & 63];
        q[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? b64[v & 63] : '=';
        if (dval__buf_append(out, q, 4))
            return DVAL_ENOMEM;
    }
    return DVAL_OK;
}

/* The whole file, at most max bytes; DVAL_EIO / DVAL_ETOOBIG in msg. */
static int read_seed(const char *path, dval__buf *data, size_t max,
                     char *msg, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        dval__fmt(msg, cap, "seed %s: %s", path,
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
            dval__fmt(msg, cap, "seed %s: %s", path, strerror(errno));
            rc = DVAL_EIO;
        } else if (data->len + (size_t)n > max) {
            dval__fmt(msg, cap, "seeds are over %d bytes together (larger "
                      "data belongs in a profile's own build steps)",
                      DVAL__SEEDS_MAX_BYTES);
            rc = DVAL_ETOOBIG;
        } else if (dval__buf_append(data, b, (size_t)n)) {
            rc = DVAL_ENOMEM;
        }
    }
    close(fd);
    return rc;
}

/* "NN-<base name>", its characters those of a safe file name. */
static void seed_name(char *out, size_t cap, size_t i, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    dval__fmt(out, cap, "%02zu-%.100s", i + 1, base);
    for (char *p = out; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-", *p))
            *p = '_';
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

/* One piece of a file: appended to the current step, or to a new one. */
static int piece(steps *s, const char *name, const unsigned char *p,
                 size_t n)
{
    size_t need = n / 3 * 4 + 8 + strlen(name) + 64;
    if (s->cur.len && s->cur.len + need > STEP_MAX && flush(s))
        return DVAL_ENOMEM;
    int rc = s->cur.len ? dval__buf_appendf(&s->cur, " && ")
                        : dval__buf_appendf(&s->cur, "mkdir -p "
                                            DVAL__SEED_DIR " && ");
    if (!rc && !n)
        return dval__buf_appendf(&s->cur, ": >> " DVAL__SEED_DIR "/%s",
                                 name);
    rc = rc ? rc : dval__buf_appendf(&s->cur, "echo ");
    rc = rc ? rc : base64(&s->cur, p, n);
    return rc ? rc : dval__buf_appendf(&s->cur, " | base64 -d >> "
                                       DVAL__SEED_DIR "/%s", name);
}

static int file_steps(steps *s, size_t i, const char *path,
                      dval__buf *data, char *msg, size_t cap)
{
    size_t before = data->len;
    int rc = read_seed(path, data, DVAL__SEEDS_MAX_BYTES, msg, cap);
    if (rc)
        return rc;
    char name[128];
    seed_name(name, sizeof name, i, path);
    size_t at = before;
    do {
        size_t n = data->len - at < CHUNK ? data->len - at : CHUNK;
        rc = piece(s, name, (const unsigned char *)data->data + at, n);
        at += n;
    } while (!rc && at < data->len);
    return rc;
}

int dval__seed_steps(const char *const *seeds, char ***out, char *msg,
                     size_t cap)
{
    steps s;
    memset(&s, 0, sizeof s);
    dval__buf data = {0}; /* every file's bytes, for the size bound */
    int rc = DVAL_OK;
    for (size_t i = 0; !rc && seeds && seeds[i]; i++)
        rc = file_steps(&s, i, seeds[i], &data, msg, cap);
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
