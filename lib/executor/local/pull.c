/* Pulling an image by reference: what the local executor does for a
 * snapshot whose image names a registry image (pull_ref.c). The image's
 * linux/amd64 layers end up verified in the image cache (pull_blob.c),
 * and their paths go to the same import as an OCI layout's
 * (image_import.c: the helper's untar, whiteouts and all).
 *
 * A reference is pinned: the first pull records what its tag named
 * (refs/<ref>: the digest of the index or manifest, and of the
 * linux/amd64 manifest), and later uses take that digest from the cache,
 * with no request at all when every blob is there: the same image every
 * time, offline too. DVAL_LOCAL_PULL=always asks the registry for the
 * tag again; DVAL_LOCAL_PULL=never asks no registry at all (only what
 * the cache has is used). A name@sha256:... reference is its own pin.
 *
 * Plain HTTP only to a registry on a loopback host, or one the user
 * lists in DVAL_LOCAL_PULL_INSECURE (host[:port],... or "*"); HTTPS
 * otherwise. Limits: DVAL_LOCAL_PULL_MAX_BLOB bytes per blob (default
 * 8 GiB), DVAL_LOCAL_PULL_MAX_TOTAL bytes of layers (default 32 GiB). */
#include "pull.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GiB (1024LL * 1024 * 1024)

int lx_pull_never(void)
{
    const char *policy = getenv("DVAL_LOCAL_PULL");
    return policy && !strcmp(policy, "never");
}

static int64_t env_bytes(const char *name, int64_t def)
{
    const char *v = getenv(name);
    char *end;
    long long n = v ? strtoll(v, &end, 10) : 0;
    return v && end != v && !*end && n > 0 ? (int64_t)n : def;
}

/* The user lists the registry (host:port, or its host for every port,
 * or "*") as one that speaks plain HTTP. */
static int listed_insecure(const char *host)
{
    const char *v = getenv("DVAL_LOCAL_PULL_INSECURE");
    char bare[256];
    dval__fmt(bare, sizeof bare, "%s", host);
    if (bare[0] == '[')
        bare[strcspn(bare, "]") + (bare[strcspn(bare, "]")] != 0)] = 0;
    else
        bare[strcspn(bare, ":")] = 0;
    for (const char *s = v; s && *s;) {
        size_t n = strcspn(s, ", ");
        if ((n == 1 && *s == '*') ||
            (n && n == strlen(host) && !strncmp(s, host, n)) ||
            (n && n == strlen(bare) && !strncmp(s, bare, n)))
            return 1;
        s += n + (s[n] != 0);
    }
    return 0;
}

static int cache_layout(lx_pull *p)
{
    char dir[4096], d[4200];
    if (lx_cache_dir(dir, sizeof dir) < 0)
        return dval__call_fail(p->c, DVAL_EINVAL, "local executor: no image "
                               "cache directory (set DVAL_LOCAL_CACHE_DIR)");
    dval__fmt(p->cache, sizeof p->cache, "%s/oci", dir);
    static const char *const sub[] = { "blobs/sha256", "tmp", "refs" };
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
        dval__fmt(d, sizeof d, "%s/%s", p->cache, sub[i]);
        if (lx_mkdirs(d, 0755) < 0)
            return dval__call_fail(p->c, DVAL_EIO, "mkdir %s: %s", d,
                                   strerror(errno));
    }
    dval__fmt(d, sizeof d, "%s/oci-layout", p->cache);
    return access(d, F_OK) == 0 ? DVAL_OK
           : lx_write_text(p->c, d, "{\"imageLayoutVersion\":\"1.0.0\"}\n");
}

static int setup(lx_pull *p, const char *image)
{
    int rc = lx_ref_parse(p->c, image, &p->ref);
    if (rc == DVAL_OK)
        rc = cache_layout(p);
    if (rc != DVAL_OK)
        return rc;
    p->plain_http = lx_ref_loopback(p->ref.api) ||
                    listed_insecure(p->ref.host) ||
                    listed_insecure(p->ref.api); /* a mirror */
    dval__fmt(p->base, sizeof p->base, "%s://%s/v2/%s/",
              p->plain_http ? "http" : "https", p->ref.api, p->ref.repo);
    p->max_blob = env_bytes("DVAL_LOCAL_PULL_MAX_BLOB", 8 * GiB);
    p->max_total = env_bytes("DVAL_LOCAL_PULL_MAX_TOTAL", 32 * GiB);
    p->retry = p->x->retry;
    p->rng = (unsigned)time(NULL) ^ (unsigned)lx_seq();
    lx_auth_load(p);
    return DVAL_OK;
}

static void pin_path(const lx_pull *p, char *dst, size_t cap)
{
    char enc[2048];
    lx_encode_name(enc, sizeof enc, p->ref.canon);
    dval__fmt(dst, cap, "%s/refs/%s", p->cache, enc);
}

/* Where the walk starts: the reference's digest, its pin, or its tag. */
static void start_at(const lx_pull *p, char *dst, size_t cap)
{
    char path[4200];
    lx_kv kv;
    const char *policy = getenv("DVAL_LOCAL_PULL");
    dval__fmt(dst, cap, "%s", p->ref.digest[0] ? p->ref.digest : p->ref.tag);
    if (p->ref.digest[0] || (policy && !strcmp(policy, "always")))
        return;
    pin_path(p, path, sizeof path);
    if (lx_kv_load(&kv, path) != DVAL_OK)
        return;
    const char *d = lx_kv_get(&kv, "digest");
    if (lx_digest_valid(d))
        dval__fmt(dst, cap, "%s", d);
    lx_kv_free(&kv);
}

static int save_pin(lx_pull *p)
{
    char path[4200];
    lx_kv kv = { 0 };
    int rc = lx_kv_set(&kv, "ref", p->ref.canon);
    rc |= lx_kv_set(&kv, "digest", p->top);
    rc |= lx_kv_set(&kv, "manifest", p->manifest);
    rc |= lx_kv_setnum(&kv, "pulled", lx_wall_ms());
    pin_path(p, path, sizeof path);
    if (rc == DVAL_OK)
        rc = lx_kv_save(&kv, path);
    lx_kv_free(&kv);
    return rc == DVAL_OK ? DVAL_OK : dval__call_fail(p->c, DVAL_EIO,
                                                     "cannot write %s", path);
}

static void say(lx_pull *p, const char *line)
{
    lx_io_write(p->io, line, strlen(line));
    LX_LOG(p->x, DVAL_LOG_INFO, "local executor: %.*s",
           (int)strlen(line) - 1, line);
}

/* The walk: the manifest (by pin, digest or tag), then every blob. */
static int walk(lx_pull *p)
{
    char start[LX_DIGEST_MAX + 140], line[1400];
    start_at(p, start, sizeof start);
    dval__fmt(line, sizeof line, "pull %s (%s%s)\n", p->ref.canon,
              lx_digest_valid(start) ? "" : "registry ",
              lx_digest_valid(start) ? start : p->base);
    say(p, line);
    int rc = lx_manifest_resolve(p, start);
    if (rc == DVAL_OK)
        rc = lx_manifest_fetch_blobs(p);
    if (rc == DVAL_OK && !p->ref.digest[0])
        rc = save_pin(p);
    return rc;
}

int lx_pull_layers(lx *x, dval_call *c, const char *image, int64_t end,
                   lx_build_io *io, lx_pull_opts *o, char (*paths)[4200],
                   int max, int *n)
{
    lx_pull *p = dval__calloc(1, sizeof *p);
    if (!p)
        return DVAL_ENOMEM;
    *p = (lx_pull){ .x = x, .c = c, .end = end, .io = io, .o = o };
    int64_t t0 = dval__now_ms();
    int rc = setup(p, image);
    if (rc == DVAL_OK)
        rc = walk(p);
    if (rc == DVAL_OK && p->nlayers > max)
        rc = dval__call_fail(c, DVAL_ETOOBIG, "pull %s: more than %d layers",
                             p->ref.canon, max);
    for (int i = 0; rc == DVAL_OK && i < p->nlayers; i++)
        lx_blob_path(p, p->layers[i].digest, paths[(*n)++], sizeof *paths);
    if (rc == DVAL_OK) {
        char line[1400];
        dval__fmt(line, sizeof line, "pull %s: %s, %d layer%s, %.1f MB "
                  "downloaded in %.1f s (%d requests)\n", p->ref.canon,
                  p->manifest, p->nlayers, p->nlayers == 1 ? "" : "s",
                  (double)p->downloaded / 1e6,
                  (double)(dval__now_ms() - t0) / 1000.0, p->requests);
        say(p, line);
        if (o)
            dval__fmt(o->manifest, sizeof o->manifest, "%s", p->manifest);
    }
    lx_http_close(p);
    explicit_bzero(p, sizeof *p); /* credentials, tokens */
    dval__free(p);
    return rc;
}

int lx_pull_probe(lx *x, dval_call *c, const char *image, lx_pull_opts *o)
{
    char start[LX_DIGEST_MAX + 140], url[1100];
    lx_http_resp rs;
    lx_pull *p = dval__calloc(1, sizeof *p);
    if (!p)
        return DVAL_ENOMEM;
    *p = (lx_pull){ .x = x, .c = c, .end = dval__now_ms() + 10000, .o = o };
    int rc = setup(p, image);
    if (rc == DVAL_OK)
        start_at(p, start, sizeof start);
    if (rc == DVAL_OK && !(lx_digest_valid(start) &&
                           lx_blob_present(p, start))) {
        dval__fmt(url, sizeof url, "%s://%s/v2/", p->plain_http ? "http"
                  : "https", p->ref.api);
        rc = lx_http_get(p, url, NULL, NULL, NULL, &rs);
        o->no_answer = rc == DVAL_OK ? 0 : rs.no_answer ? rs.no_answer : 1;
        dval__fmt(o->why, sizeof o->why, "%s", rs.err);
        rc = rc == DVAL_OK ? DVAL_OK : DVAL_ENETWORK;
    }
    lx_http_close(p);
    explicit_bzero(p, sizeof *p);
    dval__free(p);
    return rc;
}

/* The blobs the cached image ref uses, from its pinned manifest (which
 * must be in the cache: no request is made for it): the manifest, its
 * config and its layers, into out[*n...] (at most max). */
int lx_pull_blobs_of(lx *x, dval_call *c, const char *image,
                     const char *manifest, char (*out)[LX_DIGEST_MAX],
                     int max, int *n)
{
    lx_pull *p = dval__calloc(1, sizeof *p);
    if (!p)
        return DVAL_ENOMEM;
    *p = (lx_pull){ .x = x, .c = c, .end = dval__now_ms() + 60000 };
    int rc = setup(p, image);
    if (rc == DVAL_OK && (!lx_digest_valid(manifest) ||
                          !lx_blob_present(p, manifest)))
        rc = dval__call_fail(c, DVAL_ENOTFOUND, "image %s: its manifest is "
                             "not in the cache", p->ref.canon);
    if (rc == DVAL_OK)
        rc = lx_manifest_resolve(p, manifest);
    if (rc == DVAL_OK && *n + p->nlayers + 2 > max)
        rc = dval__call_fail(c, DVAL_ETOOBIG, "image %s: too many blobs",
                             p->ref.canon);
    if (rc == DVAL_OK) {
        dval__fmt(out[(*n)++], LX_DIGEST_MAX, "%s", manifest);
        dval__fmt(out[(*n)++], LX_DIGEST_MAX, "%s", p->config);
        for (int i = 0; i < p->nlayers; i++)
            dval__fmt(out[(*n)++], LX_DIGEST_MAX, "%s", p->layers[i].digest);
    }
    lx_http_close(p);
    explicit_bzero(p, sizeof *p);
    dval__free(p);
    return rc;
}
