/* Sessions: open/close, cancellation (their names: names.c). The exec engine lives in
 * exec.c. */
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "executor.h"

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
    dval_client *c = sb->client;
    if (!DVAL__EX_HAS(c, session_create) || !DVAL__EX_HAS(c, command_start) ||
        !DVAL__EX_HAS(c, command_status)) {
        open_fail(sb, "executor %s cannot run "
                  "sessions", sb->client->executor_name);
        return DVAL_EUNSUPPORTED;
    }
    dval_session *s = dval__calloc(1, sizeof *s);
    if (!s)
        return DVAL_ENOMEM;
    /* an eventfd, not a pipe: one descriptor to make and close */
    s->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->cancel_fd < 0) {
        dval__free(s);
        open_fail(sb, "eventfd: out of descriptors");
        return DVAL_EIO;
    }
    dval__session_name(s->id, sizeof s->id, sb->opts.name);
    s->sandbox = sb;
    dval__sandbox_ref(sb);

    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, "create session", DVAL__IDEMPOTENT |
                     DVAL__EXISTS_DONE, msg, sizeof msg);
    op.subject = s->id;
    op.cancel_fd = s->cancel_fd;
    dval__ex_cmd at = { sb->info.id, s->id, NULL };
    int rc = dval__ex_session_create(c, &op, &at);
    if (rc) {
        open_fail(sb, "%s", msg);
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
        uint64_t one = 1;
        ssize_t n = write(s->cancel_fd, &one, sizeof one);
        (void)n; /* a counter at its maximum is already readable */
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
    if (!DVAL__EX_HAS(sb->client, session_delete)) {
        s->open = 0;
        return DVAL_OK;
    }
    dval__ex_op op;
    dval__ex_op_init(&op, "delete session", DVAL__IDEMPOTENT | DVAL__GONE_DONE,
                     s->errmsg, sizeof s->errmsg);
    op.subject = s->id;
    dval__ex_cmd at = { sb->info.id, s->id, NULL };
    int rc = dval__ex_session_delete(sb->client, &op, &at);
    if (rc == DVAL_OK)
        s->open = 0;
    return rc;
}

DVAL_API void dval_session_free(dval_session *s)
{
    if (!s)
        return;
    close(s->cancel_fd);
    dval__sandbox_unref(s->sandbox);
    dval__free(s);
}
