/* dval_exec_options.env on the local executor: the variables reach the
 * command as data (its program's environment), so a value that is shell
 * syntax is never run, in any directory the command is given. */
#include "hostile.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int run_env(dval_session *s, const char *cwd, const char *cmd,
                   const char *const *env, hx_out *o)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.cwd = cwd;
    eo.env = env;
    int code = -1;
    memset(o, 0, sizeof *o);
    CHECK_INT(dval_session_exec(s, cmd, &eo, hx_sink, o, &code), DVAL_OK);
    return code;
}

TEST(test_exec_env__values_are_data_never_shell_text)
{
    hx h;
    hx_open(&h, "exec-env");
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h.client, &so), DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    const char *env[] = {
        "A=it's $(touch /tmp/dval-env-pwned) `id` \"q\"\nline two",
        "EMPTY=", "HOME=/sandbox/mine", NULL };
    unlink("/tmp/dval-env-pwned");
    hx_out o;
    const char *cmd = "printf '%s|%s|%s' \"$A\" \"${EMPTY-unset}\" \"$HOME\"";
    CHECK_INT(run_env(s, NULL, cmd, env, &o), 0);
    CHECK_STR(o.text, "it's $(touch /tmp/dval-env-pwned) `id` \"q\"\n"
                      "line two||/sandbox/mine");
    /* in a validation's directory too (the same data; the command is
     * still nobody's validation, so the operator's) */
    CHECK_INT(dval_sandbox_mkdir(sb, "/sandbox/t1"), DVAL_OK);
    CHECK_INT(run_env(s, "/sandbox/t1", cmd, env, &o), 0);
    CHECK(strncmp(o.text, "it's $(touch", 12) == 0);
    CHECK(access("/tmp/dval-env-pwned", F_OK) != 0);
    /* and nothing of it is left for the next command */
    CHECK_INT(run_env(s, NULL, "printf '%s' \"${A-unset}\"", NULL, &o), 0);
    CHECK_STR(o.text, "unset");
    /* a bad entry never starts anything */
    const char *bad[] = { "A B=1", NULL };
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.env = bad;
    CHECK_INT(dval_session_exec(s, "true", &eo, NULL, NULL, NULL),
              DVAL_EINVAL);
    CHECK_CONTAINS(dval_session_errmsg(s), "not NAME=value");
    dval_session_close(s);
    dval_session_free(s);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}
