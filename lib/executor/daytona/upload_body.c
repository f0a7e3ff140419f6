/* Bulk-upload body, the same bytes curl_mime sent (its form-data escape of
 * the file name included). The boundary is 64 random bits (as curl's) from the
 * kernel, one getrandom per upload (curl drew its own from its TLS
 * library's generator): the file is read after the boundary is drawn, so
 * its writer cannot aim at it; the path, known before, is checked. */
#include <string.h>
#include <sys/random.h>

#include "upload_body.h"

enum { UP_HEAD, UP_FILE, UP_TAIL, UP_DONE };

#define DASHES "------------------------"
#define BOUNDARY_RANDOM 8

static int draw_boundary(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char r[BOUNDARY_RANDOM];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return DVAL_ERROR;
    memcpy(out, DASHES, sizeof DASHES - 1);
    char *p = out + sizeof DASHES - 1;
    for (size_t i = 0; i < sizeof r; i++) {
        *p++ = hex[r[i] >> 4];
        *p++ = hex[r[i] & 15];
    }
    *p = '\0';
    return DVAL_OK;
}

/* The file name as curl's form-data escape writes it: ", CR, LF as %XX */
static int append_filename(dval__buf *h, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    int rc = 0;
    for (const char *s = base; *s && !rc;) {
        size_t n = strcspn(s, "\"\r\n");
        rc = dval__buf_append(h, s, n);
        s += n;
        if (!rc && *s)
            rc = dval__buf_appendf(h, "%%%02X", (unsigned char)*s++);
    }
    return rc;
}

static int build_head(dt_upbody *b, const char *bd, const char *path)
{
    int rc = dval__buf_appendf(&b->head, "--%s\r\nContent-Disposition: "
                               "form-data; name=\"files[0].path\"\r\n\r\n",
                               bd);
    if (!rc)
        rc = dval__buf_append(&b->head, path, strlen(path));
    if (!rc)
        rc = dval__buf_appendf(&b->head, "\r\n--%s\r\nContent-Disposition: "
                               "form-data; name=\"files[0].file\"; "
                               "filename=\"", bd);
    if (!rc)
        rc = append_filename(&b->head, path);
    if (!rc)
        rc = dval__buf_appendf(&b->head, "\"\r\nContent-Type: "
                               "application/octet-stream\r\n\r\n");
    return rc;
}

int dt_upbody_init(dt_upbody *b, const char *path, dval_read_fn src,
                   void *src_ud, int64_t size)
{
    memset(b, 0, sizeof *b);
    b->src = src;
    b->src_ud = src_ud;
    b->size = size >= 0 ? size : -1;
    char bd[sizeof DASHES + 2 * BOUNDARY_RANDOM];
    int tries = 0;
    do {    /* the path is the one part known now: never the delimiter */
        if (draw_boundary(bd))
            return DVAL_ERROR;
    } while (strstr(path, bd) && ++tries < 8);
    if (strstr(path, bd))
        return DVAL_ERROR;
    dval__fmt(b->ctype, sizeof b->ctype, "Content-Type: multipart/"
              "form-data; boundary=%s", bd);
    dval__fmt(b->tail, sizeof b->tail, "\r\n--%s--\r\n", bd);
    b->tail_len = strlen(b->tail);
    if (build_head(b, bd, path)) {
        dval__buf_free(&b->head);
        return DVAL_ENOMEM;
    }
    return DVAL_OK;
}

int64_t dt_upbody_length(const dt_upbody *b)
{
    return b->size < 0 ? -1 : (int64_t)(b->head.len + b->tail_len) + b->size;
}

/* One call of the source (it chooses how much it gives at once). */
static int read_file(dt_upbody *b, char *buf, size_t cap, size_t *n)
{
    size_t got = 0;
    if (b->size >= 0 && (int64_t)cap > b->size - b->got)
        cap = (size_t)(b->size - b->got);
    if (cap && b->src(buf, cap, &got, b->src_ud))
        return DT_UP_ESRC;
    if (got > cap)
        return DT_UP_ESRC;
    b->got += (int64_t)got;
    *n += got;
    if (!got && b->size >= 0 && b->got < b->size)
        return DT_UP_ESHORT;
    if (!got || (b->size >= 0 && b->got == b->size)) {
        b->phase = UP_TAIL;
        b->off = 0;
    }
    return 0;
}

int dt_upbody_read(dt_upbody *b, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    while (n < cap && b->phase != UP_DONE) {
        if (b->phase == UP_FILE) {
            size_t before = n;
            int rc = read_file(b, buf + n, cap - n, &n);
            if (rc)
                return rc;
            if (b->phase == UP_FILE && n > before)
                break;
            continue;
        }
        const char *p = b->phase == UP_HEAD ? b->head.data : b->tail;
        size_t plen = b->phase == UP_HEAD ? b->head.len : b->tail_len;
        size_t k = plen - b->off < cap - n ? plen - b->off : cap - n;
        memcpy(buf + n, p + b->off, k);
        b->off += k;
        n += k;
        if (b->off == plen) {
            b->phase++;
            b->off = 0;
        }
    }
    *len = n;
    return 0;
}

int dt_upbody_rewind(dt_upbody *b)
{
    if (b->got || b->phase > UP_FILE)
        return -1;
    b->phase = UP_HEAD;
    b->off = 0;
    return 0;
}

void dt_upbody_free(dt_upbody *b)
{
    dval__buf_free(&b->head);
}
