/* Names: the validation of names and paths (bad input is refused before
 * it reaches an executor or the wire), and the naming policy of sessions. */
#include <string.h>
#include <sys/random.h>
#include <uuid/uuid.h>

#include "internal.h"

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

/* libuuid's uuid_generate_random reseeds its own generator on every
 * call (srandom and five system calls besides the getrandom); a
 * validation makes two: the 16 bytes come from getrandom alone, with
 * the version and variant bits set as libuuid sets them. */
void dval__uuid4(char out[37])
{
    uuid_t u;
    if (getrandom(u, sizeof u, GRND_NONBLOCK) == (ssize_t)sizeof u) {
        u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
        u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
    } else {
        uuid_generate_random(u);    /* no entropy yet, or no getrandom */
    }
    uuid_unparse_lower(u, out);
}

/* The naming policy of sessions (core.h): "<sandbox name>-<uuid4>",
 * with a mark in front for a service's. */
static void name(char *out, size_t cap, const char *mark,
                 const char *sandbox_name)
{
    char us[37];
    dval__uuid4(us);
    dval__fmt(out, cap, "%s%s-%s", mark, sandbox_name, us);
}

void dval__session_name(char *out, size_t cap, const char *sandbox_name)
{
    name(out, cap, "", sandbox_name);
}

void dval__service_session_name(char *out, size_t cap,
                                const char *sandbox_name)
{
    name(out, cap, DVAL__SERVICE_SESSION, sandbox_name);
}

void dval__session_prefix(char *out, size_t cap, const char *sandbox_name)
{
    dval__fmt(out, cap, "%s-", sandbox_name);
}
