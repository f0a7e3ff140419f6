/* Manifests of pulled images: an image index (OCI) or manifest list
 * (Docker) names one manifest per platform, of which the host's
 * (linux/amd64) is taken; an image manifest (OCI, or Docker v2 schema 2)
 * names the config and the layers. What a digest names is read from the
 * cache when there (content-addressed: it cannot have changed); a tag is
 * asked of the registry. Every manifest is checked against its digest
 * (the one asked for, else the one the registry says) and kept in the
 * cache, so the image resolves again offline. */
#include "pull.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#define MANIFEST_MAX (4 << 20)
#define ACCEPT "Accept: application/vnd.oci.image.index.v1+json, " \
    "application/vnd.docker.distribution.manifest.list.v2+json, " \
    "application/vnd.oci.image.manifest.v1+json, " \
    "application/vnd.docker.distribution.manifest.v2+json"

static int take_manifest(const char *d, size_t n, void *ud)
{
    dval__buf *b = ud;
    return b->len + n > MANIFEST_MAX || dval__buf_append(b, d, n) != DVAL_OK;
}

static int read_cached(lx_pull *p, const char *d, dval__buf *b)
{
    char path[4200], buf[65536];
    ssize_t n;
    lx_blob_path(p, d, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return DVAL_ENOTFOUND;
    int rc = DVAL_OK;
    while (rc == DVAL_OK && (n = read(fd, buf, sizeof buf)) > 0)
        rc = take_manifest(buf, (size_t)n, b) ? DVAL_ETOOBIG : DVAL_OK;
    close(fd);
    return rc;
}

/* The bytes of manifest ref (a tag or a digest), checked; *digest gets
 * what they hash to. */
static int get_bytes(lx_pull *p, const char *ref, dval__buf *b, char *digest)
{
    if (lx_digest_valid(ref) && read_cached(p, ref, b) == DVAL_OK) {
        dval__fmt(digest, LX_DIGEST_MAX, "%s", ref);
        return DVAL_OK;
    }
    dval__buf_free(b);
    char path[300];
    const char *h[] = { ACCEPT, NULL };
    lx_http_resp rs;
    dval__fmt(path, sizeof path, "manifests/%s", ref);
    int rc = lx_fetch(p, path, h, NULL, take_manifest, b, &rs, NULL);
    if (rc == DVAL_EABORTED)
        return dval__call_fail(p->c, DVAL_ETOOBIG, "pull %s: manifest over "
                               "%d bytes", p->ref.canon, MANIFEST_MAX);
    if (rc != DVAL_OK)
        return rc;
    if (lx_sha256_of(b->data ? b->data : "", b->len, digest,
                     LX_DIGEST_MAX) < 0)
        return dval__call_fail(p->c, DVAL_ENOMEM, "pull %s: no SHA-256 of "
                               "manifest %s (out of memory)", p->ref.canon,
                               ref);
    const char *want = lx_digest_valid(ref) ? ref : rs.content_digest;
    if (lx_digest_valid(want) && strcmp(want, digest) != 0)
        return dval__call_fail(p->c, DVAL_EPROTOCOL, "pull %s: manifest %s "
                               "does not match its digest %s: refused",
                               p->ref.canon, ref, want);
    return lx_blob_store(p, digest, b->data ? b->data : "", b->len);
}

static int is_index(json_t *j)
{
    return json_is_array(json_object_get(j, "manifests"));
}

/* The linux/amd64 entry of an index (the first, as Docker picks). */
static int pick_platform(lx_pull *p, json_t *index, char *next)
{
    json_t *m;
    size_t i;
    json_array_foreach(json_object_get(index, "manifests"), i, m) {
        json_t *pl = json_object_get(m, "platform");
        const char *os = json_string_value(json_object_get(pl, "os"));
        const char *arch = json_string_value(json_object_get(pl,
                                                             "architecture"));
        const char *d = json_string_value(json_object_get(m, "digest"));
        if (os && arch && !strcmp(os, "linux") && !strcmp(arch, "amd64") &&
            lx_digest_valid(d)) {
            dval__fmt(next, LX_DIGEST_MAX, "%s", d);
            return DVAL_OK;
        }
    }
    return dval__call_fail(p->c, DVAL_EUNSUPPORTED, "pull %s: the image has "
                           "no linux/amd64 variant", p->ref.canon);
}

static int layer_type_ok(lx_pull *p, const char *mt)
{
    static const char *const ok[] = {
        "application/vnd.oci.image.layer.v1.tar",
        "application/vnd.oci.image.layer.v1.tar+gzip",
        "application/vnd.docker.image.rootfs.diff.tar.gzip",
    };
    for (size_t i = 0; mt && i < sizeof ok / sizeof *ok; i++)
        if (!strcmp(mt, ok[i]))
            return DVAL_OK;
    return dval__call_fail(p->c, DVAL_EUNSUPPORTED, "pull %s: layers of type "
                           "%s are not supported (tar and tar+gzip are)",
                           p->ref.canon, mt ? mt : "(none)");
}

/* One descriptor's digest and size, checked. */
static int descriptor(lx_pull *p, json_t *d, char *digest, int64_t *size)
{
    const char *s = json_string_value(json_object_get(d, "digest"));
    json_t *n = json_object_get(d, "size");
    if (!lx_digest_valid(s) || !json_is_integer(n) || json_integer_value(n) < 0)
        return dval__call_fail(p->c, DVAL_EPROTOCOL, "pull %s: a descriptor "
                               "without a sha256 digest and a size",
                               p->ref.canon);
    dval__fmt(digest, LX_DIGEST_MAX, "%s", s);
    *size = (int64_t)json_integer_value(n);
    return DVAL_OK;
}

/* A layer's declared size against the limits, before anything comes;
 * total (never over max_total) adds it without wrapping. */
static int within_limits(lx_pull *p, int64_t size, int64_t *total)
{
    if (size > p->max_blob)
        return dval__call_fail(p->c, DVAL_ETOOBIG, "pull %s: a layer of %lld "
                               "bytes, over the limit of %lld "
                               "(DVAL_LOCAL_PULL_MAX_BLOB)", p->ref.canon,
                               (long long)size, (long long)p->max_blob);
    if (size > p->max_total - *total)
        return dval__call_fail(p->c, DVAL_ETOOBIG, "pull %s: over %lld bytes "
                               "of layers, the limit "
                               "(DVAL_LOCAL_PULL_MAX_TOTAL)", p->ref.canon,
                               (long long)p->max_total);
    *total += size;
    return DVAL_OK;
}

/* An image manifest's config and layers into the pull. */
static int read_layers(lx_pull *p, json_t *m)
{
    json_t *layers = json_object_get(m, "layers"), *l;
    size_t i;
    int64_t total = 0;
    if (json_integer_value(json_object_get(m, "schemaVersion")) != 2 ||
        !json_is_array(layers))
        return dval__call_fail(p->c, DVAL_EUNSUPPORTED, "pull %s: not an "
                               "OCI or Docker v2 schema 2 image manifest",
                               p->ref.canon);
    int rc = descriptor(p, json_object_get(m, "config"), p->config,
                        &p->config_size);
    p->nlayers = 0;
    json_array_foreach(layers, i, l) {
        if (rc != DVAL_OK)
            break;
        if (p->nlayers >= LX_PULL_MAX_LAYERS)
            return dval__call_fail(p->c, DVAL_ETOOBIG, "pull %s: more than "
                                   "%d layers", p->ref.canon,
                                   LX_PULL_MAX_LAYERS);
        lx_layer *y = &p->layers[p->nlayers++];
        rc = layer_type_ok(p, json_string_value(json_object_get(l,
                                                                "mediaType")));
        if (rc == DVAL_OK)
            rc = descriptor(p, l, y->digest, &y->size);
        if (rc == DVAL_OK)
            rc = within_limits(p, y->size, &total);
    }
    return rc;
}

int lx_manifest_resolve(lx_pull *p, const char *ref)
{
    char at[LX_DIGEST_MAX + 140], digest[LX_DIGEST_MAX];
    dval__fmt(at, sizeof at, "%s", ref);
    for (int depth = 0;; depth++) {
        dval__buf b = { 0 };
        int rc = get_bytes(p, at, &b, digest);
        json_t *j = rc == DVAL_OK ? json_loads(b.data ? b.data : "", 0, NULL)
                                  : NULL;
        dval__buf_free(&b);
        if (rc == DVAL_OK && !j)
            rc = dval__call_fail(p->c, DVAL_EPROTOCOL, "pull %s: manifest %s "
                                 "is not JSON", p->ref.canon, digest);
        if (rc == DVAL_OK && depth == 0)
            dval__fmt(p->top, sizeof p->top, "%s", digest);
        int index = rc == DVAL_OK && is_index(j);
        if (index && depth > 0)
            rc = dval__call_fail(p->c, DVAL_EPROTOCOL, "pull %s: an index "
                                 "inside an index", p->ref.canon);
        else if (index)
            rc = pick_platform(p, j, at);
        else if (rc == DVAL_OK)
            rc = read_layers(p, j);
        json_decref(j);
        if (rc != DVAL_OK || !index) {
            if (rc == DVAL_OK)
                dval__fmt(p->manifest, sizeof p->manifest, "%s", digest);
            return rc;
        }
    }
}

/* A config for another platform is refused before its layers come. */
static int check_config(lx_pull *p)
{
    dval__buf b = { 0 };
    int rc = read_cached(p, p->config, &b);
    json_t *j = rc == DVAL_OK ? json_loads(b.data ? b.data : "", 0, NULL)
                              : NULL;
    const char *os = json_string_value(json_object_get(j, "os"));
    const char *arch = json_string_value(json_object_get(j, "architecture"));
    if (rc == DVAL_OK && ((os && strcmp(os, "linux")) ||
                          (arch && strcmp(arch, "amd64"))))
        rc = dval__call_fail(p->c, DVAL_EUNSUPPORTED, "pull %s: the image is "
                             "for %s/%s, not linux/amd64", p->ref.canon, os ?
                             os : "?", arch ? arch : "?");
    json_decref(j);
    dval__buf_free(&b);
    return rc == DVAL_ETOOBIG ? DVAL_OK : rc; /* a big config: not read */
}

int lx_manifest_fetch_blobs(lx_pull *p)
{
    char label[64];
    int rc = lx_blob_ensure(p, p->config, p->config_size, "config");
    if (rc == DVAL_OK)
        rc = check_config(p);
    for (int i = 0; i < p->nlayers && rc == DVAL_OK; i++) {
        dval__fmt(label, sizeof label, "layer %d/%d", i + 1, p->nlayers);
        rc = lx_blob_ensure(p, p->layers[i].digest, p->layers[i].size, label);
    }
    return rc;
}
