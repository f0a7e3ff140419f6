/* Bounded text: UTF-8 checks, formatting that always terminates and
 * truncates at a UTF-8 boundary, the executors' error filler, shell
 * quoting. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Length of the UTF-8 sequence starting at p (n bytes available): >0 when
 * complete and valid, 0 when valid so far but truncated, -1 when invalid. */
static int utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    int len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; min = 0x10000; }
    else return -1;
    unsigned cp = c & (0x3F >> (len - 1));
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return 0;
        if ((p[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (p[i] & 0x3F);
        /* reject overlongs/surrogates/out of range as early as byte 2 */
        if (i == 1) {
            if (len == 3 && c == 0xE0 && p[1] < 0xA0) return -1;
            if (len == 3 && c == 0xED && p[1] > 0x9F) return -1;
            if (len == 4 && c == 0xF0 && p[1] < 0x90) return -1;
            if (len == 4 && c == 0xF4 && p[1] > 0x8F) return -1;
        }
    }
    if (cp < min)
        return -1;
    return len;
}

int dval__utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII runs (most of any output or JSON) 8 bytes at a time */
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i == n)
            break;
        int l = utf8_seq(p + i, n - i);
        if (l <= 0)
            return 0;
        i += (size_t)l;
    }
    return 1;
}

size_t dval__utf8_complete_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    /* Only the last 3 bytes can start an incomplete sequence. */
    size_t start = n > 3 ? n - 3 : 0;
    for (size_t i = start; i < n; i++) {
        if ((p[i] & 0xC0) == 0x80)
            continue;
        if (utf8_seq(p + i, n - i) == 0)
            return i;
    }
    return n;
}

void dval__vfmt(char *dst, size_t cap, const char *fmt, va_list ap)
{
    if (!dst || !cap)
        return;
    int n = vsnprintf(dst, cap, fmt, ap);
    if (n < 0)
        dst[0] = '\0';
    else if ((size_t)n >= cap) /* never leave half a UTF-8 sequence */
        dst[dval__utf8_complete_prefix(dst, cap - 1)] = '\0';
}

void dval__fmt(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(dst, cap, fmt, ap);
    va_end(ap);
}

/* dval__fmt(dst, cap, "%s", s) without printf's machinery (~600
 * instructions a call; a validation copies ~16 names and paths) */
void dval__strlcpy(char *dst, const char *s, size_t cap)
{
    if (!dst || !cap)
        return;
    size_t n = strnlen(s ? s : "", cap);
    if (n < cap) {
        memcpy(dst, s ? s : "", n + 1);
        return;
    }
    memcpy(dst, s, cap - 1);
    dst[dval__utf8_complete_prefix(dst, cap - 1)] = '\0';
}

int dval__call_fail(dval_call *c, int status, const char *fmt, ...)
{
    if (c) {
        va_list ap;
        va_start(ap, fmt);
        dval__vfmt(c->errmsg, sizeof c->errmsg, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* appended a run at a time: a byte at a time, quoting a command text
 * cost an append call per byte */
int dval__shell_quote(dval__buf *out, const char *s)
{
    int rc = dval__buf_append(out, "'", 1);
    while (rc == DVAL_OK && *s) {
        const char *q = strchrnul(s, '\'');
        rc = dval__buf_append(out, s, (size_t)(q - s));
        if (rc == DVAL_OK && *q == '\'') {
            rc = dval__buf_append(out, "'\\''", 4);
            q++;
        }
        s = q;
    }
    return rc ? rc : dval__buf_append(out, "'", 1);
}
