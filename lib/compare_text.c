/* Text equality, line by line: EXACT compares every byte (a line is shown
 * with its end, so "a\r\n" against "a\n" or a missing last newline shows
 * where), TEXT leaves out whitespace at the end of each line and blank
 * lines at the end (what a judge's "ignore trailing whitespace" means).
 * The difference of line N has the path "line N". */
#include <string.h>

#include "compare.h"
#include "jsonutil.h"

static int space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
           ch == '\f' || ch == '\n';
}

/* The next line of [*p, end): its bytes in *s, *n; the end of line
 * included when exact. 0 when there is none. */
static int next_line(const char **p, const char *end, int exact,
                     const char **s, size_t *n)
{
    if (*p >= end)
        return 0;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *stop = nl ? nl + 1 : end;
    *s = *p;
    *n = (size_t)((exact ? stop : nl ? nl : end) - *p);
    while (!exact && *n && space((*s)[*n - 1]))
        (*n)--;
    *p = stop;
    return 1;
}

static void line_diff(dval__cmp *c, size_t no, const char *e, size_t en,
                      const char *a, size_t an)
{
    char path[48];
    dval__fmt(path, sizeof path, "line %zu", no);
    json_t *x = e ? dval__json_text(e, en) : NULL;
    json_t *y = a ? dval__json_text(a, an) : NULL;
    if ((e && !x) || (a && !y))
        c->oom = 1;
    dval__cmp_add_at(c, path, !a ? "missing" : !e ? "unexpected"
                     : "changed", x, y);
    json_decref(x);
    json_decref(y);
}

int dval__cmp_text(dval__cmp *c, const char *expected, size_t elen,
                   const char *actual, size_t alen)
{
    int exact = c->mode == DVAL_COMPARE_EXACT;
    expected = expected ? expected : "";
    actual = actual ? actual : "";
    if (exact && elen == alen && !memcmp(expected, actual, elen))
        return DVAL_OK;
    /* blank lines and spaces at the end are no difference in TEXT */
    while (!exact && elen && space(expected[elen - 1]))
        elen--;
    while (!exact && alen && space(actual[alen - 1]))
        alen--;
    const char *pe = expected, *pa = actual;
    const char *ee = expected + elen, *ea = actual + alen;
    for (size_t no = 1; !c->oom; no++) {
        const char *se = NULL, *sa = NULL;
        size_t ne = 0, na = 0;
        int he = next_line(&pe, ee, exact, &se, &ne);
        int ha = next_line(&pa, ea, exact, &sa, &na);
        if (!he && !ha)
            break;
        if (he && ha && ne == na && !memcmp(se, sa, ne))
            continue;
        line_diff(c, no, he ? se : NULL, ne, ha ? sa : NULL, na);
    }
    return c->oom ? DVAL_ENOMEM : DVAL_OK;
}
