/* dval_validate's exec phase: the run command, with the validation's
 * environment, in its working directory, output streamed as events. */
#include "validate.h"
#include "workdir.h"

static int build_command(dval__vctx *v, dval__buf *cmd)
{
    const char *run = v->req.run_command ? v->req.run_command
                                         : v->prof->run_command;
    int rc = dval__buf_appendf(cmd, "export DVAL_THREAD_ID=");
    rc = rc ? rc : dval__shell_quote(cmd, v->thread_id);
    rc = rc ? rc : dval__buf_appendf(cmd, " DVAL_WORKDIR=");
    rc = rc ? rc : dval__shell_quote(cmd, v->workdir);
    rc = rc ? rc : dval__buf_appendf(cmd, " DVAL_RESULTS_DIR=");
    rc = rc ? rc : dval__shell_quote(cmd, v->resdir);
    rc = rc ? rc : dval__buf_appendf(cmd, "; cd \"$DVAL_WORKDIR\" && ");
    /* An executor that lists from outside the session (the local one from
     * the host, daytona through the toolbox) needs no trailer: no command
     * in the sandbox, which the program may have replaced, takes part. Its
     * text runs in a shell of its own (sh -c), so the run command ends it:
     * in a group (the newlines: a run command may end in a comment), not a
     * subshell, which would fork once more. (Debian's dash still forks
     * for the group's last program: it execs in place only after an
     * explicit `exec`, which the run command's text may not allow.) */
    if (!rc && dval__sandbox_can_list(v->sb))
        return dval__buf_appendf(cmd, "{\n%s\n}", run);
    /* For an executor without file_list (a host's own) the subshell keeps
     * `exit` or `cd` in a run command from touching the session shell, and
     * the trailer lists the results into a file in the same exec: a
     * separate listing exec would cost a round trip of its own. */
    rc = rc ? rc : dval__buf_appendf(cmd, "(%s); dval_rc=$?; (cd "
                                     "\"$DVAL_RESULTS_DIR\" 2>/dev/null && "
                                     "find . -type f -name '*.json' > "
                                     "\"$DVAL_WORKDIR/" DVAL__LISTING "\") "
                                     "</dev/null >/dev/null 2>&1; "
                                     "exit $dval_rc", run);
    return rc;
}

int dval__validate_exec(dval__vctx *v)
{
    dval__buf cmd = {0};
    int rc = build_command(v, &cmd);
    if (rc) {
        dval__buf_free(&cmd);
        return dval__validate_fail(v, rc, "exec", NULL);
    }
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    eo.cwd = v->workdir;
    eo.timeout_ms = v->req.timeout_ms;
    int code = -1;
    v->in_exec = 1;
    rc = dval_session_exec(v->sess, cmd.data, &eo, dval__validate_on_output, v,
                           &code);
    dval__buf_free(&cmd);
    if (rc)
        return dval__validate_fail(v, rc, "exec",
                                   dval_session_errmsg(v->sess));
    v->ran = 1;
    v->exit_code = code;
    return DVAL_OK;
}
