/* A request's URL, given to curl both as a URL handle the easy handle
 * keeps (CURLOPT_CURLU) and as the same string (CURLOPT_URL, the
 * effective URL). Given the string alone, curl parses it and prints it
 * back whole, byte by byte, for every request: about a fifth of the
 * client's instructions per validation. Given both, it copies the parts.
 * A request to the origin of the handle's last URL sets only the path and
 * the query; a URL curl would normalise or refuse (dot segments, spaces,
 * control or non-ASCII bytes, a fragment, a backslash) is parsed whole,
 * with the flags curl itself uses on an empty handle, so it fares as it
 * always did. */
#include <ctype.h>
#include <string.h>

#include "http_int.h"

/* The length of url's "scheme://authority", 0 when it has none (an
 * empty authority too: curl then takes the host from what follows). */
static size_t origin_len(const char *url)
{
    const char *p = url;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.')
        p++;
    if (p == url || strncmp(p, "://", 3) != 0)
        return 0;
    p += 3;
    size_t authority = strcspn(p, "/?#");
    return authority ? (size_t)(p + authority - url) : 0;
}

#define DT_URL_PATH_MAX 1024

/* The bytes curl's parse keeps as they are: printable ASCII but '#' (a
 * fragment) and '\\'. A URL with another byte is parsed whole. */
static const char kept[] =
    "!\"$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
    "abcdefghijklmnopqrstuvwxyz{|}~";

/* 1 when curl keeps the origin url[0..on) as it is: bytes of kept only,
 * each '%' starting an escape (curl encodes a lone one, and encodes it
 * again whenever another part is set) */
static int plain_origin(const char *url, size_t on)
{
    for (size_t i = 0; i < on; i++)
        if (!url[i] || !strchr(kept, url[i]) ||
            (url[i] == '%' && !(isxdigit((unsigned char)url[i + 1]) &&
                                isxdigit((unsigned char)url[i + 2]))))
            return 0;
    return 1;
}

/* The length of rest's path when rest ("/path" or "/path?query") is what
 * curl's parse keeps as it is: those bytes only, no dot segment, a path
 * under DT_URL_PATH_MAX; else 0. */
static size_t plain_path(const char *rest)
{
    size_t n = strcspn(rest, "?");
    if (rest[0] != '/' || n >= DT_URL_PATH_MAX || rest[strspn(rest, kept)])
        return 0;
    /* a dot segment: "/." or "/.." at the path's end or before a '/' */
    for (const char *p = rest; p;
         p = memchr(p + 1, '/', (size_t)(rest + n - p - 1))) {
        size_t dots = p[1] != '.' ? 0 : p[2] != '.' ? 1 : 2;
        char next = p[1 + dots];
        if (dots && (next == '/' || next == '?' || next == '\0'))
            return 0;
    }
    return n;
}

/* n: the path's length (plain_path) */
static CURLUcode set_path_query(CURLU *u, const char *rest, size_t n)
{
    char path[DT_URL_PATH_MAX];
    memcpy(path, rest, n);
    path[n] = '\0';
    CURLUcode uc = curl_url_set(u, CURLUPART_PATH, path, 0);
    if (!uc)
        uc = curl_url_set(u, CURLUPART_QUERY, rest[n] ? rest + n + 1 : NULL,
                          0);
    return uc;
}

CURLcode dt_url_apply(CURL *e, dt_urlh *h, const char *url, char *ebuf)
{
    size_t on = origin_len(url);
    const char *rest = url + on;
    int same = on && on < sizeof h->origin && h->origin[on] == '\0' &&
               memcmp(h->origin, url, on) == 0;
    size_t n = on ? plain_path(rest) : 0;
    CURLUcode uc;
    if (!h->u && !(h->u = curl_url()))
        return CURLE_OUT_OF_MEMORY;
    if (same && n) {
        uc = set_path_query(h->u, rest, n);
    } else {
        h->origin[0] = '\0';
        /* emptied first: curl would read a URL without a scheme as a
         * reference relative to the one the handle holds */
        curl_url_set(h->u, CURLUPART_URL, NULL, 0);
        uc = curl_url_set(h->u, CURLUPART_URL, url,
                          CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME);
        if (!uc && n && on < sizeof h->origin && plain_origin(url, on)) {
            memcpy(h->origin, url, on);
            h->origin[on] = '\0';
        }
    }
    if (uc) {
        h->origin[0] = '\0';
        dval__fmt(ebuf, CURL_ERROR_SIZE, "URL rejected: %s",
                  curl_url_strerror(uc));
        return uc == CURLUE_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY
                                          : CURLE_URL_MALFORMAT;
    }
    CURLcode r = curl_easy_setopt(e, CURLOPT_CURLU, h->u);
    return r ? r : curl_easy_setopt(e, CURLOPT_URL, url);
}

void dt_urlh_free(dt_urlh *h)
{
    curl_url_cleanup(h->u);
    h->u = NULL;
    h->origin[0] = '\0';
}
