/* dval_exec_options.env on the daytona executor (the emulator runs the
 * commands in real shells): the variables go in front of the command as
 * an export with every value single-quoted, so a value that is shell
 * syntax reaches the command verbatim and is never run. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_emulator.h"

typedef struct out {
    char text[4096];
    size_t len;
} out;

static int collect(int stream, const char *channel, const char *data,
                   size_t len, void *ud)
{
    (void)channel;
    out *o = ud;
    if (stream == DVAL_STDOUT && o->len + len < sizeof o->text) {
        memcpy(o->text + o->len, data, len);
        o->len += len;
        o->text[o->len] = 0;
    }
    return 0;
}

static int run_env(dval_session *s, const char *cmd, const char *const *env,
                   out *o)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.env = env;
    int code = -1;
    memset(o, 0, sizeof *o);
    CHECK_INT(dval_session_exec(s, cmd, &eo, collect, o, &code), DVAL_OK);
    return code;
}

TEST(exec_env__values_reach_the_command_verbatim)
{
    emu e;
    emu_start(&e);
    CHECK_INT(emu_post(&e, "/_emu/config", "{\"transition_ms\":10}"), 200);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &so), DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    const char *env[] = {
        "A=it's $(touch /tmp/dval-env-emu-pwned) `id` \"q\"\nline two\\",
        "EMPTY=", NULL };
    unlink("/tmp/dval-env-emu-pwned");
    out o;
    /* a command that starts with a comment still runs its next line */
    CHECK_INT(run_env(s, "# first a comment\nprintf '%s|%s\\n' \"$A\" "
                      "\"${EMPTY-unset}\"", env, &o), 0);
    CHECK_STR(o.text, "it's $(touch /tmp/dval-env-emu-pwned) `id` \"q\"\n"
                      "line two\\|\n");
    CHECK(access("/tmp/dval-env-emu-pwned", F_OK) != 0);
    /* the next command of the session does not see them */
    CHECK_INT(run_env(s, "printf '%s\\n' \"${A-unset}\"", NULL, &o), 0);
    CHECK_STR(o.text, "unset\n");
    dval_session_close(s);
    dval_session_free(s);
    dval_sandbox_free(sb);
    dval_client_free(c);
    emu_stop(&e);
}
