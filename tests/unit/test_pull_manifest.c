/* A registry's image manifest declares each layer's size; the limits
 * (DVAL_LOCAL_PULL_MAX_BLOB per blob, _MAX_TOTAL for all layers) refuse
 * the manifest before anything is downloaded, whatever the sizes add up
 * to (sizes near INT64_MAX must not wrap the sum). The manifests are
 * read from a cache by digest: no registry is asked. */
#include "harness.h"
#include "executor/local/pull.h"
#include "executor/local/sha256.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define D64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define LAYER(size) "{\"mediaType\":\"application/vnd.oci.image.layer.v1." \
    "tar\",\"digest\":\"sha256:" D64 "\",\"size\":" size "}"

/* Resolves manifest text (stored in the cache under its digest) with
 * the given limits: the status, the message in c. */
static int resolve(const char *layers, int64_t max_blob, int64_t max_total,
                   dval_call *c)
{
    static lx_pull p;
    char text[4096], digest[LX_DIGEST_MAX], dir[] = "/tmp/dval-unit-XXXXXX";
    char path[200], cmd[100];
    snprintf(text, sizeof text, "{\"schemaVersion\":2,\"config\":{\"digest\":"
             "\"sha256:" D64 "\",\"size\":10},\"layers\":[%s]}", layers);
    CHECK_INT(lx_sha256_of(text, strlen(text), digest, sizeof digest), 0);
    CHECK(mkdtemp(dir) != NULL);
    memset(&p, 0, sizeof p);
    snprintf(p.cache, sizeof p.cache, "%s", dir);
    snprintf(path, sizeof path, "%s/blobs", dir);
    CHECK_INT(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/blobs/sha256", dir);
    CHECK_INT(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/blobs/sha256/%s", dir, digest + 7);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0);
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    p.c = c;
    p.max_blob = max_blob;
    p.max_total = max_total;
    snprintf(p.ref.canon, sizeof p.ref.canon, "test/manifest:1");
    int rc = lx_manifest_resolve(&p, digest);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
    return rc;
}

TEST(pull_manifest__sizes_that_wrap_are_refused)
{
    dval_call c;
    const int64_t G = 1024LL * 1024 * 1024;
    CHECK_INT(resolve(LAYER("5") "," LAYER("7"), 8 * G, 32 * G, &c),
              DVAL_OK);
    /* INT64_MAX twice and 1 wrap to -1: under any limit when summed */
    CHECK_INT(resolve(LAYER("9223372036854775807") ","
                      LAYER("9223372036854775807") "," LAYER("1"),
                      8 * G, 32 * G, &c), DVAL_ETOOBIG);
    CHECK(strstr(c.errmsg, "test/manifest:1") != NULL);
    /* one layer over the per-blob limit: refused before any download */
    CHECK_INT(resolve(LAYER("100"), 99, 32 * G, &c), DVAL_ETOOBIG);
    CHECK(strstr(c.errmsg, "DVAL_LOCAL_PULL_MAX_BLOB") != NULL);
    CHECK_INT(resolve(LAYER("60") "," LAYER("60"), 99, 100, &c),
              DVAL_ETOOBIG);
    CHECK(strstr(c.errmsg, "DVAL_LOCAL_PULL_MAX_TOTAL") != NULL);
}
