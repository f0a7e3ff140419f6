/* Sessions: naming, open/close, cancellation. The exec engine lives in
 * exec.c. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "retry.h"

/* Failures are reported on the client (safe when several threads open
 * sessions of one sandbox) and, for single-threaded callers, on the
 * sandbox as before. */
static void open_fail(dval_sandbox *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void open_fail(dval_sandbox *sb, const char *fmt, ...)
{
    char msg[DVAL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dval__client_seterr(sb->client, "%s", msg);
    dval__strlcpy(sb->errmsg, msg, sizeof sb->errmsg);
}

DVAL_API int dval_session_open(dval_session **out, dval_sandbox *sb)
{
    if (out)
        *out = NULL;
    if (!out || !sb)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(sb->client);
    size_t nlen = strlen(sb->opts.name);
    if (nlen + 37 >= DVAL_ID_MAX) {
        open_fail(sb, "sandbox name too long for "
                  "a session id (at most %d bytes)", DVAL_ID_MAX - 38);
        return DVAL_EINVAL;
    }
    struct dval_executor *x = &sb->client->ex;
    if (!x->session_create || !x->command_start || !x->command_status) {
        open_fail(sb, "executor %s cannot run "
                  "sessions", sb->client->executor_name);
        return DVAL_EUNSUPPORTED;
    }
    dval_session *s = dval__calloc(1, sizeof *s);
    if (!s)
        return DVAL_ENOMEM;
    if (pipe2(s->cancel_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        dval__free(s);
        open_fail(sb, "pipe: out of descriptors");
        return DVAL_EIO;
    }
    uuid_t u;
    char us[37];
    uuid_generate_random(u);
    uuid_unparse_lower(u, us);
    dval__fmt(s->id, sizeof s->id, "%s-%s", sb->opts.name, us);
    s->sandbox = sb;
    dval__sandbox_ref(sb);

    dval__retry r;
    dval_call call;
    int rc;
    dval__retry_begin(&r, sb->client, "create session",
                      DVAL__IDEMPOTENT | DVAL__TOOLBOX_WARMUP, s->cancel_pipe[0]);
    do {
        dval__retry_call(&r, &call, 0);
        rc = x->session_create(x->userdata, &call, sb->info.id, s->id);
        if (rc == DVAL_EEXISTS && r.attempt > 1)
            rc = DVAL_OK; /* an earlier attempt did create it */
    } while (dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
    if (rc) {
        open_fail(sb, "create session %s: %s",
                  s->id, call.errmsg[0] ? call.errmsg : dval_strerror(rc));
        dval_session_free(s);
        return rc;
    }
    s->open = 1;
    DVAL__LOG(sb->client, DVAL_LOG_DEBUG, "session %s opened", s->id);
    *out = s;
    return DVAL_OK;
}

DVAL_API const char *dval_session_id(const dval_session *s)
{
    return s ? s->id : "";
}

DVAL_API const char *dval_session_errmsg(const dval_session *s)
{
    return s ? s->errmsg : "no session";
}

DVAL_API int dval_session_cancel(dval_session *s)
{
    if (!s)
        return DVAL_EINVAL;
    int expected = 0;
    if (atomic_compare_exchange_strong(&s->canceled, &expected, 1)) {
        char b = 1;
        ssize_t n = write(s->cancel_pipe[1], &b, 1);
        (void)n; /* a full pipe is already readable */
    }
    return DVAL_OK;
}

DVAL_API int dval_session_close(dval_session *s)
{
    if (!s)
        return DVAL_EINVAL;
    if (atomic_load(&s->busy))
        return DVAL_EREENTRANT;
    DVAL__NO_REENTRY(s->sandbox->client);
    if (!s->open)
        return DVAL_OK;
    dval_sandbox *sb = s->sandbox;
    struct dval_executor *x = &sb->client->ex;
    if (!x->session_delete) {
        s->open = 0;
        return DVAL_OK;
    }
    dval__retry r;
    dval_call call;
    int rc;
    dval__retry_begin(&r, sb->client, "delete session", DVAL__IDEMPOTENT, -1);
    do {
        dval__retry_call(&r, &call, 0);
        rc = x->session_delete(x->userdata, &call, sb->info.id, s->id);
    } while (dval__retry_again(&r, rc, &call));
    rc = dval__retry_status(&r, rc);
    if (rc == DVAL_ENOTFOUND)
        rc = DVAL_OK;
    if (rc)
        dval__fmt(s->errmsg, sizeof s->errmsg, "delete session %s: %s", s->id,
                  call.errmsg);
    else
        s->open = 0;
    return rc;
}

DVAL_API void dval_session_free(dval_session *s)
{
    if (!s)
        return;
    close(s->cancel_pipe[0]);
    close(s->cancel_pipe[1]);
    dval__sandbox_unref(s->sandbox);
    dval__free(s);
}
