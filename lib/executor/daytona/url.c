/* URL building: names and paths are percent-encoded so that snapshot
 * names with '/' or ':' and arbitrary file paths stay one component. */
#include <stdarg.h>
#include <string.h>

#include "dt.h"

int dt_url_escape(dval__buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    int rc = dval__buf_append(b, "", 0);
    for (const unsigned char *p = (const unsigned char *)s; !rc && *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
            (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
            rc = dval__buf_append(b, p, 1);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            rc = dval__buf_append(b, e, 3);
        }
    }
    return rc;
}

int dt_url(dval__buf *b, const char *base, const char *fmt, ...)
{
    /* only %s (escaped) and %S (verbatim) are understood */
    va_list ap;
    va_start(ap, fmt);
    int rc = dval__buf_append(b, base, strlen(base));
    for (const char *f = fmt; !rc && *f; f++) {
        if (f[0] == '%' && (f[1] == 's' || f[1] == 'S')) {
            const char *arg = va_arg(ap, const char *);
            rc = f[1] == 's' ? dt_url_escape(b, arg ? arg : "")
                             : dval__buf_append(b, arg, strlen(arg));
            f++;
        } else {
            rc = dval__buf_append(b, f, 1);
        }
    }
    va_end(ap);
    return rc;
}
