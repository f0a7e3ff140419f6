/* Session and command members against the toolbox (PROTOCOL 5; a
 * command's output, PROTOCOL 6, is api_logs.c). */
#include <string.h>

#include "command_text.h"
#include "dt.h"
#include "json_map.h"

static int oom(dval_call *c, int rc)
{
    return dval__call_fail(c, rc, rc == DVAL_EINVAL
                           ? "argument is not valid UTF-8" : "out of memory");
}

/* url = toolbox base of sandbox sb + path (%s arguments escaped) */
static int tb_url(dt_exec *ex, dval_call *c, dval__buf *url, const char *sb,
                  const char *fmt, const char *a, const char *b)
{
    int rc = dt_tb_base(ex, c, sb, url);
    if (rc)
        return rc;
    rc = dt_url(url, "", fmt, a, b);
    return rc ? oom(c, rc) : DVAL_OK;
}

int dt_session_create(void *ud, dval_call *c, const char *sb,
                      const char *sid)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    char *body = NULL;
    int rc = tb_url(ex, c, &url, sb, "/process/session", NULL, NULL);
    if (!rc && (rc = dt_json_session_create(&body, sid)) != 0)
        rc = oom(c, rc);
    if (!rc) {
        dt_req rq = {.method = "POST", .url = url.data, .json = body,
                     .create = 1};
        rc = dt_json_call(ex, c, &rq, NULL, NULL);
    }
    /* Right after a start the toolbox answers 400 or 404 until its daemon
     * is up: that is "not ready yet", not a bad request. */
    if (rc == DVAL_EBADREQUEST || rc == DVAL_ENOTFOUND)
        dt_classify(c, DVAL_FAILURE_NOT_READY);
    dval__free(body);
    dval__buf_free(&url);
    return rc;
}

int dt_session_delete(void *ud, dval_call *c, const char *sb,
                      const char *sid)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    int rc = tb_url(ex, c, &url, sb, "/process/session/%s", sid, NULL);
    if (!rc) {
        dt_req rq = {.method = "DELETE", .url = url.data, .accept = "*/*"};
        rc = dt_json_call(ex, c, &rq, NULL, NULL);
    }
    dval__buf_free(&url);
    return rc;
}

/* The sessions the daemon has whose id starts with prefix, whoever
 * opened them (the entrypoint's is not listed): other processes' or
 * hosts' validations in the sandbox. */
int dt_sandbox_sessions(void *ud, dval_call *c, const char *sb,
                        const char *prefix, int *count)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    dt_session_count sc = { prefix ? prefix : "", 0 };
    int rc = tb_url(ex, c, &url, sb, "/process/session", NULL, NULL);
    if (!rc) {
        dt_req rq = {.method = "GET", .url = url.data};
        rc = dt_json_call(ex, c, &rq, dt_json_session_count, &sc);
    }
    *count = sc.count;
    dval__buf_free(&url);
    return rc;
}

/* argv as shell words: "exec" then each word quoted, so the program is
 * found through PATH (never a shell function or builtin) with exactly
 * these arguments. */
static int argv_text(dval__buf *out, const char *const *argv)
{
    int rc = dval__buf_append(out, "exec", 4);
    for (size_t i = 0; !rc && argv[i]; i++) {
        rc = dval__buf_append(out, " ", 1);
        rc = rc ? rc : dval__shell_quote(out, argv[i]);
    }
    return rc;
}

/* The one shell string the toolbox's exec takes for cmd: "cd" to its
 * cwd first, then its env as an export, then its text or words. The
 * session shell sources the string (PROTOCOL 5.1): it runs in a child
 * shell so `exit`, `exec` or `set -e` cannot kill the session; its stdin
 * empty, as on every executor: the session's own is a FIFO held open
 * until the command ends, so a program that reads stdin would wait for
 * ever. */
static int exec_text(dval__buf *out, const dval_command *cmd)
{
    dval__buf what = {0}, env = {0}, text = {0};
    int rc = cmd->argv ? argv_text(&what, cmd->argv)
                       : dval__buf_append(&what, cmd->text, strlen(cmd->text));
    const char *body = what.data;
    if (!rc && cmd->env && cmd->env[0]) {
        rc = dval__exec_env_text(&env, cmd->env, what.data);
        body = env.data;
    }
    rc = rc ? rc : dval__command_in_dir(&text, cmd->cwd, body);
    rc = rc ? rc : dval__buf_append(out, "sh -c ", 6);
    rc = rc ? rc : dval__shell_quote(out, text.data);
    rc = rc ? rc : dval__buf_appendf(out, " </dev/null");
    dval__buf_free(&what);
    dval__buf_free(&env);
    dval__buf_free(&text);
    return rc;
}

/* cmd->owner is not used: the toolbox runs every command as the
 * sandbox's one user. */
int dt_command_start(void *ud, dval_call *c, const dval_command *cmd,
                     char *cmd_id)
{
    int rc = dval__command_check(c, cmd);
    if (rc)
        return rc;
    dt_exec *ex = ud;
    dval__buf url = {0}, text = {0};
    char *body = NULL;
    rc = exec_text(&text, cmd);
    if (!rc)
        rc = dt_json_exec(&body, text.data);
    rc = rc ? oom(c, rc)
            : tb_url(ex, c, &url, cmd->sandbox_id, "/process/session/%s/exec",
                     cmd->session_id, NULL);
    if (!rc) {
        dt_req rq = {.method = "POST", .url = url.data, .json = body};
        rc = dt_json_call(ex, c, &rq, dt_json_cmd_id, cmd_id);
    }
    dval__free(body);
    dval__buf_free(&text);
    dval__buf_free(&url);
    return rc;
}

int dt_command_status(void *ud, dval_call *c, const char *sb,
                      const char *sid, const char *cmd, int *finished,
                      int *exit_code)
{
    dt_exec *ex = ud;
    dval__buf url = {0};
    dt_cmd_status st = {0};
    int rc = tb_url(ex, c, &url, sb, "/process/session/%s/command/%s", sid,
                    cmd);
    if (!rc) {
        dt_req rq = {.method = "GET", .url = url.data};
        rc = dt_json_call(ex, c, &rq, dt_json_cmd_status, &st);
    }
    if (!rc) {
        *finished = st.finished;
        *exit_code = st.finished ? st.exit_code : 0;
    }
    dval__buf_free(&url);
    return rc;
}
