/* The growable byte buffer (dval__buf): always NUL-terminated, grows by
 * doubling. */
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

/* Makes room for len more bytes (and the NUL) in one allocation, for a
 * body whose size is announced: grown by doubling, a 64 KiB download went
 * through 32, 64 and 128 KiB blocks and the copies between them, a peak
 * heap of several times the body. A hint only: on failure appends
 * still grow the buffer as before. */
int dval__buf_reserve(dval__buf *b, size_t len)
{
    if (len > SIZE_MAX / 2 - b->len - 1)
        return DVAL_ENOMEM;
    if (b->len + len + 1 <= b->cap)
        return DVAL_OK;
    char *p = dval__realloc(b->data, b->len + len + 1);
    if (!p)
        return DVAL_ENOMEM;
    if (!b->data)
        p[0] = '\0';
    b->data = p;
    b->cap = b->len + len + 1;
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
