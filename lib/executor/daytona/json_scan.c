/* See json_scan.h. A validating skip over JSON text, strict in what it
 * accepts: every byte sequence it passes is one jansson 2.x loads too
 * (json_loadb, flags 0), with the same members. */
#include <string.h>

#include "internal.h"
#include "json_scan.h"

/* nesting the scan follows; deeper documents go to jansson */
#define SCAN_MAX_DEPTH 32

typedef struct scan {
    const unsigned char *p, *end;
    int depth;
} scan;

static void ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
                             *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hexval(unsigned char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f'
           ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* \uXXXX of a character other than NUL and the surrogates */
static int u_escape(scan *s)
{
    if (s->end - s->p < 6)
        return 0;
    unsigned v = 0;
    for (int i = 2; i < 6; i++) {
        int h = hexval(s->p[i]);
        if (h < 0)
            return 0;
        v = v << 4 | (unsigned)h;
    }
    s->p += 6;
    return v != 0 && (v < 0xd800 || v > 0xdfff);
}

/* at '"': to after the closing one; *esc set when it held an escape */
static int string(scan *s, int *esc)
{
    s->p++;
    while (s->p < s->end) {
        unsigned char c = *s->p;
        if (c == '"') {
            s->p++;
            return 1;
        }
        if (c < 0x20)
            return 0;
        if (c >= 0x80) {
            const unsigned char *q = s->p;
            while (q < s->end && *q >= 0x80)
                q++;
            if (!dval__utf8_valid((const char *)s->p, (size_t)(q - s->p)))
                return 0;
            s->p = q;
        } else if (c == '\\') {
            *esc = 1;
            if (s->end - s->p < 2)
                return 0;
            if (s->p[1] == 'u') {
                if (!u_escape(s))
                    return 0;
            } else if (s->p[1] && strchr("\"\\/bfnrt", s->p[1])) {
                s->p += 2;
            } else {
                return 0;
            }
        } else {
            s->p++;
        }
    }
    return 0;
}

/* an integer jansson holds exactly (a real, or one of 19 digits or
 * more, is left to jansson) */
static int number(scan *s)
{
    const unsigned char *q = s->p + (*s->p == '-');
    const unsigned char *d = q;
    if (q < s->end && *q == '0')
        q++;
    else
        while (q < s->end && *q >= '0' && *q <= '9')
            q++;
    if (q == d || q - d > 18 ||
        (q < s->end && (*q == '.' || *q == 'e' || *q == 'E')))
        return 0;
    s->p = q;
    return 1;
}

static int literal(scan *s, const char *w, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
        return 0;
    s->p += n;
    return 1;
}

static int value(scan *s);

/* at '{' or '[': to after its close */
static int container(scan *s, unsigned char close)
{
    if (++s->depth > SCAN_MAX_DEPTH)
        return 0;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        s->depth--;
        return 1;
    }
    for (;;) {
        int esc = 0;
        if (close == '}') {
            if (s->p >= s->end || *s->p != '"' || !string(s, &esc))
                return 0;
            ws(s);
            if (s->p >= s->end || *s->p++ != ':')
                return 0;
            ws(s);
        }
        if (!value(s))
            return 0;
        ws(s);
        if (s->p >= s->end)
            return 0;
        if (*s->p == close) {
            s->p++;
            s->depth--;
            return 1;
        }
        if (*s->p++ != ',')
            return 0;
        ws(s);
    }
}

static int value(scan *s)
{
    int esc = 0;
    if (s->p >= s->end)
        return 0;
    switch (*s->p) {
    case '"': return string(s, &esc);
    case '{': return container(s, '}');
    case '[': return container(s, ']');
    case 't': return literal(s, "true", 4);
    case 'f': return literal(s, "false", 5);
    case 'n': return literal(s, "null", 4);
    default: return (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
                    && number(s);
    }
}

/* one top-level member: its key (unescaped: an escaped key could spell a
 * wanted one) matched against keys */
static int member(scan *s, const char *const *keys, dt_span *vals,
                  size_t nkeys)
{
    int esc = 0;
    const unsigned char *k = s->p + 1;
    if (s->p >= s->end || *s->p != '"' || !string(s, &esc) || esc)
        return 0;
    size_t kl = (size_t)(s->p - 1 - k);
    ws(s);
    if (s->p >= s->end || *s->p++ != ':')
        return 0;
    ws(s);
    const unsigned char *v = s->p;
    if (!value(s))
        return 0;
    for (size_t i = 0; i < nkeys; i++)
        if (strlen(keys[i]) == kl && !memcmp(keys[i], k, kl))
            vals[i] = (dt_span){(const char *)v, (size_t)(s->p - v)};
    return 1;
}

int dt_json_scan(const char *body, size_t len, const char *const *keys,
                 dt_span *vals, size_t nkeys)
{
    scan s = {(const unsigned char *)body, (const unsigned char *)body + len,
              1};
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = (dt_span){NULL, 0};
    ws(&s);
    if (s.p >= s.end || *s.p++ != '{')
        return 0;
    ws(&s);
    if (s.p < s.end && *s.p == '}')
        s.p++;
    else
        for (;;) {
            if (!member(&s, keys, vals, nkeys))
                return 0;
            ws(&s);
            if (s.p < s.end && *s.p == '}') {
                s.p++;
                break;
            }
            if (s.p >= s.end || *s.p++ != ',')
                return 0;
            ws(&s);
        }
    ws(&s);
    return s.p == s.end;
}

int dt_json_scan_array(const char *body, size_t len,
                       int (*each)(dt_span elem, void *ud), void *ud,
                       int *rc)
{
    scan s = {(const unsigned char *)body, (const unsigned char *)body + len,
              0};
    *rc = 0;
    ws(&s);
    if (s.p >= s.end || *s.p != '[' || !value(&s))
        return 0;
    ws(&s);
    if (s.p != s.end)
        return 0;
    /* checked whole: now each element, the same grammar walked again */
    s.p = (const unsigned char *)body;
    ws(&s);
    s.p++;
    ws(&s);
    while (*s.p != ']' && !*rc) {
        const unsigned char *v = s.p;
        value(&s);
        *rc = each((dt_span){(const char *)v, (size_t)(s.p - v)}, ud);
        ws(&s);
        if (*s.p == ',')
            s.p++;
        ws(&s);
    }
    return 1;
}
