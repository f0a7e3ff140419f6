/* Results checking: is this UTF-8 JSON? A validating scanner that builds
 * nothing (the results are handed back as text, so a jansson tree was
 * built only to be freed: over half the client CPU of a validation loop).
 * RFC 8259 grammar, any value at the top level, escapes checked (also
 * surrogate pairs), nesting limited to 1024 levels. */
#include <string.h>

#include "results_json.h"

#define MAX_DEPTH 1024

typedef struct scan {
    const unsigned char *p, *end;
    const char *why;
} scan;

static void ws(scan *s)
{
    while (s->p < s->end &&
           (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int bad(scan *s, const char *why)
{
    if (!s->why)
        s->why = why;
    return -1;
}

static int hex4(scan *s, unsigned *out)
{
    if (s->end - s->p < 4)
        return bad(s, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = s->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return bad(s, "invalid \\u escape");
    }
    s->p += 4;
    *out = v;
    return 0;
}

static int string(scan *s)
{
    s->p++; /* opening quote */
    while (s->p < s->end) {
        unsigned char c = *s->p++;
        if (c == '"')
            return 0;
        if (c < 0x20)
            return bad(s, "control character in a string");
        if (c != '\\')
            continue;
        if (s->p >= s->end)
            break;
        c = *s->p++;
        if (strchr("\"\\/bfnrt", c) && c)
            continue;
        if (c != 'u')
            return bad(s, "invalid escape in a string");
        unsigned u;
        if (hex4(s, &u))
            return -1;
        if (u >= 0xDC00 && u <= 0xDFFF)
            return bad(s, "lone low surrogate escape");
        if (u >= 0xD800 && u <= 0xDBFF) {
            unsigned lo;
            if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
                return bad(s, "lone high surrogate escape");
            s->p += 2;
            if (hex4(s, &lo))
                return -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return bad(s, "invalid surrogate pair");
        }
    }
    return bad(s, "unterminated string");
}

static int digits(scan *s)
{
    const unsigned char *start = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
        s->p++;
    return s->p > start ? 0 : bad(s, "invalid number");
}

static int number(scan *s)
{
    if (*s->p == '-')
        s->p++;
    if (s->p < s->end && *s->p == '0')
        s->p++;
    else if (digits(s))
        return -1;
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (digits(s))
            return -1;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (digits(s))
            return -1;
    }
    return 0;
}

static int word(scan *s, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
        return bad(s, "invalid literal");
    s->p += n;
    return 0;
}

static int value(scan *s, int depth);

/* object or array: close is '}' or ']' */
static int container(scan *s, int depth, unsigned char close)
{
    if (depth >= MAX_DEPTH)
        return bad(s, "nested too deeply");
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return 0;
    }
    for (;;) {
        ws(s);
        if (close == '}') {
            if (s->p >= s->end || *s->p != '"')
                return bad(s, "expected a string key");
            if (string(s))
                return -1;
            ws(s);
            if (s->p >= s->end || *s->p++ != ':')
                return bad(s, "expected ':'");
        }
        if (value(s, depth + 1))
            return -1;
        ws(s);
        if (s->p >= s->end)
            return bad(s, "unterminated object or array");
        unsigned char c = *s->p++;
        if (c == close)
            return 0;
        if (c != ',')
            return bad(s, "expected ',' or a closing bracket");
    }
}

static int value(scan *s, int depth)
{
    ws(s);
    if (s->p >= s->end)
        return bad(s, "unexpected end of input");
    switch (*s->p) {
    case '{': return container(s, depth, '}');
    case '[': return container(s, depth, ']');
    case '"': return string(s);
    case 't': return word(s, "true");
    case 'f': return word(s, "false");
    case 'n': return word(s, "null");
    default:
        if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
            return number(s);
        return bad(s, "unexpected character");
    }
}

int dval__json_check(const char *data, size_t len, char *msg, size_t cap)
{
    if (!dval__utf8_valid(data, len)) {
        dval__fmt(msg, cap, "not valid UTF-8");
        return DVAL_ERESULTS;
    }
    scan s = { (const unsigned char *)data, (const unsigned char *)data + len,
               NULL };
    if (value(&s, 0) == 0) {
        ws(&s);
        if (s.p == s.end)
            return DVAL_OK;
        bad(&s, "trailing data after the JSON value");
    }
    dval__fmt(msg, cap, "not JSON: %s at byte %zu", s.why,
              (size_t)(s.p - (const unsigned char *)data));
    return DVAL_ERESULTS;
}
