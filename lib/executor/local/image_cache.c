/* The image cache as a user sees it: pull a reference ahead of time
 * (progress lines per layer, as a snapshot build shows them), list the
 * pulled references (their pins, oci/refs/), remove one. Blobs are kept
 * by digest and shared between images (pull.h): removing an image deletes
 * its pin and those of its blobs that no other pinned image uses. An
 * image pulled by digest has no pin: it is not listed. A pull running in
 * another process at the same moment may lose a layer it shares with the
 * image removed; it then fails and the next pull fetches it again. */
#include "image_cache.h"
#include "pull.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define DAY_MS (24LL * 3600 * 1000)

/* The pin file of image (any spelling of the reference). */
int lx_image_pin_path(dval_call *c, const char *image, char *dst, size_t cap)
{
    lx_ref r;
    char oci[4200], enc[2048];
    int rc = lx_ref_parse(c, image, &r);
    if (rc == DVAL_OK)
        rc = lx_cache_path(c, "oci", oci, sizeof oci);
    if (rc != DVAL_OK)
        return rc;
    lx_encode_name(enc, sizeof enc, r.canon);
    dval__fmt(dst, cap, "%s/refs/%s", oci, enc);
    return DVAL_OK;
}

int lx_image_read_pin(const char *path, dval_image_info *out)
{
    lx_kv kv;
    if (lx_kv_load(&kv, path) != DVAL_OK)
        return DVAL_ENOTFOUND;
    const char *ref = lx_kv_get(&kv, "ref"), *d = lx_kv_get(&kv, "digest");
    const char *m = lx_kv_get(&kv, "manifest");
    int rc = ref && lx_digest_valid(d) && lx_digest_valid(m)
             ? DVAL_OK : DVAL_ENOTFOUND;
    if (rc == DVAL_OK) {
        dval__strlcpy(out->ref, ref, sizeof out->ref);
        dval__strlcpy(out->digest, d, sizeof out->digest);
        dval__strlcpy(out->manifest, m, sizeof out->manifest);
        out->pulled_ms = lx_kv_num(&kv, "pulled", 0);
    }
    lx_kv_free(&kv);
    return rc;
}

int lx_image_pull(void *ud, dval_call *c, const char *ref,
                  dval_chunk_fn progress, void *progress_ud,
                  dval_image_info *out)
{
    if (!lx_ref_is_pull(ref))
        return dval__call_fail(c, DVAL_EINVAL, "%s is not a registry "
                               "reference (debian:12, host:5000/repo:tag, "
                               "repo@sha256:...)", ref);
    char (*paths)[4200] = dval__calloc(LX_PULL_MAX_LAYERS, sizeof *paths);
    if (!paths)
        return dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    lx_build_io io = { .logfd = -1, .log = progress, .log_ud = progress_ud };
    int64_t end = dval__now_ms() + (c->timeout_ms > 0 ? c->timeout_ms
                                                       : DAY_MS);
    int n = 0;
    int rc = lx_pull_layers(ud, c, ref, end, &io, NULL, paths,
                            LX_PULL_MAX_LAYERS, &n);
    lx_io_flush(&io);
    dval__free(paths);
    if (rc == DVAL_OK && io.stopped)
        rc = dval__call_fail(c, DVAL_EABORTED, "the progress callback "
                             "stopped (the image is cached)");
    char pin[4400];
    if (rc == DVAL_OK && out && lx_image_pin_path(c, ref, pin, sizeof pin) == DVAL_OK &&
        lx_image_read_pin(pin, out) != DVAL_OK)
        dval__strlcpy(out->ref, ref, sizeof out->ref); /* by digest */
    return rc;
}

int lx_image_list(void *ud, dval_call *c, dval_image_info_fn each,
                  void *each_ud)
{
    (void)ud;
    char refs[4300], path[4600];
    int rc = lx_cache_path(c, "oci/refs", refs, sizeof refs);
    if (rc != DVAL_OK)
        return rc;
    DIR *d = opendir(refs);
    if (!d)
        return errno == ENOENT ? DVAL_OK /* nothing pulled yet */
               : dval__call_fail(c, DVAL_EIO, "opendir %s: %s", refs,
                                 strerror(errno));
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        dval_image_info info = { .struct_size = sizeof info };
        dval__fmt(path, sizeof path, "%s/%s", refs, e->d_name);
        if (e->d_name[0] == '.' || lx_image_read_pin(path, &info) != DVAL_OK)
            continue;
        if (each(&info, each_ud))
            rc = dval__call_fail(c, DVAL_EABORTED, "list stopped by "
                                 "callback");
    }
    closedir(d);
    return rc;
}

void lx_image_cache_install(struct dval_executor *ex)
{
    ex->image_pull = lx_image_pull;
    ex->image_list = lx_image_list;
    ex->image_remove = lx_image_remove;
}
