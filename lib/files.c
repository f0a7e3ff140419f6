/* File transfer: paths checked before the wire, uploads streamed from
 * memory or a file (rewound on retry), downloads bounded in memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_json.h"
#include "executor.h"

static int check(dval_sandbox *sb, const char *path)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    sb->errmsg[0] = '\0';
    return dval__check_remote_path(path, sb->errmsg, sizeof sb->errmsg);
}

/* A transfer whose failures are worded on the handle. */
static dval__ex_op *op_init(dval__ex_op *op, dval_sandbox *sb,
                            const char *what, const char *path)
{
    dval__ex_op_init(op, what, DVAL__IDEMPOTENT, sb->errmsg, sizeof sb->errmsg);
    op->cancel_fd = sb->cancel_fd;
    op->subject = path;
    return op;
}

/* A streamed transfer: hooks rewind the stream or end the retries. */
static dval__ex_op *stream_op(dval__ex_op *op, dval_sandbox *sb,
                              const char *what, const char *path,
                              int (*rewind)(void *), int (*final)(void *),
                              void *ud)
{
    op_init(op, sb, what, path);
    op->rewind = rewind;
    op->final = final;
    op->hook_ud = ud;
    return op;
}

/* ---- upload sources */
typedef struct src {
    const char *mem;
    size_t len, off;
    int fd;
    int failed_errno;
} src;

static int src_read(char *buf, size_t cap, size_t *len, void *ud)
{
    src *s = ud;
    if (s->fd < 0) {
        size_t n = s->len - s->off < cap ? s->len - s->off : cap;
        memcpy(buf, s->mem + s->off, n);
        s->off += n;
        *len = n;
        return 0;
    }
    for (;;) {
        ssize_t n = read(s->fd, buf, cap);
        if (n >= 0) {
            *len = (size_t)n;
            return 0;
        }
        if (errno != EINTR) {
            s->failed_errno = errno;
            return 1;
        }
    }
}

/* Rewinds the source for another attempt; a read error is final. */
static int src_rewind(void *ud)
{
    src *s = ud;
    s->off = 0;
    if (!s->failed_errno && s->fd >= 0 && lseek(s->fd, 0, SEEK_SET) < 0)
        s->failed_errno = errno;
    return s->failed_errno != 0;
}

static int src_failed(void *ud)
{
    return ((src *)ud)->failed_errno != 0;
}

static int upload(dval_sandbox *sb, const char *path, src *s, int64_t size)
{
    dval__ex_op op;
    stream_op(&op, sb, "upload", path, src_rewind, src_failed, s);
    int rc = dval__ex_file_upload(sb->client, &op, sb->info.id, path,
                                  src_read, s, size);
    if (s->failed_errno) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "reading the local file: %s",
                  strerror(s->failed_errno));
        return DVAL_EIO;
    }
    return rc;
}

DVAL_API int dval_sandbox_upload(dval_sandbox *sb, const char *remote_path,
                                 const void *data, size_t len)
{
    int rc = check(sb, remote_path);
    if (!rc && !data && len)
        rc = DVAL_EINVAL;
    if (rc)
        return rc;
    src s = { .mem = data, .len = len, .fd = -1 };
    return upload(sb, remote_path, &s, (int64_t)len);
}

DVAL_API int dval_sandbox_upload_file(dval_sandbox *sb, const char *remote_path,
                                      const char *local_path)
{
    int rc = check(sb, remote_path);
    if (!rc && !local_path)
        rc = DVAL_EINVAL;
    dval__ex_op op; /* no local file is opened for nothing */
    if (!rc)
        rc = DVAL__EX_NEED(sb->client, op_init(&op, sb, "upload", remote_path),
                           file_upload);
    if (rc)
        return rc;
    src s = { .fd = open(local_path, O_RDONLY | O_CLOEXEC) };
    struct stat st;
    if (s.fd < 0 || fstat(s.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s: %s", local_path,
                  s.fd < 0 ? strerror(errno) : "not a regular file");
        if (s.fd >= 0)
            close(s.fd);
        return DVAL_EIO;
    }
    rc = upload(sb, remote_path, &s, (int64_t)st.st_size);
    close(s.fd);
    return rc;
}

/* ---- downloads: one sink for memory, file and caller destinations */
typedef struct dl {
    dval__buf *mem;           /* or */
    int fd;                   /* or (-1) */
    dval_data_fn user;
    void *ud;
    const dval_client *client; /* for the reentrancy guard */
    const dval_call *call;    /* the running attempt's (its size hint) */
    uint64_t bytes;
    int64_t max;              /* memory limit */
    int toobig, stopped, io_errno;
} dl;

/* Before the first byte into memory: the size the executor read off the
 * wire (dval_call.size_hint) becomes the one allocation, within the
 * limit. */
static void reserve(dl *d)
{
    int64_t n = d->call ? d->call->size_hint : -1;
    if (n > 0 && (d->max <= 0 || n <= d->max))
        (void)dval__buf_reserve(d->mem, (size_t)n);
}

static int download_sink(const char *data, size_t len, void *ud)
{
    dl *d = ud;
    if (d->mem && !d->bytes && !d->mem->len)
        reserve(d);
    d->bytes += len;
    if (d->mem) {
        if (d->max > 0 && d->bytes > (uint64_t)d->max) {
            d->toobig = 1;
            return 1;
        }
        if (dval__buf_append(d->mem, data, len)) {
            d->io_errno = ENOMEM;
            return 1;
        }
        return 0;
    }
    if (d->fd >= 0) {
        while (len) {
            ssize_t n = write(d->fd, data, len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                d->io_errno = errno;
                return 1;
            }
            data += n;
            len -= (size_t)n;
        }
        return 0;
    }
    if (dval__cb_data(d->client, d->user, data, len, d->ud)) {
        d->stopped = 1;
        return 1;
    }
    return 0;
}

/* Restarts a destination for a retry; nonzero when it cannot be. */
static int dl_rewind(void *ud)
{
    dl *d = ud;
    if (d->mem)
        d->mem->len = 0;
    else if (d->fd >= 0)
        return !(ftruncate(d->fd, 0) == 0 && lseek(d->fd, 0, SEEK_SET) == 0);
    else if (d->bytes)
        return 1; /* the caller has seen bytes: never replay them */
    d->bytes = 0;
    return 0;
}

/* The sink refused the data: the failure is ours, not the executor's. */
static int dl_failed(void *ud)
{
    const dl *d = ud;
    return d->toobig || d->stopped || d->io_errno;
}

static int download(dval_sandbox *sb, const char *path, dl *d)
{
    dval__ex_op op;
    stream_op(&op, sb, "download", path, dl_rewind, dl_failed, d);
    d->call = &op.call;       /* each attempt's call is op.call */
    int rc = dval__ex_file_download(sb->client, &op, sb->info.id, path,
                                    download_sink, d);
    if (d->toobig) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s is larger than the "
                  "limit of %lld bytes", path, (long long)d->max);
        return DVAL_ETOOBIG;
    }
    if (d->stopped) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "download of %s stopped by "
                  "the callback", path);
        return DVAL_EABORTED;
    }
    if (d->io_errno) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "download of %s: %s", path,
                  strerror(d->io_errno));
        return d->io_errno == ENOMEM ? DVAL_ENOMEM : DVAL_EIO;
    }
    return rc;
}

DVAL_API int dval_sandbox_download(dval_sandbox *sb, const char *remote_path,
                                   char **data, size_t *len)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    int rc = check(sb, remote_path);
    if (rc || !data)
        return rc ? rc : DVAL_EINVAL;
    dval__buf b = { 0 };
    dl d = { .mem = &b, .fd = -1, .max = sb->client->cfg.max_download_bytes };
    rc = download(sb, remote_path, &d);
    if (rc == DVAL_OK && !b.data && dval__buf_append(&b, "", 0))
        rc = DVAL_ENOMEM;
    if (rc) {
        dval__buf_free(&b);
        return rc;
    }
    *data = b.data;
    if (len)
        *len = b.len;
    return DVAL_OK;
}

DVAL_API int dval_sandbox_download_to(dval_sandbox *sb, const char *remote_path,
                                      dval_data_fn sink, void *userdata)
{
    int rc = check(sb, remote_path);
    if (rc || !sink)
        return rc ? rc : DVAL_EINVAL;
    dl d = { .fd = -1, .user = sink, .ud = userdata, .client = sb->client };
    return download(sb, remote_path, &d);
}

/* Downloads into a temporary file next to local_path and renames it into
 * place on success: a failed download never destroys or truncates an
 * existing file, and never leaves a partial one. */
DVAL_API int dval_sandbox_download_file(dval_sandbox *sb, const char *remote_path,
                                        const char *local_path)
{
    int rc = check(sb, remote_path);
    if (rc || !local_path || !*local_path)
        return rc ? rc : DVAL_EINVAL;
    dval__buf tmp = { 0 };
    if (dval__buf_appendf(&tmp, "%s.dval-XXXXXX", local_path))
        return DVAL_ENOMEM;
    int fd = mkostemp(tmp.data, O_CLOEXEC);
    if (fd < 0) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s: %s", local_path,
                  strerror(errno));
        dval__buf_free(&tmp);
        return DVAL_EIO;
    }
    fchmod(fd, 0644);
    dl d = { .fd = fd };
    rc = download(sb, remote_path, &d);
    if (close(fd) != 0 && rc == DVAL_OK) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s: %s", local_path,
                  strerror(errno));
        rc = DVAL_EIO;
    }
    if (rc == DVAL_OK && rename(tmp.data, local_path) != 0) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s: %s", local_path,
                  strerror(errno));
        rc = DVAL_EIO;
    }
    if (rc)
        unlink(tmp.data);
    dval__buf_free(&tmp);
    return rc;
}

DVAL_API int dval_sandbox_download_json(dval_sandbox *sb, const char *remote_path,
                                        char **json)
{
    size_t len = 0;
    int rc = dval_sandbox_download(sb, remote_path, json, &len);
    if (rc)
        return rc;
    char msg[512];
    rc = dval__json_check(*json, len, msg, sizeof msg);
    if (rc) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "%s: %s", remote_path, msg);
        dval_free(*json);
        *json = NULL;
    }
    return rc;
}

DVAL_API int dval_sandbox_mkdir(dval_sandbox *sb, const char *remote_path)
{
    int rc = check(sb, remote_path);
    if (rc)
        return rc;
    dval__ex_op op;
    return dval__ex_folder_create(sb->client, op_init(&op, sb, "mkdir",
                                  remote_path), sb->info.id, remote_path);
}
