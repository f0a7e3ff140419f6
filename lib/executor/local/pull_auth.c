/* Registry credentials and tokens. The user's credentials come from a
 * Docker config file's "auths" (the base64 "user:password" in "auth"):
 * $DVAL_LOCAL_PULL_AUTH_FILE, else $DOCKER_CONFIG/config.json, else
 * ~/.docker/config.json. A 401 is answered as its WWW-Authenticate
 * challenge says: Basic with those credentials, or Bearer: a token from
 * the challenge's realm (anonymous, as Docker Hub gives for public
 * images, or with the credentials). Credentials and tokens live only in
 * the pull (lx_pull.cred, .auth_header) and in the request headers: no
 * log line or message carries them, and they go over plain HTTP only to
 * a loopback host. */
#include "pull.h"

#include <jansson.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define TOKEN_MAX (1 << 20)

static void config_path(char *dst, size_t cap)
{
    const char *f = getenv("DVAL_LOCAL_PULL_AUTH_FILE");
    const char *d = getenv("DOCKER_CONFIG");
    const char *home = getenv("HOME");
    struct passwd *pw = NULL;
    if (!home || home[0] != '/')
        home = (pw = getpwuid(geteuid())) ? pw->pw_dir : "/nonexistent";
    if (f && *f)
        dval__fmt(dst, cap, "%s", f);
    else if (d && *d)
        dval__fmt(dst, cap, "%s/config.json", d);
    else
        dval__fmt(dst, cap, "%s/.docker/config.json", home);
}

/* An "auths" key names the registry: "h:5000", "https://h/v1/", ... */
static int key_names(const char *key, const lx_ref *r)
{
    char k[512];
    const char *s = strstr(key, "://") ? strstr(key, "://") + 3 : key;
    dval__fmt(k, sizeof k, "%s", s);
    k[strcspn(k, "/")] = 0;
    if (!strcmp(k, r->host) || !strcmp(k, r->api))
        return 1;
    return !strcmp(r->host, "docker.io") &&
           (!strcmp(k, "index.docker.io") || !strcmp(k, "docker.io"));
}

void lx_auth_load(lx_pull *p)
{
    char path[4200];
    const char *key, *auth;
    json_t *v;
    p->cred[0] = 0;
    config_path(path, sizeof path);
    json_t *j = access(path, R_OK) == 0 ? json_load_file(path, 0, NULL) : NULL;
    json_object_foreach(json_object_get(j, "auths"), key, v) {
        auth = json_string_value(json_object_get(v, "auth"));
        if (auth && key_names(key, &p->ref) && strlen(auth) < sizeof p->cred
            && strspn(auth, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
                            "vwxyz0123456789+/=") == strlen(auth)) {
            dval__fmt(p->cred, sizeof p->cred, "%s", auth);
            break;
        }
    }
    json_decref(j);
    LX_LOG(p->x, DVAL_LOG_DEBUG, "local executor: pull %s: %s", p->ref.canon,
           p->cred[0] ? "credentials found" : "no credentials: anonymous");
}

/* The value of param in a challenge (realm="...",service="..."). */
static int param(const char *ch, const char *name, char *dst, size_t cap)
{
    size_t n = strlen(name);
    for (const char *s = ch; (s = strstr(s, name)) != NULL; s += n) {
        if ((s != ch && s[-1] != ' ' && s[-1] != ',') || s[n] != '=')
            continue;
        const char *v = s + n + 1;
        size_t len = *v == '"' ? strcspn(++v, "\"") : strcspn(v, ", ");
        dval__fmt(dst, cap, "%.*s", (int)len, v);
        return 1;
    }
    dst[0] = 0;
    return 0;
}

static int take_token(const char *d, size_t n, void *ud)
{
    dval__buf *b = ud;
    return b->len + n > TOKEN_MAX || dval__buf_append(b, d, n) != DVAL_OK;
}

/* The token in a realm's JSON answer into the pull's header. */
static int read_token(lx_pull *p, const dval__buf *b)
{
    json_t *j = b->data ? json_loads(b->data, 0, NULL) : NULL;
    const char *t = json_string_value(json_object_get(j, "token"));
    if (!t)
        t = json_string_value(json_object_get(j, "access_token"));
    int ok = t && strlen(t) + 32 < sizeof p->auth_header &&
             !strpbrk(t, "\r\n");
    if (ok)
        dval__fmt(p->auth_header, sizeof p->auth_header,
                  "Authorization: Bearer %s", t);
    json_decref(j);
    return ok ? DVAL_OK : dval__call_fail(p->c, DVAL_EAUTH, "registry %s: "
                                          "its token service gave no token",
                                          p->ref.host);
}

/* The token service's URL for this pull (realm?service=..&scope=..). */
static int token_url(lx_pull *p, const char *ch, char *url, size_t cap)
{
    char realm[1024], service[512], scope[1024], es[1600], esc[2048];
    if (!param(ch, "realm", realm, sizeof realm) ||
        (strncmp(realm, "https://", 8) && strncmp(realm, "http://", 7)))
        return dval__call_fail(p->c, DVAL_EAUTH, "registry %s: a bearer "
                               "challenge without a usable realm",
                               p->ref.host);
    param(ch, "service", service, sizeof service);
    if (!param(ch, "scope", scope, sizeof scope))
        dval__fmt(scope, sizeof scope, "repository:%s:pull", p->ref.repo);
    lx_http_escape(p, service, es, sizeof es);
    lx_http_escape(p, scope, esc, sizeof esc);
    dval__fmt(url, cap, "%s%cservice=%s&scope=%s", realm,
              strchr(realm, '?') ? '&' : '?', es, esc);
    return DVAL_OK;
}

/* One request to the token service: DVAL_OK with the token taken, a
 * transient status (network, 429, 5xx) or a final one. */
static int token_once(lx_pull *p, const char *url, const char *const *h,
                      int64_t *retry_after_ms)
{
    dval__buf b = { 0 };
    lx_http_resp rs;
    const char *host = p->ref.host;
    int rc = lx_http_get(p, url, h, take_token, &b, &rs);
    long s = rs.status;
    *retry_after_ms = rs.retry_after_ms;
    if (rc == DVAL_OK && s == 200)
        rc = read_token(p, &b);
    else if (rc == DVAL_OK && (s == 429 || s >= 500))
        rc = dval__call_fail(p->c, s == 429 ? DVAL_ERATELIMIT : DVAL_ESERVER,
                             "registry %s: token service: HTTP %ld", host, s);
    else if (rc == DVAL_OK)
        rc = dval__call_fail(p->c, DVAL_EAUTH, "registry %s: its token "
                             "service refused %s (HTTP %ld)", host,
                             h[0] ? "the credentials" : "an anonymous pull",
                             s);
    else
        rc = dval__call_fail(p->c, rc, "registry %s: token service: %s",
                             host, rs.err);
    dval__buf_free(&b);
    return rc;
}

static int bearer(lx_pull *p, const char *ch)
{
    char url[4096], basic[1100] = "";
    int rc = token_url(p, ch, url, sizeof url);
    const char *h[2] = { NULL, NULL };
    if (rc == DVAL_OK && p->cred[0] && lx_url_safe_for_secrets(url)) {
        dval__fmt(basic, sizeof basic, "Authorization: Basic %s", p->cred);
        h[0] = basic;
    }
    for (int attempt = 1; rc == DVAL_OK; attempt++) {
        int64_t ra;
        rc = token_once(p, url, h, &ra);
        if (rc == DVAL_OK)
            break;
        if (rc == DVAL_ENETWORK || rc == DVAL_ESERVER || rc == DVAL_ERATELIMIT)
            rc = lx_fetch_backoff(p, attempt, ra, rc);
    }
    explicit_bzero(basic, sizeof basic);
    return rc;
}

int lx_auth_answer(lx_pull *p, const char *challenge)
{
    p->auth_header[0] = 0;
    if (!strncasecmp(challenge, "Bearer ", 7))
        return bearer(p, challenge + 7);
    if (strncasecmp(challenge, "Basic", 5) != 0)
        return dval__call_fail(p->c, DVAL_EAUTH, "registry %s: HTTP 401 "
                               "with an authentication scheme this library "
                               "does not speak", p->ref.host);
    if (!p->cred[0])
        return dval__call_fail(p->c, DVAL_EAUTH, "registry %s wants "
                               "credentials and none were found (a Docker "
                               "config.json \"auths\" entry: see "
                               "DVAL_LOCAL_PULL_AUTH_FILE)", p->ref.host);
    if (!p->plain_http || lx_ref_loopback(p->ref.api))
        dval__fmt(p->auth_header, sizeof p->auth_header,
                  "Authorization: Basic %s", p->cred);
    return p->auth_header[0] ? DVAL_OK
           : dval__call_fail(p->c, DVAL_EAUTH, "registry %s: credentials are "
                             "not sent over plain HTTP", p->ref.host);
}
