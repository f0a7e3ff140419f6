/* Results checking: is this UTF-8 JSON? A validating scanner that builds
 * nothing (the results are handed back as text, so a jansson tree was
 * built only to be freed, and that was most of a validation loop's client
 * CPU).
 * RFC 8259 grammar, any value at the top level, escapes checked (also
 * surrogate pairs), nesting limited to 1024 levels.
 *
 * The position travels as a local pointer, passed and returned (NULL: the
 * input is bad, why and where in the scan): kept in a struct it would be
 * reloaded from memory after every byte read, as a char read may alias it
 * (which made this check a large part of a validation loop's client
 * CPU). */
#include <string.h>

#include "results_json.h"

#define MAX_DEPTH 1024

typedef const unsigned char *pos;

typedef struct scan {
    pos end;
    pos at;          /* where the first error was seen */
    const char *why;
    size_t values;   /* values seen so far (a tree built from them costs
                        tens of bytes each) */
} scan;

/* Bytes that end a run of plain string bytes: '"', '\\' and the control
 * characters (which a string may not hold). */
static const unsigned char string_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
};

static pos bad(scan *s, pos p, const char *why)
{
    if (!s->why) {
        s->why = why;
        s->at = p;
    }
    return NULL;
}

static inline pos ws(pos p, pos end)
{
    /* one test for the usual case, a token right here (compact JSON) */
    while (p < end && *p <= ' ' &&
           (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static pos hex4(scan *s, pos p, unsigned *out)
{
    if (s->end - p < 4)
        return bad(s, p, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return bad(s, p, "invalid \\u escape");
    }
    *out = v;
    return p + 4;
}

/* After "\u": one escape, or a surrogate pair of two. */
static pos unicode_escape(scan *s, pos p)
{
    unsigned u, lo;
    if (!(p = hex4(s, p, &u)))
        return NULL;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return bad(s, p, "lone low surrogate escape");
    if (u < 0xD800 || u > 0xDBFF)
        return p;
    if (s->end - p < 2 || p[0] != '\\' || p[1] != 'u')
        return bad(s, p, "lone high surrogate escape");
    if (!(p = hex4(s, p + 2, &lo)))
        return NULL;
    if (lo < 0xDC00 || lo > 0xDFFF)
        return bad(s, p, "invalid surrogate pair");
    return p;
}

/* p at the opening quote; returns the position after the closing one. */
static pos string(scan *s, pos p)
{
    pos end = s->end;
    p++;
    for (;;) {
        while (p < end && !string_stop[*p])
            p++;
        if (p >= end)
            return bad(s, p, "unterminated string");
        unsigned char c = *p++;
        if (c == '"')
            return p;
        if (c < 0x20)
            return bad(s, p, "control character in a string");
        if (p >= end)
            return bad(s, p, "unterminated string");
        switch (*p++) { /* after a backslash */
        case '"': case '\\': case '/': case 'b': case 'f': case 'n':
        case 'r': case 't':
            break;
        case 'u':
            if (!(p = unicode_escape(s, p)))
                return NULL;
            break;
        default:
            return bad(s, p, "invalid escape in a string");
        }
    }
}

static pos digits(scan *s, pos p)
{
    pos start = p;
    while (p < s->end && *p >= '0' && *p <= '9')
        p++;
    return p > start ? p : bad(s, p, "invalid number");
}

static pos number(scan *s, pos p)
{
    if (*p == '-')
        p++;
    if (p < s->end && *p == '0')
        p++;
    else if (!(p = digits(s, p)))
        return NULL;
    if (p < s->end && *p == '.' && !(p = digits(s, p + 1)))
        return NULL;
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < s->end && (*p == '+' || *p == '-'))
            p++;
        p = digits(s, p);
    }
    return p;
}

static pos word(scan *s, pos p, const char *w, size_t n)
{
    if ((size_t)(s->end - p) < n || memcmp(p, w, n))
        return bad(s, p, "invalid literal");
    return p + n;
}

static pos value(scan *s, pos p, int depth);

/* An object member's key and its ':'; p at the key's quote. */
static pos member_key(scan *s, pos p)
{
    if (p >= s->end || *p != '"')
        return bad(s, p, "expected a string key");
    if (!(p = string(s, p)))
        return NULL;
    p = ws(p, s->end);
    if (p >= s->end || *p != ':')
        return bad(s, p, "expected ':'");
    return p + 1;
}

/* object or array: close is '}' or ']' */
static pos container(scan *s, pos p, int depth, unsigned char close)
{
    if (depth >= MAX_DEPTH)
        return bad(s, p, "nested too deeply");
    p = ws(p + 1, s->end);
    if (p < s->end && *p == close)
        return p + 1;
    for (;;) {
        p = ws(p, s->end);
        if (close == '}' && !(p = member_key(s, p)))
            return NULL;
        if (!(p = value(s, p, depth + 1)))
            return NULL;
        p = ws(p, s->end);
        if (p >= s->end)
            return bad(s, p, "unterminated object or array");
        unsigned char c = *p++;
        if (c == close)
            return p;
        if (c != ',')
            return bad(s, p, "expected ',' or a closing bracket");
    }
}

static pos value(scan *s, pos p, int depth)
{
    s->values++;
    p = ws(p, s->end);
    if (p >= s->end)
        return bad(s, p, "unexpected end of input");
    switch (*p) {
    case '{': return container(s, p, depth, '}');
    case '[': return container(s, p, depth, ']');
    case '"': return string(s, p);
    case 't': return word(s, p, "true", 4);
    case 'f': return word(s, p, "false", 5);
    case 'n': return word(s, p, "null", 4);
    default:
        if (*p == '-' || (*p >= '0' && *p <= '9'))
            return number(s, p);
        return bad(s, p, "unexpected character");
    }
}

int dval__json_check(const char *data, size_t len, char *msg, size_t cap)
{
    return dval__json_check_values(data, len, msg, cap, NULL);
}

int dval__json_check_values(const char *data, size_t len, char *msg,
                            size_t cap, size_t *values)
{
    if (!dval__utf8_valid(data, len)) {
        dval__fmt(msg, cap, "not valid UTF-8");
        return DVAL_ERESULTS;
    }
    pos start = (pos)data;
    scan s = { start + len, NULL, NULL, 0 };
    pos p = value(&s, start, 0);
    if (values)
        *values = s.values;
    if (p) {
        p = ws(p, s.end);
        if (p == s.end)
            return DVAL_OK;
        bad(&s, p, "trailing data after the JSON value");
    }
    dval__fmt(msg, cap, "not JSON: %s at byte %zu", s.why,
              (size_t)(s.at - start));
    return DVAL_ERESULTS;
}
