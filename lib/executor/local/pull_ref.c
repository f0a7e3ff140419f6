/* Image names that are pulled from a registry. Two spellings:
 *   docker://NAME[:TAG][@sha256:HEX]   always a registry image; NAME as
 *       Docker reads it: without a registry host it is on Docker Hub
 *       (docker.io), and a one-word name is in its "library/";
 *   HOST/NAME[:TAG][@sha256:HEX]       a name whose first component is a
 *       registry host: it has a '.' or a ':' (a port), or is "localhost"
 *       (mcr.microsoft.com/dotnet/sdk:10.0, 127.0.0.1:5000/test/img:v1).
 * A name with neither (debian:12, bellsoft/liberica-openjdk-debian:...)
 * is not pulled: those are the built-in images' names (image.c), and
 * the two spellings can never be read as one of them. No tag and no
 * digest means :latest; a digest pins the image whatever the tag.
 *
 * A registry's API is asked at its own host (Docker Hub's at
 * registry-1.docker.io) unless DVAL_LOCAL_PULL_MIRROR names a mirror for
 * it: "HOST=MIRROR[,HOST=MIRROR...]" (MIRROR is host[:port]), as Docker's
 * registry-mirrors, e.g. a pull-through cache of mcr.microsoft.com. The
 * image keeps its own name (canon: its pin, its messages). */
#include "pull.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOCKER_PREFIX "docker://"

/* The first component of name is a registry host (Docker's rule). */
static int names_host(const char *name)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        return 0;
    size_t n = (size_t)(slash - name);
    return memchr(name, '.', n) || memchr(name, ':', n) ||
           (n == 9 && !strncmp(name, "localhost", 9));
}

int lx_ref_is_pull(const char *image)
{
    return image && (!strncmp(image, DOCKER_PREFIX, strlen(DOCKER_PREFIX)) ||
                     names_host(image));
}

int lx_digest_valid(const char *d)
{
    return d && !strncmp(d, "sha256:", 7) && strlen(d + 7) == 64 &&
           strspn(d + 7, "0123456789abcdef") == 64;
}

/* 1 for "" or ":" and digits: nothing after a host but its port */
static int port_only(const char *p)
{
    return !*p || (p[0] == ':' && p[1 + strspn(p + 1, "0123456789")] == 0);
}

int lx_ref_loopback(const char *host)
{
    char h[256];
    if (host[0] == '[')
        return !strncmp(host, "[::1]", 5) && port_only(host + 5);
    if (strlen(host) >= sizeof h) /* judged whole, never by a prefix */
        return 0;
    dval__fmt(h, sizeof h, "%s", host);
    size_t n = strcspn(h, ":");
    if (!port_only(h + n))
        return 0;
    h[n] = 0;
    if (!strcmp(h, "localhost"))
        return 1;
    int a, b, c, d;
    char end;
    return sscanf(h, "%d.%d.%d.%d%c", &a, &b, &c, &d, &end) == 4 &&
           a == 127 && b >= 0 && b < 256 && c >= 0 && c < 256 && d >= 0 &&
           d < 256;
}

int lx_url_safe_for_secrets(const char *url)
{
    char host[256];
    if (!strncmp(url, "https://", 8))
        return 1;
    if (strncmp(url, "http://", 7) != 0)
        return 0;
    size_t n = strcspn(url + 7, "/?#");
    if (n >= sizeof host)
        return 0;
    memcpy(host, url + 7, n);
    host[n] = 0;
    return lx_ref_loopback(host);
}

/* host[:port] of letters, digits, '.', '-', or [v6]:port. */
static int host_ok(const char *h)
{
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1
                           : strspn(h, "abcdefghijklmnopqrstuvwxyz"
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
    if (n == 0 || (h[0] == '[' && h[n - 1] != ']'))
        return 0;
    if (h[n] == ':')
        return h[n + 1] && strspn(h + n + 1, "0123456789") == strlen(h + n + 1);
    return h[n] == 0;
}

/* Path components: [a-z0-9]+ joined by '.', '_', '-' (runs of those
 * allowed as the distribution spec's separators are). */
static int repo_ok(const char *r)
{
    for (const char *c = r; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || !isalnum((unsigned char)c[0]) ||
            !isalnum((unsigned char)c[n - 1]))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!(islower((unsigned char)c[i]) || isdigit((unsigned char)c[i])
                  || strchr("._-", c[i])))
                return 0;
        c += n + (c[n] == '/');
        if (c[-1] == '/' && !*c)
            return 0;
    }
    return *r != 0;
}

static int tag_ok(const char *t)
{
    size_t n = strlen(t);
    return n >= 1 && n <= 128 && (isalnum((unsigned char)t[0]) || t[0] == '_')
           && strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_.-") == n;
}

/* name (no digest) → host, repo, tag. */
static void split_name(const char *name, lx_ref *r)
{
    const char *rest = name;
    if (names_host(name)) {
        size_t n = strcspn(name, "/");
        dval__fmt(r->host, sizeof r->host, "%.*s", (int)n, name);
        rest = name + n + 1;
    } else {
        dval__fmt(r->host, sizeof r->host, "docker.io");
    }
    if (!strcmp(r->host, "index.docker.io"))
        dval__fmt(r->host, sizeof r->host, "docker.io");
    const char *slash = strrchr(rest, '/');
    const char *colon = strchr(slash ? slash : rest, ':');
    int len = colon ? (int)(colon - rest) : (int)strlen(rest);
    int library = !strcmp(r->host, "docker.io") && !memchr(rest, '/', len);
    dval__fmt(r->repo, sizeof r->repo, "%s%.*s", library ? "library/" : "",
              len, rest);
    dval__fmt(r->tag, sizeof r->tag, "%s", colon ? colon + 1 : "");
}

/* The mirror DVAL_LOCAL_PULL_MIRROR names for host into api (unchanged
 * when none); -1 when the list is malformed. */
static int mirror(const char *host, char *api, size_t cap)
{
    const char *v = getenv("DVAL_LOCAL_PULL_MIRROR");
    char e[600];
    for (const char *s = v; s && *s;) {
        size_t n = strcspn(s, ", ");
        dval__fmt(e, sizeof e, "%.*s", (int)(n < sizeof e ? n : 0), s);
        s += n + (s[n] != 0);
        char *eq = strchr(e, '=');
        if (!n)
            continue;
        if (!eq || eq == e || !host_ok(eq + 1))
            return -1;
        *eq = 0;
        if (!strcmp(e, host))
            dval__fmt(api, cap, "%s", eq + 1);
    }
    return 0;
}

int lx_ref_parse(dval_call *c, const char *image, lx_ref *r)
{
    char name[1024];
    memset(r, 0, sizeof *r);
    const char *s = image;
    if (!strncmp(s, DOCKER_PREFIX, strlen(DOCKER_PREFIX)))
        s += strlen(DOCKER_PREFIX);
    dval__fmt(name, sizeof name, "%s", s);
    char *at = strchr(name, '@');
    if (at) {
        dval__fmt(r->digest, sizeof r->digest, "%s", at + 1);
        *at = 0;
    }
    split_name(name, r);
    if (!r->tag[0] && !r->digest[0])
        dval__fmt(r->tag, sizeof r->tag, "latest");
    if (strlen(s) >= sizeof name || !host_ok(r->host) || !repo_ok(r->repo) ||
        (r->tag[0] && !tag_ok(r->tag)) || (at && !lx_digest_valid(r->digest)))
        return dval__call_fail(c, DVAL_EINVAL, "local executor: image %s: "
                               "not a registry reference (HOST/NAME[:TAG]"
                               "[@sha256:HEX], or docker://NAME[:TAG]; "
                               "names are lowercase)", image);
    dval__fmt(r->api, sizeof r->api, "%s", !strcmp(r->host, "docker.io")
              ? "registry-1.docker.io" : r->host);
    if (mirror(r->host, r->api, sizeof r->api) < 0)
        return dval__call_fail(c, DVAL_EINVAL, "local executor: "
                               "DVAL_LOCAL_PULL_MIRROR is not a list of "
                               "HOST=MIRROR[:PORT] (comma-separated)");
    dval__fmt(r->canon, sizeof r->canon, "%s/%s%s%s%s%s", r->host, r->repo,
              r->tag[0] ? ":" : "", r->tag, r->digest[0] ? "@" : "",
              r->digest);
    return DVAL_OK;
}
