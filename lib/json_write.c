/* See json_write.h. The escapes and the UTF-8 checks are jansson's (2.x
 * dump.c and utf.c): the same bytes come out, or the same failure. */
#include <string.h>

#include "json_write.h"

/* a cycle of containers (jansson refuses one too) must not overflow the
 * stack */
#define JW_MAX_DEPTH 2048

/* bytes copied as they are: printable ASCII (and DEL) but '"' and '\\' */
static int plain(unsigned char c)
{
    return (unsigned char)(c - 0x20) < 0x60 && c != '"' && c != '\\';
}

static int room(dval__buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return DVAL_OK;
    return dval__buf_reserve(b, n > b->cap ? n : b->cap);
}

static int put(dval__buf *b, const void *p, size_t n)
{
    if (room(b, n))
        return DVAL_ENOMEM;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return DVAL_OK;
}

/* The length of the UTF-8 sequence at p and its code point; 0 when it is
 * not one jansson accepts (overlong, a surrogate, above U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, size_t n, unsigned *cp)
{
    unsigned c = p[0];
    size_t k = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3
             : c < 0xf5 ? 4 : 0;
    if (k <= 1) {
        *cp = c;
        return k;
    }
    if (k > n)
        return 0;
    unsigned v = c & (k == 2 ? 0x1f : k == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3f);
    }
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ||
        (k == 3 && v < 0x800) || (k == 4 && v < 0x10000))
        return 0;
    *cp = v;
    return k;
}

static void hex4(char *o, unsigned v)
{
    static const char d[] = "0123456789ABCDEF";
    o[0] = '\\', o[1] = 'u';
    for (int i = 0; i < 4; i++)
        o[2 + i] = d[(v >> (12 - 4 * i)) & 15];
}

/* the escape of code point cp (one that is not copied) */
static int escape(dval__buf *b, unsigned cp)
{
    char e[12];
    size_t n = 2;
    e[0] = '\\';
    switch (cp) {
    case '\\': e[1] = '\\'; break;
    case '"': e[1] = '"'; break;
    case '\b': e[1] = 'b'; break;
    case '\f': e[1] = 'f'; break;
    case '\n': e[1] = 'n'; break;
    case '\r': e[1] = 'r'; break;
    case '\t': e[1] = 't'; break;
    default:
        if (cp < 0x10000) {
            hex4(e, cp);
            n = 6;
        } else {
            cp -= 0x10000;
            hex4(e, 0xd800 | ((cp & 0xffc00) >> 10));
            hex4(e + 6, 0xdc00 | (cp & 0x3ff));
            n = 12;
        }
    }
    return put(b, e, n);
}

int dval__json_write_str(dval__buf *b, const char *s, size_t n, size_t flags)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    int ascii = (flags & JSON_ENSURE_ASCII) != 0;
    unsigned cp;
    if (put(b, "\"", 1))
        return DVAL_ENOMEM;
    while (p < end) {
        const unsigned char *run = p;
        for (;;) {
            while (p < end && plain(*p))
                p++;
            if (p == end || *p < 0x80 || ascii)
                break;
            size_t k = utf8_seq(p, (size_t)(end - p), &cp);
            if (!k)
                return DVAL_EINVAL;
            p += k;
        }
        if (p > run && put(b, run, (size_t)(p - run)))
            return DVAL_ENOMEM;
        if (p == end)
            break;
        size_t k = utf8_seq(p, (size_t)(end - p), &cp);
        if (!k)
            return DVAL_EINVAL;
        if (escape(b, cp))
            return DVAL_ENOMEM;
        p += k;
    }
    return put(b, "\"", 1);
}

int dval__json_write_int(dval__buf *b, json_int_t v)
{
    char t[24], *o = t + sizeof t;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
                                 : (unsigned long long)v;
    do
        *--o = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--o = '-';
    return put(b, o, (size_t)(t + sizeof t - o));
}

static int write_real(dval__buf *b, const json_t *v, size_t flags)
{
    char t[64];
    size_t n = json_dumpb(v, t, sizeof t, (flags & ~(size_t)0x1f) |
                          JSON_COMPACT | JSON_ENCODE_ANY);
    return n && n <= sizeof t ? put(b, t, n) : DVAL_ENOMEM;
}

static int write_value(dval__buf *b, const json_t *v, size_t flags,
                       int depth);

static int write_object(dval__buf *b, json_t *o, size_t flags, int depth)
{
    int rc = put(b, "{", 1), first = 1;
    for (void *it = json_object_iter(o); it && !rc;
         it = json_object_iter_next(o, it)) {
        if (!first)
            rc = put(b, ",", 1);
        first = 0;
        if (!rc)
            rc = dval__json_write_str(b, json_object_iter_key(it),
                                      json_object_iter_key_len(it), flags);
        if (!rc)
            rc = put(b, ":", 1);
        if (!rc)
            rc = write_value(b, json_object_iter_value(it), flags, depth + 1);
    }
    return rc ? rc : put(b, "}", 1);
}

static int write_array(dval__buf *b, const json_t *a, size_t flags,
                       int depth)
{
    int rc = put(b, "[", 1);
    size_t n = json_array_size(a);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i)
            rc = put(b, ",", 1);
        if (!rc)
            rc = write_value(b, json_array_get(a, i), flags, depth + 1);
    }
    return rc ? rc : put(b, "]", 1);
}

static int write_value(dval__buf *b, const json_t *v, size_t flags,
                       int depth)
{
    if (!v || depth > JW_MAX_DEPTH)
        return DVAL_EINVAL;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return write_object(b, (json_t *)v, flags, depth);
    case JSON_ARRAY:
        return write_array(b, v, flags, depth);
    case JSON_STRING:
        return dval__json_write_str(b, json_string_value(v),
                                    json_string_length(v), flags);
    case JSON_INTEGER:
        return dval__json_write_int(b, json_integer_value(v));
    case JSON_REAL:
        return write_real(b, v, flags);
    case JSON_TRUE:
        return put(b, "true", 4);
    case JSON_FALSE:
        return put(b, "false", 5);
    default:
        return put(b, "null", 4);
    }
}

int dval__json_write(dval__buf *b, const json_t *v, size_t flags)
{
    return write_value(b, v, flags, 0);
}

char *dval__json_text_of(const json_t *v, size_t flags)
{
    dval__buf b = {0};
    if (dval__buf_reserve(&b, 256) || dval__json_write(&b, v, flags)) {
        dval__buf_free(&b);
        return NULL;
    }
    return b.data;
}
