/* File transfer: paths checked before the wire, uploads streamed from
 * memory or a file (rewound on retry), downloads bounded in memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "retry.h"

static int check(dval_sandbox *sb, const char *path)
{
    if (!sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    sb->errmsg[0] = '\0';
    return dval__check_remote_path(path, sb->errmsg, sizeof sb->errmsg);
}

static int need(dval_sandbox *sb, const void *member, const char *what)
{
    if (member)
        return DVAL_OK;
    dval__fmt(sb->errmsg, sizeof sb->errmsg, "executor %s cannot %s",
              sb->client->executor_name, what);
    return DVAL_EUNSUPPORTED;
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

static int upload(dval_sandbox *sb, const char *path, src *s, int64_t size)
{
    struct dval_executor *x = &sb->client->ex;
    dval__retry r;
    dval_call call;
    int rc;
    dval__retry_begin(&r, sb->client, "upload", DVAL__IDEMPOTENT, -1);
    do {
        s->off = 0;
        if (s->fd >= 0 && lseek(s->fd, 0, SEEK_SET) < 0)
            return DVAL_EIO;
        dval__retry_call(&r, &call, 0);
        rc = x->file_upload(x->userdata, &call, sb->info.id, path, src_read, s,
                            size);
    } while (!s->failed_errno && dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
    if (s->failed_errno) {
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "reading the local file: %s",
                  strerror(s->failed_errno));
        return DVAL_EIO;
    }
    if (rc)
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "upload %s: %s", path,
                  call.errmsg[0] ? call.errmsg : dval_strerror(rc));
    return rc;
}

DVAL_API int dval_sandbox_upload(dval_sandbox *sb, const char *remote_path,
                                 const void *data, size_t len)
{
    int rc = check(sb, remote_path);
    if (!rc && !data && len)
        rc = DVAL_EINVAL;
    if (!rc)
        rc = need(sb, sb->client->ex.file_upload, "upload files");
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
    if (!rc)
        rc = need(sb, sb->client->ex.file_upload, "upload files");
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
    uint64_t bytes;
    int64_t max;              /* memory limit */
    int toobig, stopped, io_errno;
} dl;

static int dl_sink(const char *data, size_t len, void *ud)
{
    dl *d = ud;
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
    const dval_client *prev = dval__cb_enter(d->client);
    int stop = d->user(data, len, d->ud);
    dval__cb_leave(prev);
    if (stop) {
        d->stopped = 1;
        return 1;
    }
    return 0;
}

/* Restarts a destination for a retry; 0 when it cannot be restarted. */
static int dl_rewind(dl *d)
{
    if (d->mem)
        d->mem->len = 0;
    else if (d->fd >= 0)
        return ftruncate(d->fd, 0) == 0 && lseek(d->fd, 0, SEEK_SET) == 0;
    else if (d->bytes)
        return 0; /* the caller has seen bytes: never replay them */
    d->bytes = 0;
    return 1;
}

static int download(dval_sandbox *sb, const char *path, dl *d)
{
    struct dval_executor *x = &sb->client->ex;
    int rc = need(sb, x->file_download, "download files");
    if (rc)
        return rc;
    dval__retry r;
    dval_call call;
    dval__retry_begin(&r, sb->client, "download", DVAL__IDEMPOTENT, -1);
    do {
        if (r.attempt && !dl_rewind(d))
            break;
        dval__retry_call(&r, &call, 0);
        rc = x->file_download(x->userdata, &call, sb->info.id, path, dl_sink, d);
    } while (!d->toobig && !d->stopped && !d->io_errno &&
             dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
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
    if (rc)
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "download %s: %s", path,
                  call.errmsg[0] ? call.errmsg : dval_strerror(rc));
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
    if (!rc)
        rc = need(sb, sb->client->ex.folder_create, "create folders");
    if (rc)
        return rc;
    struct dval_executor *x = &sb->client->ex;
    dval__retry r;
    dval_call call;
    dval__retry_begin(&r, sb->client, "mkdir", DVAL__IDEMPOTENT, -1);
    do {
        dval__retry_call(&r, &call, 0);
        rc = x->folder_create(x->userdata, &call, sb->info.id, remote_path);
    } while (dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
    if (rc)
        dval__fmt(sb->errmsg, sizeof sb->errmsg, "mkdir %s: %s", remote_path,
                  call.errmsg[0] ? call.errmsg : dval_strerror(rc));
    return rc;
}
