/* Pulls against a registry that misbehaves (tests/local/registry.py's
 * proxy): a corrupt blob is refused and nothing of it is cached; a 429
 * waits its Retry-After; a download cut halfway resumes with a Range
 * request; layers with whiteouts apply as in an OCI layout, hostile ones
 * are refused; a layer two images share is downloaded once; a download
 * that stalls ends when the call is canceled. */
#include "lt.h"
#include "registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PY "/usr/bin/python3 %s/tests/local/oci_layout.py"

static const char *repo(void)
{
    static char here[1024];
    return getcwd(here, sizeof here) ? here : ".";
}

/* In <w>: image <tag> of the layer tarballs files (in <w>), pushed as
 * test/<tag>:v1; its layer digests (one a line) into digests. */
static void image(lt_pull_fx *f, const char *tag, const char *files,
                  char *digests, size_t cap)
{
    char cmd[2400], src[800], dest[200];
    snprintf(cmd, sizeof cmd, "cd %s && " PY " image l %s %s >/dev/null",
             f->w, repo(), tag, files);
    lt_sh(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && " PY " layers l %s", f->w, repo(),
             tag);
    lt_sh_out(cmd, digests, cap);
    snprintf(src, sizeof src, "%s/l:%s", f->w, tag);
    snprintf(dest, sizeof dest, "test/%s:v1", tag);
    if (f->r.pid)
        lt_reg_push(&f->r, src, dest, "");
}

static void push(lt_pull_fx *f, const char *tag)
{
    char src[800], dest[200];
    snprintf(src, sizeof src, "%s/l:%s", f->w, tag);
    snprintf(dest, sizeof dest, "test/%s:v1", tag);
    lt_reg_push(&f->r, src, dest, "");
}

static int pull(lt_pull_fx *f, const char *snap, const char *tag)
{
    char name[300], ref[200];
    snprintf(ref, sizeof ref, "test/%s:v1", tag);
    lt_reg_name(&f->r, ref, name, sizeof name);
    return lt_pull_snapshot(f, snap, name);
}

/* A random file of size bytes in a gzipped layer <w>/<name>.tgz. */
static void random_layer(lt_pull_fx *f, const char *name, int size)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd %s && mkdir %s.d && head -c %d "
             "/dev/urandom > %s.d/%s.bin && tar -C %s.d -czf %s.tgz .",
             f->w, name, size, name, name, name, name);
    lt_sh(cmd);
}

static int blob_gets(lt_pull_fx *f, const char *digest)
{
    const char *n[] = { "\"GET\"", digest, NULL };
    return lt_reg_count(&f->r, n);
}

TEST(test_local_pull_faults__corrupt_blob_refused_nothing_cached)
{
    lt_pull_fx f;
    char d[200], arg[300], p[1200];
    lt_pull_open(&f, "pull-corrupt");
    random_layer(&f, "rnd", 200000);
    image(&f, "bad", "rnd.tgz", d, sizeof d);
    snprintf(arg, sizeof arg, "--corrupt %s", d);
    lt_pull_registry(&f, arg);
    push(&f, "bad");
    CHECK_INT(pull(&f, "bad", "bad"), DVAL_EPROTOCOL);
    CHECK_CONTAINS(f.t.call.errmsg, "does not match its digest");
    snprintf(p, sizeof p, "%s/oci/blobs/sha256/%s", f.cache, d + 7);
    CHECK(!lt_exists(p));
    snprintf(p, sizeof p, "%s/oci/tmp/%s.part", f.cache, d + 7);
    CHECK(!lt_exists(p));
    snprintf(p, sizeof p, "%s/snapshots/bad", f.t.dir);
    CHECK(!lt_exists(p));
    snprintf(p, sizeof p, "ls %s/oci/refs | grep -q .", f.cache);
    CHECK(system(p) != 0); /* no pin either */
    lt_pull_close(&f);
}

TEST(test_local_pull_faults__429_waits_retry_after)
{
    lt_pull_fx f;
    char d[200];
    lt_pull_open(&f, "pull-429");
    random_layer(&f, "rnd", 1000);
    lt_pull_registry(&f, "--ratelimit 1");
    image(&f, "slow", "rnd.tgz", d, sizeof d);
    int64_t t0 = dval__now_ms();
    CHECK_INT(pull(&f, "slow", "slow"), DVAL_OK);
    CHECK(dval__now_ms() - t0 >= 950); /* Retry-After: 1, not 200 ms */
    const char *limited[] = { "/blobs/", "\"status\": 429", NULL };
    CHECK_INT(lt_reg_count(&f.r, limited), 1);
    lt_pull_close(&f);
}

TEST(test_local_pull_faults__cut_download_resumes_with_range)
{
    lt_pull_fx f;
    char d[200], arg[300], p[1200];
    lt_pull_open(&f, "pull-cut");
    random_layer(&f, "rnd", 2000000);
    image(&f, "cut", "rnd.tgz", d, sizeof d);
    snprintf(arg, sizeof arg, "--cut %s", d);
    lt_pull_registry(&f, arg);
    push(&f, "cut");
    CHECK_INT(pull(&f, "cut", "cut"), DVAL_OK);
    CHECK_INT(blob_gets(&f, d), 2);
    const char *ranged[] = { d, "\"range\": \"bytes=", "\"status\": 206",
                             NULL };
    CHECK_INT(lt_reg_count(&f.r, ranged), 1);
    snprintf(p, sizeof p, "%s/oci/blobs/sha256/%s", f.cache, d + 7);
    CHECK(lt_exists(p));
    snprintf(p, sizeof p, "test -s %s/snapshots/cut/rootfs/rnd.bin", f.t.dir);
    lt_sh(p);
    lt_pull_close(&f);
}

/* The layers of test_image's OCI layout: the second removes gone.txt,
 * makes opq/ opaque after putting opq/new there, and adds a file. */
static const char whiteout_layers[] =
    "set -e; cd %s; mkdir -p l1d/opq l2d/opq; echo keep > l1d/keep.txt; "
    "echo gone > l1d/gone.txt; echo old > l1d/opq/old; "
    "tar -C l1d -czf l1.tgz .; : > l2d/.wh.gone.txt; "
    ": > l2d/opq/.wh..wh..opq; echo new > l2d/opq/new; "
    "echo added > l2d/added.txt; tar -C l2d -cf l2.tar ./opq/new "
    "./opq/.wh..wh..opq ./.wh.gone.txt ./added.txt";

/* Hostile entries, as test_image's tarballs have them. */
static const char hostile_layers[] =
    "cd %s && /usr/bin/python3 -c \"\n"
    "import io, tarfile\n"
    "def bad(path, entries):\n"
    "    with tarfile.open(path, 'w') as t:\n"
    "        for name, kind, link in entries:\n"
    "            i = tarfile.TarInfo(name); data = b'pwned'\n"
    "            i.type = kind; i.linkname = link\n"
    "            i.size = len(data) if kind == tarfile.REGTYPE else 0\n"
    "            t.addfile(i, io.BytesIO(data) if i.size else None)\n"
    "R = tarfile.REGTYPE\n"
    "bad('up.tar', [('../escape.txt', R, '')])\n"
    "bad('abs.tar', [('%s/outside/abs.txt', R, '')])\n"
    "bad('sym.tar', [('link', tarfile.SYMTYPE, '%s/outside'),\n"
    "                ('link/through.txt', R, '')])\n\"";

TEST(test_local_pull_faults__whiteouts_and_hostile_layers)
{
    lt_pull_fx f;
    char cmd[3000], d[400], p[1200];
    lt_pull_open(&f, "pull-layers");
    lt_pull_registry(&f, "");
    snprintf(cmd, sizeof cmd, whiteout_layers, f.w);
    lt_sh(cmd);
    image(&f, "wh", "l1.tgz l2.tar", d, sizeof d);
    CHECK_INT(pull(&f, "wh", "wh"), DVAL_OK);
    snprintf(cmd, sizeof cmd, "cd %s/snapshots/wh/rootfs && cat keep.txt "
             "added.txt && ls opq && ! test -e gone.txt && "
             "! ls -a . opq | grep -q wh", f.t.dir);
    lt_sh_out(cmd, p, sizeof p);
    CHECK_STR(p, "keep\nadded\nnew");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/outside", f.w);
    lt_sh(cmd);
    snprintf(cmd, sizeof cmd, hostile_layers, f.w, f.w, f.w);
    lt_sh(cmd);
    const char *bad[] = { "up", "abs", "sym" };
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s.tar", bad[i]);
        image(&f, bad[i], p, d, sizeof d);
        CHECK_INT(pull(&f, bad[i], bad[i]), DVAL_EBUILD);
        CHECK_CONTAINS(f.t.call.errmsg, "refused");
    }
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s/outside)\" && "
             "! test -e %s/escape.txt", f.w, f.t.dir);
    lt_sh(cmd);
    lt_pull_close(&f);
}

TEST(test_local_pull_faults__shared_layer_downloaded_once)
{
    lt_pull_fx f;
    char da[400], db[400];
    lt_pull_open(&f, "pull-shared");
    lt_pull_registry(&f, "");
    random_layer(&f, "base", 300000);
    random_layer(&f, "a", 1000);
    random_layer(&f, "b", 1000);
    image(&f, "one", "base.tgz a.tgz", da, sizeof da);
    image(&f, "two", "base.tgz b.tgz", db, sizeof db);
    da[strcspn(da, "\n")] = 0;
    CHECK(strncmp(da, db, strlen(da)) == 0); /* the same base layer */
    CHECK_INT(pull(&f, "one", "one"), DVAL_OK);
    CHECK_INT(pull(&f, "two", "two"), DVAL_OK);
    CHECK_INT(blob_gets(&f, da), 1);
    CHECK_CONTAINS(f.log.data, "layer 1/2 cached");
    char p[1200];
    snprintf(p, sizeof p, "test -s %s/snapshots/two/rootfs/base.bin && "
             "test -s %s/snapshots/two/rootfs/b.bin", f.t.dir, f.t.dir);
    lt_sh(p);
    lt_pull_close(&f);
}

typedef struct stall_cancel {
    int fd;
    char part[1200];    /* the layer's partial download */
    _Atomic int64_t fired_ms;
} stall_cancel;

/* Cancels once the stalled layer's first bytes are on disk (a slow host,
 * or valgrind, may take seconds to get there), or after 60 s. */
static void *cancel_when_stalled(void *arg)
{
    stall_cancel *sc = arg;
    struct stat st;
    for (int i = 0; i < 600; i++) {
        if (stat(sc->part, &st) == 0 && st.st_size > 0)
            break;
        usleep(100000);
    }
    usleep(300000); /* the registry has stopped sending by now */
    sc->fired_ms = dval__now_ms();
    if (write(sc->fd, "x", 1) != 1)
        perror("write");
    return NULL;
}

/* A registry that stops sending mid-layer: canceling the call ends the
 * pull at once (not at the 60 s stall timeout), leaving no snapshot and
 * the bytes that came, for a later resume. */
TEST(test_local_pull_faults__cancel_ends_a_stalled_download)
{
    lt_pull_fx f;
    char d[200], arg[300], name[300], p[1200];
    int fds[2];
    pthread_t th;
    lt_pull_open(&f, "pull-cancel");
    random_layer(&f, "rnd", 2000000);
    image(&f, "stall", "rnd.tgz", d, sizeof d);
    snprintf(arg, sizeof arg, "--stall %s", d);
    lt_pull_registry(&f, arg);
    push(&f, "stall");
    CHECK_INT(pipe(fds), 0);
    lt_reg_name(&f.r, "test/stall:v1", name, sizeof name);
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = "stall",
                             .image = name };
    dval_call *c = lt_call(&f.t);
    c->cancel_fd = fds[0];
    stall_cancel sc = { .fd = fds[1] };
    snprintf(sc.part, sizeof sc.part, "%s/oci/tmp/%s.part", f.cache, d + 7);
    pthread_create(&th, NULL, cancel_when_stalled, &sc);
    CHECK_INT(f.t.ex.snapshot_create(f.t.ex.userdata, c, &s, NULL, NULL,
                                     NULL), DVAL_ECANCELED);
    /* ended by the cancel, well before the 60 s stall timeout */
    CHECK(sc.fired_ms > 0 && dval__now_ms() - sc.fired_ms < 5000);
    pthread_join(th, NULL);
    snprintf(p, sizeof p, "%s/snapshots/stall", f.t.dir);
    CHECK(!lt_exists(p));
    snprintf(p, sizeof p, "test -s %s/oci/tmp/%s.part", f.cache, d + 7);
    lt_sh(p);
    close(fds[0]);
    close(fds[1]);
    lt_pull_close(&f);
}
