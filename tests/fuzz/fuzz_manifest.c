/* Image manifests and indexes as a registry sends them, through the
 * checks on top of jansson (pull_manifest.c): a manifest it accepts has
 * at most LX_PULL_MAX_LAYERS layers, each with a sha256 digest and a
 * size within the per-blob limit, all of them within the total limit.
 * Each input is put in a scratch cache under its own digest and resolved
 * from there; no registry is asked (DVAL_LOCAL_PULL=never), so an index
 * ends at its platform's manifest, which the cache does not have. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"
#include "executor/local/pull.h"
#include "executor/local/sha256.h"

#define MANIFEST_MAX_BLOB 1000
#define MANIFEST_MAX_TOTAL 3000

static char manifest_dir[] = "/tmp/dval-fuzz-manifest-XXXXXX";

/* Every input's blob is gone by then: the directories are empty. */
static void manifest_cache_remove(void)
{
    char sub[64];
    snprintf(sub, sizeof sub, "%s/blobs/sha256", manifest_dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/blobs", manifest_dir);
    rmdir(sub);
    rmdir(manifest_dir);
}

/* The scratch cache: <dir>/blobs/sha256, made once per process. */
static const char *manifest_cache(void)
{
    char *dir = manifest_dir;
    static int made;
    char sub[64];
    if (!made) {
        FUZZ_ASSERT(mkdtemp(dir) != NULL);
        snprintf(sub, sizeof sub, "%s/blobs", dir);
        FUZZ_ASSERT(mkdir(sub, 0700) == 0);
        snprintf(sub, sizeof sub, "%s/blobs/sha256", dir);
        FUZZ_ASSERT(mkdir(sub, 0700) == 0);
        setenv("DVAL_LOCAL_PULL", "never", 1);
        atexit(manifest_cache_remove);
        made = 1;
    }
    return dir;
}

static void check_accepted(const lx_pull *p)
{
    int64_t total = 0;
    FUZZ_ASSERT(lx_digest_valid(p->config));
    FUZZ_ASSERT(p->nlayers >= 0 && p->nlayers <= LX_PULL_MAX_LAYERS);
    for (int i = 0; i < p->nlayers; i++) {
        FUZZ_ASSERT(lx_digest_valid(p->layers[i].digest));
        FUZZ_ASSERT(p->layers[i].size >= 0);
        FUZZ_ASSERT(p->layers[i].size <= MANIFEST_MAX_BLOB);
        total += p->layers[i].size;
    }
    FUZZ_ASSERT(total <= MANIFEST_MAX_TOTAL);
}

FUZZ_TARGET(manifest)
{
    static lx_pull p;
    static dval_call c;
    char digest[LX_DIGEST_MAX], path[200];
    const char *dir = manifest_cache();
    if (lx_sha256_of(data, size, digest, sizeof digest) < 0)
        return 0;
    snprintf(path, sizeof path, "%s/blobs/sha256/%s", dir, digest + 7);
    FILE *f = fopen(path, "wb");
    FUZZ_ASSERT(f != NULL);
    FUZZ_ASSERT(fwrite(data, 1, size, f) == size && fclose(f) == 0);
    memset(&p, 0, sizeof p);
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.cancel_fd = -1;
    p.c = &c;
    p.max_blob = MANIFEST_MAX_BLOB;
    p.max_total = MANIFEST_MAX_TOTAL;
    snprintf(p.ref.canon, sizeof p.ref.canon, "fuzz/manifest:1");
    snprintf(p.cache, sizeof p.cache, "%s", dir);
    if (lx_manifest_resolve(&p, digest) == DVAL_OK)
        check_accepted(&p);
    lx_http_close(&p);
    unlink(path);
    return 0;
}
