/* command_start of argv on the local executor: a program started without a
 * shell gets its words as they are, the environment it is given, its
 * directory entered as its own uid, and a shell's exit codes when it
 * cannot run; a validation whose run command is "exec WORD..." runs that
 * way, and one with shell syntax keeps the shell. */
#include "hostile.h"
#include "lt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_argv(lt *t, const char *cwd, const char *const *argv,
                    const char *const *env, lt_out *o)
{
    memset(o, 0, sizeof *o);
    return lt_run_argv(t, "sb", cwd, argv, env, o);
}

static const char *out_of(const lt_out *o)
{
    return o->out.data ? o->out.data : "";
}

static const char *err_of(const lt_out *o)
{
    return o->err.data ? o->err.data : "";
}

TEST(test_exec_argv__words_reach_the_program_unexpanded)
{
    lt t;
    lt_open(&t, "argv-words");
    lt_sandbox(&t, "sb", NULL);
    lt_out o;
    const char *argv[] = { "printf", "[%s][%s]\\n", "a  b", "$HOME;*'\"",
                           NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", argv, NULL, &o), 0);
    CHECK_STR(out_of(&o), "[a  b][$HOME;*'\"]\n");
    lt_out_free(&o);
    const char *abs[] = { "/bin/echo", "ok", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", abs, NULL, &o), 0);
    CHECK_STR(out_of(&o), "ok\n");
    lt_out_free(&o);
    const char *code[] = { "sh", "-c", "exit 7", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", code, NULL, &o), 7);
    lt_out_free(&o);
    lt_close(&t);
}

/* The environment is the one given (and PWD), with nothing a shell would
 * have left: no OLDPWD from a "cd" before the program. */
TEST(test_exec_argv__the_environment_and_directory_are_data)
{
    lt t;
    lt_open(&t, "argv-env");
    lt_sandbox(&t, "sb", NULL);
    lt_out o;
    const char *argv[] = { "sh", "-c", "echo \"$FOO|$PWD|$(pwd)|"
                           "${OLDPWD-unset}|$HOME\"", NULL };
    const char *env[] = { "FOO=x  y;$z", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", argv, env, &o), 0);
    CHECK_STR(out_of(&o), "x  y;$z|/sandbox/A|/sandbox/A|unset|/sandbox/A\n");
    lt_out_free(&o);
    /* the command's PATH finds the program, not the helper's */
    const char *echo[] = { "echo", "x", NULL };
    const char *nopath[] = { "PATH=/nonexistent", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", echo, nopath, &o), 127);
    CHECK_CONTAINS(err_of(&o), "echo: not found");
    lt_out_free(&o);
    lt_close(&t);
}

/* The uid comes from the directory, as for shell text, and the directory
 * is entered as that uid: a link planted by one validation's program
 * into another's directory is not followed with root's rights. */
TEST(test_exec_argv__the_directory_is_entered_as_the_commands_uid)
{
    lt t;
    lt_open(&t, "argv-uid");
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "sb", "/sandbox/A", "id -u", &o), 0);
    long a = atol(out_of(&o));
    lt_out_free(&o);
    memset(&o, 0, sizeof o);
    CHECK_INT(lt_run_in(&t, "sb", "/sandbox/B", "echo secret > s && "
                        "chmod 700 . && id -u", &o), 0);
    long b = atol(out_of(&o));
    lt_out_free(&o);
    CHECK(a > 0 && b > 0 && a != b);
    const char *id[] = { "id", "-u", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", id, NULL, &o), 0);
    CHECK_INT(atol(out_of(&o)), a);
    lt_out_free(&o);
    memset(&o, 0, sizeof o);
    CHECK_INT(lt_run_in(&t, "sb", "/sandbox/A", "ln -s /sandbox/B into",
                        &o), 0);
    lt_out_free(&o);
    const char *cat[] = { "cat", "s", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A/into", cat, NULL, &o), 2);
    CHECK_CONTAINS(err_of(&o), "cannot change to this directory");
    CHECK(strstr(out_of(&o), "secret") == NULL);
    lt_out_free(&o);
    CHECK_INT(run_argv(&t, "/sandbox/A/missing", id, NULL, &o), 2);
    lt_out_free(&o);
    lt_close(&t);
}

/* A shell's exit codes: 127 not found, 126 not runnable; a file without
 * "#!" is read by sh, as a shell's exec does. */
TEST(test_exec_argv__a_program_that_cannot_run_exits_as_in_a_shell)
{
    lt t;
    lt_open(&t, "argv-codes");
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "sb", "/sandbox/A", "printf 'echo \"hi $1\"\\n' "
                        "> s && chmod 644 s", &o), 0);
    lt_out_free(&o);
    const char *missing[] = { "no-such-program", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", missing, NULL, &o), 127);
    CHECK_CONTAINS(err_of(&o), "no-such-program: not found");
    lt_out_free(&o);
    const char *script[] = { "./s", "there", NULL };
    CHECK_INT(run_argv(&t, "/sandbox/A", script, NULL, &o), 126);
    lt_out_free(&o);
    memset(&o, 0, sizeof o);
    CHECK_INT(lt_run_in(&t, "sb", "/sandbox/A", "chmod 755 s", &o), 0);
    lt_out_free(&o);
    CHECK_INT(run_argv(&t, "/sandbox/A", script, NULL, &o), 0);
    CHECK_STR(out_of(&o), "hi there\n");
    lt_out_free(&o);
    lt_close(&t);
}

TEST(test_exec_argv__bad_arguments_are_refused)
{
    lt t;
    lt_open(&t, "argv-bad");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata;
    char cmd[DVAL_ID_MAX];
    CHECK_INT(t.ex.session_create(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    const char *none[] = { NULL };
    dval_command d = { .struct_size = sizeof d, .sandbox_id = "sb",
                       .session_id = "s", .argv = none };
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(t.call.errmsg, "no program");
    static const char *many[400];
    for (int i = 0; i < 399; i++)
        many[i] = "x";
    d.argv = many;
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(t.call.errmsg, "at most 64");
    /* words within bounds, an environment beyond the helper's room */
    static const char *env[200];
    for (int i = 0; i < 199; i++)
        env[i] = "V=1";
    d.argv = many + 398;
    d.env = env;
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(t.call.errmsg, "too many arguments");
    d.env = NULL;
    d.text = "true";
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), &d, cmd), DVAL_EINVAL);
    CHECK_CONTAINS(t.call.errmsg, "both are set");
    d.text = NULL;
    d.session_id = "nosuch";
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), &d, cmd), DVAL_ENOTFOUND);
    CHECK_INT(t.ex.session_delete(ud, lt_call(&t), "sb", "s"), DVAL_OK);
    lt_close(&t);
}

/* What the program sees, and its parent: which way it was started. */
static const char *SEES = "echo \"$0|$PWD|${OLDPWD-unset}|$DVAL_THREAD_ID|"
                          "$DVAL_WORKDIR|$DVAL_RESULTS_DIR\"\n"
                          "echo \"parent $(cat /proc/$PPID/comm 2>/dev/null)\"\n";

static char *seen_by(hx *h, const char *run_command)
{
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run_command(h, "argv-sb", "argv-t1", SEES, run_command,
                             NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    return out;
}

TEST(test_exec_argv__a_validation_runs_exec_words_without_a_shell)
{
    hx h;
    hx_open(&h, "argv-validate");
    char *direct = seen_by(&h, "exec sh run.sh");
    char *text = seen_by(&h, "sh run.sh; exit $?");
    /* the variables and the directory are data both ways: the same seen,
     * and no shell's cd before the program (no OLDPWD) */
    const char *sees = "run.sh|/sandbox/argv-t1|unset|argv-t1|"
                       "/sandbox/argv-t1|/sandbox/argv-t1/results\n";
    char want[300];
    /* started from outside the sandbox's pid namespace: no parent seen */
    snprintf(want, sizeof want, "%sparent \n", sees);
    CHECK_STR(direct, want);
    /* shell syntax keeps the shell, the program's parent */
    snprintf(want, sizeof want, "%sparent sh\n", sees);
    CHECK_STR(text, want);
    free(direct);
    free(text);
    hx_close(&h);
}
