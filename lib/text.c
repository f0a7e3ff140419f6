/* Bounded text: formatting that always terminates and truncates at a
 * UTF-8 boundary, the executors' error filler, shell quoting. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
