/* dval_validate's inputs of the run phase (dval_validation.args and
 * .stdin_data): checked with the request, the words appended shell-quoted
 * to the run command's text, the stdin bytes uploaded as a file of the
 * working directory that the run command reads (a redirection of its
 * text). Text and a file upload only, so every executor gives them the
 * same way, and the core never asks which one it talks to. */
#include <string.h>

#include "validate.h"

#define MAX_WORDS 256
#define MAX_WORD_BYTES (64u << 10)
#define MAX_STDIN ((size_t)16 << 20)
/* in the workdir, outside results/ so it is never taken for a result */
#define STDIN_NAME ".dval-stdin"

static int bad(dval__vctx *v, const char *msg)
{
    return dval__validate_fail(v, DVAL_EINVAL, "request", msg);
}

int dval__inputs_check(dval__vctx *v)
{
    const dval_validation *q = &v->req;
    size_t n = 0, bytes = 0;
    for (; q->args && q->args[n]; n++)
        bytes += strlen(q->args[n]);
    char msg[200];
    if (n > MAX_WORDS || bytes > MAX_WORD_BYTES) {
        dval__fmt(msg, sizeof msg, "args: at most %d words of %u KiB "
                  "together (got %zu words, %zu bytes)", MAX_WORDS,
                  MAX_WORD_BYTES >> 10, n, bytes);
        return bad(v, msg);
    }
    if (q->stdin_len && !q->stdin_data)
        return bad(v, "stdin_len is set but stdin_data is NULL");
    if (q->stdin_len > MAX_STDIN) {
        dval__fmt(msg, sizeof msg, "stdin_len: at most %zu bytes (16 MiB), "
                  "got %zu", MAX_STDIN, q->stdin_len);
        return bad(v, msg);
    }
    return DVAL_OK;
}

/* The run command with the request's words after it and, with stdin,
 * all of it in a group reading the file (the newline: a run command may
 * end in a comment). */
int dval__inputs_run_text(dval__vctx *v)
{
    const dval_validation *q = &v->req;
    if (!v->run_cmd || (!(q->args && q->args[0]) && !q->stdin_data))
        return DVAL_OK;
    dval__buf *b = &v->run_text;
    int rc = q->stdin_data ? dval__buf_appendf(b, "{ ") : DVAL_OK;
    rc = rc ? rc : dval__buf_appendf(b, "%s", v->run_cmd);
    for (size_t i = 0; !rc && q->args && q->args[i]; i++) {
        rc = dval__buf_appendf(b, " ");
        rc = rc ? rc : dval__shell_quote(b, q->args[i]);
    }
    if (!rc && q->stdin_data)
        rc = dval__buf_appendf(b, "\n} < " STDIN_NAME);
    if (rc)
        return dval__validate_fail(v, rc, "request", NULL);
    v->run_cmd = b->data;
    return DVAL_OK;
}

int dval__inputs_upload(dval__vctx *v)
{
    if (!v->req.stdin_data)
        return DVAL_OK;
    char remote[300];
    dval__fmt(remote, sizeof remote, "%s/" STDIN_NAME, v->workdir);
    int rc = dval_sandbox_upload(v->sb, remote, v->req.stdin_data,
                                 v->req.stdin_len);
    if (rc) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "stdin: %s", dval_sandbox_errmsg(v->sb));
        return dval__validate_fail(v, rc, "upload", m);
    }
    v->bytes += v->req.stdin_len;
    return DVAL_OK;
}
