/* Snapshot images the user already has:
 *   dir:/path            a root filesystem directory, used in place as the
 *                        lowest overlay layer (never written; do not change
 *                        it while snapshots use it);
 *   tar:/path.tar[.gz]   a root filesystem tarball (e.g. `docker export`),
 *                        extracted once into the snapshot's rootfs/;
 *   oci:/layout[:tag]    an OCI image layout directory: index.json (the
 *                        manifest whose org.opencontainers.image.ref.name is
 *                        tag, else the first) → manifest → layers, applied
 *                        in order into rootfs/ with whiteouts;
 *   a registry image     pulled into the image cache (pull.c), whose
 *                        layers are then applied as an OCI layout's.
 * Extraction is the helper's "import" (as root, ownership kept, entries
 * that would escape the target refused). */
#include "local.h"
#include "protocol.h"
#include "pull.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OCI_REF "org.opencontainers.image.ref.name"
#define MAX_LAYERS 128

static json_t *load_json(dval_call *c, const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j)
        dval__call_fail(c, DVAL_EINVAL, "local executor: oci: %s: %s", path,
                        e.text);
    return j;
}

/* blobs/<alg>/<hex> of a descriptor, refusing anything path-like. */
static int blob_path(dval_call *c, const char *layout, json_t *desc,
                     char *dst, size_t cap)
{
    const char *d = json_string_value(json_object_get(desc, "digest"));
    if (!lx_digest_valid(d))
        return dval__call_fail(c, DVAL_EINVAL, "local executor: oci: "
                               "descriptor without a sha256 digest");
    dval__fmt(dst, cap, "%s/blobs/sha256/%s", layout, d + 7);
    return DVAL_OK;
}

static int is_index(json_t *j)
{
    const char *mt = json_string_value(json_object_get(j, "mediaType"));
    return json_is_array(json_object_get(j, "manifests")) &&
           (!mt || strstr(mt, "index") || strstr(mt, "manifest.list"));
}

/* The manifest descriptor of an index: by tag, else linux/amd64, else the
 * first one. */
static json_t *pick(json_t *index, const char *tag)
{
    json_t *list = json_object_get(index, "manifests"), *m;
    size_t i;
    json_array_foreach(list, i, m) {
        const char *ref = json_string_value(json_object_get(
            json_object_get(m, "annotations"), OCI_REF));
        json_t *pl = json_object_get(m, "platform");
        const char *os = json_string_value(json_object_get(pl, "os"));
        const char *arch = json_string_value(json_object_get(pl,
                                                             "architecture"));
        if (tag ? ref && !strcmp(ref, tag)
                : os && arch && !strcmp(os, "linux") && !strcmp(arch, "amd64"))
            return m;
    }
    return tag ? NULL : json_array_get(list, 0);
}

/* Fills paths (from *n) with the layer blobs of the layout's image. */
static int oci_layers(dval_call *c, const char *layout, const char *tag,
                      char (*paths)[4200], int *n)
{
    char p[4200];
    dval__fmt(p, sizeof p, "%s/index.json", layout);
    json_t *j = load_json(c, p);
    for (int depth = 0; j && is_index(j) && depth < 3; depth++) {
        json_t *m = pick(j, depth ? NULL : tag);
        int rc = m ? blob_path(c, layout, m, p, sizeof p)
                   : dval__call_fail(c, DVAL_ENOTFOUND, "local executor: "
                                     "oci: %s has no image tagged %s",
                                     layout, tag);
        json_decref(j);
        if (rc != DVAL_OK)
            return rc;
        j = load_json(c, p);
    }
    if (!j)
        return DVAL_EINVAL;
    json_t *layers = json_object_get(j, "layers"), *l;
    size_t i;
    int rc = json_is_array(layers) ? DVAL_OK
             : dval__call_fail(c, DVAL_EINVAL, "local executor: oci: no "
                               "image manifest in %s", layout);
    json_array_foreach(layers, i, l) {
        const char *mt = json_string_value(json_object_get(l, "mediaType"));
        if (rc != DVAL_OK)
            break;
        if (*n >= MAX_LAYERS)
            rc = dval__call_fail(c, DVAL_ETOOBIG, "local executor: oci: "
                                 "more than %d layers", MAX_LAYERS);
        else if (mt && strstr(mt, "zstd"))
            rc = dval__call_fail(c, DVAL_EUNSUPPORTED, "local executor: oci:"
                                 " zstd layers are not supported (%s)", mt);
        else
            rc = blob_path(c, layout, l, paths[(*n)++], sizeof *paths);
    }
    json_decref(j);
    return rc;
}

static int use_dir(dval_call *c, const char *path, char *dst, size_t cap)
{
    char real[4096];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
        return dval__call_fail(c, DVAL_ENOTFOUND, "local executor: image "
                               "dir:%s is not a directory", path);
    if (strpbrk(real, ":,\\"))
        return dval__call_fail(c, DVAL_EINVAL, "local executor: image "
                               "dir:%s: ':', ',' or '\\' in its path", path);
    dval__fmt(dst, cap, "%s", real);
    return DVAL_OK;
}

/* "oci:/layout:tag": the tag is what follows the last ':' after the last
 * '/' (a layout path may itself have no ':' then). */
static void split_tag(const char *src, char *layout, size_t cap,
                      const char **tag)
{
    dval__fmt(layout, cap, "%s", src);
    char *colon = strrchr(layout, ':');
    *tag = NULL;
    if (colon && !strchr(colon, '/')) {
        *colon = 0;
        *tag = src + (colon - layout) + 1;
    }
}

int lx_image_import(lx *x, dval_call *c, const char *snapdir,
                    const lx_image *img, int64_t end, lx_build_io *io,
                    char *dst, size_t cap)
{
    if (img->kind == LX_IMG_DIR)
        return use_dir(c, img->path, dst, cap);
    char rootfs[4200], layout[4096];
    const char *tag = NULL;
    char (*paths)[4200] = dval__calloc(MAX_LAYERS, sizeof *paths);
    char *argv[MAX_LAYERS + 6] = { NULL, LX_VERB_IMPORT, rootfs,
                                   img->kind == LX_IMG_TAR ? LX_IMPORT_TAR
                                   : LX_IMPORT_OCI };
    int n = 0, rc = paths ? DVAL_OK : DVAL_ENOMEM;
    dval__fmt(rootfs, sizeof rootfs, "%s/rootfs", snapdir);
    if (rc == DVAL_OK && img->kind == LX_IMG_OCI) {
        split_tag(img->path, layout, sizeof layout, &tag);
        rc = oci_layers(c, layout, tag, paths, &n);
    } else if (rc == DVAL_OK && img->kind == LX_IMG_PULL) {
        rc = lx_pull_layers(x, c, img->path, end, io, img->pull, paths,
                            MAX_LAYERS, &n);
    } else if (rc == DVAL_OK) {
        dval__fmt(paths[n++], sizeof *paths, "%s", img->path);
    }
    for (int i = 0; i < n; i++)
        argv[4 + i] = paths[i];
    lx_rmtree(rootfs);
    if (rc == DVAL_OK && lx_mkdirs(rootfs, 0755) < 0)
        rc = dval__call_fail(c, DVAL_EIO, "mkdir %s: %s", rootfs,
                             strerror(errno));
    if (rc != DVAL_OK) {
        dval__free(paths);
        return rc;
    }
    LX_LOG(x, DVAL_LOG_INFO, "local executor: importing %s (%d layer%s)",
           img->path, n, n == 1 ? "" : "s");
    int code = 0;
    rc = lx_run_step(x, c, argv, end, io, &code);
    if (rc == DVAL_OK && code != 0)
        rc = dval__call_fail(c, DVAL_EBUILD, "local executor: importing %s "
                             "failed: %s", img->path, io->last);
    if (rc != DVAL_OK)
        lx_rmtree(rootfs);
    else
        dval__fmt(dst, cap, "%s", rootfs);
    dval__free(paths);
    return rc;
}
