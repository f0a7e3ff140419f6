/* base64 (base64.h): encoding, and a strict decoding of what it made. */
#include <string.h>

#include "base64.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int dval__base64_append(dval__buf *out, const unsigned char *p, size_t n)
{
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = b64[v >> 18 & 63];
        q[1] = b64[v >> 12 & 63];
        q[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? b64[v & 63] : '=';
        if (dval__buf_append(out, q, 4))
            return DVAL_ENOMEM;
    }
    return DVAL_OK;
}

/* The value of base64 character c, -1 when it is none. */
static int value(char c)
{
    const char *at = c ? strchr(b64, c) : NULL;
    return at ? (int)(at - b64) : -1;
}

/* One group of four characters (the last may end in padding) into out;
 * how many bytes it made, -1 when it is not base64. */
static int group(const char *s, int last, unsigned char *out)
{
    int pad = last ? (s[3] == '=') + (s[2] == '=' && s[3] == '=') : 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = i >= 4 - pad ? 0 : value(s[i]);
        if (d < 0)
            return -1;
        v = v << 6 | (unsigned)d;
    }
    out[0] = (unsigned char)(v >> 16);
    out[1] = (unsigned char)(v >> 8);
    out[2] = (unsigned char)v;
    return 3 - pad;
}

int dval__base64_decode(const char *s, size_t n, unsigned char *out,
                        size_t *len)
{
    *len = 0;
    if (n % 4)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int k = group(s + i, i + 4 == n, out + *len);
        if (k < 0)
            return -1;
        *len += (size_t)k;
    }
    out[*len] = '\0';
    return 0;
}
