/* The image cache through the public API (dval_image_pull, _list,
 * _remove) against a real registry (tests/local/registry.py): a pull
 * shows each layer's progress, a second image sharing the layers fetches
 * none, the listing shows both, and removing one keeps the shared blobs
 * until the last image using them goes. */
#include "lt.h"
#include "registry.h"

#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int collect(const char *data, size_t len, void *ud)
{
    return dval__buf_append(ud, data, len) != 0;
}

typedef struct seen {
    int n;
    char refs[4][DVAL_IMAGE_REF_MAX];
    int manifests_ok;
} seen;

static int on_image(const dval_image_info *info, void *ud)
{
    seen *s = ud;
    if (s->n < 4)
        snprintf(s->refs[s->n], sizeof s->refs[0], "%s", info->ref);
    s->n++;
    s->manifests_ok += !strncmp(info->manifest, "sha256:", 7) &&
                       info->pulled_ms > 0;
    return 0;
}

static int blobs(const lt_pull_fx *f)
{
    char dir[800];
    snprintf(dir, sizeof dir, "%s/oci/blobs/sha256", f->cache);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static seen list(dval_client *c)
{
    seen s;
    memset(&s, 0, sizeof s);
    CHECK_INT(dval_image_list(c, on_image, &s), DVAL_OK);
    return s;
}

static void pull(dval_client *c, const char *ref, dval__buf *log)
{
    log->len = 0;
    int rc = dval_image_pull(c, ref, collect, log);
    if (rc)
        fprintf(stderr, "pull %s: %s\n", ref, dval_client_errmsg(c));
    CHECK_INT(rc, DVAL_OK);
    CHECK_INT(dval__buf_append(log, "", 1), 0);
}

TEST(test_image_cache__pull_list_remove)
{
    lt_pull_fx f;
    lt_pull_open(&f, "img-cache");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "");
    lt_pull_push(&f, "v1", "test/one:v1", "");
    lt_pull_push(&f, "v1", "test/two:v1", "");
    char one[300], two[300];
    lt_reg_name(&f.r, "test/one:v1", one, sizeof one);
    lt_reg_name(&f.r, "test/two:v1", two, sizeof two);
    dval_client *c = lt_client(&f.t);
    dval__buf log = { 0 };
    CHECK_INT(list(c).n, 0);

    pull(c, one, &log);
    CHECK_CONTAINS(log.data, "layer 2/2");
    CHECK_CONTAINS(log.data, "digest verified");
    seen s = list(c);
    CHECK_INT(s.n, 1);
    CHECK_INT(s.manifests_ok, 1);
    CHECK_CONTAINS(s.refs[0], "test/one:v1");
    int n_blobs = blobs(&f);
    CHECK(n_blobs >= 3);

    const char *blob_gets[] = { "/blobs/", NULL };
    int before = lt_reg_count(&f.r, blob_gets);
    pull(c, two, &log);     /* the same layers: none fetched again */
    CHECK_CONTAINS(log.data, "cached");
    CHECK_INT(lt_reg_count(&f.r, blob_gets), before);
    CHECK_INT(list(c).n, 2);

    CHECK_INT(dval_image_remove(c, one), DVAL_OK);
    s = list(c);
    CHECK_INT(s.n, 1);
    CHECK_CONTAINS(s.refs[0], "test/two:v1");
    CHECK_INT(blobs(&f), n_blobs);  /* test/two uses them all */
    CHECK_INT(dval_image_remove(c, two), DVAL_OK);
    CHECK_INT(list(c).n, 0);
    CHECK_INT(blobs(&f), 0);
    CHECK_INT(dval_image_remove(c, two), DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_client_errmsg(c), "not in the cache");
    dval__buf_free(&log);
    dval_client_free(c);
    lt_pull_close(&f);
}

TEST(test_image_cache__bad_arguments)
{
    lt t;
    lt_open(&t, "img-bad");
    dval_client *c = lt_client(&t);
    CHECK_INT(dval_image_pull(c, "/not/a/reference", NULL, NULL),
              DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "not a registry reference");
    CHECK_INT(dval_image_pull(c, NULL, NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_image_list(c, NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_image_remove(c, ""), DVAL_EINVAL);
    dval_client_free(c);
    lt_close(&t);
}

/* The CLI next to this test binary: build/<B>/bin/daytona-validate. */
static void cli_path(char *dst, size_t cap)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0);
    exe[n] = 0;
    snprintf(dst, cap, "%s/../bin/daytona-validate", dirname(exe));
}

/* `daytona-validate image ARGS` on the fixture's state and cache: its
 * stdout and stderr (2>&1) into out; returns the exit status. */
static int cli(lt_pull_fx *f, const char *args, char *out, size_t cap)
{
    char exe[1100], cmd[3000];
    cli_path(exe, sizeof exe);
    snprintf(cmd, sizeof cmd, "DVAL_LOCAL_CACHE_DIR='%s' '%s' image %s "
             "--executor local --state-dir '%s' 2>&1", f->cache, exe, args,
             f->t.dir);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(test_image_cache__cli_pull_ls_rm)
{
    lt_pull_fx f;
    lt_pull_open(&f, "img-cli");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "");
    lt_pull_push(&f, "v1", "test/cli:v1", "");
    char ref[300], args[400], out[8192];
    lt_reg_name(&f.r, "test/cli:v1", ref, sizeof ref);
    snprintf(args, sizeof args, "pull %s", ref);
    CHECK_INT(cli(&f, args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "layer 1/2");
    CHECK_CONTAINS(out, "layer 2/2");
    CHECK_CONTAINS(out, "digest verified");
    CHECK_CONTAINS(out, "\tpulled");
    CHECK_INT(cli(&f, "ls", out, sizeof out), 0);
    CHECK_CONTAINS(out, "REF\tMANIFEST\tPULLED\n");
    CHECK_CONTAINS(out, "test/cli:v1\tsha256:");
    snprintf(args, sizeof args, "rm %s", ref);
    CHECK_INT(cli(&f, args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "\tremoved");
    CHECK_INT(cli(&f, "ls", out, sizeof out), 0);
    CHECK(strstr(out, "test/cli") == NULL);
    CHECK_INT(cli(&f, args, out, sizeof out), 66);
    CHECK_CONTAINS(out, "not in the cache");
    CHECK_INT(cli(&f, "pull", out, sizeof out), 64);
    lt_pull_close(&f);
}
