/* Small shared helpers: buffers, bounded formatting, error filling,
 * logging, option-struct copying, shell quoting. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int dval__buf_append(dval__buf *b, const void *data, size_t len)
{
    if (len > SIZE_MAX / 2 - b->len - 1)
        return DVAL_ENOMEM;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *p = dval__realloc(b->data, cap);
        if (!p)
            return DVAL_ENOMEM;
        b->data = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return DVAL_OK;
}

int dval__buf_appendf(dval__buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return DVAL_EINVAL;
    if ((size_t)n < sizeof small)
        return dval__buf_append(b, small, (size_t)n);
    char *big = dval__malloc((size_t)n + 1);
    if (!big)
        return DVAL_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = dval__buf_append(b, big, (size_t)n);
    dval__free(big);
    return rc;
}

void dval__buf_free(dval__buf *b)
{
    dval__free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
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

void dval__strlcpy(char *dst, const char *s, size_t cap)
{
    dval__fmt(dst, cap, "%s", s ? s : "");
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

void dval__log(dval_log_fn fn, void *ud, int max_level, int level,
               const char *fmt, ...)
{
    if (!fn || level > (max_level ? max_level : DVAL_LOG_INFO))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn(level, msg, ud);
}

int dval__opts_copy(void *dst, size_t known, const void *src, size_t min)
{
    if (!dst || !src)
        return DVAL_EINVAL;
    size_t size = *(const size_t *)src;
    if (size < min || size < sizeof(size_t))
        return DVAL_EABI;
    if (size > known) {
        const unsigned char *tail = (const unsigned char *)src + known;
        for (size_t i = 0; i < size - known; i++)
            if (tail[i])
                return DVAL_EABI;
    }
    memset(dst, 0, known);
    memcpy(dst, src, size < known ? size : known);
    *(size_t *)dst = known;
    return DVAL_OK;
}

int dval__shell_quote(dval__buf *out, const char *s)
{
    int rc = dval__buf_append(out, "'", 1);
    for (const char *p = s; rc == DVAL_OK && *p; p++) {
        if (*p == '\'')
            rc = dval__buf_append(out, "'\\''", 4);
        else
            rc = dval__buf_append(out, p, 1);
    }
    return rc ? rc : dval__buf_append(out, "'", 1);
}
