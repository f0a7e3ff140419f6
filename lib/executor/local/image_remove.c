/* image_remove: an image's pin goes, then those of its blobs (index,
 * manifest, config, layers) that no other pinned image uses. When the
 * blobs of another image cannot be read from the cache, none is deleted:
 * a blob is only deleted when it is known to be nobody else's. */
#include "image_cache.h"
#include "pull.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define BLOBS_MAX (LX_PULL_MAX_LAYERS + 3)
#define REC 72                  /* one digest record in a set */

/* Adds the blobs of the image pinned at path to set. */
static int add_blobs(lx *x, const char *path, dval__buf *set)
{
    dval_image_info info = { .struct_size = sizeof info };
    if (lx_image_read_pin(path, &info) != DVAL_OK)
        return DVAL_ENOTFOUND;
    char (*d)[REC] = dval__calloc(BLOBS_MAX, REC);
    int n = 0;
    int rc = d ? lx_pull_blobs_of(x, NULL, info.ref, info.manifest, d,
                                  BLOBS_MAX - 1, &n) : DVAL_ENOMEM;
    if (rc == DVAL_OK)
        dval__fmt(d[n++], REC, "%s", info.digest);
    for (int i = 0; rc == DVAL_OK && i < n; i++)
        rc = dval__buf_append(set, d[i], REC) ? DVAL_ENOMEM : DVAL_OK;
    dval__free(d);
    return rc;
}

static int in_set(const dval__buf *set, const char *d)
{
    for (size_t at = 0; at + REC <= set->len; at += REC)
        if (!strcmp(set->data + at, d))
            return 1;
    return 0;
}

/* The blobs of every pinned image in refs; DVAL_OK only when all were
 * read. */
static int others(lx *x, const char *refs, dval__buf *keep)
{
    DIR *d = opendir(refs);
    if (!d)
        return errno == ENOENT ? DVAL_OK : DVAL_EIO;
    int rc = DVAL_OK;
    struct dirent *e;
    char path[4600];
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        dval__fmt(path, sizeof path, "%s/%s", refs, e->d_name);
        rc = add_blobs(x, path, keep);
    }
    closedir(d);
    return rc;
}

/* Deletes the blobs of mine that keep lacks; the number deleted. */
static int sweep(const char *oci, const dval__buf *mine,
                 const dval__buf *keep)
{
    int gone = 0;
    char path[4400];
    for (size_t at = 0; at + REC <= mine->len; at += REC) {
        const char *d = mine->data + at;
        if (in_set(keep, d) || !lx_digest_valid(d))
            continue;
        dval__fmt(path, sizeof path, "%s/blobs/sha256/%s", oci, d + 7);
        gone += unlink(path) == 0;
    }
    return gone;
}

int lx_image_remove(void *ud, dval_call *c, const char *ref)
{
    lx *x = ud;
    char pin[4400], oci[4200], refs[4300];
    int rc = lx_image_pin_path(c, ref, pin, sizeof pin);
    rc = rc ? rc : lx_cache_path(c, "oci", oci, sizeof oci);
    if (rc != DVAL_OK)
        return rc;
    if (access(pin, F_OK) != 0)
        return dval__call_fail(c, DVAL_ENOTFOUND, "image %s is not in the "
                               "cache", ref);
    dval__buf mine = { 0 }, keep = { 0 };
    int known = add_blobs(x, pin, &mine) == DVAL_OK;
    if (unlink(pin) != 0)
        rc = dval__call_fail(c, DVAL_EIO, "remove %s: %s", pin,
                             strerror(errno));
    dval__fmt(refs, sizeof refs, "%s/refs", oci);
    if (rc == DVAL_OK && known && others(x, refs, &keep) == DVAL_OK)
        LX_LOG(x, DVAL_LOG_INFO, "local executor: image %s removed, %d "
               "blobs deleted", ref, sweep(oci, &mine, &keep));
    else if (rc == DVAL_OK)
        LX_LOG(x, DVAL_LOG_WARN, "local executor: image %s removed; its "
               "blobs are kept (the cache's manifests could not all be "
               "read)", ref);
    dval__buf_free(&mine);
    dval__buf_free(&keep);
    return rc;
}
