/* URL building: names and paths are percent-encoded so that snapshot
 * names with '/' or ':' and arbitrary file paths stay one component. */
#include <stdarg.h>
#include <string.h>

#include "dt.h"

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           c == '~';
}

/* Runs of unreserved characters and of the format's literal text are
 * appended at once: a URL is built for every request. */
int dt_url_escape(dval__buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef"; /* as curl sends them */
    const unsigned char *p = (const unsigned char *)s;
    int rc = dval__buf_append(b, "", 0);
    while (!rc && *p) {
        const unsigned char *q = p;
        while (*q && unreserved(*q))
            q++;
        if (q > p) {
            rc = dval__buf_append(b, p, (size_t)(q - p));
            p = q;
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            rc = dval__buf_append(b, e, 3);
            p++;
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
    for (const char *f = fmt; !rc && *f;) {
        if (f[0] == '%' && (f[1] == 's' || f[1] == 'S')) {
            const char *arg = va_arg(ap, const char *);
            rc = f[1] == 's' ? dt_url_escape(b, arg ? arg : "")
                             : dval__buf_append(b, arg, strlen(arg));
            f += 2;
        } else {
            size_t n = strcspn(f + 1, "%") + 1;
            rc = dval__buf_append(b, f, n);
            f += n;
        }
    }
    va_end(ap);
    return rc;
}
