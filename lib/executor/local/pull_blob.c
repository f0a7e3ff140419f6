/* Blobs of pulled images in the image cache, each under its digest:
 * a download goes to tmp/<hex>.part, hashed as it arrives; only a blob
 * whose bytes match its digest (and its descriptor's size) is renamed
 * into blobs/sha256/, so what is there was verified, and images sharing
 * a layer share the file. A cut download resumes where its .part ends
 * (HTTP Range); a blob that does not match is deleted, never kept. One
 * process downloads a blob at a time (tmp/<hex>.lock); the others then
 * find it. Progress lines (bytes of the total) go to the build log. */
#include "pull.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPORT_EVERY_MS 1000

typedef struct download {
    lx_pull *p;
    const char *digest, *label;
    int fd;
    lx_sha256 sha;              /* freed by download_locked, on every path */
    int64_t have, size;         /* bytes in the .part file; expected */
    int64_t from;               /* where this attempt's response starts */
    int started;                /* this attempt's first bytes came */
    const lx_http_resp *rs;
    char range[64];
    int64_t reported_ms;
    int failed;                 /* why take_bytes stopped the transfer */
} download;

void lx_blob_path(const lx_pull *p, const char *d, char *dst, size_t cap)
{
    dval__fmt(dst, cap, "%s/blobs/sha256/%s", p->cache, d + 7);
}

int lx_blob_present(const lx_pull *p, const char *d)
{
    char path[4200];
    lx_blob_path(p, d, path, sizeof path);
    return access(path, F_OK) == 0;
}

static int blob_write_all(int fd, const char *d, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, d, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        d += w;
        n -= (size_t)w;
    }
    return 0;
}

/* fd's file (at tmp, already written and checked) becomes blob d. */
static int place(lx_pull *p, int fd, const char *tmp, const char *d)
{
    char path[4200];
    lx_blob_path(p, d, path, sizeof path);
    if (fdatasync(fd) < 0 || rename(tmp, path) < 0) /* never a torn blob */
        return dval__call_fail(p->c, DVAL_EIO, "cache %s: %s", path,
                               strerror(errno));
    return DVAL_OK;
}

int lx_blob_store(lx_pull *p, const char *d, const char *data, size_t n)
{
    char tmp[4200], got[LX_DIGEST_MAX];
    if (lx_sha256_of(data, n, got, sizeof got) < 0)
        return dval__call_fail(p->c, DVAL_ENOMEM, "pull %s: no SHA-256 of "
                               "%s (out of memory)", p->ref.canon, d);
    if (strcmp(got, d) != 0)
        return dval__call_fail(p->c, DVAL_EPROTOCOL, "pull %s: %s does not "
                               "match its digest: refused", p->ref.canon, d);
    if (lx_blob_present(p, d))
        return DVAL_OK;
    dval__fmt(tmp, sizeof tmp, "%s/tmp/%s.%d.%lu", p->cache, d + 7,
              (int)getpid(), lx_seq());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd >= 0 && blob_write_all(fd, data, n) == 0
             ? place(p, fd, tmp, d)
             : dval__call_fail(p->c, DVAL_EIO, "cache %s: %s", tmp,
                               strerror(errno));
    if (fd >= 0)
        close(fd);
    if (rc != DVAL_OK)
        unlink(tmp);
    return rc;
}

static void report(download *dl, int done)
{
    char line[300];
    int64_t now = dval__now_ms();
    if (!done && now - dl->reported_ms < REPORT_EVERY_MS)
        return;
    dl->reported_ms = now;
    dval__fmt(line, sizeof line, "pull %s %.19s: %.1f/%.1f MB%s\n",
              dl->label, dl->digest, (double)dl->have / 1e6,
              (double)dl->size / 1e6, done ? " done, digest verified" : "");
    lx_io_write(dl->p->io, line, strlen(line));
}

/* Back to an empty .part (a registry that answers a Range with the
 * whole blob, or a .part longer than the blob). */
static int restart(download *dl)
{
    lx_sha256_init(&dl->sha); /* a failure is finish's, as it is sticky */
    dl->have = 0;
    return ftruncate(dl->fd, 0) == 0 && lseek(dl->fd, 0, SEEK_SET) == 0
           ? 0 : -1;
}

/* An attempt's first bytes: do they start where the .part ends? */
static int check_start(download *dl)
{
    dl->failed = DVAL_EPROTOCOL;
    dl->started = 1;
    if (dl->from == 0 || dl->rs->range_start == dl->from)
        return 0;
    if (dl->rs->range_start < 0) /* the whole blob again: from 0 */
        return restart(dl);
    dval__call_fail(dl->p->c, DVAL_EPROTOCOL, "pull %s: blob %s: the "
                    "registry resumed at byte %lld, not %lld",
                    dl->p->ref.canon, dl->digest,
                    (long long)dl->rs->range_start, (long long)dl->from);
    return -1;
}

static int take_bytes(const char *d, size_t n, void *ud)
{
    download *dl = ud;
    if (!dl->started && check_start(dl) < 0)
        return 1;
    if (dl->have + (int64_t)n > dl->size) {
        dl->failed = DVAL_EPROTOCOL;
        dval__call_fail(dl->p->c, DVAL_EPROTOCOL, "pull %s: blob %s is "
                        "longer than its descriptor's %lld bytes: refused",
                        dl->p->ref.canon, dl->digest, (long long)dl->size);
        return 1;
    }
    if (blob_write_all(dl->fd, d, n) < 0) {
        dl->failed = DVAL_EIO;
        dval__call_fail(dl->p->c, DVAL_EIO, "cache: %s", strerror(errno));
        return 1;
    }
    lx_sha256_update(&dl->sha, d, n);
    dl->have += (int64_t)n;
    dl->p->downloaded += (int64_t)n;
    report(dl, 0);
    return 0;
}

/* Before each attempt: ask for what the .part lacks. */
static int ask_rest(void *ud, const char **h, size_t cap, size_t *n)
{
    download *dl = ud;
    dl->from = dl->have;
    dl->started = 0;
    if (dl->have > 0 && *n < cap) {
        dval__fmt(dl->range, sizeof dl->range, "Range: bytes=%lld-",
                  (long long)dl->have);
        h[(*n)++] = dl->range;
    }
    return DVAL_OK;
}

/* The .part a cut download left: hashed again (the hash state is not
 * kept), or emptied when it cannot be part of this blob. */
static int reopen_part(download *dl, const char *part)
{
    char buf[65536];
    ssize_t n;
    dl->fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (dl->fd < 0)
        return dval__call_fail(dl->p->c, DVAL_EIO, "cache %s: %s", part,
                               strerror(errno));
    if (lx_sha256_init(&dl->sha) < 0)
        return dval__call_fail(dl->p->c, DVAL_ENOMEM, "pull %s: blob %s: no "
                               "SHA-256 (out of memory)", dl->p->ref.canon,
                               dl->digest);
    while ((n = read(dl->fd, buf, sizeof buf)) > 0) {
        lx_sha256_update(&dl->sha, buf, (size_t)n);
        dl->have += n;
    }
    if ((n < 0 || dl->have > dl->size) && restart(dl) < 0)
        return dval__call_fail(dl->p->c, DVAL_EIO, "cache %s: %s", part,
                               strerror(errno));
    if (dl->have > 0)
        LX_LOG(dl->p->x, DVAL_LOG_INFO, "local executor: pull %s: blob %s "
               "resumes at byte %lld", dl->p->ref.canon, dl->digest,
               (long long)dl->have);
    return DVAL_OK;
}

/* The whole blob arrived: its size and digest decide if it is kept. */
static int finish(download *dl, const char *part)
{
    char got[LX_DIGEST_MAX];
    if (lx_sha256_final(&dl->sha, got, sizeof got) < 0) /* .part kept */
        return dval__call_fail(dl->p->c, DVAL_ENOMEM, "pull %s: blob %s: no "
                               "SHA-256 (out of memory)", dl->p->ref.canon,
                               dl->digest);
    if (dl->have != dl->size || strcmp(got, dl->digest) != 0) {
        unlink(part);
        return dval__call_fail(dl->p->c, DVAL_EPROTOCOL, "pull %s: blob %s "
                               "does not match its digest%s: refused, "
                               "nothing kept", dl->p->ref.canon, dl->digest,
                               dl->have != dl->size ? " (short)" : "");
    }
    report(dl, 1);
    return place(dl->p, dl->fd, part, dl->digest);
}

/* Under the blob's lock: the download into the .part, then the cache. */
static int download_locked(lx_pull *p, download *dl)
{
    char part[4200], path[300];
    lx_http_resp rs = { .status = 0 };
    dval__fmt(part, sizeof part, "%s/tmp/%s.part", p->cache, dl->digest + 7);
    dval__fmt(path, sizeof path, "blobs/%s", dl->digest);
    dl->rs = &rs;
    int rc = reopen_part(dl, part);
    if (rc == DVAL_OK && dl->have < dl->size)
        rc = lx_fetch(p, path, NULL, ask_rest, take_bytes, dl, &rs,
                      &dl->have);
    if (rc == DVAL_EABORTED && dl->failed)
        rc = dl->failed;
    if (rc == DVAL_EPROTOCOL && (dl->failed || rs.status == 416))
        unlink(part); /* bytes that cannot be this blob: not resumed */
    if (rc == DVAL_OK)
        rc = finish(dl, part);
    if (dl->fd >= 0)
        close(dl->fd);
    lx_sha256_free(&dl->sha);
    return rc;
}

int lx_blob_ensure(lx_pull *p, const char *d, int64_t size,
                   const char *label)
{
    char lock[4200];
    download dl = { .p = p, .digest = d, .label = label, .fd = -1,
                    .size = size };
    if (size < 0 || size > p->max_blob)
        return dval__call_fail(p->c, DVAL_ETOOBIG, "pull %s: blob %s has "
                               "%lld bytes, over the limit of %lld "
                               "(DVAL_LOCAL_PULL_MAX_BLOB)", p->ref.canon, d,
                               (long long)size, (long long)p->max_blob);
    if (lx_blob_present(p, d)) { /* another image's, or an earlier pull's */
        char line[300];
        dval__fmt(line, sizeof line, "pull %s cached (%.19s)\n", label, d);
        lx_io_write(p->io, line, strlen(line));
        return DVAL_OK;
    }
    dval__fmt(lock, sizeof lock, "%s/tmp/%s.lock", p->cache, d + 7);
    int64_t left = p->end - dval__now_ms();
    int lk = lx_lock(p->c, lock, left > 0 ? left : 1);
    if (lk < 0)
        return lk;
    int rc = lx_blob_present(p, d) ? DVAL_OK : download_locked(p, &dl);
    lx_unlock(lk);
    return rc;
}
