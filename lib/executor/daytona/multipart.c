/* multipart/form-data parser. The body scanner finds "\r\n--<boundary>"
 * with memmem and hands data on in runs; a delimiter split across feeds
 * is matched one byte at a time. Since a boundary never contains CR, a
 * mismatch can always restart matching at the current byte (no KMP
 * table needed). */
#include <ctype.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "multipart.h"

enum { MP_PREAMBLE, MP_AFTER, MP_AFTER_LF, MP_HEADERS, MP_BODY, MP_DONE,
       MP_FAILED };

static int mp_fail(dt_mp *mp, char *err, size_t errlen, const char *what)
{
    mp->state = MP_FAILED;
    if (err && errlen)
        snprintf(err, errlen, "malformed multipart reply: %s", what);
    return DT_MP_EPROTO;
}

int dt_mp_init(dt_mp *mp, const char *ct, const dt_mp_cb *cb, void *ud,
               char *err, size_t errlen)
{
    memset(mp, 0, offsetof(dt_mp, hdr));   /* hdr: read up to hlen only */
    mp->cb = cb;
    mp->ud = ud;
    mp->state = MP_FAILED;
    if (!ct || strncasecmp(ct, "multipart/", 10) != 0)
        return mp_fail(mp, err, errlen, "not a multipart content type");
    const char *b = strcasestr(ct, "boundary=");
    if (!b)
        return mp_fail(mp, err, errlen, "no boundary parameter");
    b += 9;
    size_t n;
    if (*b == '"') {
        b++;
        const char *q = strchr(b, '"');
        n = q ? (size_t)(q - b) : 0;
    } else {
        n = strcspn(b, "; \t");
    }
    if (n == 0 || n > 70 || memchr(b, '\r', n) || memchr(b, '\n', n))
        return mp_fail(mp, err, errlen, "unusable boundary");
    memcpy(mp->delim, "\r\n--", 4);
    memcpy(mp->delim + 4, b, n);
    mp->dlen = 4 + n;
    /* the first delimiter may start the body: pretend CRLF was seen */
    mp->m = 2;
    mp->state = MP_PREAMBLE;
    return 0;
}

/* Not matching: hands on everything before the next full delimiter in
 * one call (memmem), or, without one, everything but the longest tail
 * that could start it (held in mp->m). A CR inside binary data used to
 * split the run, one callback (and one write by the sink) per ~256
 * bytes of random data. Returns bytes consumed. */
static size_t scan_fast(dt_mp *mp, const char *p, size_t n, int emit,
                        int *rc, int *found)
{
    const char *hit = memmem(p, n, mp->delim, mp->dlen);
    size_t run, used;
    if (hit) {
        run = (size_t)(hit - p);
        used = run + mp->dlen;
        *found = 1;
    } else {
        size_t keep = 0;
        size_t maxk = n < mp->dlen - 1 ? n : mp->dlen - 1;
        for (size_t k = maxk; k > 0 && !keep; k--)
            if (p[n - k] == '\r' && memcmp(p + n - k, mp->delim, k) == 0)
                keep = k;
        run = n - keep;
        used = n;
        mp->m = keep;
    }
    if (run && emit)
        *rc = mp->cb->part_data(p, run, mp->ud);
    return used;
}

/* Scans for the delimiter; passes data on when emit. Returns bytes
 * consumed; *found = 1 when the delimiter completed. */
static size_t scan(dt_mp *mp, const char *p, size_t n, int emit, int *rc,
                   int *found)
{
    size_t i = 0;
    while (i < n && !*rc) {
        if (mp->m == 0) {
            i += scan_fast(mp, p + i, n - i, emit, rc, found);
            if (*found)
                return i;
        } else if (p[i] == mp->delim[mp->m]) {
            i++;
            if (++mp->m == mp->dlen) {
                mp->m = 0;
                *found = 1;
                return i;
            }
        } else {
            /* held bytes were data after all; re-examine p[i] */
            if (emit)
                *rc = mp->cb->part_data(mp->delim, mp->m, mp->ud);
            mp->m = 0;
        }
    }
    return i;
}

/* Finds a parameter (name="x") in a Content-Disposition line. */
static void param(const char *line, size_t len, const char *key, char *out,
                  size_t cap)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl + 2 <= len; i++) {
        int start = i == 0 || line[i - 1] == ';' || line[i - 1] == ' ' ||
                    line[i - 1] == '\t';
        if (!start || strncasecmp(line + i, key, kl) != 0 ||
            line[i + kl] != '=')
            continue;
        const char *v = line + i + kl + 1;
        size_t vl = len - (size_t)(v - line);
        if (vl && *v == '"') {
            const char *q = memchr(v + 1, '"', vl - 1);
            vl = q ? (size_t)(q - v - 1) : vl - 1;
            v++;
        } else {
            size_t k = 0;
            while (k < vl && v[k] != ';' && v[k] != ' ' && v[k] != '\r')
                k++;
            vl = k;
        }
        if (vl >= cap)
            vl = cap - 1;
        memcpy(out, v, vl);
        out[vl] = '\0';
        return;
    }
}

static int headers_done(dt_mp *mp, char *err, size_t errlen)
{
    char name[256] = "", filename[1024] = "";
    const char *h = mp->hdr, *end = mp->hdr + mp->hlen;
    while (h < end) {
        const char *eol = memchr(h, '\n', (size_t)(end - h));
        size_t len = eol ? (size_t)(eol - h) : (size_t)(end - h);
        if (len > 20 && strncasecmp(h, "content-disposition:", 20) == 0) {
            param(h + 20, len - 20, "name", name, sizeof name);
            param(h + 20, len - 20, "filename", filename, sizeof filename);
        }
        h += len + 1;
    }
    if (!name[0])
        return mp_fail(mp, err, errlen, "part without a name");
    mp->state = MP_BODY;
    mp->m = 0;
    return mp->cb->part_begin(name, filename, mp->ud);
}

/* Header block: lines up to an empty line; bounded by DT_MP_HDR_MAX. */
static size_t headers(dt_mp *mp, const char *p, size_t n, int *rc,
                      char *err, size_t errlen)
{
    size_t i = 0;
    while (i < n) {
        if (mp->hlen == sizeof mp->hdr) {
            *rc = mp_fail(mp, err, errlen, "part headers too long");
            return i;
        }
        mp->hdr[mp->hlen++] = p[i++];
        size_t l = mp->hlen;
        if ((l == 2 && memcmp(mp->hdr, "\r\n", 2) == 0) ||
            (l >= 4 && memcmp(mp->hdr + l - 4, "\r\n\r\n", 4) == 0)) {
            *rc = headers_done(mp, err, errlen);
            return i;
        }
    }
    return i;
}

/* After a delimiter: "--" closes the body, CRLF opens a part (transport
 * padding of spaces/tabs is skipped). */
static size_t after(dt_mp *mp, const char *p, size_t n, int *rc, char *err,
                    size_t errlen)
{
    size_t i = 0;
    while (i < n && (mp->state == MP_AFTER || mp->state == MP_AFTER_LF)) {
        char ch = p[i++];
        if (mp->state == MP_AFTER_LF) {
            if (ch != (mp->hlen ? '-' : '\n')) {
                *rc = mp_fail(mp, err, errlen, "bad delimiter line");
                return i;
            }
            mp->state = mp->hlen ? MP_DONE : MP_HEADERS;
            mp->hlen = 0;
        } else if (ch == ' ' || ch == '\t') {
            continue;
        } else if (ch == '-' || ch == '\r') {
            mp->hlen = ch == '-';   /* remembers which pair we are in */
            mp->state = MP_AFTER_LF;
        } else {
            *rc = mp_fail(mp, err, errlen, "bad delimiter line");
            return i;
        }
    }
    return i;
}

int dt_mp_feed(dt_mp *mp, const char *p, size_t n, char *err, size_t errlen)
{
    size_t i = 0;
    int rc = 0;
    while (i < n && !rc) {
        int found = 0;
        switch (mp->state) {
        case MP_PREAMBLE:
        case MP_BODY:
            i += scan(mp, p + i, n - i, mp->state == MP_BODY, &rc, &found);
            if (found && !rc) {
                if (mp->state == MP_BODY)
                    rc = mp->cb->part_end(mp->ud);
                mp->state = MP_AFTER;
                mp->hlen = 0;
            }
            break;
        case MP_AFTER:
        case MP_AFTER_LF:
            i += after(mp, p + i, n - i, &rc, err, errlen);
            break;
        case MP_HEADERS:
            i += headers(mp, p + i, n - i, &rc, err, errlen);
            break;
        case MP_DONE:
            return 0;   /* the epilogue is ignored */
        default:
            return mp_fail(mp, err, errlen, "parser already failed");
        }
    }
    return rc;
}

int dt_mp_finish(const dt_mp *mp, char *err, size_t errlen)
{
    if (mp->state == MP_DONE)
        return 0;
    if (err && errlen)
        snprintf(err, errlen, "download truncated: the multipart reply "
                 "ended before its closing boundary");
    return DT_MP_ETRUNC;
}
