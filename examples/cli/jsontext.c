/* Minimal JSON text helpers. The CLI links only libdaytona-validate, so it
 * handles the library's summary (already validated JSON) as text: find a
 * top-level member, re-indent a value, escape a string. */
#include <string.h>

#include "cli.h"

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static const char *skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
            p++;
    return *p == '"' ? p + 1 : NULL;
}

/* Returns the end of the value starting at p, or NULL. */
static const char *skip_value(const char *p)
{
    p = ws(p);
    if (*p == '"')
        return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                if (!(p = skip_string(p)))
                    return NULL;
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
            p++;
        }
        return NULL;
    }
    while (*p && !strchr(",}] \t\r\n", *p))
        p++;
    return p;
}

int jt_each(const char *obj, jt_member_fn fn, void *ud)
{
    const char *p = ws(obj);
    if (*p != '{')
        return -1;
    p = ws(p + 1);
    while (*p == '"') {
        const char *kend = skip_string(p);
        if (!kend)
            return -1;
        const char *key = p;
        p = ws(kend);
        if (*p != ':')
            return -1;
        const char *v = ws(p + 1);
        const char *e = skip_value(v);
        if (!e)
            return -1;
        int rc = fn(key, (size_t)(kend - key), v, (size_t)(e - v), ud);
        if (rc)
            return rc;
        p = ws(e);
        if (*p == ',')
            p = ws(p + 1);
    }
    return 0;
}

typedef struct wanted {
    const char *key;
    size_t klen;
    const char **val;
    size_t *len;
} wanted;

static int match_key(const char *key, size_t klen, const char *val,
                     size_t vlen, void *ud)
{
    wanted *w = ud;
    if (klen - 2 != w->klen || strncmp(key + 1, w->key, w->klen))
        return 0;
    *w->val = val;
    *w->len = vlen;
    return 1;
}

int jt_member(const char *doc, const char *key, const char **val,
              size_t *len)
{
    wanted w = { key, strlen(key), val, len };
    return jt_each(doc, match_key, &w) == 1 ? 0 : -1;
}

static void indent(FILE *f, int depth)
{
    fputc('\n', f);
    for (int i = 0; i < depth; i++)
        fputs("  ", f);
}

void jt_pretty(FILE *f, const char *val, size_t len)
{
    int depth = 0;
    const char *end = val + len;
    for (const char *p = val; p < end; p++) {
        char ch = *p;
        if (ch == '"') {
            const char *q = skip_string(p);
            if (!q || q > end)
                q = end;
            fwrite(p, 1, (size_t)(q - p), f);
            p = q - 1;
        } else if (ch == '{' || ch == '[') {
            const char *n = ws(p + 1);
            if (n < end && (*n == '}' || *n == ']')) {
                fputc(ch, f);
                fputc(*n, f);
                p = n;
                continue;
            }
            fputc(ch, f);
            indent(f, ++depth);
        } else if (ch == '}' || ch == ']') {
            indent(f, --depth);
            fputc(ch, f);
        } else if (ch == ',') {
            fputc(',', f);
            indent(f, depth);
        } else if (ch == ':') {
            fputs(": ", f);
        } else if (!strchr(" \t\r\n", ch)) {
            fputc(ch, f);
        }
    }
}

/* Length of a valid UTF-8 sequence at p (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t l;
    unsigned cp;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) { l = 2; cp = p[0] & 0x1F; }
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) { l = 3; cp = p[0] & 0x0F; }
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) { l = 4; cp = p[0] & 0x07; }
    else return 0;
    if (n < l)
        return 0;
    for (size_t i = 1; i < l; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((l == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (l == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return l;
}

/* Program output may hold any bytes: invalid UTF-8 becomes U+FFFD so the
 * document stays valid JSON. */
void jt_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char ch = p[i];
        if (ch == '"' || ch == '\\') {
            fputc('\\', f);
            fputc(ch, f);
            i++;
        } else if (ch == '\n') {
            fputs("\\n", f);
            i++;
        } else if (ch == '\t') {
            fputs("\\t", f);
            i++;
        } else if (ch < 0x20 || ch == 0x7f) {
            fprintf(f, "\\u%04x", ch);
            i++;
        } else {
            size_t l = utf8_len(p + i, len - i);
            if (l == 0) {
                fputs("\\ufffd", f);
                i++;
            } else {
                fwrite(p + i, 1, l, f);
                i += l;
            }
        }
    }
    fputc('"', f);
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f'
                ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v * 16 + (unsigned)d;
    }
    return 0;
}

/* Appends code point u as UTF-8 at dst[*n] (room permitting). */
static void put_utf8(char *dst, size_t cap, size_t *n, unsigned u)
{
    char b[4];
    size_t k = u < 0x80 ? (b[0] = (char)u, 1)
             : u < 0x800 ? (b[0] = (char)(0xc0 | u >> 6),
                            b[1] = (char)(0x80 | (u & 0x3f)), 2)
             : u < 0x10000 ? (b[0] = (char)(0xe0 | u >> 12),
                              b[1] = (char)(0x80 | ((u >> 6) & 0x3f)),
                              b[2] = (char)(0x80 | (u & 0x3f)), 3)
             : (b[0] = (char)(0xf0 | u >> 18),
                b[1] = (char)(0x80 | ((u >> 12) & 0x3f)),
                b[2] = (char)(0x80 | ((u >> 6) & 0x3f)),
                b[3] = (char)(0x80 | (u & 0x3f)), 4);
    if (*n + k < cap) {
        memcpy(dst + *n, b, k);
        *n += k;
    }
}

/* One escape after the backslash at p; returns the bytes it took. */
static size_t unescape(const char *p, const char *end, char *dst, size_t cap,
                       size_t *n)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e = strchr(from, p[1]);
    unsigned u, lo;
    if (e && p[1]) {
        put_utf8(dst, cap, n, (unsigned char)to[e - from]);
        return 2;
    }
    if (p[1] != 'u' || end - p < 6 || hex4(p + 2, &u))
        return 1;
    if (u >= 0xd800 && u < 0xdc00 && end - p >= 12 && p[6] == '\\' &&
        p[7] == 'u' && !hex4(p + 8, &lo) && lo >= 0xdc00 && lo < 0xe000) {
        put_utf8(dst, cap, n, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
        return 12;
    }
    put_utf8(dst, cap, n, u);
    return 6;
}

void jt_unquote(const char *val, size_t len, char *dst, size_t cap)
{
    size_t n = 0;
    dst[0] = '\0';
    if (len < 2 || val[0] != '"')
        return;
    const char *end = val + len - 1;
    for (const char *p = val + 1; p < end;) {
        if (*p == '\\') {
            p += unescape(p, end, dst, cap, &n);
        } else {
            if (n + 1 < cap)
                dst[n++] = *p;
            p++;
        }
    }
    dst[n] = '\0';
}
