/* See jsonutil.h. */
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"

/* Length of the valid UTF-8 sequence at p (1..4), 0 when there is none. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    size_t k = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2
             : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!k || k > n || !dval__utf8_valid((const char *)p, k))
        return 0;
    return k;
}

/* data's bytes with every invalid UTF-8 sequence replaced by U+FFFD,
 * appended to b */
int dval__utf8_repair(dval__buf *b, const char *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(p + i, len - i);
        int rc = dval__buf_append(b, k ? (const char *)p + i
                                       : "\xef\xbf\xbd", k ? k : 3);
        if (rc)
            return rc;
        i += k ? k : 1;
    }
    return DVAL_OK;
}

json_t *dval__json_text(const char *data, size_t len)
{
    if (!data)
        return json_string("");
    if (dval__utf8_valid(data, len))
        return json_stringn(data, len);
    dval__buf b = { 0 };
    if (dval__utf8_repair(&b, data, len)) {
        dval__buf_free(&b);
        return json_string("");
    }
    json_t *s = json_stringn(b.data ? b.data : "", b.len);
    dval__buf_free(&b);
    return s;
}

char *dval__json_dump(const json_t *v)
{
    return dval__json_text_of(v, JSON_COMPACT | JSON_REAL_PRECISION(15));
}
