/* Validation of names, paths and UTF-8: refuse bad input before it reaches
 * an executor or the wire. */
#include <stdint.h>
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

static int has_ctl(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

int dval__check_name(const char *what, const char *name, int allow_slash,
                     char *msg, size_t cap)
{
    if (!name || !*name) {
        dval__fmt(msg, cap, "%s is empty", what);
        return DVAL_EINVAL;
    }
    size_t n = strlen(name);
    if (n >= DVAL_ID_MAX) {
        dval__fmt(msg, cap, "%s is %zu bytes long (at most %d)", what, n,
                  DVAL_ID_MAX - 1);
        return DVAL_EINVAL;
    }
    if (has_ctl(name) || !dval__utf8_valid(name, n)) {
        dval__fmt(msg, cap, "%s contains control characters or invalid UTF-8",
                  what);
        return DVAL_EINVAL;
    }
    if (strstr(name, "..") || (!allow_slash && strchr(name, '/')) ||
        strchr(name, '\\') || strchr(name, '?') || strchr(name, '#') ||
        strchr(name, '%') || strchr(name, ' ')) {
        dval__fmt(msg, cap, "%s \"%s\" contains '..', '/', '\\\\', '?', '#', "
                  "'%%' or a space", what, name);
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

int dval__check_remote_path(const char *path, char *msg, size_t cap)
{
    if (!path || !*path) {
        dval__fmt(msg, cap, "remote path is empty");
        return DVAL_EINVAL;
    }
    size_t n = strlen(path);
    if (n >= 4096) {
        dval__fmt(msg, cap, "remote path is %zu bytes long (at most 4095)", n);
        return DVAL_EINVAL;
    }
    if (has_ctl(path) || !dval__utf8_valid(path, n)) {
        dval__fmt(msg, cap, "remote path contains control characters or "
                  "invalid UTF-8");
        return DVAL_EINVAL;
    }
    for (const char *p = path; *p;) {
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 2 && p[0] == '.' && p[1] == '.') {
            dval__fmt(msg, cap, "remote path \"%s\" contains a '..' component",
                      path);
            return DVAL_EINVAL;
        }
        p += l;
        if (*p == '/')
            p++;
    }
    return DVAL_OK;
}

int dval__check_component(const char *what, const char *s, char *msg,
                          size_t cap)
{
    if (!s || !*s) {
        dval__fmt(msg, cap, "%s is empty", what);
        return DVAL_EINVAL;
    }
    size_t n = strlen(s);
    if (n > 128 || !strcmp(s, ".") || !strcmp(s, "..")) {
        dval__fmt(msg, cap, "%s must be 1-128 characters and not '.' or '..'",
                  what);
        return DVAL_EINVAL;
    }
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) {
            dval__fmt(msg, cap, "%s may only contain [A-Za-z0-9._-]", what);
            return DVAL_EINVAL;
        }
    }
    return DVAL_OK;
}
